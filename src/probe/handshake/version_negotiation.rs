//! The verdicts of `handshake.version_negotiation`, as pure functions of the replies (the
//! handshake phase sends the requests). A negotiated version must name a published revision:
//! a server can only answer with a version it supports, and a string that names no revision
//! (`"2025-99-99"`) is not one (2025-11-25 lifecycle, "Version Negotiation").

use serde_json::Value;

use crate::client::{is_handshake_revision, is_revision};
use crate::probe::handshake::{UNKNOWN_VERSION, VERSION_NEGOTIATION, describe};
use crate::report::finding::FindingBuilder;
use crate::transport::Reply;

/// Handshake era: `init` is the `initialize` that asked for `requested` (the session scout
/// uses), `counter` the one that asked for [`UNKNOWN_VERSION`]. The first must be answered
/// with `requested` or another revision, the second with a counter-offer that is a revision.
pub fn judge_legacy(requested: &str, init: &Reply, counter: &Reply) -> FindingBuilder {
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    match negotiated(init) {
        Some(v) if v == requested => seen.push(format!(
            "`initialize` for {requested:?} was answered with the same version"
        )),
        Some(v) if is_handshake_revision(v) => seen.push(format!(
            "`initialize` for {requested:?} was answered with {v:?}, another revision the server supports"
        )),
        Some(v) if is_revision(v) => problems.push(format!(
            "{}; scout builds no handshake session on that answer",
            no_handshake(requested, v)
        )),
        Some(v) => problems.push(format!(
            "`initialize` for {requested:?} was answered with protocolVersion {v:?}, which names no published revision; a server must answer with the requested version or another version it supports"
        )),
        // No protocolVersion at all: `handshake.initialize` reports the incomplete result.
        None => {}
    }
    match negotiated(counter) {
        Some(v) if v == UNKNOWN_VERSION => problems.push(format!(
            "`initialize` for the unknown version {UNKNOWN_VERSION:?} was answered with that same version instead of a version the server supports"
        )),
        Some(v) if is_handshake_revision(v) => seen.push(format!(
            "`initialize` for the unknown version {UNKNOWN_VERSION:?} got the counter-offer {v:?}"
        )),
        Some(v) if is_revision(v) => problems.push(no_handshake(UNKNOWN_VERSION, v)),
        Some(v) => problems.push(format!(
            "`initialize` for the unknown version {UNKNOWN_VERSION:?} got the counter-offer {v:?}, which names no published revision"
        )),
        None => problems.push(format!(
            "`initialize` for the unknown version {UNKNOWN_VERSION:?} got {} instead of a counter-offer",
            describe(counter)
        )),
    }
    let ev = init.evidence.iter().chain(&counter.evidence).copied();
    if problems.is_empty() {
        VERSION_NEGOTIATION.pass(seen.join("; ")).evidence(ev)
    } else {
        VERSION_NEGOTIATION.fail(problems.join("; ")).evidence(ev)
    }
}

/// 2026-07-28: `probe` named [`UNKNOWN_VERSION`] and must get -32022 with `data.supported`
/// and `data.requested`. Every version the server lists (there and in the DiscoverResult's
/// `supportedVersions`, when `discover` is given) should be a published revision: an unknown
/// entry is a warning (it may be a revision newer than scout), not a failure.
pub fn judge_modern(discover: Option<&Reply>, probe: &Reply) -> FindingBuilder {
    let data = probe
        .response
        .as_ref()
        .and_then(|x| x.get("error"))
        .and_then(|e| e.get("data"));
    let supported = data
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array);
    let requested = data
        .and_then(|d| d.get("requested"))
        .and_then(Value::as_str);
    let mut ev: Vec<_> = probe.evidence.clone();
    let mut soft = Vec::new();
    if let Some(listed) = discover
        .and_then(Reply::result)
        .and_then(|r| r.get("supportedVersions"))
        .and_then(Value::as_array)
    {
        let unknown = unknown_entries(listed);
        if !unknown.is_empty() {
            soft.push(format!(
                "the DiscoverResult's supportedVersions lists {}, which names no published revision",
                unknown.join(", ")
            ));
            ev.extend(
                discover
                    .into_iter()
                    .flat_map(|d| d.evidence.iter().copied()),
            );
        }
    }
    let b = match (probe.error_code(), supported, requested) {
        (Some(-32022), Some(sup), Some(UNKNOWN_VERSION)) => {
            let unknown = unknown_entries(sup);
            if !unknown.is_empty() {
                soft.push(format!(
                    "the -32022 error's data.supported lists {}, which names no published revision",
                    unknown.join(", ")
                ));
            }
            if soft.is_empty() {
                VERSION_NEGOTIATION.pass(format!(
                    "a request naming the unsupported version {UNKNOWN_VERSION:?} got -32022 with data.supported {}",
                    Value::Array(sup.clone())
                ))
            } else {
                VERSION_NEGOTIATION.warn(soft.join("; "))
            }
        }
        (Some(-32022), _, _) => VERSION_NEGOTIATION.fail(
            std::iter::once(format!(
                "a request naming the unsupported version {UNKNOWN_VERSION:?} got -32022 without data.supported (an array) and data.requested (the version sent)"
            ))
            .chain(soft)
            .collect::<Vec<_>>()
            .join("; "),
        ),
        _ => VERSION_NEGOTIATION.fail(
            std::iter::once(format!(
                "a request naming the unsupported version {UNKNOWN_VERSION:?} got {} instead of -32022",
                describe(probe)
            ))
            .chain(soft)
            .collect::<Vec<_>>()
            .join("; "),
        ),
    };
    b.evidence(ev)
}

/// The problem of an `initialize` answered with a revision that has no handshake
/// (2026-07-28). Its versioning page defines legacy versions as those "that establish a
/// session with an `initialize` handshake (`2025-11-25` and earlier)", and a dual-era server
/// serves an `initialize` "as specified by the negotiated legacy protocol version": a
/// session opened by `initialize` cannot run at 2026-07-28.
fn no_handshake(requested: &str, v: &str) -> String {
    format!(
        "`initialize` for {requested:?} was answered with protocolVersion {v:?}, a revision without the initialize handshake (only 2025-11-25 and earlier can be negotiated by initialize; {v} is reached through the per-request _meta envelope and server/discover)"
    )
}

/// The revision an `initialize` result named when that revision has no initialize handshake
/// (2026-07-28): [`judge_legacy`] fails the answer, and the handshake phase builds no session
/// on it, since no handshake session at that revision can exist.
pub fn answered_without_handshake(init: &Reply) -> Option<&str> {
    negotiated(init).filter(|v| is_revision(v) && !is_handshake_revision(v))
}

/// The `protocolVersion` of an `initialize` result.
fn negotiated(r: &Reply) -> Option<&str> {
    r.result()?.get("protocolVersion")?.as_str()
}

/// The entries of a version list that name no published revision, quoted.
fn unknown_entries(list: &[Value]) -> Vec<String> {
    list.iter()
        .filter(|v| !v.as_str().is_some_and(is_revision))
        .map(|v| match v.as_str() {
            Some(s) => format!("{s:?}"),
            None => format!("the non-string {v}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok, reply};
    use crate::report::finding::Status;
    use serde_json::json;

    fn init(seq: u64, version: &str) -> Reply {
        ok(seq, json!({"protocolVersion": version, "capabilities": {}}))
    }

    #[test]
    fn legacy_echo_and_counter_offer_pass() {
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-11-25"),
            &init(2, "2025-11-25"),
        ));
        assert_eq!((f.status, f.evidence), (Status::Pass, vec![1, 2]));
        // An older revision the server supports is a valid answer too.
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-06-18"),
            &init(2, "2025-06-18"),
        ));
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
    }

    #[test]
    fn a_made_up_negotiated_version_fails() {
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-99-99"),
            &init(2, "2025-11-25"),
        ));
        assert_eq!(f.status, Status::Fail);
        assert!(
            f.detail.contains("\"2025-99-99\"") && f.detail.contains("\"2025-11-25\""),
            "{}",
            f.detail
        );
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-11-25"),
            &init(2, "1.0"),
        ));
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("\"1.0\""), "{}", f.detail);
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-11-25"),
            &init(2, UNKNOWN_VERSION),
        ));
        assert_eq!(f.status, Status::Fail);
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-11-25"),
            &err(2, -32602),
        ));
        assert_eq!(f.status, Status::Fail);
    }

    /// The wrong verdict this replaces: `initialize` answered with "2026-07-28" passed as
    /// "another revision the server supports".
    #[test]
    fn an_initialize_answered_with_the_modern_revision_fails() {
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2026-07-28"),
            &init(2, "2025-11-25"),
        ));
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("\"2026-07-28\""), "{}", f.detail);
        // The same as the counter-offer to an unknown version.
        let f = built(judge_legacy(
            "2025-11-25",
            &init(1, "2025-11-25"),
            &init(2, "2026-07-28"),
        ));
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
    }

    fn unsupported(seq: u64, supported: Value) -> Reply {
        reply(
            seq,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "m",
                "data": {"supported": supported, "requested": UNKNOWN_VERSION}}}),
        )
    }

    #[test]
    fn modern_negotiation() {
        let discover = ok(1, json!({"supportedVersions": ["2026-07-28"]}));
        let f = built(judge_modern(
            Some(&discover),
            &unsupported(2, json!(["2026-07-28"])),
        ));
        assert_eq!((f.status, f.evidence), (Status::Pass, vec![2]));
        // An unknown entry in either list warns and cites where it was seen.
        let odd = ok(
            1,
            json!({"supportedVersions": ["2026-07-28", "2026-13-45"]}),
        );
        let f = built(judge_modern(
            Some(&odd),
            &unsupported(2, json!(["2026-07-28"])),
        ));
        assert_eq!((f.status, f.evidence), (Status::Warn, vec![1, 2]));
        assert!(f.detail.contains("\"2026-13-45\""), "{}", f.detail);
        let f = built(judge_modern(
            None,
            &unsupported(2, json!(["2026-07-28", 7])),
        ));
        assert_eq!(f.status, Status::Warn);
        assert!(f.detail.contains("non-string 7"), "{}", f.detail);
        let f = built(judge_modern(None, &ok(2, json!({}))));
        assert_eq!(f.status, Status::Fail);
    }
}
