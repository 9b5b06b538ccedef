//! The discovery phase's OAuth checks, judged from bare requests only: for a server whose
//! first contact got 401, its Protected Resource Metadata (`discovery.protected_resource`),
//! its authorization server's metadata (`discovery.authorization_server`), PKCE S256
//! (`discovery.pkce`) and the client registration paths (`discovery.registration`). What
//! was found is kept in the session for the auth phase (the token endpoint, the issuer).

use crate::auth::challenge;
use crate::auth::http::AuthHttp;
use crate::auth::metadata::{self, Attempt, Discovery, Document, canonical, is_loopback};
use crate::probe::Session;
use crate::probe::discovery::{AUTHORIZATION_SERVER, PKCE, PROTECTED_RESOURCE, REGISTRATION};
use crate::report::check::Check;
use crate::report::finding::{FindingBuilder, SkipReason};

/// The checks judged here, in report order.
const OWN: [&Check; 4] = [
    &PROTECTED_RESOURCE,
    &AUTHORIZATION_SERVER,
    &PKCE,
    &REGISTRATION,
];

/// Records a skip for every check of this family that has no finding yet.
pub fn fill_missing(s: &mut Session) {
    let (reason, why) = match (&s.spec.target, &s.blocked) {
        (crate::spec::TargetSpec::Stdio(..), _) => (
            SkipReason::NotApplicable,
            "stdio servers take credentials from their environment, not from OAuth".to_string(),
        ),
        (_, Some(b)) => (SkipReason::Blocked, b.clone()),
        _ => (
            SkipReason::NotAssessed,
            "the first request got no HTTP answer to look at".to_string(),
        ),
    };
    for c in OWN {
        if !s.findings.iter().any(|f| f.id == c.id) {
            s.add(c.skip(reason, why.clone()));
        }
    }
}

/// Runs the OAuth discovery of a server reached at `url` (after the first contact).
pub async fn run(s: &mut Session, url: &str) {
    let Some(first) = crate::probe::auth::first_contact(s) else {
        return;
    };
    s.oauth.first = Some(first.clone());
    if first.status != Some(401) {
        let why = format!(
            "the server answered a request without credentials with HTTP {} (req#{}): it does not ask for OAuth credentials",
            first.status.map_or("?".into(), |c| c.to_string()),
            first.seq
        );
        for c in OWN {
            s.add(c.skip(SkipReason::NotApplicable, why.clone()));
        }
        return;
    }
    let http = match AuthHttp::new(
        s.recorder.clone(),
        &s.ctx.run_id,
        s.spec.timeout,
        url,
        s.spec.treat_as_remote,
    )
    .map(|h| h.with_limiter(crate::probe::auth::run_limiter(s)))
    {
        Ok(h) => h,
        Err(e) => {
            for c in OWN {
                s.add(c.skip(SkipReason::NotAssessed, e.clone()));
            }
            return;
        }
    };
    s.oauth.http = Some(http.clone());
    let bearer = first
        .challenge
        .as_deref()
        .and_then(|c| challenge::bearer([c]));
    let other_scheme = first
        .challenge
        .as_deref()
        .filter(|_| bearer.is_none())
        .and_then(challenge::schemes);
    let header_url = bearer
        .as_ref()
        .and_then(|c| c.param("resource_metadata"))
        .map(str::to_string);
    let prm = metadata::discover(
        &http,
        metadata::resource_metadata_urls(url, header_url.as_deref()),
    )
    .await;
    // A Bearer challenge (or none) that names no metadata, and no metadata at the
    // well-known URIs: an OAuth server missing its metadata, or a fixed token checked by
    // the server itself. The origin's authorization server metadata tells them apart.
    let oauth_elsewhere = if prm.found.is_none() && header_url.is_none() && other_scheme.is_none() {
        Some(metadata::discover(&http, metadata::authorization_server_urls(&origin(url))).await)
    } else {
        None
    };
    let (finding, issuer) = match &oauth_elsewhere {
        Some(asd) if asd.found.is_none() => {
            s.oauth.static_token = true;
            (
                static_token(first.seq, first.challenge.as_deref(), &prm, asd),
                None,
            )
        }
        _ => protected_resource(
            url,
            first.seq,
            header_url.as_deref(),
            &prm,
            other_scheme.as_deref(),
        ),
    };
    s.add(finding);
    let servers = prm
        .found
        .as_ref()
        .and_then(|d| d.strings("authorization_servers"))
        .unwrap_or_default();
    s.oauth.prm = Some(prm);
    let Some(issuer) = issuer else {
        let why = "no protected resource metadata named an authorization server";
        for c in [&AUTHORIZATION_SERVER, &PKCE, &REGISTRATION] {
            s.add(c.skip(SkipReason::NotAssessed, why));
        }
        return;
    };
    let asd = metadata::discover(&http, metadata::authorization_server_urls(&issuer)).await;
    let remote = s.spec.treat_as_remote;
    s.add(authorization_server(&issuer, servers.len(), &asd, remote));
    match &asd.found {
        Some(doc) => {
            s.add(pkce(doc));
            s.add(registration(doc));
        }
        None => {
            let why = format!("the metadata of {issuer} was not found");
            s.add(PKCE.skip(SkipReason::NotAssessed, why.clone()));
            s.add(REGISTRATION.skip(SkipReason::NotAssessed, why));
        }
    }
    s.oauth.issuer = Some(issuer);
    s.oauth.server = Some(asd);
}

/// `discovery.protected_resource`, and the authorization server to follow (the first one
/// listed, when the document names any). `other_scheme` names the challenge's schemes when
/// the server asked for credentials with a scheme that is not Bearer (an API key, say).
pub fn protected_resource(
    url: &str,
    first_seq: crate::report::exchange::Seq,
    header_url: Option<&str>,
    prm: &Discovery,
    other_scheme: Option<&str>,
) -> (FindingBuilder, Option<String>) {
    let mut evidence = prm.evidence();
    evidence.push(first_seq);
    let Some(doc) = &prm.found else {
        let tried = prm.tried();
        // Authorization is optional, and HTTP servers only SHOULD follow the OAuth profile:
        // a server that asks for another scheme owes no OAuth metadata.
        if let Some(schemes) = other_scheme {
            return (
                PROTECTED_RESOURCE
                    .warn(format!(
                        "The server asks for credentials with `{schemes}`, not OAuth (no Bearer challenge), and publishes no protected resource metadata (tried {tried}). The spec says HTTP servers should follow its OAuth authorization; an agent cannot obtain credentials for this scheme on its own."
                    ))
                    .evidence(evidence),
                None,
            );
        }
        let hint = if header_url.is_none() {
            " The 401 challenge names no resource_metadata URL either."
        } else {
            ""
        };
        return (
            PROTECTED_RESOURCE
                .fail(format!(
                    "No protected resource metadata was found: tried {tried}.{hint} An agent cannot find the authorization server."
                ))
                .evidence(evidence),
            None,
        );
    };
    let mut fails: Vec<String> = Vec::new();
    let mut warns: Vec<String> = Vec::new();
    judge_resource_field(url, doc, &mut fails, &mut warns);
    let servers = doc.strings("authorization_servers");
    let listed = doc
        .fields
        .get("authorization_servers")
        .and_then(|v| v.as_array())
        .map_or(0, Vec::len);
    let issuer = match &servers {
        None => {
            fails.push("it has no `authorization_servers` array".into());
            None
        }
        Some(v) if v.is_empty() => {
            fails.push(
                "its `authorization_servers` is empty (the spec requires at least one)".into(),
            );
            None
        }
        Some(v) => {
            if v.len() != listed || v.iter().any(|a| url::Url::parse(a).is_err()) {
                fails.push(format!(
                    "`authorization_servers` must be a list of issuer URLs, got {}",
                    doc.fields["authorization_servers"]
                ));
            }
            v.first().filter(|a| url::Url::parse(a).is_ok()).cloned()
        }
    };
    if !doc.json_type {
        warns.push(format!(
            "it is served as {} rather than application/json",
            doc.content_type.as_deref().unwrap_or("no content type")
        ));
    }
    if let Some(h) = header_url
        && doc.url != h
    {
        let outcome = prm
            .attempts
            .iter()
            .find(|a| a.url == h)
            .map_or_else(|| "no answer".to_string(), |a| a.outcome.clone());
        warns.push(format!(
            "the challenge's resource_metadata URL {h} did not serve it ({outcome})"
        ));
    }
    let summary = format!(
        "Protected resource metadata at {} ({}): resource {}, authorization servers {}{}",
        doc.url,
        doc.label,
        doc.str("resource").unwrap_or("(none)"),
        servers
            .as_ref()
            .map(|v| format!("[{}]", v.join(", ")))
            .unwrap_or_else(|| "(none)".into()),
        doc.strings("scopes_supported")
            .map(|v| format!(", scopes_supported [{}]", v.join(" ")))
            .unwrap_or_default()
    );
    let finding = if !fails.is_empty() {
        fails.extend(warns);
        PROTECTED_RESOURCE.fail(format!("{summary}; but {}.", fails.join("; ")))
    } else if !warns.is_empty() {
        PROTECTED_RESOURCE.warn(format!("{summary}; but {}.", warns.join("; ")))
    } else {
        PROTECTED_RESOURCE.pass(format!("{summary}."))
    };
    (finding.evidence(evidence), issuer)
}

/// The origin of `url` (`scheme://host[:port]`), or `url` itself when it does not parse.
fn origin(url: &str) -> String {
    url::Url::parse(url).map_or_else(|_| url.to_string(), |u| u.origin().ascii_serialization())
}

/// `discovery.protected_resource` for a server protected by a fixed token: its 401 asks for a
/// Bearer token (or names no scheme) and points at no metadata, and neither the protected
/// resource metadata nor the origin's authorization server metadata exists. Authorization
/// is optional, and "Implementations using an HTTP-based transport SHOULD conform to this
/// specification": the MUSTs about metadata bind servers that do OAuth, which nothing here
/// says this one does. A warning, as for an API key, naming the scheme and what was tried.
pub fn static_token(
    first_seq: crate::report::exchange::Seq,
    challenge: Option<&str>,
    prm: &Discovery,
    origin_as: &Discovery,
) -> FindingBuilder {
    let mut evidence = prm.evidence();
    evidence.extend(origin_as.evidence());
    evidence.push(first_seq);
    evidence.sort_unstable();
    evidence.dedup();
    let scheme = challenge.map_or_else(
        || "no WWW-Authenticate challenge".to_string(),
        |c| format!("`WWW-Authenticate: {c}`"),
    );
    PROTECTED_RESOURCE
        .warn(format!(
            "The server answers 401 with {scheme} and advertises no OAuth: the challenge names no resource_metadata, and neither protected resource metadata (tried {}) nor authorization server metadata at its origin (tried {}) exists. It takes a fixed bearer token, not OAuth; the spec says HTTP servers should follow its OAuth authorization, so an agent could obtain credentials on its own.",
            prm.tried(),
            origin_as.tried()
        ))
        .evidence(evidence)
}

/// The resource identifier a metadata document found at `doc.url` must carry (RFC 9728
/// §3.3: "identical to the protected resource's resource identifier value into which the
/// well-known URI path suffix was inserted"; for a URL named by the challenge, identical to
/// the URL the client sent its request to). The root well-known URI is formed from the
/// origin alone, so it describes the origin; every other location describes the server URL.
fn expected_resource(url: &str, doc: &Document) -> String {
    let server = canonical(url).unwrap_or_else(|| url.to_string());
    if found_at_root(url, doc) {
        url::Url::parse(url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or(server)
    } else {
        server
    }
}

/// Judges the document's `resource` against the identifier its location stands for.
fn judge_resource_field(
    url: &str,
    doc: &Document,
    fails: &mut Vec<String>,
    warns: &mut Vec<String>,
) {
    let server = canonical(url).unwrap_or_else(|| url.to_string());
    let expected = expected_resource(url, doc);
    let at_root = found_at_root(url, doc);
    let Some(r) = doc.str("resource") else {
        fails.push("it has no `resource`".into());
        return;
    };
    match canonical(r) {
        Some(c) if c == expected => {}
        Some(c) if at_root && c == server => fails.push(format!(
            "it was found at the root well-known URI, which stands for the origin {expected} (the well-known segment goes between host and path), yet its `resource` is the server's URL {r}; RFC 9728 §3.3 says the resource must be identical to the identifier the URI was formed from, so clients must not use it. Serve it at the path-suffixed URI {} instead",
            path_suffixed(url).unwrap_or_default()
        )),
        Some(c) if expected.starts_with(&format!("{c}/")) => warns.push(format!(
            "its `resource` {r} is a parent of the identifier this location stands for ({expected}); RFC 9728 §3.3 expects the identifier the metadata was requested for, and clients that compare strictly discard it"
        )),
        _ => fails.push(format!(
            "its `resource` {r} is not the identifier this location stands for ({expected}); clients must not use such metadata (RFC 9728 §3.3)"
        )),
    }
}

/// The well-known URIs of the server URL, without a challenge: the path-suffixed one (when
/// the URL has a path), then the root one.
fn well_known(url: &str) -> Vec<String> {
    metadata::resource_metadata_urls(url, None)
        .into_iter()
        .map(|(_, u)| u)
        .collect()
}

/// True when the document came from the root well-known URI, tried on its own (not as the
/// URL a challenge named: that one describes the URL the request went to).
fn found_at_root(url: &str, doc: &Document) -> bool {
    !doc.label.contains("challenge") && well_known(url).last() == Some(&doc.url)
}

/// `https://host/.well-known/oauth-protected-resource/<path>` for the server URL.
fn path_suffixed(url: &str) -> Option<String> {
    let all = well_known(url);
    (all.len() > 1).then(|| all[0].clone())
}

/// `discovery.authorization_server`.
pub fn authorization_server(
    issuer: &str,
    listed: usize,
    asd: &Discovery,
    treat_as_remote: bool,
) -> FindingBuilder {
    let evidence = asd.evidence();
    let Some(doc) = &asd.found else {
        if !asd.attempts.is_empty() && asd.attempts.iter().all(Attempt::refused) {
            // scout chose not to look: that says nothing about what the server publishes.
            return AUTHORIZATION_SERVER
                .warn(format!(
                    "scout did not fetch the metadata of the authorization server {issuer}: {}. A URL the server names is fetched only on its own origin or on a public address over https.",
                    asd.tried()
                ))
                .evidence(evidence);
        }
        return AUTHORIZATION_SERVER
            .fail(format!(
                "The authorization server {issuer} publishes no metadata: tried {} (RFC 8414 and OpenID Connect Discovery, in the spec's order).",
                asd.tried()
            ))
            .evidence(evidence);
    };
    let mut fails: Vec<String> = Vec::new();
    match doc.str("issuer") {
        Some(i) if i == issuer => {}
        Some(i) => fails.push(format!(
            "its `issuer` is {i}, not the {issuer} it was fetched for, so clients must discard it"
        )),
        None => fails.push("it has no `issuer`".into()),
    }
    let token = doc.str("token_endpoint");
    if token.is_none() {
        fails.push("it names no `token_endpoint`".into());
    }
    let mut plain: Vec<String> = Vec::new();
    for key in [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "registration_endpoint",
    ] {
        if let Some(u) = doc.str(key)
            && !u.starts_with("https://")
            && (treat_as_remote || !is_loopback(u))
        {
            plain.push(format!("{key} {u}"));
        }
    }
    if !plain.is_empty() {
        fails.push(format!(
            "these are not HTTPS on a non-loopback host: {} (every authorization server endpoint must be)",
            plain.join(", ")
        ));
    }
    let tries = if asd.attempts.is_empty() {
        String::new()
    } else {
        format!(" after {}", asd.tried())
    };
    let several = if listed > 1 {
        format!(" (the first of the {listed} listed authorization servers)")
    } else {
        String::new()
    };
    let summary = format!(
        "Metadata of {issuer}{several} at {} ({}){tries}: token endpoint {}, authorization endpoint {}",
        doc.url,
        doc.label,
        token.unwrap_or("(none)"),
        doc.str("authorization_endpoint").unwrap_or("(none)")
    );
    let f = if fails.is_empty() {
        AUTHORIZATION_SERVER.pass(format!("{summary}; issuer matches."))
    } else {
        AUTHORIZATION_SERVER.fail(format!("{summary}; but {}.", fails.join("; ")))
    };
    f.evidence(evidence)
}

/// `discovery.pkce`.
pub fn pkce(doc: &Document) -> FindingBuilder {
    let f = match doc.strings("code_challenge_methods_supported") {
        None => PKCE.fail(format!(
            "The metadata at {} has no `code_challenge_methods_supported`: the spec says clients must refuse to proceed.",
            doc.url
        )),
        Some(m) if !m.iter().any(|x| x == "S256") => PKCE.fail(format!(
            "`code_challenge_methods_supported` at {} is [{}], without S256: clients must use S256.",
            doc.url,
            m.join(", ")
        )),
        Some(m) => PKCE.pass(format!(
            "`code_challenge_methods_supported` at {} is [{}].",
            doc.url,
            m.join(", ")
        )),
    };
    f.evidence([doc.seq])
}

/// `discovery.registration` (an observation).
pub fn registration(doc: &Document) -> FindingBuilder {
    let cimd = doc
        .fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let dcr = doc.str("registration_endpoint");
    let mut ways = vec!["a client id registered beforehand".to_string()];
    if cimd {
        ways.push("Client ID Metadata Documents (client_id_metadata_document_supported)".into());
    }
    if let Some(e) = dcr {
        ways.push(format!(
            "Dynamic Client Registration at {e} (deprecated in 2026-07-28)"
        ));
    }
    let detail = if ways.len() == 1 {
        format!(
            "Only pre-registration: the metadata at {} advertises neither Client ID Metadata Documents nor a registration_endpoint, so an agent needs a client id from the operator.",
            doc.url
        )
    } else {
        format!(
            "Clients can use {} (metadata at {}).",
            ways.join(", "),
            doc.url
        )
    };
    REGISTRATION.info(detail).evidence([doc.seq])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::metadata::Attempt;
    use crate::report::Status;
    use serde_json::json;

    fn doc(url: &str, v: serde_json::Value) -> Document {
        Document {
            url: url.into(),
            label: "test",
            seq: 3,
            fields: v.as_object().cloned().unwrap_or_default(),
            content_type: Some("application/json".into()),
            json_type: true,
        }
    }

    fn found(d: Document) -> Discovery {
        Discovery {
            attempts: Vec::new(),
            found: Some(d),
        }
    }

    #[test]
    fn resource_must_name_this_server() {
        let url = "http://127.0.0.1:9/mcp";
        let prm = |resource: &str| {
            found(doc(
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
                json!({"resource": resource, "authorization_servers": ["http://127.0.0.1:8"]}),
            ))
        };
        let (f, issuer) = protected_resource(url, 1, None, &prm("http://127.0.0.1:9/mcp"), None);
        assert_eq!(f.status(), Status::Pass);
        assert_eq!(issuer.as_deref(), Some("http://127.0.0.1:8"));
        let (f, _) = protected_resource(url, 1, None, &prm("HTTP://127.0.0.1:9/mcp/"), None);
        assert_eq!(f.status(), Status::Pass, "canonical comparison");
        let (f, _) = protected_resource(url, 1, None, &prm("http://127.0.0.1:9"), None);
        assert_eq!(f.status(), Status::Warn, "a parent");
        let (f, _) = protected_resource(url, 1, None, &prm("http://127.0.0.1:9/other"), None);
        assert_eq!(f.status(), Status::Fail);
        let empty = found(doc(
            "http://x/prm",
            json!({"resource": url, "authorization_servers": []}),
        ));
        let (f, issuer) = protected_resource(url, 1, None, &empty, None);
        assert_eq!(f.status(), Status::Fail);
        assert!(issuer.is_none());
        let none = Discovery {
            attempts: vec![Attempt {
                url: "http://x/.well-known/oauth-protected-resource".into(),
                label: "root",
                seq: 2,
                outcome: "HTTP 404".into(),
            }],
            found: None,
        };
        let (f, _) = protected_resource(url, 1, None, &none, None);
        assert_eq!(f.status(), Status::Fail);
    }

    #[test]
    fn root_metadata_describes_the_origin() {
        // RFC 9728 §3.1 forms the well-known URI by inserting the segment between host and
        // path, and §3.3 wants `resource` identical to what it was formed from. Previously
        // the origin at the root was a warning and the /mcp URL at the root a pass.
        let url = "http://127.0.0.1:9/mcp";
        let at = |where_: &str, label: &'static str, resource: &str| {
            let mut d = doc(
                where_,
                json!({"resource": resource, "authorization_servers": ["http://127.0.0.1:8"]}),
            );
            d.label = label;
            protected_resource(url, 1, None, &found(d), None).0.status()
        };
        let root = "http://127.0.0.1:9/.well-known/oauth-protected-resource";
        let suffixed = "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            at(root, "the root well-known URI", "http://127.0.0.1:9"),
            Status::Pass
        );
        assert_eq!(
            at(root, "the root well-known URI", "http://127.0.0.1:9/mcp"),
            Status::Fail
        );
        assert_eq!(
            at(
                suffixed,
                "the path-suffixed well-known URI",
                "http://127.0.0.1:9/mcp"
            ),
            Status::Pass
        );
        // Named by the challenge, the document describes the URL the request went to.
        assert_eq!(
            at(
                root,
                "the resource_metadata URL of the 401 challenge",
                "http://127.0.0.1:9/mcp"
            ),
            Status::Pass
        );
    }

    #[test]
    fn no_metadata_behind_a_non_oauth_scheme_is_a_warning() {
        let none = Discovery {
            attempts: Vec::new(),
            found: None,
        };
        let url = "http://127.0.0.1:9/mcp";
        let (f, _) = protected_resource(url, 1, None, &none, Some("ApiKey"));
        assert_eq!(f.status(), Status::Warn);
        let (f, _) = protected_resource(url, 1, None, &none, None);
        assert_eq!(f.status(), Status::Fail);
    }

    #[test]
    fn server_issuer_endpoints_and_pkce() {
        let good = found(doc(
            "http://127.0.0.1:8/.well-known/oauth-authorization-server",
            json!({"issuer": "http://127.0.0.1:8", "token_endpoint": "http://127.0.0.1:8/token",
                   "code_challenge_methods_supported": ["S256"]}),
        ));
        assert_eq!(
            authorization_server("http://127.0.0.1:8", 1, &good, false).status(),
            Status::Pass
        );
        // Loopback treated as remote: plain http endpoints fail.
        assert_eq!(
            authorization_server("http://127.0.0.1:8", 1, &good, true).status(),
            Status::Fail
        );
        assert_eq!(
            authorization_server("http://127.0.0.1:9", 1, &good, false).status(),
            Status::Fail,
            "issuer mismatch"
        );
        let d = good.found.clone().expect("doc");
        assert_eq!(pkce(&d).status(), Status::Pass);
        let plain = doc("u", json!({"code_challenge_methods_supported": ["plain"]}));
        assert_eq!(pkce(&plain).status(), Status::Fail);
        assert_eq!(pkce(&doc("u", json!({}))).status(), Status::Fail);
        assert_eq!(registration(&d).status(), Status::Info);
    }
}
