//! What the handlers read from requests: a JSON body, the rules, a clock, a seat, a name,
//! the seat token.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap, StatusCode};
use mancala_core::rules::RulesSpec;
use mancala_core::{Msg, Rules, Side};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::clock::TimeControl;
use crate::ids::random_hex;
use crate::response::{ApiError, ApiResult};
use crate::view::parse_side;

/// Parses a JSON body, saying what is wrong with it.
pub(crate) fn parse_json<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> ApiResult<T> {
    let bytes = body.map_err(|e| {
        let status = e.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(status, "request body too large")
        } else {
            ApiError::new(status, e.body_text())
        }
    })?;
    if bytes.is_empty() {
        return Err(ApiError::bad("the request needs a JSON body"));
    }
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad(format!("malformed JSON: {e}")))?;
    // Every request is an object: serde would also read a struct from an array, by position.
    if !v.is_object() {
        return Err(ApiError::bad("the request body is a JSON object `{...}`"));
    }
    // The error names the field it is in, where there is one.
    serde_path_to_error::deserialize(v).map_err(|e| {
        let field = e.path().to_string();
        let error = e.into_inner();
        ApiError::bad(if field == "." {
            format!("malformed JSON: {error}")
        } else {
            format!("malformed JSON: field {field}: {error}")
        })
    })
}

/// The token of `Authorization: Bearer TOKEN`, if the request has one.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let t = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))?;
    Some(t.trim().to_string())
}

/// The rules from a string (`kalah,seeds=4`) or a JSON object, with `options` applied: each
/// read by the rules' option registry from its text (a JSON number or boolean is taken as its
/// text), overriding the option's value in the rules given.
pub(crate) fn rules_from(
    v: Option<&Value>,
    options: Option<&HashMap<String, Value>>,
) -> ApiResult<Rules> {
    let bad = ApiError::from;
    let base: Rules = match v {
        None | Some(Value::Null) => Rules::default(),
        Some(Value::String(s)) => s.parse().map_err(bad)?,
        Some(obj @ Value::Object(_)) => {
            serde_json::from_value(obj.clone()).map_err(|e| ApiError::bad(format!("rules: {e}")))?
        }
        Some(_) => {
            return Err(ApiError::bad(
                "rules must be a string such as \"kalah,seeds=4\" or an object",
            ))
        }
    };
    let Some(opts) = options else {
        return Ok(base);
    };
    let mut spec = RulesSpec::from(base);
    let mut keys: Vec<&String> = opts.keys().collect();
    keys.sort();
    for k in keys {
        let v = match &opts[k] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                return Err(ApiError::bad(format!(
                    "option `{k}`: give a string, number or boolean"
                )))
            }
        };
        spec.set(k, &v).map_err(bad)?;
    }
    Rules::try_from(spec).map_err(bad)
}

/// A time control from a request, or `None`.
pub(crate) fn clock_from(c: Option<&str>) -> ApiResult<Option<TimeControl>> {
    match c.map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => t.parse().map(Some).map_err(ApiError::from),
    }
}

/// A display name as given: trimmed, at most 40 characters and no control characters;
/// `None` where none (or only spaces) was given.
pub(crate) fn clean_name(n: Option<String>) -> ApiResult<Option<String>> {
    match n {
        None => Ok(None),
        Some(n) => {
            let n = n.trim().to_string();
            if n.chars().count() > 40 || n.chars().any(|c| c.is_control()) {
                return Err(ApiError::said(
                    StatusCode::BAD_REQUEST,
                    Msg::new("server.name"),
                ));
            }
            Ok((!n.is_empty()).then_some(n))
        }
    }
}

/// The seat a person asks for: `"south"` (the default), `"north"` or `"random"`.
pub(crate) fn seat_choice(side: Option<&str>) -> ApiResult<Side> {
    match side.unwrap_or("south") {
        "random" => Ok(if random_hex(1).as_bytes()[0].is_multiple_of(2) {
            Side::South
        } else {
            Side::North
        }),
        s => parse_side(s).ok_or_else(|| {
            ApiError::bad(format!(
                "side must be \"south\", \"north\" or \"random\", got \"{s}\""
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value, options: Value) -> Result<String, String> {
        let options: Option<HashMap<String, Value>> = serde_json::from_value(options).unwrap();
        rules_from(Some(&v), options.as_ref())
            .map(|r| r.to_string())
            .map_err(|e| e.message)
    }

    /// `options` are read by the rules' registry and override the rules given.
    #[test]
    fn options_go_through_the_registry() {
        assert_eq!(
            rules(
                json!("kalah"),
                json!({"seeds": 4, "stop-when-decided": true})
            ),
            Ok("kalah,seeds=4,stop-when-decided=true".into())
        );
        assert_eq!(
            rules(
                json!({"preset": "kalah", "seeds": 4}),
                json!({"seeds": "5"})
            ),
            Ok("kalah,seeds=5".into())
        );
        assert_eq!(
            rules(json!("kalah,seeds=4"), json!(null)),
            Ok("kalah,seeds=4".into())
        );
        assert_eq!(
            rules(json!("kauri"), json!({"capture": "empty"})),
            Err("rules: option `capture` does not apply to `kauri`".into())
        );
        assert_eq!(
            rules(json!("kalah"), json!({"colour": "red"})).unwrap_err(),
            "rules: unknown option `colour` (options: pits, seeds, capture, end, leftovers, stop-when-decided, first-move-extra-turn, pie, stage, grand-slam, repetition, decided-leftovers)"
        );
        assert_eq!(
            rules(json!("kalah"), json!({"seeds": [4]})),
            Err("option `seeds`: give a string, number or boolean".into())
        );
        assert_eq!(
            rules(json!("kalah"), json!({"seeds": 300})),
            Err("rules: seeds must be 1 to 20, got 300".into())
        );
    }
}
