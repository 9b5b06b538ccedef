//! What an exposed server lets others do, judged from what the run already saw (no request
//! of its own): `security.unauthenticated_destructive` (a remote server that serves tools
//! which change state to anyone) and `security.transport` (a token over plain HTTP).

use serde_json::Value;

use super::{TRANSPORT, UNAUTHENTICATED_DESTRUCTIVE};
use crate::probe::Session;
use crate::report::exchange::{ExchangeKind, Seq};
use crate::report::finding::{FindingBuilder, Severity, SkipReason};
use crate::spec::TargetSpec;

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

/// What the run showed about serving without credentials: the first request's answer,
/// sent without any (its status and exchange), and the catalogue exchanges that were
/// answered although they carried no credential.
#[derive(Debug, Clone, Default)]
pub struct Bare {
    pub first: Option<(Option<u16>, Seq)>,
    pub catalog_served: Vec<Seq>,
}

/// The judgement. Protected means refused without a credential *and* the catalogue was not
/// served without one: a 403 to the first request may only say "no session".
pub fn judge_unauthenticated(
    bare: &Bare,
    tools: &[&Value],
    catalog_evidence: &[Seq],
) -> FindingBuilder {
    let Some((status, seq)) = bare.first else {
        return UNAUTHENTICATED_DESTRUCTIVE.skip(
            SkipReason::NotAssessed,
            "No request without credentials was recorded, so whether the server needs them is not known.",
        );
    };
    let refused = matches!(status, Some(401 | 403));
    let mut ev: Vec<Seq> = catalog_evidence.to_vec();
    ev.push(seq);
    if refused && bare.catalog_served.is_empty() {
        return UNAUTHENTICATED_DESTRUCTIVE
            .pass(format!(
                "A request without credentials was refused (HTTP {}, req#{seq}), and no tool list was served without a credential.",
                status.unwrap_or_default()
            ))
            .evidence(ev);
    }
    let refused_first = if refused {
        format!(
            " (its first request without credentials got HTTP {}, but the tool list was served without any: req#{})",
            status.unwrap_or_default(),
            bare.catalog_served
                .iter()
                .map(|q| q.to_string())
                .collect::<Vec<_>>()
                .join(", req#")
        )
    } else {
        String::new()
    };
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
            "A remote server answers without credentials{refused_first} and lists {}: anyone who can reach it can call them.",
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
    if matches!(s.spec.target, TargetSpec::Stdio(..)) {
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
    // client); the catalogue's own exchanges say whether it was served without any.
    let names = credential_names(s);
    let exchanges = s.recorder.shared();
    let evidence: Vec<Seq> = s.catalogs.iter().flat_map(|c| c.evidence.clone()).collect();
    let catalog_served = exchanges
        .iter()
        .filter(|e| evidence.contains(&e.seq))
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h)
                if h.status.is_some_and(|st| (200..300).contains(&st))
                    && !carries_credential(&h.request_headers, &names) =>
            {
                Some(e.seq)
            }
            _ => None,
        })
        .collect();
    let bare = Bare {
        first: crate::probe::auth::first_contact(s).map(|a| (a.status, a.seq)),
        catalog_served,
    };
    let tools: Vec<&Value> = s.catalogs.iter().flat_map(|c| c.tools.iter()).collect();
    vec![judge_unauthenticated(&bare, &tools, &evidence)]
}

/// The request headers that carry a credential: `Authorization`, and every configured
/// header whose value is read from the environment or whose name says it is secret.
fn credential_names(s: &Session) -> Vec<String> {
    let mut names = vec!["Authorization".to_string()];
    if let TargetSpec::Http { headers, .. } = &s.spec.target {
        for (name, value) in headers {
            if (value.reads_env() || crate::telemetry::redact::is_secret_header(name))
                && !names.iter().any(|n| n.eq_ignore_ascii_case(name))
            {
                names.push(name.clone());
            }
        }
    }
    names
}

/// True when `headers` hold one of `names` with a value.
fn carries_credential(headers: &[(String, String)], names: &[String]) -> bool {
    headers
        .iter()
        .any(|(k, v)| !v.trim().is_empty() && names.iter().any(|n| n.eq_ignore_ascii_case(k)))
}

/// The exchanges over plain http that carried a credential, with the header names seen
/// (requests that carried only a made-up credential, the auth probes, are left out).
fn plain_credential_exchanges(s: &Session) -> (Vec<Seq>, Vec<String>) {
    let names = credential_names(s);
    let mut seqs = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for e in s.recorder.shared() {
        let ExchangeKind::Http(h) = &e.kind else {
            continue;
        };
        if !h.url.starts_with("http://") || s.oauth.made_up.contains(&e.seq) {
            continue;
        }
        let mut carried = false;
        for (k, v) in &h.request_headers {
            if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(k))
                && !v.trim().is_empty()
            {
                carried = true;
                if !seen.iter().any(|x| x.eq_ignore_ascii_case(n)) {
                    seen.push(n.clone());
                }
            }
        }
        if carried {
            seqs.push(e.seq);
        }
    }
    (seqs, seen)
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
    let first = s.recorder.shared().first().map(|e| e.seq);
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
    // Judge what was sent, not what was configured: a client id for a server that turned
    // out to be open never leaves scout.
    let (seqs, carried) = plain_credential_exchanges(s);
    if seqs.is_empty() {
        let configured = if auth.is_empty() && headers.is_empty() {
            ""
        } else {
            " (credentials were configured, but no request carried one)"
        };
        return vec![cite(
            TRANSPORT.warn(format!(
                "{url} is plain http to a remote host: no credential went with any request{configured}, but every request and answer can be read and changed on the way."
            )),
            first,
        )];
    }
    vec![
        TRANSPORT
            .fail(format!(
                "{url} is plain http to a remote host, and {} request(s) carried {} there (first req#{}): anyone on the path can read and replay it.",
                seqs.len(),
                carried
                    .iter()
                    .map(|c| format!("the {c} header"))
                    .collect::<Vec<_>>()
                    .join(", "),
                seqs[0]
            ))
            .evidence(seqs.iter().copied().take(20)),
    ]
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
        let open = Bare {
            first: Some((Some(200), 1)),
            catalog_served: vec![2],
        };
        let f = judge_unauthenticated(&open, &[&ro, &del, &add], &[2]);
        assert_eq!(f.status(), Status::Fail);
        let built = f.build(|_| true).expect("valid");
        assert_eq!(built.severity, Some(Severity::Critical));
        assert!(built.detail.contains("`delete_note`") && built.detail.contains("`add_note`"));
        let major = judge_unauthenticated(&open, &[&ro, &add], &[2])
            .build(|_| true)
            .expect("valid");
        assert_eq!(major.severity, Some(Severity::Major));
        assert_eq!(
            judge_unauthenticated(&open, &[&ro], &[2]).status(),
            Status::Pass
        );
        let protected = Bare {
            first: Some((Some(401), 1)),
            catalog_served: Vec::new(),
        };
        assert_eq!(
            judge_unauthenticated(&protected, &[&del], &[2]).status(),
            Status::Pass
        );
        assert_eq!(
            judge_unauthenticated(&Bare::default(), &[&del], &[2]).status(),
            Status::Skip
        );
    }

    #[test]
    fn a_403_to_the_first_request_is_no_protection_when_the_catalogue_was_served_bare() {
        // Previously a pass: the 403 ("no session") was taken as proof of authentication.
        let del = json!({"name": "delete_note", "annotations": {"destructiveHint": true}});
        let bare = Bare {
            first: Some((Some(403), 1)),
            catalog_served: vec![2],
        };
        let f = judge_unauthenticated(&bare, &[&del], &[2])
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Fail);
        assert_eq!(f.severity, Some(Severity::Critical));
        assert!(f.detail.contains("HTTP 403"), "{}", f.detail);
    }
}
