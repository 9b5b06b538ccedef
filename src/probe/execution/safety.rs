//! `execution.policy`: what the safety policy kept scout from calling, and which of the
//! tools it did call are open-world (docs/safety.md). Information only, never a judgement.

use serde_json::Value;

use super::POLICY;
use crate::policy::{Hints, args::ArgsSource, nowhere};
use crate::report::finding::FindingBuilder;

/// A tool the policy did not let scout call: `reason` is a predicate of "it" (`is not
/// read-only`), `allow_with` the flag or setting that would allow the call.
pub fn not_called(name: &str, reason: &str, allow_with: &str) -> FindingBuilder {
    POLICY
        .info(format!(
            "`{name}` was not called: it {reason}; allow it with {allow_with}"
        ))
        .subject(name)
}

/// A tool scout dropped from the catalogue before any call: its input schema has invalid
/// `x-mcp-header` declarations (`reasons`), and a 2026-07-28 client on Streamable HTTP
/// must exclude such a tool from the tools it offers. No flag allows the call.
pub fn dropped(name: &str, reasons: &[String]) -> FindingBuilder {
    POLICY
        .info(format!(
            "`{name}` was dropped and not called: its x-mcp-header {} (a client on Streamable HTTP must exclude such a tool; see catalog.x_mcp_header)",
            reasons.join("; ")
        ))
        .subject(name)
}

/// For a tool scout calls: a note when it is open-world (`openWorldHint` true, or absent,
/// which the spec's default makes true), saying what scout did to keep the call from
/// reaching anyone. `None` for a closed-world tool.
pub fn open_world(tool: &Value, source: ArgsSource) -> Option<FindingBuilder> {
    if !Hints::of(tool).open_world {
        return None;
    }
    let name = crate::policy::tool_name(tool);
    let why = match tool.get("annotations").and_then(|a| a.get("openWorldHint")) {
        Some(Value::Bool(true)) => "openWorldHint is true",
        Some(_) => "its openWorldHint is not a boolean, and the spec's default is true",
        None => "it declares no openWorldHint, and the spec's default is true",
    };
    let args = match source {
        ArgsSource::Generated => format!(
            "its generated URLs, hostnames and e-mail addresses name {}, under the reserved .invalid domain, which never resolves",
            nowhere::HOST
        ),
        ArgsSource::Configured => {
            "it is called with the configured arguments, used as given".to_string()
        }
    };
    Some(
        POLICY
            .info(format!(
                "`{name}` was called although it is open-world ({why}), so it may reach systems outside the server; {args}"
            ))
            .subject(name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::built;
    use serde_json::json;

    #[test]
    fn open_world_tools_are_named() {
        let absent = json!({"name": "fetch", "annotations": {"readOnlyHint": true}});
        let f = built(open_world(&absent, ArgsSource::Generated).expect("open-world"));
        assert_eq!(f.subject.as_deref(), Some("fetch"));
        assert!(
            f.detail.contains("`fetch`") && f.detail.contains(".invalid"),
            "{}",
            f.detail
        );
        let closed = json!({"name": "add", "annotations": {"openWorldHint": false}});
        assert!(open_world(&closed, ArgsSource::Generated).is_none());
        let open = json!({"name": "search", "annotations": {"openWorldHint": true}});
        let f = built(open_world(&open, ArgsSource::Configured).expect("open-world"));
        assert!(f.detail.contains("configured"), "{}", f.detail);
    }

    #[test]
    fn a_skipped_tool_is_the_subject_of_its_sentence() {
        let f = built(not_called(
            "write",
            "is not read-only (readOnlyHint is not true)",
            "--allow-mutations",
        ));
        assert_eq!(
            f.detail,
            "`write` was not called: it is not read-only (readOnlyHint is not true); allow it with --allow-mutations"
        );
    }
}
