//! What an exposed server lets others do, judged from what the run already saw (no request
//! of its own): `security.unauthenticated_destructive` (a remote server that serves tools
//! which change state to anyone) and `security.transport` (a token over plain HTTP).

use serde_json::Value;

use super::{TRANSPORT, UNAUTHENTICATED_DESTRUCTIVE};
use crate::probe::Session;
use crate::probe::spec::{TargetSpec, ValueSource};
use crate::report::finding::{FindingBuilder, Severity, SkipReason};
use crate::telemetry::{ExchangeKind, Seq};

/// How many tool names a detail lists before "and N more".
const LISTED: usize = 8;

/// A tool that is not marked read-only, and whether it declares itself destructive.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutating {
    pub name: String,
    /// `destructiveHint: true` was declared.
    pub declared_destructive: bool,
}

/// The tools of `tools` that are not `readOnlyHint: true`, by name, once each.
pub fn mutating(tools: &[&Value]) -> Vec<Mutating> {
    let mut out: Vec<Mutating> = Vec::new();
    for t in tools {
        let ann = t.get("annotations");
        let read_only = ann
            .and_then(|a| a.get("readOnlyHint"))
            .and_then(Value::as_bool)
            == Some(true);
        if read_only {
            continue;
        }
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(unnamed)")
            .to_string();
        if out.iter().any(|m| m.name == name) {
            continue;
        }
        out.push(Mutating {
            name,
            declared_destructive: ann
                .and_then(|a| a.get("destructiveHint"))
                .and_then(Value::as_bool)
                == Some(true),
        });
    }
    out
}

fn list(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(LISTED)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        s.push_str(&format!(" and {} more", names.len() - LISTED));
    }
    s
}

/// The judgement, given whether the server asked for credentials.
pub fn judge_unauthenticated(
    protected: Option<(bool, Seq)>,
    tools: &[&Value],
    catalog_evidence: &[Seq],
) -> FindingBuilder {
    let Some((protected, seq)) = protected else {
        return UNAUTHENTICATED_DESTRUCTIVE.skip(
            SkipReason::NotAssessed,
            "No request without credentials was recorded, so whether the server needs them is not known.",
        );
    };
    let mut ev: Vec<Seq> = catalog_evidence.to_vec();
    ev.push(seq);
    if protected {
        return UNAUTHENTICATED_DESTRUCTIVE
            .pass(
                "A request without credentials was refused (HTTP 401/403): the tools need a token.",
            )
            .evidence(ev);
    }
    if catalog_evidence.is_empty() {
        return UNAUTHENTICATED_DESTRUCTIVE.skip(
            SkipReason::NotAssessed,
            "The server answers without credentials, but no tool list was obtained to judge.",
        );
    }
    let found = mutating(tools);
    if found.is_empty() {
        return UNAUTHENTICATED_DESTRUCTIVE
            .pass(format!(
                "The server answers without credentials, but every one of its {} tool(s) declares readOnlyHint: true.",
                tools.len()
            ))
            .evidence(ev);
    }
    let destructive: Vec<String> = found
        .iter()
        .filter(|m| m.declared_destructive)
        .map(|m| m.name.clone())
        .collect();
    let others: Vec<String> = found
        .iter()
        .filter(|m| !m.declared_destructive)
        .map(|m| m.name.clone())
        .collect();
    let mut parts = Vec::new();
    if !destructive.is_empty() {
        parts.push(format!("destructive tools {}", list(&destructive)));
    }
    if !others.is_empty() {
        parts.push(format!("tools not marked read-only {}", list(&others)));
    }
    let f = UNAUTHENTICATED_DESTRUCTIVE
        .fail(format!(
            "A remote server answers without credentials and lists {}: anyone who can reach it can call them.",
            parts.join(" and ")
        ))
        .evidence(ev);
    if destructive.is_empty() {
        f
    } else {
        f.severity(Severity::Critical)
    }
}

/// `security.unauthenticated_destructive` for the session.
pub fn unauthenticated_destructive(s: &Session) -> Vec<FindingBuilder> {
    if matches!(s.spec.target, TargetSpec::Stdio { .. }) {
        return vec![UNAUTHENTICATED_DESTRUCTIVE.skip(
            SkipReason::NotApplicable,
            "A stdio server is reachable only by the process that started it.",
        )];
    }
    if !s.spec.is_remote() {
        return vec![UNAUTHENTICATED_DESTRUCTIVE.skip(
            SkipReason::NotApplicable,
            "Loopback target: only this machine can reach it (set treat_as_remote to judge it as remote).",
        )];
    }
    // The discovery phase's first contact went out without credentials (on the bare
    // client): a 401/403 there means the server needs them.
    let protected =
        crate::probe::auth::first_contact(s).map(|a| (matches!(a.status, Some(401 | 403)), a.seq));
    let tools: Vec<&Value> = s.catalogs.iter().flat_map(|c| c.tools.iter()).collect();
    let evidence: Vec<Seq> = s.catalogs.iter().flat_map(|c| c.evidence.clone()).collect();
    vec![judge_unauthenticated(protected, &tools, &evidence)]
}

/// The first exchange that carried a configured credential header.
fn credential_exchange(s: &Session, names: &[String]) -> Option<Seq> {
    s.recorder
        .snapshot()
        .into_iter()
        .find_map(|e| match e.kind {
            ExchangeKind::Http(h)
                if h.request_headers
                    .iter()
                    .any(|(k, _)| names.iter().any(|n| n.eq_ignore_ascii_case(k))) =>
            {
                Some(e.seq)
            }
            _ => None,
        })
}

/// `security.transport` for the session.
pub fn transport(s: &Session) -> Vec<FindingBuilder> {
    let TargetSpec::Http {
        url, headers, auth, ..
    } = &s.spec.target
    else {
        return vec![TRANSPORT.skip(
            SkipReason::NotApplicable,
            "A stdio server has no network hop.",
        )];
    };
    let first = s.recorder.snapshot().first().map(|e| e.seq);
    let cite = |f: FindingBuilder, seq: Option<Seq>| match seq {
        Some(q) => f.evidence([q]),
        None => f.without_exchange(),
    };
    let scheme = url::Url::parse(url)
        .map(|u| u.scheme().to_string())
        .unwrap_or_default();
    if scheme == "https" {
        return vec![cite(
            TRANSPORT.pass("The endpoint is reached over https: credentials and answers are encrypted on the way."),
            first,
        )];
    }
    if !s.spec.is_remote() {
        return vec![TRANSPORT.skip(
            SkipReason::NotApplicable,
            "Loopback target over plain http: the traffic never leaves the machine.",
        )];
    }
    let mut carried: Vec<String> = Vec::new();
    // Any configured credential source ends up as `Authorization: Bearer …`.
    if !auth.is_empty() {
        carried.push("Authorization".to_string());
    }
    for (name, value) in headers {
        if matches!(value, ValueSource::Env(_))
            || crate::telemetry::redact::is_secret_header(name)
            || name.eq_ignore_ascii_case("authorization")
        {
            carried.push(name.clone());
        }
    }
    carried.dedup();
    if carried.is_empty() {
        return vec![cite(
            TRANSPORT.warn(format!(
                "{url} is plain http to a remote host: no credential goes with it, but every request and answer can be read and changed on the way."
            )),
            first,
        )];
    }
    let seq = credential_exchange(s, &carried);
    vec![cite(
        TRANSPORT.fail(format!(
            "{url} is plain http to a remote host, and scout was configured to send {} there: anyone on the path can read and replay it.",
            carried
                .iter()
                .map(|c| format!("the {c} header"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        seq.or(first),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;
    use serde_json::json;

    #[test]
    fn open_remote_servers_with_mutating_tools_fail() {
        let ro = json!({"name": "get", "annotations": {"readOnlyHint": true}});
        let del = json!({"name": "delete_note", "annotations": {"destructiveHint": true}});
        let add = json!({"name": "add_note"});
        let f = judge_unauthenticated(Some((false, 1)), &[&ro, &del, &add], &[2]);
        assert_eq!(f.status(), Status::Fail);
        let built = f.build(|_| true).expect("valid");
        assert_eq!(built.severity, Some(Severity::Critical));
        assert!(built.detail.contains("`delete_note`") && built.detail.contains("`add_note`"));
        let major = judge_unauthenticated(Some((false, 1)), &[&ro, &add], &[2])
            .build(|_| true)
            .expect("valid");
        assert_eq!(major.severity, Some(Severity::Major));
        assert_eq!(
            judge_unauthenticated(Some((false, 1)), &[&ro], &[2]).status(),
            Status::Pass
        );
        assert_eq!(
            judge_unauthenticated(Some((true, 1)), &[&del], &[2]).status(),
            Status::Pass
        );
        assert_eq!(
            judge_unauthenticated(None, &[&del], &[2]).status(),
            Status::Skip
        );
    }
}
