//! The NumPy arrays of `mancala.VecGame`: the actions it takes, and the arrays of an earlier
//! result that a step writes into (their shapes, dtypes and borrows checked).

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// `actions` as a contiguous 1-d array of `int64`: an `int64` array as it is (copied where
/// strided), any other integer array or sequence converted; floats, booleans and integers
/// out of `int64`'s range are refused, not cast.
pub(crate) fn int_actions<'py>(
    py: Python<'py>,
    actions: &Bound<'py, PyAny>,
) -> PyResult<PyReadonlyArray1<'py, i64>> {
    if let Ok(a) = actions.extract::<PyReadonlyArray1<i64>>() {
        if a.as_slice().is_ok() {
            return Ok(a);
        }
    }
    let np = py.import("numpy")?;
    let a = np.call_method1("asarray", (actions,))?;
    let ndim: usize = a.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "actions: give a 1-d array of pits, one a game (got {ndim} dimensions)"
        )));
    }
    let dtype = a.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let size: usize = a.getattr("size")?.extract()?;
    if size > 0 && kind != "i" && kind != "u" {
        return Err(PyValueError::new_err(format!(
            "actions: give integer pits (own pits, 0-based), not an array of {}",
            dtype.str()?
        )));
    }
    let wide = np.call_method1("ascontiguousarray", (&a, "int64"))?;
    // An unsigned value past int64's range wraps in the conversion: refuse it.
    let same: bool = np.call_method1("array_equal", (&wide, &a))?.extract()?;
    if !same {
        return Err(PyValueError::new_err(
            "actions: a pit is out of range (give own pits, 0-based)",
        ));
    }
    wide.extract()
        .map_err(|_| PyValueError::new_err("actions: give a 1-d array of pits"))
}

/// `logits` as one float32 a pit and game (`(n, m)`, row-major), copied while the GIL is
/// held: a float32 array as it is; any other real array, sequence or masked array (its masked
/// entries -inf) read as float64 and, where a row's largest legal logit is finite, shifted by
/// it before it is rounded to float32 (the softmax is the same, and large logits keep their
/// differences instead of overflowing or rounding together); `legal` gives each game's legal
/// pits (`n * m`). Other shapes and non-real dtypes are refused.
pub(crate) fn float_logits<'py>(
    py: Python<'py>,
    logits: &Bound<'py, PyAny>,
    n: usize,
    m: usize,
    legal: impl FnOnce() -> Vec<bool>,
) -> PyResult<Vec<f32>> {
    let wrong = |got: &str| {
        PyValueError::new_err(format!(
            "logits: give a float array of shape ({n}, {m}), one logit a pit and game (got {got})"
        ))
    };
    if let Ok(a) = logits.extract::<PyReadonlyArray2<f32>>() {
        if a.shape() != [n, m] {
            return Err(wrong(&format!("shape {:?}", a.shape())));
        }
        return Ok(a.as_array().iter().copied().collect());
    }
    let np = py.import("numpy")?;
    let a = if np
        .getattr("ma")?
        .call_method1("isMaskedArray", (logits,))?
        .extract()?
    {
        let wide = logits.call_method1("astype", ("float64",))?;
        np.getattr("ma")?
            .call_method1("filled", (wide, f64::NEG_INFINITY))?
    } else {
        np.call_method1("asarray", (logits,))?
    };
    let dtype = a.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        return Err(wrong(&format!("dtype {}", dtype.str()?)));
    }
    if shape != [n, m] {
        return Err(wrong(&format!("shape {shape:?}")));
    }
    let a: PyReadonlyArray2<f64> = np
        .call_method1("ascontiguousarray", (&a, "float64"))?
        .extract()?;
    let a = a.as_slice()?;
    let legal = legal();
    let mut out = Vec::with_capacity(n * m);
    for (row, on) in a.chunks_exact(m).zip(legal.chunks_exact(m)) {
        let top = row
            .iter()
            .zip(on)
            .filter(|(_, &on)| on)
            .fold(f64::NEG_INFINITY, |t, (&x, _)| if x > t { x } else { t });
        let shift = if top.is_finite() { top } else { 0.0 };
        out.extend(row.iter().map(|&x| (x - shift) as f32));
    }
    Ok(out)
}

/// `out` (when given) as the arrays `T` of an earlier call's result, or a `TypeError` that
/// says which arrays and dtypes it takes (`want`).
pub(crate) fn out_arrays<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    out: Option<&Bound<'py, PyAny>>,
    want: &str,
) -> PyResult<Option<T>> {
    out.map(|o| {
        o.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "out: give the arrays of an earlier call's result ({want})"
            ))
        })
    })
    .transpose()
}

/// The arrays a step returns and may write into, in words.
macro_rules! step_arrays {
    () => {
        "float32 observations (n, observation_size), float32 rewards (n,), bool dones (n,), bool masks (n, pits)"
    };
}

/// What [`VecGame::step`](crate::VecGame::step) returns and may write into: observations,
/// rewards, dones, masks.
pub(crate) const STEP_ARRAYS: &str = step_arrays!();

/// What [`VecGame::step_random`](crate::VecGame::step_random) returns and may write into:
/// the actions, then [`STEP_ARRAYS`].
pub(crate) const RANDOM_STEP_ARRAYS: &str = concat!("an int64 array of n, then ", step_arrays!());

/// What [`VecGame::step`](crate::VecGame::step) returns and may write into: observations,
/// rewards, dones, masks.
pub(crate) type Step<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<bool>>,
);

/// What [`VecGame::step_random`](crate::VecGame::step_random) returns and may write into:
/// the actions, then a [`Step`].
pub(crate) type RandomStep<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<bool>>,
);

/// `arr` as a mutable slice of the shape `want`: a `ValueError` naming `what` for another
/// shape, an array that is not C-contiguous, or one borrowed elsewhere (the same array given
/// twice).
pub(crate) fn out_slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &'a mut numpy::PyReadwriteArray<'_, T, D>,
    want: &[usize],
    what: &str,
) -> PyResult<&'a mut [T]> {
    if arr.shape() != want {
        return Err(PyValueError::new_err(format!(
            "out: {what} has shape {:?}, not {want:?}",
            arr.shape()
        )));
    }
    // `as_slice_mut` takes a Fortran-ordered array too, whose rows are not a game's.
    let not_c = || PyValueError::new_err(format!("out: {what} is not C-contiguous"));
    if !arr.is_c_contiguous() {
        return Err(not_c());
    }
    arr.as_slice_mut().map_err(|_| not_c())
}

/// A writable borrow of `arr`, or a `ValueError` naming `what` (read-only, or given twice).
pub(crate) fn borrow_out<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &Bound<'py, numpy::PyArray<T, D>>,
    what: &str,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    arr.try_readwrite().map_err(|e| {
        PyValueError::new_err(format!(
            "out: {what} cannot be written ({e}; give each array once, writeable)"
        ))
    })
}
