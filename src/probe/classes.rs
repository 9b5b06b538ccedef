//! What a probe can do to a server, and where each kind runs.
//!
//! - *ordinary*: what an agent sends (the handshake, lists, tool calls, reads). Runs everywhere.
//! - *malformed*: what a buggy client sends (bad JSON, invalid requests, bad headers,
//!   abandoned requests). Runs everywhere, in the final stage, alone on the wire; on a
//!   remote target each unparsable body goes to the server once, on its first wire.
//! - *stress*: what costs a server more than a client would (a 4 MiB body, bursts of extra
//!   sessions, the load ramp). On loopback and stdio targets it runs as the rest; on a remote
//!   target only with `--allow-load`, and is reported as skipped by policy otherwise.

use crate::report::check::Check;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::spec::ServerSpec;

/// What a probe can do to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeClass {
    Ordinary,
    Malformed,
    Stress,
}

/// The checks whose probes put load on a server beyond an agent's: the 4 MiB body, the
/// two extra clients at once, the five extra sessions, the load ramp.
const STRESS: [&str; 4] = [
    "resilience.oversized_request",
    "resilience.concurrent_sessions",
    "security.session_entropy",
    "performance.throughput",
];

/// The checks whose probes send what a buggy client would.
const MALFORMED: [&str; 3] = [
    "resilience.malformed_survival",
    "resilience.timeout_recovery",
    "resilience.session_recovery",
];

/// The class of a check's probes. The protocol phase's second half (garbage, invalid
/// requests, batches, bad headers, unknown sessions) is malformed as a whole.
pub fn class_of(check_id: &str) -> ProbeClass {
    if STRESS.contains(&check_id) {
        ProbeClass::Stress
    } else if MALFORMED.contains(&check_id) {
        ProbeClass::Malformed
    } else {
        ProbeClass::Ordinary
    }
}

/// The policy skip of a stress check on a remote target without `--allow-load`, or `None`
/// when its probes may run.
pub fn refused(spec: &ServerSpec, check: &'static Check) -> Option<FindingBuilder> {
    if class_of(check.id) != ProbeClass::Stress || !spec.is_remote() || spec.policy.allow_load {
        return None;
    }
    Some(check.skip(
        SkipReason::Policy,
        "a stress probe (more load than an agent puts on a server); on a remote server it runs only with --allow-load",
    ))
}

/// True when each malformed message goes to the server at most once per run (a remote
/// target): a dual-era server gets the unparsable bodies on its first wire only.
pub fn malformed_once(spec: &ServerSpec) -> bool {
    spec.is_remote()
}

/// The policy skip of a malformed probe on the wire that did not send it, naming the wire
/// that did.
pub fn sent_once(check: &'static Check, sent_on: crate::report::finding::Era) -> FindingBuilder {
    check.skip(
        SkipReason::Policy,
        format!(
            "a malformed message goes to a remote server once per run: it was sent, and judged, on the {} wire (an unparsable body means the same whatever revision a wire speaks)",
            sent_on.as_str()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::registry;
    use crate::spec::TargetSpec;

    fn http(url: &str) -> ServerSpec {
        ServerSpec::new(
            "s",
            TargetSpec::Http {
                url: url.into(),
                headers: vec![],
                auth: Default::default(),
                start: None,
            },
        )
    }

    #[test]
    fn every_classified_check_is_registered() {
        for id in STRESS.iter().chain(MALFORMED.iter()) {
            assert!(registry::all().any(|c| c.id == *id), "{id}");
        }
    }

    #[test]
    fn stress_runs_on_loopback_and_on_remote_only_with_allow_load() {
        let check = registry::all()
            .find(|c| c.id == "resilience.oversized_request")
            .expect("registered");
        assert!(refused(&http("http://127.0.0.1:9/mcp"), check).is_none());
        let remote = http("https://mcp.example.com/mcp");
        let f = refused(&remote, check).expect("refused on a remote target");
        assert_eq!(f.status(), crate::report::finding::Status::Skip);
        let mut allowed = remote;
        allowed.policy.allow_load = true;
        assert!(refused(&allowed, check).is_none());
        let ordinary = registry::all()
            .find(|c| c.id == "protocol.parse_error")
            .expect("registered");
        assert!(refused(&http("https://mcp.example.com/mcp"), ordinary).is_none());
    }
}
