#!/usr/bin/env bash
# Builds the Python package `mancala` (crates/mancala-py) into a virtual environment under
# the cargo target directory (target/, or CARGO_TARGET_DIR) and runs its pytest suite: rules
# against the `mancala` command, the API, the engine's values, the vector environments, and
# the Gymnasium, PettingZoo and (where open-spiel installs) OpenSpiel adapters.
#
# The package is built as the wheel users install: a manylinux2014 wheel (glibc 2.17 and
# later) built with `maturin build --release --compatibility manylinux2014 --zig`, the zig
# linker from the `ziglang` package. The wheel is installed into a fresh virtual environment,
# which must import it and play a game, then into the test environment. Where ziglang does
# not install, or with MANCALA_PY_BUILD=develop (a quicker debug build while working on the
# Rust side), `maturin develop` builds the package for this machine instead, saying so.
#
# Needs Python 3.9 or later with its `venv` module (PYTHON names the interpreter; default
# python3) and access to PyPI: pip installs maturin, ziglang, numpy, gymnasium, pettingzoo and
# pytest, and tries open-spiel==2.0.2 (its tests are skipped, saying so, where it does not
# install). Without a Python 3.9+ with venv the script says so and stops with an error.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys, venv; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
  echo "error: the Python tests need Python 3.9 or later with its venv module (\`$PY\`; set PYTHON)" >&2
  exit 1
fi
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
VENV="$TARGET/python-venv"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
echo "== Python test environment ($VENV)"
"${PIP[@]}" install "maturin>=1.9.4,<2" numpy gymnasium pettingzoo pytest
if ! "$VENV/bin/python" -c 'import pyspiel' 2>/dev/null; then
  timeout 600 "${PIP[@]}" install open-spiel==2.0.2 \
    || echo "note: open-spiel==2.0.2 did not install here: the OpenSpiel tests will be skipped"
fi

echo "== mancala (Python package): build"
# The `mancala` command the tests check the package against: MANCALA_BIN where set
# (scripts/test.sh passes the one its tests ran), else the debug build.
MANCALA_BIN="${MANCALA_BIN:-}"
if [ -z "$MANCALA_BIN" ]; then
  cargo build --locked --bin mancala
  MANCALA_BIN="$TARGET/debug/mancala"
fi
BUILD=${MANCALA_PY_BUILD:-wheel}
if [ "$BUILD" = wheel ] && ! "${PIP[@]}" install ziglang; then
  echo "note: ziglang did not install here: a development build instead of the manylinux2014 wheel"
  BUILD=develop
fi
if [ "$BUILD" = wheel ]; then
  WHEELS="$TARGET/wheels"
  rm -f "$WHEELS"/mancala_rs-*.whl
  # maturin finds zig through the environment's `python -m ziglang`.
  (cd crates/mancala-py && PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" build --locked --release \
    --compatibility manylinux2014 --zig -o "$WHEELS")
  WHEEL=$(ls "$WHEELS"/mancala_rs-*manylinux2014*.whl)
  echo "== mancala (Python package): $WHEEL in a fresh virtual environment"
  FRESH="$TARGET/python-wheel-venv"
  rm -rf "$FRESH"
  "$PY" -m venv "$FRESH"
  "$FRESH/bin/python" -m pip --disable-pip-version-check -q install "$WHEEL"
  (cd "$FRESH" && "$FRESH/bin/python" -c '
import mancala
g = mancala.Game("kalah,seeds=4")
g.play(2)
assert g.position == "kalah,seeds=4/4-4-0-5-5-5/1/4-4-4-4-4-4/0/s", g.position
assert mancala.VecGame("oware", n=4).observations().shape == (4, 14)
print("the wheel imports and plays:", g.position)
')
  "${PIP[@]}" install --force-reinstall --no-deps "$WHEEL"
else
  echo "note: a development build (maturin develop), not the manylinux2014 wheel"
  # The rules and engine crates are optimised even there, see Cargo.toml.
  (cd crates/mancala-py && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" develop --locked -q)
fi

echo "== mancala (Python package): pytest"
MANCALA_BIN="$MANCALA_BIN" "$VENV/bin/python" -m pytest -q -p no:cacheprovider \
  crates/mancala-py/tests "$@"
