//! `security.origin`: DNS rebinding. On every HTTP wire scout sends its harmless request
//! (`ping` in a session, or `server/discover`) three ways: as is (the control), with
//! `Origin: http://evil.example`, and — to plain-http loopback targets, where a rebinding
//! page would reach — with `Host: evil.example:PORT`. Only the headers differ; no third
//! party is ever contacted (the names are only written into headers).

use serde_json::json;

use super::ORIGIN;
use crate::client::Connection;
use crate::probe::Session;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::spec::{TargetSpec, is_loopback_url};
use crate::transport::limiter::RateLimiter;
use crate::transport::{Probe, Reply};

/// The foreign origin scout claims.
pub const FOREIGN_ORIGIN: &str = "http://evil.example";
/// The foreign host name scout claims (`:PORT` is added).
pub const FOREIGN_HOST: &str = "evil.example";

/// What one probe got.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A 2xx status: the server did the work.
    Served(u16),
    /// A 4xx status.
    Refused(u16),
    /// Anything else (no answer, 3xx, 5xx), described.
    Unclear(String),
}

/// Classifies a reply by its HTTP status.
pub fn answer(r: &Reply) -> Answer {
    match r.status() {
        Some(s) if (200..300).contains(&s) => Answer::Served(s),
        Some(s) if (400..500).contains(&s) => Answer::Refused(s),
        _ => Answer::Unclear(crate::probe::protocol::describe(r)),
    }
}

/// What the judgement needs besides the replies.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// The server is judged as remote (non-loopback, or `treat_as_remote`).
    pub remote: bool,
    /// The exchange where a request without credentials got 401/403, if one did.
    pub token_demanded: Option<Seq>,
    /// The revision in use requires 403 exactly (2025-11-25 and later, 2026-07-28).
    pub must_403: bool,
    /// The `Host` value sent, when the Host probe was sent.
    pub host_value: Option<String>,
}

/// The three replies of one wire.
#[derive(Debug, Clone, Copy)]
pub struct Replies<'a> {
    pub control: &'a Reply,
    pub origin: &'a Reply,
    pub host: Option<&'a Reply>,
}

/// Judges one wire's probes.
pub fn origin(r: Replies<'_>, ctx: &Context) -> FindingBuilder {
    let mut ev: Vec<Seq> = r
        .control
        .evidence
        .iter()
        .chain(&r.origin.evidence)
        .chain(r.host.map(|h| h.evidence.as_slice()).unwrap_or_default())
        .copied()
        .collect();
    if !matches!(answer(r.control), Answer::Served(_)) {
        return ORIGIN
            .skip(
                SkipReason::NotAssessed,
                format!(
                    "The plain request was not served either ({}), so a refusal would prove nothing.",
                    crate::probe::protocol::describe(r.control)
                ),
            )
            .evidence(ev);
    }
    let host_value = ctx.host_value.clone().unwrap_or_default();
    let host_answer = r.host.map(answer);
    let host_note = match &host_answer {
        None => String::new(),
        Some(Answer::Served(s)) => {
            format!(" A request with Host: {host_value} was served too (HTTP {s}).")
        }
        Some(Answer::Refused(s)) => {
            format!(" A request with Host: {host_value} was refused (HTTP {s}).")
        }
        Some(Answer::Unclear(d)) => format!(" A request with Host: {host_value} got {d}."),
    };
    match answer(r.origin) {
        Answer::Unclear(d) => ORIGIN
            .skip(
                SkipReason::NotAssessed,
                format!(
                    "The request with Origin: {FOREIGN_ORIGIN} got {d}: neither served nor refused."
                ),
            )
            .evidence(ev),
        Answer::Served(s) => {
            let seen = format!(
                "A request with Origin: {FOREIGN_ORIGIN} was served (HTTP {s}), like the same request without it.{host_note}"
            );
            if !ctx.remote {
                ORIGIN
                    .fail(format!(
                        "{seen} A web page on any site can drive this local server through the browser of a user on the same machine (DNS rebinding); the transports require 403 for an invalid Origin."
                    ))
                    .evidence(ev)
            } else if let Some(seq) = ctx.token_demanded {
                ev.push(seq);
                ORIGIN
                    .info(format!(
                        "{seen} The server demands a token (a request without one got 401/403), which a page in a browser does not have; the transports still require Origin validation."
                    ))
                    .evidence(ev)
            } else {
                ORIGIN
                    .warn(format!(
                        "{seen} The server is remote and open: any web page can call it from a visitor's browser; the transports require 403 for an invalid Origin."
                    ))
                    .evidence(ev)
            }
        }
        Answer::Refused(s) => {
            let mut problems = Vec::new();
            if ctx.must_403 && s != 403 {
                problems.push(format!(
                    "a request with Origin: {FOREIGN_ORIGIN} was refused with HTTP {s}, but this revision requires 403"
                ));
            }
            if let Some(Answer::Served(h)) = host_answer {
                problems.push(format!(
                    "a request with Host: {host_value} was served (HTTP {h}): the GET requests of a page that rebinds a name to this address carry no Origin, so only a Host check stops them"
                ));
            }
            if problems.is_empty() {
                ORIGIN
                    .pass(format!(
                        "A request with Origin: {FOREIGN_ORIGIN} was refused (HTTP {s}).{host_note}"
                    ))
                    .evidence(ev)
            } else {
                let mut text = problems.join("; ");
                if let Some(first) = text.get(..1) {
                    text = format!("{}{}", first.to_uppercase(), &text[1..]);
                }
                ORIGIN.warn(format!("{text}.")).evidence(ev)
            }
        }
    }
}

/// The harmless request of the wire's era.
fn plain(wire: &Connection) -> Probe {
    if wire.era() == Era::Modern {
        Probe::request("server/discover", json!({}))
    } else {
        Probe {
            method: Some("ping".into()),
            ..Probe::default()
        }
    }
}

fn with_header(wire: &Connection, name: &str, value: &str) -> Probe {
    Probe {
        headers: vec![(name.to_string(), Some(value.to_string()))],
        ..plain(wire)
    }
}

/// `evil.example:PORT` for a plain-http loopback URL (the Host a rebinding page sends), or
/// `None` when the Host probe does not apply (https, where HTTP/2 carries the authority
/// itself, and remote hosts, which rebinding does not target).
pub fn foreign_host(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    if u.scheme() != "http" || !is_loopback_url(url) {
        return None;
    }
    Some(match u.port_or_known_default() {
        Some(p) => format!("{FOREIGN_HOST}:{p}"),
        None => FOREIGN_HOST.to_string(),
    })
}

/// Probes every HTTP wire.
pub async fn run(s: &Session) -> Vec<FindingBuilder> {
    let TargetSpec::Http { url, .. } = &s.spec.target else {
        return vec![ORIGIN.skip(
            SkipReason::NotApplicable,
            "A stdio server has no HTTP endpoint a browser could reach.",
        )];
    };
    let wires: Vec<&Connection> = s
        .wires
        .iter()
        .filter(|w| {
            matches!(
                w.transport(),
                TransportKind::Http | TransportKind::LegacySse
            )
        })
        .collect();
    if wires.is_empty() {
        return vec![ORIGIN.skip(
            SkipReason::NotAssessed,
            "No HTTP conversation was opened with the server.",
        )];
    }
    let host_value = foreign_host(url);
    let token_demanded = crate::probe::auth::first_contact(s)
        .filter(|a| matches!(a.status, Some(401 | 403)))
        .map(|a| a.seq);
    let limiter = RateLimiter::new(None);
    let mut out = Vec::new();
    for wire in wires {
        limiter.wait().await;
        let control = wire.send(plain(wire)).await;
        limiter.wait().await;
        let origin = wire.send(with_header(wire, "Origin", FOREIGN_ORIGIN)).await;
        let host = match &host_value {
            Some(h) => {
                limiter.wait().await;
                Some(wire.send(with_header(wire, "Host", h)).await)
            }
            None => None,
        };
        let ctx = Context {
            remote: s.spec.is_remote(),
            token_demanded,
            must_403: wire.era() == Era::Modern || wire.protocol_version() >= "2025-11-25",
            host_value: host_value.clone(),
        };
        let f = self::origin(
            Replies {
                control: &control,
                origin: &origin,
                host: host.as_ref(),
            },
            &ctx,
        );
        out.push(f.era(wire.era()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::protocol::testing::{http_json, http_text};
    use crate::report::Status;

    const OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

    fn ctx(remote: bool) -> Context {
        Context {
            remote,
            token_demanded: None,
            must_403: true,
            host_value: Some("evil.example:3001".into()),
        }
    }

    fn judge3(origin: &Reply, host: Option<&Reply>, c: &Context) -> FindingBuilder {
        let control = http_json(1, 200, OK);
        super::origin(
            Replies {
                control: &control,
                origin,
                host,
            },
            c,
        )
    }

    #[test]
    fn a_served_foreign_origin_fails_locally_and_warns_remotely() {
        let served = http_json(2, 200, OK);
        let host = http_json(3, 200, OK);
        let f = judge3(&served, Some(&host), &ctx(false));
        assert_eq!(f.status(), Status::Fail);
        let remote = judge3(&served, None, &ctx(true));
        assert_eq!(remote.status(), Status::Warn);
        let protected = judge3(
            &served,
            None,
            &Context {
                token_demanded: Some(9),
                ..ctx(true)
            },
        );
        assert_eq!(protected.status(), Status::Info);
    }

    #[test]
    fn refusals_pass_and_wrong_codes_or_open_hosts_warn() {
        let forbidden = http_text(2, 403, Some("text/plain"), "Invalid Origin header");
        let misdirected = http_text(3, 421, Some("text/plain"), "Invalid Host header");
        assert_eq!(
            judge3(&forbidden, Some(&misdirected), &ctx(false)).status(),
            Status::Pass
        );
        let bad_request = http_text(2, 400, None, "no");
        assert_eq!(
            judge3(&bad_request, None, &ctx(false)).status(),
            Status::Warn
        );
        let older = Context {
            must_403: false,
            ..ctx(false)
        };
        assert_eq!(judge3(&bad_request, None, &older).status(), Status::Pass);
        let host_served = http_json(3, 200, OK);
        let f = judge3(&forbidden, Some(&host_served), &ctx(false));
        assert_eq!(f.status(), Status::Warn);
    }

    #[test]
    fn nothing_is_judged_when_the_plain_request_fails_too() {
        let control = http_text(1, 400, None, "Bad Request: Server not initialized");
        let origin = http_text(2, 400, None, "Bad Request: Server not initialized");
        let f = super::origin(
            Replies {
                control: &control,
                origin: &origin,
                host: None,
            },
            &ctx(false),
        );
        assert_eq!(f.status(), Status::Skip);
    }

    #[test]
    fn the_host_probe_is_for_plain_http_loopback_only() {
        assert_eq!(
            foreign_host("http://127.0.0.1:3001/mcp").as_deref(),
            Some("evil.example:3001")
        );
        assert_eq!(
            foreign_host("http://localhost/mcp").as_deref(),
            Some("evil.example:80")
        );
        assert_eq!(foreign_host("https://127.0.0.1:3001/mcp"), None);
        assert_eq!(foreign_host("http://mcp.example.com/mcp"), None);
    }
}
