//! Opening a conversation: `server/discover` (2026-07-28), `initialize` +
//! `notifications/initialized` (handshake revisions), and how their answers decide the era
//! (not keyed on one error code: servers answer an unknown method in several ways).

use serde_json::{Value, json};

use crate::client::message::{META_SERVER_INFO, client_info};
use crate::client::{Connection, LEGACY_VERSION, MODERN_VERSION};
use crate::report::finding::Era;
use crate::transport::{Outcome, Probe, Reply};

/// Modern errors that prove the server speaks 2026-07-28 (header mismatch, missing client
/// capability, unsupported version).
pub const MODERN_ERRORS: [i64; 3] = [-32020, -32021, -32022];

/// What a `server/discover` answer says about the era.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoverVerdict {
    /// A DiscoverResult.
    Result,
    /// A recognised modern error (code given).
    ModernError(i64),
    /// Anything else: another error, a 4xx without a modern body, silence.
    NotModern(String),
}

/// Judges a `server/discover` reply.
pub fn judge_discover(reply: &Reply) -> DiscoverVerdict {
    if let Some(r) = reply.result() {
        if r.get("supportedVersions").is_some() || r.get("capabilities").is_some() {
            return DiscoverVerdict::Result;
        }
        return DiscoverVerdict::NotModern(
            "a result that is not a DiscoverResult (no supportedVersions, no capabilities)".into(),
        );
    }
    if let Some(code) = reply.error_code() {
        if MODERN_ERRORS.contains(&code) {
            return DiscoverVerdict::ModernError(code);
        }
        let status = reply
            .status()
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        return DiscoverVerdict::NotModern(format!("JSON-RPC error {code}{status}"));
    }
    let why = match (&reply.outcome, reply.status()) {
        (Outcome::TimedOut, _) => "no answer before the timeout".to_string(),
        (Outcome::TransportError(e), _) => format!("transport error: {e}"),
        (Outcome::Truncated, _) => "the answer exceeded the size cap".to_string(),
        (_, Some(s)) => format!("HTTP {s} without a JSON-RPC body"),
        _ => "no JSON-RPC answer".to_string(),
    };
    DiscoverVerdict::NotModern(why)
}

/// Sends `server/discover` with the modern envelope (the wire is treated as modern for
/// this request whatever it is tagged).
pub async fn discover(conn: &Connection) -> Reply {
    let modern = conn.clone().established(
        Era::Modern,
        MODERN_VERSION,
        conn.capabilities().clone(),
        None,
        None,
    );
    modern.request("server/discover", json!({})).await
}

/// Sends `initialize` offering `version`.
pub async fn initialize(conn: &Connection, version: &str) -> Reply {
    conn.send(Probe {
        meta: crate::transport::MetaMode::Omit,
        ..Probe::request(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": conn.persona().capabilities(),
                "clientInfo": client_info(),
            }),
        )
    })
    .await
}

/// The established legacy connection from an `initialize` reply, when it succeeded.
///
/// The wire speaks the version the server negotiated when that is a handshake revision.
/// Any other answer (2026-07-28, which has no `initialize`, or a string that names no
/// revision) cannot describe a handshake session: scout keeps the session at the version it
/// offered ([`LEGACY_VERSION`], the newest handshake revision), so every later request
/// carries a header and framing that belong together. `handshake.version_negotiation`
/// reports the bad answer, and the handshake phase of `scout check` builds no session on an
/// answer naming 2026-07-28 (see `version_negotiation::answered_without_handshake`).
pub fn legacy_from(conn: &Connection, reply: &Reply) -> Option<Connection> {
    let r = reply.result()?;
    let version = session_version(r.get("protocolVersion").and_then(Value::as_str)).to_string();
    Some(
        conn.clone()
            .established(
                Era::Legacy,
                version,
                r.get("capabilities").cloned().unwrap_or_else(|| json!({})),
                r.get("serverInfo").cloned(),
                r.get("instructions")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            )
            .shown_by(&reply.evidence),
    )
}

/// The version a handshake session runs at, from the `protocolVersion` an `initialize`
/// result carried (see [`legacy_from`]).
pub fn session_version(negotiated: Option<&str>) -> &str {
    match negotiated {
        Some(v) if crate::client::is_handshake_revision(v) => v,
        _ => LEGACY_VERSION,
    }
}

/// The established modern connection from a DiscoverResult reply.
pub fn modern_from(conn: &Connection, reply: &Reply) -> Connection {
    let r = reply.result();
    let info = r
        .and_then(|r| r.get("_meta"))
        .and_then(|m| m.get(META_SERVER_INFO))
        .cloned();
    conn.clone()
        .established(
            Era::Modern,
            MODERN_VERSION,
            r.and_then(|r| r.get("capabilities"))
                .cloned()
                .unwrap_or_else(|| json!({})),
            info,
            r.and_then(|r| r.get("instructions"))
                .and_then(Value::as_str)
                .map(str::to_string),
        )
        .shown_by(&reply.evidence)
}

/// The versions an `UnsupportedProtocolVersionError` (-32022) lists in `data.supported`.
pub fn supported_versions(reply: &Reply) -> Vec<String> {
    reply
        .response
        .as_ref()
        .and_then(|r| r.pointer("/error/data/supported"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// What a client does after `server/discover` was refused with -32022 listing `supported`
/// (2026-07-28 versioning: a recognised modern error "identifies a modern server: the
/// client retries with a supported version rather than falling back"; "The client SHOULD
/// select a mutually supported version from the `supported` list and retry the request, or
/// surface an error to the user if no compatible version exists").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Retry {
    /// The list names the revision scout speaks: ask again with it.
    Modern,
    /// The list names handshake revisions only: open with `initialize` at the newest one
    /// scout speaks.
    Handshake(String),
    /// Nothing in the list is a revision scout speaks.
    Nothing,
}

/// The retry for a -32022 answer listing `supported`.
pub fn retry_for(supported: &[String]) -> Retry {
    if supported.iter().any(|v| v == MODERN_VERSION) {
        return Retry::Modern;
    }
    supported
        .iter()
        .filter(|v| crate::client::is_handshake_revision(v))
        .max()
        .map_or(Retry::Nothing, |v| Retry::Handshake(v.clone()))
}

/// `initialize` then `notifications/initialized`: an established legacy connection and
/// the two replies (the second is None when initialize failed).
pub async fn open_legacy(conn: &Connection) -> (Option<Connection>, Reply, Option<Reply>) {
    open_legacy_at(conn, LEGACY_VERSION).await
}

/// [`open_legacy`] offering `version`.
pub async fn open_legacy_at(
    conn: &Connection,
    version: &str,
) -> (Option<Connection>, Reply, Option<Reply>) {
    let init = initialize(conn, version).await;
    match legacy_from(conn, &init) {
        Some(c) => {
            let note = c.notify("notifications/initialized", None).await;
            if c.persona().is_full() {
                c.listen().await;
            }
            (Some(c), init, Some(note))
        }
        None => (None, init, None),
    }
}

/// True when a failed `initialize` looks like an old HTTP+SSE server's answer to a
/// Streamable HTTP POST: a 4xx without a JSON-RPC body (how a 2024-11-05 HTTP+SSE server answers it).
pub fn looks_like_old_sse(conn: &Connection, init: &Reply) -> bool {
    conn.transport() == crate::report::model::TransportKind::Http
        && init.response.is_none()
        && init.status().is_some_and(|st| (400..500).contains(&st))
}

/// Tries the target URL as an HTTP+SSE stream: on an `endpoint` event, opens that wire
/// and runs `initialize` over it. `None` when the URL is no such stream.
pub async fn try_legacy_sse(
    connector: &crate::client::Connector,
) -> Option<(Option<Connection>, Reply, Option<Reply>)> {
    let crate::spec::TargetSpec::Http { url, .. } = &connector.spec().target else {
        return None;
    };
    connector.set_legacy_sse_url(Some(url.clone()));
    match connector
        .open_wire(crate::report::model::TransportKind::LegacySse)
        .await
    {
        Ok(conn) => {
            let (c, init, note) = open_legacy(&conn).await;
            if c.is_none() {
                connector.set_legacy_sse_url(None);
            }
            Some((c, init, note))
        }
        Err(e) => {
            tracing::debug!("not an HTTP+SSE server either: {e}");
            connector.set_legacy_sse_url(None);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_discover_is_retried_with_a_version_the_server_supports() {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(retry_for(&v(&["2026-07-28", "2025-11-25"])), Retry::Modern);
        assert_eq!(
            retry_for(&v(&["2025-06-18", "2025-03-26", "2099-01-01"])),
            Retry::Handshake("2025-06-18".into())
        );
        assert_eq!(retry_for(&v(&["2099-01-01"])), Retry::Nothing);
        assert_eq!(retry_for(&[]), Retry::Nothing);
    }

    #[test]
    fn a_session_runs_at_a_handshake_revision_only() {
        assert_eq!(session_version(Some("2025-06-18")), "2025-06-18");
        assert_eq!(session_version(Some("2024-11-05")), "2024-11-05");
        // 2026-07-28 has no initialize; a made-up string names no revision; neither can
        // describe a handshake session, which stays at the version scout offered.
        assert_eq!(session_version(Some(MODERN_VERSION)), LEGACY_VERSION);
        assert_eq!(session_version(Some("2025-99-99")), LEGACY_VERSION);
        assert_eq!(session_version(None), LEGACY_VERSION);
    }
}
