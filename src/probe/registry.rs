//! The one list of checks. Each phase declares its checks beside its code with the
//! [`checks!`](crate::checks) macro; this file fixes the order of the phases and is the only
//! place that lists them all. From a check's id come the JUnit case name, the SARIF rule id,
//! the docs anchor (`docs/checks.md`) and the config key.

use crate::report::finding::{FindingBuilder, Phase, Severity, SkipReason, Status};

/// A registered check: the metadata every emitter and the docs read.
#[derive(Debug, PartialEq, Eq)]
pub struct Check {
    /// Stable `phase.snake_case` id (`stdio.*` ids are scored under `protocol`).
    pub id: &'static str,
    /// The category it is scored in.
    pub phase: Phase,
    /// Severity of a failure unless the finding says otherwise.
    pub severity: Severity,
    /// One line, sentence case, no final stop.
    pub title: &'static str,
    /// URL of the spec section it enforces (empty when it enforces no spec text).
    pub spec: &'static str,
    /// One paragraph: what is probed and what is expected.
    pub description: &'static str,
    /// What to do when it fails.
    pub advice: &'static str,
}

/// What a check's worst verdict rests on, and so the worst status it may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// A MUST or MUST NOT of the spec or an RFC it cites: may fail.
    Must,
    /// A SHOULD, SHOULD NOT or RECOMMENDED: warns at most.
    Should,
    /// scout's own rule (text patterns, timings, sizes): fails only what is unambiguous.
    Heuristic,
    /// What JSON-RPC or HTTP ask of any server (answering after garbage): may fail.
    Robustness,
    /// A statement about the server, never a judgement: info at most.
    Observation,
}

impl Basis {
    /// Lower-case name as in `docs/checks.md`.
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Must => "must",
            Basis::Should => "should",
            Basis::Heuristic => "heuristic",
            Basis::Robustness => "robustness",
            Basis::Observation => "observation",
        }
    }

    /// Whether a finding of `status` is within what this basis can support.
    pub fn allows(self, status: Status) -> bool {
        match self {
            Basis::Must | Basis::Heuristic | Basis::Robustness => true,
            Basis::Should => status != Status::Fail,
            Basis::Observation => matches!(status, Status::Info | Status::Skip),
        }
    }
}

impl Check {
    /// The ground of this check's grade (every registered check has one; a test holds it).
    pub fn ground(&self) -> Option<&'static crate::probe::grounds::Ground> {
        crate::probe::grounds::of(self.id)
    }

    /// The basis of this check's worst verdict; a check without a ground is treated as
    /// an observation, so it can never fail unearned.
    pub fn basis(&self) -> Basis {
        self.ground().map_or(Basis::Observation, |g| g.basis)
    }

    /// A request showed the property.
    pub fn pass(&'static self, detail: impl Into<String>) -> FindingBuilder {
        FindingBuilder::new(self, Status::Pass, detail.into())
    }
    /// An observation without judgement.
    pub fn info(&'static self, detail: impl Into<String>) -> FindingBuilder {
        FindingBuilder::new(self, Status::Info, detail.into())
    }
    /// A deviation an agent can live with.
    pub fn warn(&'static self, detail: impl Into<String>) -> FindingBuilder {
        FindingBuilder::new(self, Status::Warn, detail.into())
    }
    /// A deviation an agent cannot live with, at the check's default severity.
    pub fn fail(&'static self, detail: impl Into<String>) -> FindingBuilder {
        FindingBuilder::new(self, Status::Fail, detail.into())
    }
    /// Not assessed, for a typed reason.
    pub fn skip(&'static self, reason: SkipReason, detail: impl Into<String>) -> FindingBuilder {
        FindingBuilder::new(self, Status::Skip, detail.into()).skip_reason(reason)
    }
    /// The docs anchor of this check in `docs/checks.md`.
    pub fn anchor(&self) -> String {
        self.id.replace(['.', '_'], "-")
    }
}

/// Declares a phase's checks as `pub static` items plus a `CHECKS` slice in declaration order.
///
/// ```ignore
/// checks! { phase: Protocol;
///     PARSE_ERROR = "protocol.parse_error", Minor, "Malformed JSON gets -32700", spec::B25,
///         "description", "advice";
/// }
/// ```
#[macro_export]
macro_rules! checks {
    (phase: $phase:ident; $( $name:ident = $id:literal, $sev:ident, $title:literal, $spec:expr, $desc:literal, $advice:literal; )* ) => {
        $(
            #[doc = $title]
            pub static $name: $crate::probe::registry::Check = $crate::probe::registry::Check {
                id: $id,
                phase: $crate::report::finding::Phase::$phase,
                severity: $crate::report::finding::Severity::$sev,
                title: $title,
                spec: $spec,
                description: $desc,
                advice: $advice,
            };
        )*
        /// This phase's checks, in report order.
        pub static CHECKS: &[&$crate::probe::registry::Check] = &[$(&$name),*];
    };
}

/// Spec URLs the checks cite (SPEC-NOTES aliases).
pub mod spec {
    pub const T24: &str =
        "https://modelcontextprotocol.io/specification/2024-11-05/basic/transports";
    pub const T25C: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports";
    pub const L25: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle";
    pub const P25: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping";
    pub const B25: &str = "https://modelcontextprotocol.io/specification/2025-11-25/basic";
    pub const B25A: &str = "https://modelcontextprotocol.io/specification/2025-03-26/basic";
    pub const A25C: &str =
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization";
    pub const B26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic";
    pub const V26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning";
    pub const D26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/discover";
    pub const H26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http";
    pub const S26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio";
    pub const C26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching";
    pub const TL26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/server/tools";
    pub const R26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/resources";
    pub const PR26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/prompts";
    pub const COMPLETION26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion";
    pub const PAGINATION26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination";
    pub const PROGRESS26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress";
    pub const CANCEL26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation";
    pub const AU26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization";
    pub const ASD26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery";
    pub const CR26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration";
    pub const SECAU26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations";
    pub const SEC26: &str = "https://modelcontextprotocol.io/docs/2026-07-28/tutorials/security/security_best_practices";
}

/// Every phase's check table, in run order. This is the only list.
pub fn tables() -> [(Phase, &'static [&'static Check]); 10] {
    use crate::probe::*;
    [
        (Phase::Discovery, discovery::CHECKS),
        (Phase::Auth, auth::CHECKS),
        (Phase::Handshake, handshake::CHECKS),
        (Phase::Protocol, protocol::CHECKS),
        (Phase::Protocol, stdio::CHECKS),
        (Phase::Catalog, catalog::CHECKS),
        (Phase::Execution, execution::CHECKS),
        (Phase::Performance, performance::CHECKS),
        (Phase::Resilience, resilience::CHECKS),
        (Phase::Security, security::CHECKS),
    ]
}

/// All checks in report order.
pub fn all() -> impl Iterator<Item = &'static Check> {
    tables().into_iter().flat_map(|(_, t)| t.iter().copied())
}

/// Looks a check up by id.
pub fn lookup(id: &str) -> Option<&'static Check> {
    all().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for c in all() {
            assert!(seen.insert(c.id), "duplicate check id {}", c.id);
            let (prefix, rest) = c.id.split_once('.').expect("id has a phase prefix");
            let expected = if prefix == "stdio" {
                "protocol"
            } else {
                prefix
            };
            assert_eq!(
                expected,
                c.phase.as_str(),
                "{} is declared in the wrong phase",
                c.id
            );
            assert!(
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'),
                "{} is not snake_case",
                c.id
            );
            assert!(
                !c.title.is_empty() && !c.title.ends_with('.'),
                "{}: title",
                c.id
            );
            assert!(
                !c.description.is_empty() && !c.advice.is_empty(),
                "{}: text",
                c.id
            );
            assert!(
                c.spec.is_empty() || c.spec.starts_with("https://"),
                "{}: spec url",
                c.id
            );
        }
        assert!(
            seen.len() > 60,
            "the catalogue is the floor: {} checks",
            seen.len()
        );
    }

    #[test]
    fn a_verdict_beyond_the_basis_is_refused() {
        // catalog.tool_names rests on a SHOULD: it may warn, never fail.
        let should = lookup("catalog.tool_names").expect("registered");
        assert_eq!(should.basis(), Basis::Should);
        let err = should
            .fail("duplicate")
            .without_exchange()
            .build(|_| true)
            .expect_err("a fail on a SHOULD is refused");
        assert!(
            err.to_string().contains("beyond the check's basis"),
            "{err}"
        );
        assert!(
            should
                .warn("duplicate")
                .without_exchange()
                .build(|_| true)
                .is_ok()
        );
        // An observation never judges.
        let obs = lookup("execution.policy").expect("registered");
        assert_eq!(obs.basis(), Basis::Observation);
        assert!(obs.warn("x").without_exchange().build(|_| true).is_err());
        assert!(obs.info("x").build(|_| true).is_ok());
    }

    #[test]
    fn every_phase_has_checks() {
        for phase in Phase::ALL {
            assert!(all().any(|c| c.phase == phase), "{phase} has no checks");
        }
    }
}
