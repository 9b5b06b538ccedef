//! What a check is: its id, phase, severity, title, the spec page it enforces, what it
//! probes and what to do when it fails, and the basis of the worst verdict it may give. The
//! phases declare their checks with [`checks!`](crate::checks); `probe::registry` lists them.

use super::finding::{FindingBuilder, Phase, Severity, SkipReason, Status};

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
    /// The server author's own assertion about their server (an expectation of the
    /// config): it holds or it fails, as the author wrote it.
    Assertion,
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
            Basis::Assertion => "assertion",
        }
    }

    /// Whether a finding of `status` is within what this basis can support.
    pub fn allows(self, status: Status) -> bool {
        match self {
            Basis::Must | Basis::Heuristic | Basis::Robustness | Basis::Assertion => true,
            Basis::Should => status != Status::Fail,
            Basis::Observation => matches!(status, Status::Info | Status::Skip),
        }
    }
}

impl Check {
    /// The ground of this check's grade (every registered check has one; a test holds it).
    pub fn ground(&self) -> Option<&'static crate::report::grounds::Ground> {
        crate::report::grounds::of(self.id)
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
///     PARSE_ERROR = "protocol.parse_error", Minor, "Malformed JSON gets -32700", spec_url::B25,
///         "description", "advice";
/// }
/// ```
#[macro_export]
macro_rules! checks {
    (phase: $phase:ident; $( $name:ident = $id:literal, $sev:ident, $title:literal, $spec:expr, $desc:literal, $advice:literal; )* ) => {
        $(
            #[doc = $title]
            pub static $name: $crate::report::check::Check = $crate::report::check::Check {
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
        pub static CHECKS: &[&$crate::report::check::Check] = &[$(&$name),*];
    };
}

/// The URLs of the spec pages the checks cite, by revision and page (`B25`: the 2025-11-25
/// basic page).
pub mod spec_url {
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
    pub const DEPRECATED26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/deprecated";
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
    pub const MRTR26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr";
    pub const CANCEL26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation";
    pub const AU26: &str =
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization";
    pub const ASD26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/authorization-server-discovery";
    pub const CR26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration";
    pub const SECAU26: &str = "https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/security-considerations";
    pub const SEC26: &str = "https://modelcontextprotocol.io/docs/2026-07-28/tutorials/security/security_best_practices";
}
