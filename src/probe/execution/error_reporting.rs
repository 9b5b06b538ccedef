//! `execution.error_reporting`: tool failures reported as failures. A result whose payload
//! says the call failed (`{"success": false, "error": "…"}`) while `isError` is false or
//! absent reads as a success to an agent; the schema asks that tool errors be reported in
//! the result with `isError: true`. A heuristic over what the payload says, so a warning at
//! most, and conservative: only a top-level field of a JSON object (the structured content,
//! or a text block that is a whole JSON object) counts, never a word in prose.

use serde_json::Value;

use super::ERROR_REPORTING;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;

/// The field of a result's payload that says the call failed, quoted (`"success": false`),
/// or `None` when the result says nothing of the kind or is already an isError result.
pub fn failure_field(result: &Value) -> Option<String> {
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let structured = result.get("structuredContent").into_iter();
    let texts = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .filter_map(|t| serde_json::from_str::<Value>(t.trim()).ok());
    structured
        .cloned()
        .chain(texts)
        .find_map(|v| says_failure(&v))
}

/// The quoted field of one JSON object that says it failed. A payload that also says it
/// succeeded (`success: true`, `ok: true`) is taken at its word.
fn says_failure(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    let flag = |key: &str| o.get(key).and_then(Value::as_bool);
    if flag("success") == Some(true) || flag("ok") == Some(true) {
        return None;
    }
    let quote = |key: &str| format!("\"{key}\": {}", short(&o[key]));
    for key in ["success", "ok"] {
        if flag(key) == Some(false) {
            let why = error_text(o)
                .map(|e| format!(", \"error\": {e}"))
                .unwrap_or_default();
            return Some(format!("{}{why}", quote(key)));
        }
    }
    if let Some(s) = o.get("status").and_then(Value::as_str)
        && matches!(
            s.to_ascii_lowercase().as_str(),
            "error" | "failed" | "failure" | "fail"
        )
    {
        return Some(quote("status"));
    }
    error_text(o).map(|e| format!("\"error\": {e}"))
}

/// A non-empty `error` member: a string, or an object or array with something in it.
fn error_text(o: &serde_json::Map<String, Value>) -> Option<String> {
    let e = o.get("error")?;
    let present = match e {
        Value::String(s) => !s.trim().is_empty(),
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    present.then(|| short(e))
}

/// A JSON value as text, cut to 120 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

/// `execution.error_reporting` over the tool calls of one wire (name, reply).
pub fn error_reporting(calls: &[(String, Option<Reply>)]) -> FindingBuilder {
    let mut dressed: Vec<(String, String, Vec<Seq>)> = Vec::new();
    let mut judged: Vec<Seq> = Vec::new();
    for (name, reply) in calls {
        let Some(reply) = reply else { continue };
        let Some(result) = reply.result() else {
            continue;
        };
        judged.extend(reply.evidence.iter().copied());
        if let Some(field) = failure_field(result) {
            dressed.push((name.clone(), field, reply.evidence.clone()));
        }
    }
    if judged.is_empty() {
        return ERROR_REPORTING.skip(
            SkipReason::NotApplicable,
            "no tool call returned a result to inspect",
        );
    }
    if dressed.is_empty() {
        return ERROR_REPORTING
            .pass(format!(
                "{} tool result(s): none says it failed while isError is false or absent",
                calls.iter().filter(|(_, r)| r.is_some()).count()
            ))
            .evidence(judged);
    }
    let listed: Vec<String> = dressed
        .iter()
        .map(|(name, field, _)| format!("`{name}` ({field})"))
        .collect();
    ERROR_REPORTING
        .warn(format!(
            "{} tool call(s) answered with a failure in the payload but without isError: true, so an agent reads success: {}",
            dressed.len(),
            listed.join("; ")
        ))
        .evidence(dressed.into_iter().flat_map(|(_, _, ev)| ev))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &str) -> Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    #[test]
    fn failure_payloads_are_found() {
        assert_eq!(
            failure_field(&text(r#"{"success": false, "error": "file not found"}"#)).as_deref(),
            Some(r#""success": false, "error": "file not found""#)
        );
        assert!(failure_field(&text(r#"{"ok": false}"#)).is_some());
        assert!(failure_field(&text(r#"{"status": "error", "message": "x"}"#)).is_some());
        assert!(failure_field(&text(r#"{"error": "upstream refused"}"#)).is_some());
        let structured =
            json!({"content": [], "structuredContent": {"success": false}, "isError": false});
        assert!(failure_field(&structured).is_some());
    }

    /// Conservative: prose that mentions an error, an empty or null error member, a payload
    /// that says it succeeded, or a result already marked isError are not flagged.
    #[test]
    fn ordinary_results_are_not_flagged() {
        for t in [
            "Error: none found. 3 warnings, 0 errors.",
            r#"{"errors": 0, "log": "error handling enabled"}"#,
            r#"{"error": null, "value": 3}"#,
            r#"{"error": "", "value": 3}"#,
            r#"{"success": true, "error": "retried once"}"#,
            r#"{"status": "ok"}"#,
            r#"["error"]"#,
        ] {
            assert_eq!(failure_field(&text(t)), None, "{t}");
        }
        let marked =
            json!({"content": [{"type": "text", "text": "{\"success\": false}"}], "isError": true});
        assert_eq!(failure_field(&marked), None);
    }
}
