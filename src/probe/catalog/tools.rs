//! The tool list as an agent reads it: `catalog.tools_list`, `tool_schema`, `output_schema`,
//! `tool_names`, `annotations` and `descriptions`. Pure functions of the listed tools.

use std::collections::HashSet;

use serde_json::Value;

use super::{ANNOTATIONS, DESCRIPTIONS, OUTPUT_SCHEMA, TOOL_NAMES, TOOL_SCHEMA, TOOLS_LIST};
use crate::policy::{self, schema, schema::SchemaError};
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};

/// `catalog.tools_list`: the list answered with a `tools` array on every page; every entry
/// is an object with a string name.
pub fn tools_list(paged: &super::Paged) -> FindingBuilder {
    let (tools, evidence) = (&paged.items, &paged.evidence);
    if let Some(what) = &paged.malformed {
        return TOOLS_LIST
            .fail(format!("{what}; ListToolsResult requires it"))
            .evidence(evidence.iter().copied());
    }
    let bad: Vec<String> = tools
        .iter()
        .enumerate()
        .filter(|(_, t)| t.get("name").and_then(Value::as_str).is_none())
        .map(|(i, _)| format!("#{i}"))
        .collect();
    if bad.is_empty() {
        TOOLS_LIST
            .pass(format!("tools/list listed {} tool(s)", tools.len()))
            .evidence(evidence.iter().copied())
    } else {
        TOOLS_LIST
            .fail(format!(
                "tools/list entries without a string name: {}",
                bad.join(", ")
            ))
            .evidence(evidence.iter().copied())
    }
}

pub(super) fn name_of(tool: &Value) -> String {
    policy::tool_name(tool).to_string()
}

/// `catalog.tool_schema`: one finding per tool with a problem, or one pass.
pub fn tool_schema(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    for t in tools {
        let ev = evidence.iter().copied();
        let problem = match t.get("inputSchema") {
            None => Some((true, "has no inputSchema".to_string())),
            Some(sch) if !sch.is_object() => Some((
                true,
                format!(
                    "has an inputSchema that is {}, not an object",
                    schema::kind(sch)
                ),
            )),
            Some(sch) if !schema::root_is_object(sch) => Some((
                true,
                "has an inputSchema whose root is not type \"object\"".to_string(),
            )),
            Some(sch) => match schema::check(sch) {
                Ok(()) => None,
                Err(e @ SchemaError::Invalid(_)) => Some((
                    true,
                    format!("has an invalid inputSchema ({}): {e}", schema::dialect(sch)),
                )),
                Err(e) => Some((false, format!("has an inputSchema scout cannot use: {e}"))),
            },
        };
        if let Some((fail, why)) = problem {
            let detail = format!("tool `{}` {why}", name_of(t));
            let f = if fail {
                TOOL_SCHEMA.fail(detail)
            } else {
                TOOL_SCHEMA.warn(detail)
            };
            out.push(f.subject(name_of(t)).evidence(ev));
        }
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            TOOL_SCHEMA
                .pass(format!(
                    "all {} input schemas are valid object schemas",
                    tools.len()
                ))
                .evidence(evidence.iter().copied()),
        );
    }
    if tools.is_empty() {
        out.push(TOOL_SCHEMA.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

/// True for the revisions whose outputSchema root must be `type: "object"`.
fn output_root_object(version: &str) -> bool {
    matches!(version, "2025-06-18" | "2025-11-25")
}

/// `catalog.output_schema`: every outputSchema that is present is valid.
pub fn output_schema(tools: &[Value], version: &str, evidence: &[Seq]) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    let mut seen = 0;
    for t in tools {
        let Some(sch) = t.get("outputSchema") else {
            continue;
        };
        seen += 1;
        let problem = if !sch.is_object() {
            Some(format!("is {}, not a schema object", schema::kind(sch)))
        } else if output_root_object(version) && !schema::root_is_object(sch) {
            Some(format!(
                "has no root type \"object\", which {version} requires"
            ))
        } else {
            schema::check(sch).err().map(|e| e.to_string())
        };
        if let Some(why) = problem {
            out.push(
                OUTPUT_SCHEMA
                    .fail(format!("tool `{}`: outputSchema {why}", name_of(t)))
                    .subject(name_of(t))
                    .evidence(evidence.iter().copied()),
            );
        }
    }
    if seen == 0 {
        out.push(OUTPUT_SCHEMA.skip(
            SkipReason::NotApplicable,
            "no tool declares an outputSchema",
        ));
    } else if out.is_empty() {
        out.push(
            OUTPUT_SCHEMA
                .pass(format!("{seen} output schema(s) are valid"))
                .evidence(evidence.iter().copied()),
        );
    }
    out
}

/// True for a name the spec recommends: 1–128 of `[A-Za-z0-9_.-]`.
pub fn good_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `catalog.tool_names`: duplicates fail; malformed names warn (a SHOULD).
pub fn tool_names(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let ev = || evidence.iter().copied();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut dups = Vec::new();
    for t in tools {
        let n = name_of(t);
        if !seen.insert(n.clone()) && !dups.contains(&n) {
            dups.push(n);
        }
    }
    for d in &dups {
        out.push(
            // "Tool names SHOULD be unique within a server": a warning, however confusing.
            TOOL_NAMES
                .warn(format!(
                    "the tool name `{d}` is listed more than once; an agent cannot tell them apart"
                ))
                .subject(d.clone())
                .evidence(ev()),
        );
    }
    for t in tools {
        let n = name_of(t);
        if !good_tool_name(&n) {
            out.push(
                TOOL_NAMES
                    .warn(format!(
                        "the tool name {n:?} is not 1-128 characters of [A-Za-z0-9_.-]"
                    ))
                    .subject(n)
                    .evidence(ev()),
            );
        }
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            TOOL_NAMES
                .pass(format!(
                    "all {} tool names are well formed and unique",
                    tools.len()
                ))
                .evidence(ev()),
        );
    }
    if tools.is_empty() {
        out.push(TOOL_NAMES.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

const HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// `catalog.annotations`: hints are booleans (a fail otherwise); tools without annotations
/// are destructive by the spec's defaults (one warn naming them).
pub fn annotations(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let ev = || evidence.iter().copied();
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for t in tools {
        let n = name_of(t);
        match t.get("annotations") {
            None | Some(Value::Null) => missing.push(n),
            Some(Value::Object(a)) => {
                let mut bad: Vec<String> = HINTS
                    .iter()
                    .filter_map(|h| {
                        a.get(*h)
                            .filter(|v| !v.is_boolean())
                            .map(|v| format!("{h} is {}", schema::kind(v)))
                    })
                    .collect();
                if let Some(v) = a.get("title").filter(|v| !v.is_string()) {
                    bad.push(format!("title is {}", schema::kind(v)));
                }
                if !bad.is_empty() {
                    out.push(
                        ANNOTATIONS
                            .fail(format!(
                                "tool `{n}`: {} (hints must be booleans; scout reads them as the defaults)",
                                bad.join(", ")
                            ))
                            .subject(n)
                            .evidence(ev()),
                    );
                }
            }
            Some(other) => out.push(
                ANNOTATIONS
                    .fail(format!(
                        "tool `{n}`: annotations is {}, not an object",
                        schema::kind(other)
                    ))
                    .subject(n)
                    .evidence(ev()),
            ),
        }
    }
    if !missing.is_empty() {
        out.push(
            ANNOTATIONS
                .warn(format!(
                    "{} tool(s) have no annotations, so the spec's defaults make them destructive and open-world; scout will not call them by default: {}",
                    missing.len(),
                    missing.join(", ")
                ))
                .evidence(ev()),
        );
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            ANNOTATIONS
                .pass(format!("all {} tools carry typed annotations", tools.len()))
                .evidence(ev()),
        );
    }
    if tools.is_empty() {
        out.push(ANNOTATIONS.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

/// `catalog.descriptions`: every tool and every top-level argument has a description.
pub fn descriptions(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let described = |v: &Value| {
        v.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty())
    };
    let mut missing = Vec::new();
    for t in tools {
        let n = name_of(t);
        if !described(t) {
            missing.push(format!("tool `{n}`"));
        }
        if let Some(props) = t
            .get("inputSchema")
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (k, v) in props {
                if !described(v) {
                    missing.push(format!("`{n}.{k}`"));
                }
            }
        }
    }
    if tools.is_empty() {
        return vec![DESCRIPTIONS.skip(SkipReason::NotApplicable, "the server lists no tools")];
    }
    let ev = evidence.iter().copied();
    if missing.is_empty() {
        vec![
            DESCRIPTIONS
                .pass("every tool and every argument is described")
                .evidence(ev),
        ]
    } else {
        let shown: Vec<String> = missing.iter().take(20).cloned().collect();
        let more = if missing.len() > shown.len() {
            format!(" and {} more", missing.len() - shown.len())
        } else {
            String::new()
        };
        vec![
            DESCRIPTIONS
                .warn(format!(
                    "{} tool(s) or argument(s) have no description: {}{more}",
                    missing.len(),
                    shown.join(", ")
                ))
                .evidence(ev),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, statuses};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn tools_list_without_its_array_fails() {
        // A result without `tools` is not an empty list: nothing showed the catalogue.
        use crate::probe::catalog::tests::paged;
        let missing = super::super::Paged {
            malformed: Some("tools/list page 1 answered with a result that has no `tools` array (the member is missing)".into()),
            ..paged(vec![])
        };
        let f = built(tools_list(&missing));
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("no `tools` array"), "{}", f.detail);
        let empty = built(tools_list(&paged(vec![])));
        assert_eq!(empty.status, Status::Pass);
        assert!(empty.detail.contains("0 tool(s)"));
    }

    #[test]
    fn tool_schema_judgement() {
        let good = json!({"name": "a", "inputSchema": {"type": "object"}});
        let not_object = json!({"name": "b", "inputSchema": {"type": "string"}});
        let invalid = json!({"name": "c", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}});
        let missing = json!({"name": "d"});
        let remote = json!({"name": "e", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/x.json"}}}});
        assert_eq!(
            statuses(tool_schema(std::slice::from_ref(&good), &[1])),
            vec![(Status::Pass, None)]
        );
        let s = statuses(tool_schema(
            &[good, not_object, invalid, missing, remote],
            &[1],
        ));
        assert_eq!(
            s,
            vec![
                (Status::Fail, Some("b".into())),
                (Status::Fail, Some("c".into())),
                (Status::Fail, Some("d".into())),
                (Status::Warn, Some("e".into())),
            ]
        );
    }

    #[test]
    fn output_schema_judgement() {
        let t =
            |o: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": o});
        assert_eq!(
            statuses(output_schema(
                &[t(json!({"type": "object"}))],
                "2025-11-25",
                &[1]
            ))[0]
                .0,
            Status::Pass
        );
        assert_eq!(
            statuses(output_schema(
                &[t(json!({"type": "array"}))],
                "2025-11-25",
                &[1]
            ))[0]
                .0,
            Status::Fail
        );
        assert_eq!(
            statuses(output_schema(
                &[t(json!({"type": "array"}))],
                "2026-07-28",
                &[1]
            ))[0]
                .0,
            Status::Pass
        );
        assert_eq!(
            statuses(output_schema(&[json!({"name": "x"})], "2026-07-28", &[1]))[0].0,
            Status::Skip
        );
    }

    #[test]
    fn tool_names_judgement() {
        let t = |n: &str| json!({"name": n});
        assert_eq!(
            statuses(tool_names(&[t("a.b-c_1")], &[1])),
            vec![(Status::Pass, None)]
        );
        let long = "x".repeat(129);
        let s = statuses(tool_names(
            &[t("dup"), t("dup"), t("has space"), t(&long)],
            &[1],
        ));
        // A duplicate warns: "Tool names SHOULD be unique within a server" (was a fail).
        assert_eq!(s[0], (Status::Warn, Some("dup".into())));
        assert_eq!(s[1], (Status::Warn, Some("has space".into())));
        assert_eq!(s[2].0, Status::Warn);
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn annotations_judgement() {
        let good = json!({"name": "a", "annotations": {"readOnlyHint": true}});
        let bare = json!({"name": "b"});
        let stringly = json!({"name": "c", "annotations": {"readOnlyHint": "true"}});
        assert_eq!(
            statuses(annotations(std::slice::from_ref(&good), &[1]))[0].0,
            Status::Pass
        );
        let s = statuses(annotations(&[good, bare, stringly], &[1]));
        assert_eq!(
            s,
            vec![(Status::Fail, Some("c".into())), (Status::Warn, None)]
        );
    }

    #[test]
    fn descriptions_judgement() {
        let good = json!({"name": "a", "description": "d", "inputSchema": {"properties": {"x": {"description": "x"}}}});
        let bad = json!({"name": "b", "inputSchema": {"properties": {"y": {}}}});
        assert_eq!(
            statuses(descriptions(std::slice::from_ref(&good), &[1]))[0].0,
            Status::Pass
        );
        let f = built(descriptions(&[good, bad], &[1]).remove(0));
        assert_eq!(f.status, Status::Warn);
        assert!(
            f.detail.contains("tool `b`") && f.detail.contains("`b.y`"),
            "{}",
            f.detail
        );
    }
}
