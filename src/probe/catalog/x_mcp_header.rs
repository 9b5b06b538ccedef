//! `catalog.x_mcp_header` (2026-07-28): where an `x-mcp-header` declaration may sit in an
//! input schema, and what makes a client drop the tool.

use std::collections::HashSet;

use serde_json::Value;

use super::X_MCP_HEADER;
use super::tools::name_of;
use crate::policy::schema;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};

/// True for an RFC 9110 token (the characters a header name may use).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Collects the problems of every `x-mcp-header` in one input schema. Valid: on a property
/// reached through `properties` chains only, of type string/integer/boolean, a token name,
/// unique case-insensitively.
pub fn x_mcp_header_problems(input: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names = HashSet::new();
    // (schema, path, reachable through properties only)
    let mut stack = vec![(input, String::new(), true)];
    while let Some((node, path, direct)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        if let Some(decl) = map.get("x-mcp-header") {
            let at = if path.is_empty() {
                "the root".to_string()
            } else {
                format!("`{path}`")
            };
            match decl.as_str() {
                None => problems.push(format!("at {at} is {}, not a string", schema::kind(decl))),
                Some(name) if !is_token(name) => {
                    problems.push(format!("{name:?} at {at} is not a valid header name"))
                }
                Some(name) => {
                    if !names.insert(name.to_ascii_lowercase()) {
                        problems.push(format!(
                            "{name:?} at {at} is declared twice (names are case-insensitive)"
                        ));
                    }
                    if !direct || path.is_empty() {
                        problems.push(format!(
                            "{name:?} at {at} is not reached through properties alone"
                        ));
                    }
                    let ty = map.get("type").and_then(Value::as_str);
                    if !matches!(ty, Some("string" | "integer" | "boolean")) {
                        problems.push(format!("{name:?} at {at} sits on a property of type {}, not string, integer or boolean", ty.unwrap_or("(none)")));
                    }
                }
            }
        }
        for (k, v) in map {
            match k.as_str() {
                "properties" => {
                    if let Value::Object(props) = v {
                        for (pk, pv) in props {
                            let p = if path.is_empty() {
                                pk.clone()
                            } else {
                                format!("{path}.{pk}")
                            };
                            stack.push((pv, p, direct));
                        }
                    }
                }
                "items"
                | "prefixItems"
                | "oneOf"
                | "anyOf"
                | "allOf"
                | "$defs"
                | "definitions"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else" => {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    match v {
                        Value::Array(a) => stack.extend(a.iter().map(|x| (x, p.clone(), false))),
                        Value::Object(o) if matches!(k.as_str(), "$defs" | "definitions") => {
                            stack.extend(o.values().map(|x| (x, p.clone(), false)))
                        }
                        other => stack.push((other, p, false)),
                    }
                }
                _ => {}
            }
        }
    }
    problems.sort();
    problems
}

/// The problems that make a 2026-07-28 client drop `tool` (empty: the tool is usable).
/// The revision's tools page: a client MUST exclude a tool whose `x-mcp-header`
/// declarations are invalid from the tools it offers, so scout never calls one.
pub fn drop_reasons(tool: &Value) -> Vec<String> {
    x_mcp_header_problems(tool.get("inputSchema").unwrap_or(&Value::Null))
}

/// True when `wire` is one on which tools with invalid `x-mcp-header` declarations are
/// dropped: 2026-07-28 over Streamable HTTP (clients on other transports may ignore the
/// annotation entirely).
pub fn drops_invalid(wire: &crate::client::Connection) -> bool {
    wire.era() == crate::report::finding::Era::Modern
        && wire.transport() == crate::report::model::TransportKind::Http
}

/// Splits a listed catalogue into the tools a client on `wire` may offer and the dropped
/// ones, each with the reasons it was dropped.
pub fn split_dropped(
    wire: &crate::client::Connection,
    tools: Vec<Value>,
) -> (Vec<Value>, Vec<(String, Vec<String>)>) {
    if !drops_invalid(wire) {
        return (tools, Vec::new());
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for t in tools {
        let reasons = drop_reasons(&t);
        if reasons.is_empty() {
            kept.push(t);
        } else {
            dropped.push((name_of(&t), reasons));
        }
    }
    (kept, dropped)
}

/// `catalog.x_mcp_header` (2026-07-28): invalid declarations make a client drop the tool.
pub fn x_mcp_header(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    let mut declared = 0;
    for t in tools {
        let input = t.get("inputSchema").unwrap_or(&Value::Null);
        if serde_json::to_string(input)
            .unwrap_or_default()
            .contains("\"x-mcp-header\"")
        {
            declared += 1;
        }
        let problems = x_mcp_header_problems(input);
        if !problems.is_empty() {
            out.push(
                X_MCP_HEADER
                    .fail(format!(
                        "tool `{}`: x-mcp-header {}; clients on Streamable HTTP must drop this tool",
                        name_of(t),
                        problems.join("; ")
                    ))
                    .subject(name_of(t))
                    .evidence(evidence.iter().copied()),
            );
        }
    }
    if declared == 0 {
        out.push(X_MCP_HEADER.skip(SkipReason::NotApplicable, "no tool declares x-mcp-header"));
    } else if out.is_empty() {
        out.push(
            X_MCP_HEADER
                .pass(format!(
                    "{declared} tool(s) declare valid x-mcp-header parameters"
                ))
                .evidence(evidence.iter().copied()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::statuses;
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn x_mcp_header_judgement() {
        let ok_tool = json!({"name": "a", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}}});
        assert_eq!(statuses(x_mcp_header(&[ok_tool], &[1]))[0].0, Status::Pass);
        let bad = json!({"name": "b", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Dup"},
            "b": {"type": "integer", "x-mcp-header": "dup"},
            "c": {"type": "object", "x-mcp-header": "Obj"},
            "d": {"type": "string", "x-mcp-header": "bad name"},
            "e": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}});
        let problems = x_mcp_header_problems(&bad["inputSchema"]);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert_eq!(
            statuses(x_mcp_header(&[bad], &[1]))[0],
            (Status::Fail, Some("b".into()))
        );
        assert_eq!(
            statuses(x_mcp_header(&[json!({"name": "c"})], &[1]))[0].0,
            Status::Skip
        );
    }
}
