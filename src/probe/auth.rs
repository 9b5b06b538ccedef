//! Auth: whether the server asks for credentials. For now one observation of the discovery
//! phase's first contact, made on the bare client (no token, no fixed headers): a protected
//! server answers it with 401. The OAuth probes
//! (challenge, garbage and query tokens, scope challenges) are later work and not
//! registered yet.

use crate::probe::Session;
use crate::probe::spec::TargetSpec;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::telemetry::{ExchangeKind, Seq};

crate::checks! { phase: Auth;
    OPEN = "auth.open", Minor, "Whether the server asks for credentials", crate::probe::registry::spec::AU26,
        "The first request of the run (server/discover, from the discovery phase) is sent on the bare client, without the configured token or headers. A 401 means the server protects its endpoint; an answer means anyone who can reach it may use it. An observation, not a judgement: many local servers are open by design.",
        "If the server is reachable by others, protect it with OAuth 2.1 as the authorization section of the spec describes.";
}

/// What the first unauthenticated request got back.
#[derive(Debug, Clone, PartialEq)]
pub struct BareAnswer {
    pub seq: Seq,
    pub status: Option<u16>,
    pub challenge: Option<String>,
}

/// The discovery phase's first contact: the first POST, made on the bare client.
pub fn first_contact(s: &Session) -> Option<BareAnswer> {
    s.recorder
        .snapshot()
        .into_iter()
        .find_map(|e| match e.kind {
            ExchangeKind::Http(h) if h.method == "POST" => Some(BareAnswer {
                seq: e.seq,
                status: h.status,
                challenge: h
                    .response_headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
                    .map(|(_, v)| v.clone()),
            }),
            _ => None,
        })
}

/// Judges the bare request.
pub fn judge(answer: &BareAnswer, has_credentials: bool) -> FindingBuilder {
    let ev = [answer.seq];
    match answer.status {
        Some(401) => {
            let challenge = answer
                .challenge
                .as_ref()
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

/// Runs this phase's checks against the session. No request of its own: the discovery
/// phase's first contact was made without credentials, and its answer tells.
pub async fn run(s: &mut Session) {
    let (has_credentials, http) = match &s.spec.target {
        TargetSpec::Http {
            headers, token_env, ..
        } => (token_env.is_some() || !headers.is_empty(), true),
        TargetSpec::Stdio { .. } => (false, false),
    };
    if !http {
        s.add(OPEN.skip(
            SkipReason::NotApplicable,
            "A stdio server has no credentials to ask for: the trust decision was made when the command was chosen.",
        ));
        return;
    }
    let finding = match first_contact(s) {
        Some(answer) => judge(&answer, has_credentials),
        None => OPEN.skip(
            SkipReason::NotAssessed,
            "No request without credentials was made.",
        ),
    };
    s.add(finding);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    #[test]
    fn tells_protected_from_open() {
        let protected = BareAnswer {
            seq: 1,
            status: Some(401),
            challenge: Some("Bearer resource_metadata=\"x\"".into()),
        };
        let f = judge(&protected, false);
        assert_eq!(f.status(), Status::Info);
        let open = BareAnswer {
            seq: 1,
            status: Some(200),
            challenge: None,
        };
        assert_eq!(judge(&open, true).status(), Status::Info);
        let none = BareAnswer {
            seq: 1,
            status: None,
            challenge: None,
        };
        assert_eq!(judge(&none, false).status(), Status::Skip);
    }
}
