//! Where scout may send a credential. A client secret, key or refresh token goes only to the
//! token endpoint of an authorization server whose metadata passed discovery, and only for a
//! server whose Protected Resource Metadata names it:
//!
//! - the metadata's `resource` identifies the server scout is talking to (RFC 9728 §3.3: a
//!   `resource` not identical to the resource's identifier means the metadata MUST NOT be
//!   used);
//! - the authorization server is the one the credentials are bound to, when `issuer` is
//!   configured (the spec: clients MUST associate pre-registered credentials with the issuing
//!   authorization server, keyed by its `issuer`, and MUST NOT reuse them with another);
//! - the authorization server metadata's `issuer` is the one it was fetched for (RFC 8414
//!   §3.3: otherwise it MUST NOT be used);
//! - its token endpoint is HTTPS, unless on loopback for a server treated as local (the spec:
//!   all authorization server endpoints MUST be served over HTTPS).
//!
//! The first two refusals name the operator's configuration (exit 2); the others name the
//! server's metadata. Nothing here sends a request.

use crate::auth::metadata::{Document, canonical, is_loopback};

/// Why a credential is not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The configuration binds the credentials elsewhere (a usage error: exit 2).
    Config(String),
    /// The server's metadata fails a rule that says it must not be used.
    Metadata(String),
}

impl Refusal {
    /// The one line that says why.
    pub fn message(&self) -> &str {
        match self {
            Refusal::Config(m) | Refusal::Metadata(m) => m,
        }
    }
}

/// Where a credential may go, once every rule held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub issuer: String,
    pub token_endpoint: String,
    /// The RFC 8707 `resource` to ask for: the metadata's, which identifies this server.
    pub resource: String,
    /// `token_endpoint_auth_methods_supported`, when listed.
    pub auth_methods: Option<Vec<String>>,
    /// `token_endpoint_auth_signing_alg_values_supported`, when listed.
    pub signing_algs: Option<Vec<String>>,
}

/// What discovery found, to be judged.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    /// The MCP endpoint scout talks to.
    pub server_url: &'a str,
    pub prm: &'a Document,
    /// The issuer followed (the first of the metadata's `authorization_servers`).
    pub issuer: &'a str,
    /// Its metadata.
    pub server: &'a Document,
    /// Loopback counts as remote (`treat_as_remote`): plain http is refused there too.
    pub treat_as_remote: bool,
}

/// True when the metadata's `resource` identifies the server at `server_url`: the same
/// canonical URI, or one of its parent paths on the same origin (the metadata of a server
/// published at the origin's root well-known URI names the origin). Anything else (another
/// host, another path) is another resource.
pub fn resource_identifies(resource: &str, server_url: &str) -> bool {
    let (Some(r), Some(server)) = (canonical(resource), canonical(server_url)) else {
        return false;
    };
    r == server || server.starts_with(&format!("{r}/"))
}

/// The resource check alone (before the authorization server is even asked), for callers
/// that stop at the first refusal.
pub fn check_resource(server_url: &str, prm: &Document) -> Result<String, Refusal> {
    match prm.str("resource") {
        Some(r) if resource_identifies(r, server_url) => {
            Ok(canonical(r).unwrap_or_else(|| r.to_string()))
        }
        Some(r) => Err(Refusal::Metadata(format!(
            "the protected resource metadata at {} is for resource {r}, not for {server_url}; RFC 9728 §3.3 says such metadata must not be used, so scout sends no credential to the authorization server it names",
            prm.url
        ))),
        None => Err(Refusal::Metadata(format!(
            "the protected resource metadata at {} names no `resource`, so scout cannot tell it is this server's (RFC 9728 §3.3) and sends no credential to the authorization server it names",
            prm.url
        ))),
    }
}

/// The configured issuer binding alone.
pub fn check_issuer_binding(configured: Option<&str>, issuer: &str) -> Result<(), Refusal> {
    match configured {
        Some(want) if !same_issuer(want, issuer) => Err(Refusal::Config(format!(
            "the credentials are bound to issuer {want} (`issuer` / --issuer) but the server's authorization server is {issuer}; scout sends them to no other authorization server (fix `issuer`, or register a client with {issuer})"
        ))),
        _ => Ok(()),
    }
}

/// Issuers are compared as strings (RFC 8414 §3.3), forgiving only a trailing slash in the
/// configuration.
fn same_issuer(configured: &str, issuer: &str) -> bool {
    configured == issuer || configured.trim_end_matches('/') == issuer.trim_end_matches('/')
}

/// Every rule, in order: resource, configured issuer, metadata issuer, HTTPS.
pub fn check(found: Found<'_>, configured_issuer: Option<&str>) -> Result<Bound, Refusal> {
    let resource = check_resource(found.server_url, found.prm)?;
    check_issuer_binding(configured_issuer, found.issuer)?;
    let doc = found.server;
    match doc.str("issuer") {
        Some(i) if i == found.issuer => {}
        other => {
            return Err(Refusal::Metadata(format!(
                "the metadata at {} says issuer {}, not {} it was fetched for; RFC 8414 §3.3 says it must not be used, so scout sends no credential to its token endpoint",
                doc.url,
                other.unwrap_or("(none)"),
                found.issuer
            )));
        }
    }
    let Some(endpoint) = doc.str("token_endpoint") else {
        return Err(Refusal::Metadata(format!(
            "the metadata of {} at {} names no token_endpoint",
            found.issuer, doc.url
        )));
    };
    if !endpoint_allowed(endpoint, found.treat_as_remote) {
        return Err(Refusal::Metadata(format!(
            "the token endpoint {endpoint} of {} is not HTTPS on a {} host; the spec requires HTTPS for every authorization server endpoint, so scout sends no credential there",
            found.issuer,
            if found.treat_as_remote {
                "remote-treated"
            } else {
                "non-loopback"
            }
        )));
    }
    Ok(Bound {
        issuer: found.issuer.to_string(),
        token_endpoint: endpoint.to_string(),
        resource,
        auth_methods: doc.strings("token_endpoint_auth_methods_supported"),
        signing_algs: doc.strings("token_endpoint_auth_signing_alg_values_supported"),
    })
}

/// HTTPS, or plain http on loopback when loopback is not treated as remote.
pub fn endpoint_allowed(url: &str, treat_as_remote: bool) -> bool {
    url.starts_with("https://") || (!treat_as_remote && is_loopback(url))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(url: &str, v: serde_json::Value) -> Document {
        Document {
            url: url.into(),
            label: "test",
            seq: 1,
            fields: v.as_object().cloned().unwrap_or_default(),
            content_type: Some("application/json".into()),
            json_type: true,
        }
    }

    const MCP: &str = "http://127.0.0.1:9/mcp";
    const AS: &str = "http://127.0.0.1:8";

    fn prm(resource: &str) -> Document {
        doc(
            "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
            json!({"resource": resource, "authorization_servers": [AS]}),
        )
    }

    fn server(issuer: &str, token: &str) -> Document {
        doc(
            "http://127.0.0.1:8/.well-known/oauth-authorization-server",
            json!({"issuer": issuer, "token_endpoint": token,
                   "token_endpoint_auth_methods_supported": ["client_secret_post"]}),
        )
    }

    fn found<'a>(prm: &'a Document, server: &'a Document, remote: bool) -> Found<'a> {
        Found {
            server_url: MCP,
            prm,
            issuer: AS,
            server,
            treat_as_remote: remote,
        }
    }

    #[test]
    fn a_verified_server_gets_the_credential() {
        let (p, s) = (prm(MCP), server(AS, "http://127.0.0.1:8/token"));
        let b = check(found(&p, &s, false), Some("http://127.0.0.1:8/")).expect("bound");
        assert_eq!(b.token_endpoint, "http://127.0.0.1:8/token");
        assert_eq!(b.resource, MCP);
        assert_eq!(
            b.auth_methods.as_deref(),
            Some(&["client_secret_post".to_string()][..])
        );
        // The origin (root well-known metadata) identifies the server too.
        let p = prm("http://127.0.0.1:9");
        assert!(check(found(&p, &s, false), None).is_ok());
    }

    #[test]
    fn every_rule_refuses_on_its_own() {
        let good = server(AS, "http://127.0.0.1:8/token");
        let evil = prm("https://evil.example.com/mcp");
        let r = check(found(&evil, &good, false), None).expect_err("resource");
        assert!(
            matches!(&r, Refusal::Metadata(m) if m.contains("evil.example.com")),
            "{r:?}"
        );
        let sibling = prm("http://127.0.0.1:9/other");
        assert!(check(found(&sibling, &good, false), None).is_err());

        let p = prm(MCP);
        let r =
            check(found(&p, &good, false), Some("https://auth.example.com")).expect_err("bound");
        match r {
            Refusal::Config(m) => {
                assert!(
                    m.contains("https://auth.example.com") && m.contains(AS),
                    "{m}"
                )
            }
            other => panic!("{other:?}"),
        }
        let mismatch = server("http://127.0.0.1:8/other", "http://127.0.0.1:8/token");
        assert!(matches!(
            check(found(&p, &mismatch, false), None),
            Err(Refusal::Metadata(_))
        ));
        // Plain http on a loopback host treated as remote, or on a remote host.
        assert!(matches!(
            check(found(&p, &good, true), None),
            Err(Refusal::Metadata(m)) if m.contains("HTTPS")
        ));
        let remote = server(AS, "http://auth.example.com/token");
        assert!(check(found(&p, &remote, false), None).is_err());
        let tls = server(AS, "https://auth.example.com/token");
        assert!(check(found(&p, &tls, true), None).is_ok());
    }
}
