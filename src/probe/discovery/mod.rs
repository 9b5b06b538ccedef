//! Discovery: can the endpoint be reached at all, and over what; and for a protected server,
//! where its authorization server is (RFC 9728 / 8414 / OpenID Connect discovery, judged in
//! [`oauth`]).

pub mod oauth;

use crate::report::check::spec_url;

crate::checks! { phase: Discovery;
    REACHABLE = "discovery.reachable", Critical, "The server can be reached", spec_url::T25C,
        "scout opens the transport the way an agent would: an HTTP POST to the MCP endpoint, or spawning the stdio command. Any HTTP answer (even an error status) counts as reachable; a refused connection, a DNS failure, a TLS failure, a timeout or a command that cannot be started does not.",
        "Check the URL or command, that the server is running and listening on that address, and that nothing (a proxy, a firewall, a missing binary) stands in between. Every later phase is skipped as blocked until this passes.";
    TLS = "discovery.tls", Major, "Remote servers are reached over TLS", spec_url::A25C,
        "A server on a non-loopback host reached over plain http:// exposes every request, and any bearer token on it, to the network. An https:// URL passes only once the endpoint answered over TLS (the scheme alone shows nothing; no answer is a skip). Loopback and stdio targets are not applicable.",
        "Serve the endpoint over https:// (terminate TLS at the server or a trusted proxy) and point clients at the https URL.";
    PROTECTED_RESOURCE = "discovery.protected_resource", Major, "Protected resource metadata names the authorization server", spec_url::ASD26,
        "For a server that answers the first request without credentials with 401, scout looks for its OAuth 2.0 Protected Resource Metadata (RFC 9728) in the spec's order: the `resource_metadata` URL of the 401 challenge, then `/.well-known/oauth-protected-resource/<path>`, then `/.well-known/oauth-protected-resource`. The document must be a JSON object whose `resource` is identical to the identifier its location stands for (RFC 9728 §3.3): the server's canonical URL for the challenge's URL and the path-suffixed URI, the origin for the root URI (formed by inserting the well-known segment between host and path, so a root document naming the /mcp URL fails); a parent of that identifier is a warning. `authorization_servers` must list at least one authorization server; a content type other than JSON is a warning. A server whose challenge names only another scheme (an API key) and publishes no metadata gets a warning: HTTP servers should, not must, follow the OAuth profile. So does a server protected by a fixed bearer token: its challenge (Bearer, or none) names no `resource_metadata`, and neither the well-known URIs nor its origin's authorization server metadata (RFC 8414, OpenID Connect) exist, so nothing says it does OAuth; a server that does publish authorization server metadata but no resource metadata fails. Open servers are not applicable.",
        "Serve RFC 9728 metadata at the path-suffixed well-known URI and name it in the 401 challenge's `resource_metadata`; set `resource` to the exact URL clients use and list your authorization server in `authorization_servers`.";
    AUTHORIZATION_SERVER = "discovery.authorization_server", Major, "The authorization server publishes its metadata", spec_url::ASD26,
        "scout fetches the metadata of the first authorization server the protected resource metadata names, trying RFC 8414 and OpenID Connect Discovery in the spec's order (path insertion first for an issuer with a path). The document's `issuer` must equal the issuer it was fetched for (clients discard it otherwise), it must name a `token_endpoint`, and the endpoints of a non-loopback authorization server must be HTTPS.",
        "Publish RFC 8414 metadata (or OpenID Connect Discovery) where the spec's order finds it, with `issuer` exactly the URL listed in `authorization_servers`, and serve every endpoint over HTTPS.";
    PKCE = "discovery.pkce", Major, "The authorization server advertises PKCE S256", spec_url::SECAU26,
        "Clients must use PKCE with S256 and must refuse to proceed when the authorization server metadata has no `code_challenge_methods_supported`, so an agent cannot log a person in without it. scout checks that the field exists and lists `S256`.",
        "Support PKCE with S256 and say so in the metadata: `\"code_challenge_methods_supported\": [\"S256\"]`.";
    REGISTRATION = "discovery.registration", Minor, "How clients can register with the authorization server", spec_url::CR26,
        "An observation from the authorization server metadata: whether clients can use Client ID Metadata Documents (`client_id_metadata_document_supported`), Dynamic Client Registration (`registration_endpoint`, deprecated in 2026-07-28) or only a client id registered beforehand.",
        "Advertise `client_id_metadata_document_supported: true` so agents with no prior relationship can log in, or document how to obtain a client id.";
}

use crate::client::Connector;
use crate::client::connect::START_TIMEOUT;
use crate::probe::Session;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::spec::TargetSpec;
use crate::transport::{MetaMode, Outcome, Probe, Reply};

/// Opens the transport (starting the server first when a `start` command is configured)
/// and records whether it answered; blocks the run when it did not.
pub async fn run(s: &mut Session) {
    let connector = match Connector::in_run(&s.spec, s.recorder.clone(), &s.ctx) {
        Ok(c) => c,
        Err(e) => {
            let why = format!("scout could not prepare the connection: {e}");
            s.add(REACHABLE.fail(why.clone()).without_exchange());
            s.add(TLS.skip(SkipReason::Blocked, why.clone()));
            s.block(why);
            return;
        }
    };
    s.connector = Some(connector.clone());
    match s.spec.target.clone() {
        TargetSpec::Stdio(..) => stdio(s, &connector).await,
        TargetSpec::Http { url, .. } => http(s, &connector, &url).await,
    }
    // The OAuth discovery checks that had nothing to judge (stdio, unreachable) say why.
    oauth::fill_missing(s);
}

async fn stdio(s: &mut Session, connector: &Connector) {
    s.add(TLS.skip(
        SkipReason::NotApplicable,
        "stdio targets have no network hop",
    ));
    let conn = match connector.open().await {
        Ok(c) => c,
        Err(e) => {
            let why = format!("the command could not be started: {e}");
            s.add(REACHABLE.fail(why.clone()).without_exchange());
            s.add(crate::probe::stdio::process_failed(&why));
            s.block(why);
            return;
        }
    };
    // No wait here: a command that exits at once is seen now or by its first request (the
    // handshake then says it exited before answering), and `stdio.process` is judged at the
    // end on what the process did.
    let Some(wire) = conn.stdio() else { return };
    if let Some(status) = wire.process.try_exit().await {
        let why = format!(
            "the process exited right after it started ({status}); stderr:\n{}",
            tail(
                &wire
                    .process
                    .stderr_to_end(crate::transport::process::STDERR_END)
                    .await,
                2000
            )
        );
        s.add(REACHABLE.fail(why.clone()).without_exchange());
        s.add(crate::probe::stdio::process_failed(&why));
        s.block("the stdio server exited before the first request");
        return;
    }
    let pid = wire.process.pid();
    s.add(
        REACHABLE
            .pass(format!("the command started (pid {pid})"))
            .without_exchange(),
    );
    s.opened = Some(conn);
}

async fn http(s: &mut Session, connector: &Connector, url: &str) {
    if let Err(e) = connector.start_server(START_TIMEOUT).await {
        let stderr = match &e {
            crate::client::ConnectError::StartFailed { stderr, .. } => tail(stderr, 2000),
            _ => String::new(),
        };
        let why = format!("{e}; the start command's output:\n{stderr}");
        s.add(REACHABLE.fail(why.clone()).without_exchange());
        s.add(TLS.skip(SkipReason::Blocked, "the server did not come up"));
        s.block("the start command did not bring the server up");
        return;
    }
    let conn = match connector.open().await {
        Ok(c) => c,
        Err(e) => {
            let why = e.to_string();
            s.add(REACHABLE.fail(why.clone()).without_exchange());
            s.add(TLS.skip(SkipReason::Blocked, "no connection was opened"));
            s.block(why);
            return;
        }
    };
    // First contact uses the bare client (no credentials) with a well-formed modern request;
    // any HTTP answer at all proves reachability.
    let modern = conn.clone().established(
        crate::report::finding::Era::Modern,
        crate::client::MODERN_VERSION,
        serde_json::json!({}),
        None,
        None,
    );
    let reply = modern
        .send(Probe {
            bare: true,
            meta: MetaMode::Auto,
            ..Probe::request("server/discover", serde_json::json!({}))
        })
        .await;
    s.add(tls(url, &reply));
    match (&reply.outcome, reply.status()) {
        (_, Some(status)) => s.add(
            REACHABLE
                .pass(format!("POST {url} answered with HTTP {status}"))
                .evidence(reply.evidence.clone()),
        ),
        (Outcome::TransportError(e), None) => {
            let why = format!("POST {url} failed: {e}{}", untrusted_hint(e));
            s.add(REACHABLE.fail(why.clone()).evidence(reply.evidence.clone()));
            s.block(why);
            return;
        }
        (_, None) => {
            let why = format!("POST {url} got no HTTP answer within the timeout");
            s.add(REACHABLE.fail(why.clone()).evidence(reply.evidence.clone()));
            s.block(why);
            return;
        }
    }
    s.opened = Some(conn);
    // A protected server: where is its authorization server? (bare requests only)
    oauth::run(s, url).await;
}

/// What to do about a TLS failure for want of a trusted issuer: a server inside a company
/// network often has a certificate of the company's own authority.
fn untrusted_hint(error: &str) -> &'static str {
    if error.contains("UnknownIssuer") {
        " (the certificate's issuer is not trusted: if your own certificate authority issued it, set ca_file or SCOUT_CA_FILE to its PEM file)"
    } else {
        ""
    }
}

/// `discovery.tls` from the first contact (`first`, the request sent to `url`). An https URL
/// passes only once that request got an HTTP answer (a TLS session was made); a URL's scheme
/// alone shows nothing. Loopback is not applicable; plain http to another host fails.
pub fn tls(url: &str, first: &Reply) -> FindingBuilder {
    let parsed = url::Url::parse(url);
    let Ok(u) = parsed else {
        return TLS.skip(SkipReason::NotAssessed, format!("{url} is not a valid URL"));
    };
    if u.scheme() == "https" {
        return match first.status() {
            Some(status) => TLS
                .pass(format!(
                    "the endpoint answered over https (HTTP {status} on a TLS connection)"
                ))
                .evidence(first.evidence.iter().copied()),
            None => TLS
                .skip(
                    SkipReason::NotAssessed,
                    format!(
                        "no https answer came back ({}), so no TLS connection was shown",
                        crate::probe::handshake::describe(first)
                    ),
                )
                .evidence(first.evidence.iter().copied()),
        };
    }
    let loopback = match u.host() {
        Some(url::Host::Domain(d)) => d == "localhost" || d.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if loopback {
        TLS.skip(
            SkipReason::NotApplicable,
            "loopback target: traffic never leaves the machine",
        )
    } else {
        // The request went out in the clear whether or not it was answered.
        TLS.fail(format!("{url} is plain http on a non-loopback host"))
            .evidence(first.evidence.iter().copied())
    }
}

/// The last `max` bytes of `s` (on a char boundary), for quoting logs.
pub fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &s[start..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;
    use crate::transport::HttpInfo;

    fn answered(status: u16) -> Reply {
        Reply {
            evidence: vec![1],
            outcome: Outcome::NoResponse,
            response: None,
            notifications: vec![],
            server_requests: vec![],
            http: Some(HttpInfo {
                status,
                ..HttpInfo::default()
            }),
            elapsed: std::time::Duration::ZERO,
            refused: false,
        }
    }

    #[test]
    fn tls_passes_only_on_an_https_answer() {
        let url = "https://mcp.example.com/mcp";
        assert_eq!(tls(url, &answered(401)).status(), Status::Pass);
        // The scheme alone shows nothing (https://127.0.0.1:1/mcp once passed).
        let refused = Reply {
            http: None,
            outcome: Outcome::TransportError("connection refused".into()),
            ..answered(0)
        };
        let f = tls(url, &refused).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Skip);
        assert_eq!(f.skip_reason, Some(SkipReason::NotAssessed));
        assert_eq!(
            tls("http://mcp.example.com/mcp", &refused).status(),
            Status::Fail
        );
        assert_eq!(
            tls("http://127.0.0.1:3001/mcp", &answered(200)).status(),
            Status::Skip
        );
    }
}
