//! Auth: whether the server asks for credentials. For now one observation over the bare
//! client (no token, no fixed headers): a protected server answers 401. The OAuth probes
//! (challenge, garbage and query tokens, scope challenges) are later work and not
//! registered yet.

use serde_json::json;

use crate::probe::Session;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::{Probe, Reply, SessionMode};

crate::checks! { phase: Auth;
    OPEN = "auth.open", Minor, "Whether the server asks for credentials", crate::probe::registry::spec::AU26,
        "scout sends one ordinary read-only request on the bare client, without the configured token or headers. A 401 means the server protects its endpoint; an answer means anyone who can reach it may use it. An observation, not a judgement: many local servers are open by design.",
        "If the server is reachable by others, protect it with OAuth 2.1 as the authorization section of the spec describes.";
}

/// Judges the bare request.
pub fn judge(reply: &Reply, has_credentials: bool) -> FindingBuilder {
    let ev = reply.evidence.clone();
    match reply.status() {
        Some(401) => {
            let challenge = reply
                .http
                .as_ref()
                .and_then(|h| h.header("www-authenticate"))
                .map(|c| format!(" (WWW-Authenticate: {c})"))
                .unwrap_or_else(|| " without a WWW-Authenticate challenge".into());
            OPEN.info(format!(
                "The server is protected: a request without credentials got HTTP 401{challenge}."
            ))
            .evidence(ev)
        }
        Some(403) => OPEN
            .info("A request without credentials was refused with HTTP 403.")
            .evidence(ev),
        Some(status) => {
            let extra = if has_credentials {
                " although credentials are configured for it"
            } else {
                ""
            };
            OPEN.info(format!(
                "The server is open: a request without credentials got HTTP {status}{extra}."
            ))
            .evidence(ev)
        }
        None => OPEN.skip(
            SkipReason::NotAssessed,
            "The request without credentials got no HTTP answer.",
        ),
    }
}

/// Runs this phase's probes against the session.
pub async fn run(s: &mut Session) {
    let Some(wire) = s.wires.first().cloned() else {
        s.add(OPEN.skip(SkipReason::NotAssessed, "No connection was open."));
        return;
    };
    if wire.transport() == TransportKind::Stdio {
        s.add(OPEN.skip(
            SkipReason::NotApplicable,
            "A stdio server has no credentials to ask for: the trust decision was made when the command was chosen.",
        ));
        return;
    }
    let has_credentials = match &s.spec.target {
        crate::probe::spec::TargetSpec::Http {
            headers, token_env, ..
        } => token_env.is_some() || !headers.is_empty(),
        crate::probe::spec::TargetSpec::Stdio { .. } => false,
    };
    // A read-only request that needs no session: discover on a modern wire; otherwise the
    // handshake's own first request, initialize, on no session.
    let probe = if wire.era() == Era::Modern {
        Probe {
            bare: true,
            ..Probe::request("server/discover", json!({}))
        }
    } else {
        Probe {
            bare: true,
            session: SessionMode::None,
            ..Probe::request(
                "initialize",
                json!({"protocolVersion": wire.protocol_version(), "capabilities": {}, "clientInfo": {"name": "scout", "version": env!("CARGO_PKG_VERSION")}}),
            )
        }
    };
    let reply = wire.send(probe).await;
    s.add(judge(&reply, has_credentials));
}
