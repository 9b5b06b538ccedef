//! `catalog.deprecated`: the features the specification keeps in its registry of deprecated
//! features that a wire shows the server using. A deprecated feature still works; the
//! registry asks new servers not to adopt it and existing ones to migrate before its earliest
//! removal, so each is a warning that names the migration and the date. A feature that is
//! deprecated only from a later revision than the one a wire speaks is a notice (info): the
//! server is ready for its revision, not yet for the next one.

use serde_json::Value;

use super::DEPRECATED;
use crate::client::Connection;
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::TransportKind;

/// One entry of the specification's registry of deprecated features.
struct Deprecation {
    feature: &'static str,
    /// The revision that deprecated it.
    since: &'static str,
    migrate: &'static str,
    earliest_removal: &'static str,
}

const LOGGING: Deprecation = Deprecation {
    feature: "the `logging` capability (server logging)",
    since: "2026-07-28",
    migrate: "log to stderr on stdio, and use OpenTelemetry for observability",
    earliest_removal: "the first revision released on or after 2027-07-28",
};

const HTTP_SSE: Deprecation = Deprecation {
    feature: "the HTTP+SSE transport",
    since: "2025-03-26",
    migrate: "serve Streamable HTTP",
    earliest_removal: "three months after SEP-2596 reaches Final",
};

/// The deprecated features a wire shows: its transport, the revision it speaks and the
/// capabilities its server declared; each with whether that revision already deprecates it
/// (`true`: a warning) or only a later one does (a notice).
fn seen(
    transport: TransportKind,
    version: &str,
    capabilities: &Value,
) -> Vec<(&'static Deprecation, bool)> {
    // Revisions are dates, so they compare as strings.
    let deprecated_at = |d: &Deprecation| !version.is_empty() && version >= d.since;
    let mut out = Vec::new();
    if transport == TransportKind::LegacySse {
        out.push((&HTTP_SSE, true));
    }
    if capabilities.get("logging").is_some_and(|v| !v.is_null()) {
        out.push((&LOGGING, deprecated_at(&LOGGING)));
    }
    out
}

fn sentence(d: &Deprecation) -> String {
    format!(
        "{} is deprecated since {} ({}; earliest removal: {})",
        d.feature, d.since, d.migrate, d.earliest_removal
    )
}

/// `catalog.deprecated` on one wire, citing the handshake that showed what it declared.
pub fn deprecated(wire: &Connection) -> FindingBuilder {
    let evidence = wire.handshake_evidence();
    if evidence.is_empty() {
        return DEPRECATED
            .skip(
                SkipReason::NotAssessed,
                "no recorded handshake declared the server's capabilities",
            )
            .era(wire.era());
    }
    judge(
        wire.transport(),
        wire.protocol_version(),
        wire.capabilities(),
        evidence,
    )
    .era(wire.era())
}

fn judge(
    transport: TransportKind,
    version: &str,
    capabilities: &Value,
    evidence: &[Seq],
) -> FindingBuilder {
    let found = seen(transport, version, capabilities);
    let (now, later): (Vec<_>, Vec<_>) = found.iter().partition(|(_, now)| *now);
    let f = if !now.is_empty() {
        let mut text: Vec<String> = now.iter().map(|(d, _)| sentence(d)).collect();
        text.extend(later.iter().map(|(d, _)| format!("later: {}", sentence(d))));
        DEPRECATED.warn(format!(
            "at {version}, the server uses what the specification has deprecated: {}",
            text.join("; ")
        ))
    } else if !later.is_empty() {
        let text: Vec<String> = later.iter().map(|(d, _)| sentence(d)).collect();
        DEPRECATED.info(format!(
            "nothing this wire uses is deprecated at {version}, but a later revision deprecates it: {}",
            text.join("; ")
        ))
    } else {
        DEPRECATED.pass(format!(
            "at {version}, the server uses none of the deprecated features a client can see ({} and {})",
            LOGGING.feature, HTTP_SSE.feature
        ))
    };
    f.evidence(evidence.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;
    use serde_json::json;

    fn status(transport: TransportKind, version: &str, caps: Value) -> (Status, String) {
        let f = judge(transport, version, &caps, &[1])
            .build(|_| true)
            .expect("a valid finding");
        (f.status, f.detail)
    }

    #[test]
    fn logging_warns_where_its_revision_deprecates_it_and_is_a_notice_before() {
        let (st, detail) = status(TransportKind::Http, "2026-07-28", json!({"logging": {}}));
        assert_eq!(st, Status::Warn, "{detail}");
        assert!(
            detail.contains("2027-07-28") && detail.contains("stderr"),
            "{detail}"
        );
        let (st, detail) = status(TransportKind::Http, "2025-11-25", json!({"logging": {}}));
        assert_eq!(st, Status::Info, "{detail}");
        let (st, _) = status(TransportKind::Stdio, "2025-11-25", json!({"tools": {}}));
        assert_eq!(st, Status::Pass);
    }

    #[test]
    fn the_http_sse_transport_warns_at_any_revision() {
        let (st, detail) = status(
            TransportKind::LegacySse,
            "2024-11-05",
            json!({"logging": {}}),
        );
        assert_eq!(st, Status::Warn, "{detail}");
        assert!(
            detail.contains("Streamable HTTP") && detail.contains("later: "),
            "{detail}"
        );
    }
}
