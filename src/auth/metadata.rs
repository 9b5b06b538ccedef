//! Finding the authorization server of a protected MCP server, in the order the spec gives
//! (2025-11-25 and 2026-07-28 authorization, "Authorization Server Discovery"):
//!
//! 1. Protected Resource Metadata (RFC 9728): the `resource_metadata` URL of the 401
//!    challenge, else `/.well-known/oauth-protected-resource/<mcp path>`, else
//!    `/.well-known/oauth-protected-resource` at the root.
//! 2. Authorization server metadata for the first entry of `authorization_servers`: RFC 8414
//!    and OpenID Connect Discovery, with path insertion for issuers that have a path.
//!
//! Nothing here judges: it fetches, records each try, and hands back what it found.

use serde_json::{Map, Value};

use crate::auth::http::{AuthHttp, Fetched};
use crate::report::exchange::Seq;

/// One URL tried.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub url: String,
    /// Where the URL came from ("the 401 challenge", "RFC 8414 with path insertion" …).
    pub label: &'static str,
    pub seq: Seq,
    /// "HTTP 404", "HTTP 200 but not a JSON object", …
    pub outcome: String,
}

impl Attempt {
    /// True when scout refused to fetch the URL (a server-named URL it may not reach).
    pub fn refused(&self) -> bool {
        self.outcome.starts_with(crate::auth::http::NOT_FETCHED)
    }
}

/// A metadata document that was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub url: String,
    pub label: &'static str,
    pub seq: Seq,
    pub fields: Map<String, Value>,
    pub content_type: Option<String>,
    /// The content type was JSON.
    pub json_type: bool,
}

impl Document {
    /// A string field.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// A field that is an array of strings (None when absent or of another shape).
    pub fn strings(&self, key: &str) -> Option<Vec<String>> {
        self.fields.get(key).and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
    }
}

/// The outcome of one discovery: every try, and the first document that was found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Discovery {
    pub attempts: Vec<Attempt>,
    pub found: Option<Document>,
}

impl Discovery {
    /// Every recorded exchange of this discovery.
    pub fn evidence(&self) -> Vec<Seq> {
        let mut v: Vec<Seq> = self.attempts.iter().map(|a| a.seq).collect();
        if let Some(d) = &self.found {
            v.push(d.seq);
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// "URL (HTTP 404); URL (HTTP 404)" for the tries that did not find a document.
    pub fn tried(&self) -> String {
        self.attempts
            .iter()
            .map(|a| format!("{} ({})", a.url, a.outcome))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The canonical form of a resource URI for comparison (RFC 8707 §2, MCP "Canonical Server
/// URI"): scheme and host lower-case, default port dropped, no fragment, no trailing slash.
pub fn canonical(url: &str) -> Option<String> {
    let mut u = url::Url::parse(url.trim()).ok()?;
    u.set_fragment(None);
    let mut s = u.to_string();
    if u.query().is_none() && s.ends_with('/') {
        s.pop();
    }
    Some(s)
}

/// The candidate URLs for a server's Protected Resource Metadata, in the spec's order.
pub fn resource_metadata_urls(
    mcp_url: &str,
    from_challenge: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(h) = from_challenge {
        out.push((
            "the resource_metadata URL of the 401 challenge",
            h.to_string(),
        ));
    }
    if let Ok(u) = url::Url::parse(mcp_url) {
        let origin = u.origin().ascii_serialization();
        let path = u.path().trim_end_matches('/');
        if !path.is_empty() {
            out.push((
                "the path-suffixed well-known URI",
                format!("{origin}/.well-known/oauth-protected-resource{path}"),
            ));
        }
        out.push((
            "the root well-known URI",
            format!("{origin}/.well-known/oauth-protected-resource"),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|(_, u)| seen.insert(u.clone()));
    out
}

/// The candidate URLs for an issuer's metadata, in the spec's order.
pub fn authorization_server_urls(issuer: &str) -> Vec<(&'static str, String)> {
    let Ok(u) = url::Url::parse(issuer) else {
        return Vec::new();
    };
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            (
                "RFC 8414",
                format!("{origin}/.well-known/oauth-authorization-server"),
            ),
            (
                "OpenID Connect Discovery",
                format!("{origin}/.well-known/openid-configuration"),
            ),
        ]
    } else {
        vec![
            (
                "RFC 8414 with path insertion",
                format!("{origin}/.well-known/oauth-authorization-server{path}"),
            ),
            (
                "OpenID Connect Discovery with path insertion",
                format!("{origin}/.well-known/openid-configuration{path}"),
            ),
            (
                "OpenID Connect Discovery with path appending",
                format!("{origin}{path}/.well-known/openid-configuration"),
            ),
        ]
    }
}

/// Fetches the candidates in order; the first JSON object answered with 200 is the document.
pub async fn discover(http: &AuthHttp, candidates: Vec<(&'static str, String)>) -> Discovery {
    let mut d = Discovery::default();
    for (label, url) in candidates {
        let got: Fetched = http.get_json(&url).await;
        match (got.status, got.json_object()) {
            (Some(200), Some(fields)) => {
                d.found = Some(Document {
                    url,
                    label,
                    seq: got.seq,
                    json_type: got.is_json_type(),
                    content_type: got.content_type.clone(),
                    fields,
                });
                return d;
            }
            (Some(200), None) => d.attempts.push(Attempt {
                url,
                label,
                seq: got.seq,
                outcome: "HTTP 200 but the body is not a JSON object".into(),
            }),
            _ => d.attempts.push(Attempt {
                url,
                label,
                seq: got.seq,
                outcome: got.describe(),
            }),
        }
    }
    d
}

/// True when `url`'s host is a loopback address or `localhost` (one rule for the whole
/// crate: the rate limiter's).
pub use crate::transport::limiter::is_loopback_url as is_loopback;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_resource_order() {
        let v = resource_metadata_urls(
            "https://example.com/public/mcp",
            Some("https://example.com/prm"),
        );
        let urls: Vec<&str> = v.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://example.com/prm",
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        // A server at the root has no path variant; duplicates are tried once.
        let v = resource_metadata_urls(
            "https://example.com/",
            Some("https://example.com/.well-known/oauth-protected-resource"),
        );
        assert_eq!(v.len(), 1);
    }

    #[test]
    fn authorization_server_order_with_and_without_path() {
        let urls: Vec<String> = authorization_server_urls("https://auth.example.com/tenant1")
            .into_iter()
            .map(|(_, u)| u)
            .collect();
        assert_eq!(
            urls,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        let urls: Vec<String> = authorization_server_urls("https://auth.example.com")
            .into_iter()
            .map(|(_, u)| u)
            .collect();
        assert_eq!(
            urls,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert!(authorization_server_urls("not a url").is_empty());
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(
            canonical("HTTPS://MCP.Example.com:443/mcp#x").as_deref(),
            Some("https://mcp.example.com/mcp")
        );
        assert_eq!(
            canonical("https://mcp.example.com/").as_deref(),
            Some("https://mcp.example.com")
        );
        assert_eq!(canonical("mcp.example.com"), None);
        assert!(is_loopback("http://127.0.0.1:1/x"));
        assert!(is_loopback("http://localhost/x"));
        assert!(is_loopback("http://[::1]:9/"));
        assert!(!is_loopback("https://example.com"));
    }
}
