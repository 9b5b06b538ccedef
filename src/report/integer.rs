//! The one rule for "is this JSON value an integer", as the MCP schema's dialect (JSON Schema
//! 2020-12, §6.1.1 of its validation vocabulary) reads `"type": "integer"`: any number with a
//! zero fractional part, so `100.0` is an integer just as `100` is. A judge that asks
//! `is_i64()` instead would fail a value the official schema check passes.

use serde_json::Value;

/// Whether `v` is an integer in JSON Schema 2020-12's sense: a number with no fractional part.
pub fn is_integer(v: &Value) -> bool {
    v.is_i64()
        || v.is_u64()
        || v.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// [`is_integer`] and not below zero.
pub fn is_non_negative_integer(v: &Value) -> bool {
    is_integer(v) && v.as_f64().is_some_and(|f| f >= 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_zero_fraction_is_an_integer() {
        for v in [
            json!(100),
            json!(100.0),
            json!(-3),
            json!(0.0),
            json!(u64::MAX),
        ] {
            assert!(is_integer(&v), "{v}");
        }
        for v in [json!(100.5), json!("100"), json!(null), json!(true)] {
            assert!(!is_integer(&v), "{v}");
        }
        assert!(is_non_negative_integer(&json!(5.0)));
        assert!(!is_non_negative_integer(&json!(-5.0)));
    }
}
