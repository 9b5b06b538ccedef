//! Request-metadata header values for the 2026-07-28 Streamable HTTP shape: `Mcp-Name` and
//! `Mcp-Param-*` values, sentinel-encoded (`=?base64?…?=`) only when a plain value would be
//! unsafe, and the `x-mcp-header` lookup in a tool's input schema.

use base64::Engine;
use serde_json::Value;

/// True when `v` can be sent as a plain header value: visible ASCII, space or tab only, no
/// leading/trailing whitespace, and not itself shaped like a sentinel.
pub fn is_plain(v: &str) -> bool {
    let chars_ok = v.bytes().all(|b| (0x20..=0x7e).contains(&b) || b == b'\t');
    let trimmed = v.trim_matches([' ', '\t']) == v;
    let sentinel_like = v.starts_with("=?base64?") && v.ends_with("?=");
    chars_ok && trimmed && !sentinel_like
}

/// The header value for `v`: as is when plain, else `=?base64?<standard base64>?=`.
pub fn encode_value(v: &str) -> String {
    if is_plain(v) {
        v.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(v.as_bytes())
        )
    }
}

/// Why a sentinel-encoded header value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the =?base64?…?= value is not valid standard Base64 with padding")]
    Base64,
    #[error("the =?base64?…?= value does not decode to UTF-8")]
    Utf8,
}

/// Reads a header value as the 2026-07-28 transport defines it: `=?base64?<standard
/// Base64>?=` is decoded (strictly: standard alphabet, padding required), anything else is
/// the value itself. A value missing the exact lower-case markers is a literal.
pub fn decode_value(v: &str) -> Result<String, DecodeError> {
    let Some(inner) = v
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(v.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .map_err(|_| DecodeError::Base64)?;
    String::from_utf8(bytes).map_err(|_| DecodeError::Utf8)
}

/// `Mcp-Param-{Name}` headers for the arguments of a tools/call whose input schema marks
/// properties with `"x-mcp-header": "{Name}"`. Only top-level `properties` (and nested
/// `properties` chains) are searched; null or absent arguments produce no header.
pub fn param_headers(arguments: &Value, input_schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    collect(arguments, input_schema, &mut out);
    out
}

fn collect(args: &Value, schema: &Value, out: &mut Vec<(String, String)>) {
    let (Some(props), Some(args)) = (
        schema.get("properties").and_then(Value::as_object),
        args.as_object(),
    ) else {
        return;
    };
    for (key, prop) in props {
        let Some(value) = args.get(key) else { continue };
        if let Some(name) = prop.get("x-mcp-header").and_then(Value::as_str) {
            let text = match value {
                Value::String(s) => Some(encode_value(s)),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            };
            if let Some(text) = text {
                out.push((format!("Mcp-Param-{name}"), text));
            }
        } else if value.is_object() {
            collect(value, prop, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_values_stay_plain() {
        assert_eq!(encode_value("get_weather"), "get_weather");
        assert_eq!(encode_value("file:///a b"), "file:///a b");
    }

    #[test]
    fn unsafe_values_are_sentinel_encoded() {
        assert_eq!(encode_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(encode_value(" padded"), "=?base64?IHBhZGRlZA==?=");
        assert_eq!(encode_value("a\nb"), "=?base64?YQpi?=");
        assert!(encode_value("=?base64?SGk=?=").starts_with("=?base64?PT9i"));
    }

    #[test]
    fn sentinels_decode_strictly() {
        assert_eq!(decode_value("=?base64?aMOpbGxv?=").as_deref(), Ok("héllo"));
        assert_eq!(decode_value("plain").as_deref(), Ok("plain"));
        assert_eq!(
            decode_value("=?base64?SGVsbG8").as_deref(),
            Ok("=?base64?SGVsbG8")
        );
        assert_eq!(decode_value("=?base64?SGVsbG8?="), Err(DecodeError::Base64));
        assert_eq!(
            decode_value("=?base64?SGVs!!!bG8=?="),
            Err(DecodeError::Base64)
        );
        assert_eq!(decode_value("=?base64?/w==?="), Err(DecodeError::Utf8));
    }

    #[test]
    fn param_headers_follow_x_mcp_header() {
        let schema = json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "n":{"type":"integer","x-mcp-header":"N"},
            "other":{"type":"string"},
            "absent":{"type":"string","x-mcp-header":"Absent"}}});
        let args = json!({"region":"eu west","n":3,"other":"x"});
        let mut h = param_headers(&args, &schema);
        h.sort();
        assert_eq!(
            h,
            vec![
                ("Mcp-Param-N".to_string(), "3".to_string()),
                ("Mcp-Param-Region".to_string(), "eu west".to_string())
            ]
        );
    }
}
