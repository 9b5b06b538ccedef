//! Redaction, in one place, applied to everything scout stores, writes or prints.
//!
//! Only values that are secrets are registered and then masked as plain text everywhere
//! (later exchanges, findings, stderr, the whole report): the operator's (configured
//! credentials and headers, secret environment variables, tokens scout obtained), the
//! credential headers and query or form fields scout sends, the credential fields of an
//! authorization server's answers (`access_token`, `refresh_token`, `id_token`,
//! `client_secret` …), and credentials a server was found to leak
//! (`security.secrets_in_output`). Masking by name stays for those places: header values
//! (Authorization, Cookie, and names with key/token/secret/password/auth, except the public
//! challenges `WWW-Authenticate` and `Proxy-Authenticate` and the `Mcp-Param-*` mirrors of
//! tool arguments), query parameters and form fields, and the credential fields of JSON bodies
//! that are not JSON-RPC. A JSON-RPC message (what an MCP server and scout say to each other)
//! is never masked by key: a tool argument named `code` holds what scout made up, and a
//! result field named `api_key` holds what the server chose to send, which the secret scan
//! must see and the report must show unless it is a secret by value.

use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::report::exchange::{Direction, ExchangeKind};
use crate::report::model::ServerReport;

/// What a masked value is replaced with.
pub const MASK: &str = "[REDACTED]";

/// Registered values shorter than this are not masked as free text (masking `"1"`
/// everywhere would destroy the report); they are still masked where they stand.
pub const MIN_REGISTERED_LEN: usize = 4;

/// Query parameters and form fields whose values are secrets (case-insensitive): what scout
/// sends to authorization servers (a code, a verifier, a client secret, a refresh token) and
/// the query-token probe.
const SECRET_FIELDS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code",
    "code_verifier",
    "password",
    "passwd",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "secret",
    "authorization",
    "client_assertion",
    "assertion",
    "private_key",
    "session_token",
    "sig",
    "signature",
];

/// Keys of a JSON body that is not JSON-RPC (an authorization server's token or
/// registration answer, a registration request) whose string values are credentials.
const CREDENTIAL_FIELDS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "registration_access_token",
    "code_verifier",
    "client_assertion",
    "assertion",
    "password",
    "private_key",
];

/// True when a header's value must be masked.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    // Public challenges the auth checks must quote, and the headers that mirror a tool's
    // arguments (`Mcp-Param-Api-Key` carries what scout made up for the argument `api_key`).
    if matches!(n.as_str(), "www-authenticate" | "proxy-authenticate")
        || n.starts_with("mcp-param-")
    {
        return false;
    }
    matches!(
        n.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
    ) || ["key", "token", "secret", "password", "auth"]
        .iter()
        .any(|w| n.contains(w))
}

/// True when a query parameter / form field holds a secret.
pub fn is_secret_field(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_FIELDS.contains(&n.as_str())
}

/// True when a key of a JSON body that is not JSON-RPC holds a credential.
pub fn is_credential_field(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    CREDENTIAL_FIELDS.contains(&n.as_str())
}

/// Whether a JSON text is a JSON-RPC message (an object with `jsonrpc`) or a batch of them
/// (a non-empty array of such objects): what an MCP server and scout exchange, never masked
/// by key. `None` when it is not JSON. Read without building the document: nearly every
/// body is JSON-RPC and is recorded as it came, and building each one's tree only to learn
/// that was most of the cost of recording a run.
fn sniff_jsonrpc(text: &str) -> Option<bool> {
    serde_json::from_str::<Sniff>(text).ok().map(|s| s.0)
}

/// What [`sniff_jsonrpc`] reads: whether the value is JSON-RPC.
struct Sniff(bool);

impl<'de> serde::Deserialize<'de> for Sniff {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SniffVisitor { top: true })
    }
}

/// `top`: an array is JSON-RPC only at the top (a batch); inside one, only objects are.
struct SniffVisitor {
    top: bool,
}

/// A batch's member, sniffed as a member.
struct Member(bool);

impl<'de> serde::Deserialize<'de> for Member {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SniffVisitor { top: false })
            .map(|s| Member(s.0))
    }
}

/// A key, compared with `jsonrpc` without being kept.
struct IsJsonrpcKey(bool);

impl<'de> serde::Deserialize<'de> for IsJsonrpcKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = IsJsonrpcKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<IsJsonrpcKey, E> {
                Ok(IsJsonrpcKey(k == "jsonrpc"))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> serde::de::Visitor<'de> for SniffVisitor {
    type Value = Sniff;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Sniff, A::Error> {
        let mut found = false;
        while let Some(IsJsonrpcKey(is)) = map.next_key()? {
            found |= is;
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        Ok(Sniff(found))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Sniff, A::Error> {
        let (mut any, mut all) = (false, true);
        while let Some(Member(is)) = seq.next_element()? {
            any = true;
            all &= is;
        }
        Ok(Sniff(self.top && any && all))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
    fn visit_str<E>(self, _: &str) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
    fn visit_unit<E>(self) -> Result<Sniff, E> {
        Ok(Sniff(false))
    }
}

/// The masker. Cheap to clone; clones share the registry of known values.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    known: Arc<RwLock<Vec<String>>>,
}

impl Redactor {
    /// A redactor with nothing registered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a secret value: from now on it is masked wherever it appears.
    pub fn register(&self, value: &str) {
        let v = value.trim();
        if v.len() < MIN_REGISTERED_LEN || v == MASK {
            return;
        }
        let mut k = self.known.write().unwrap_or_else(|e| e.into_inner());
        if !k.iter().any(|x| x == v) {
            k.push(v.to_string());
            // Longest first, so a token containing another is masked whole.
            k.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    /// True when `found` is one of the values scout itself holds (registered), or lies
    /// inside one, or is one with a few characters around it: a credential pattern found in
    /// what the server sent that is scout's own (an echo of the operator's token) is not
    /// the server's leak.
    pub fn is_known(&self, found: &str) -> bool {
        let k = self.known.read().unwrap_or_else(|e| e.into_inner());
        k.iter().any(|v| {
            v == found || v.contains(found) || (v.len() >= 8 && found.contains(v.as_str()))
        })
    }

    /// Masks every registered value in free text.
    pub fn text(&self, s: &str) -> String {
        let k = self.known.read().unwrap_or_else(|e| e.into_inner());
        let mut out = s.to_string();
        for v in k.iter() {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), MASK);
            }
        }
        out
    }

    /// A header value scout sent, masked by the header's name and registered (it is one of
    /// scout's credentials), or masked by registered values.
    pub fn header(&self, name: &str, value: &str) -> String {
        self.header_in(name, value, Direction::Sent)
    }

    /// A header value, masked by the header's name (and registered values). Only what scout
    /// sent is registered: a response header is masked where it stands, and a value the
    /// server chose (`X-Auth-Mode: none`) is not masked elsewhere.
    fn header_in(&self, name: &str, value: &str, dir: Direction) -> String {
        if !is_secret_header(name) {
            return self.text(value);
        }
        // Keep the auth scheme readable: "Bearer [REDACTED]".
        let lower = name.to_ascii_lowercase();
        if lower.ends_with("authorization")
            && let Some((scheme, cred)) = value.split_once(' ')
        {
            if dir == Direction::Sent {
                self.register(cred);
            }
            return format!("{scheme} {MASK}");
        }
        if dir == Direction::Sent {
            self.register(value);
        }
        MASK.to_string()
    }

    /// A URL with secret query parameters masked.
    pub fn url(&self, url: &str) -> String {
        let Some((base, query)) = url.split_once('?') else {
            return self.text(url);
        };
        let (query, frag) = match query.split_once('#') {
            Some((q, f)) => (q, Some(f)),
            None => (query, None),
        };
        let mut s = format!("{}?{}", base, self.form(query));
        if let Some(f) = frag {
            s.push('#');
            s.push_str(f);
        }
        self.text(&s)
    }

    /// `a=b&c=d` with secret fields masked.
    fn form(&self, q: &str) -> String {
        q.split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, v)) if is_secret_field(&url_decode(k)) => {
                    self.register(&url_decode(v));
                    self.register(v);
                    format!("{k}={MASK}")
                }
                _ => pair.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&")
    }

    /// A JSON document that is not JSON-RPC (an authorization server's answer), masked in
    /// place: the string values of its credential fields are masked and registered.
    pub fn json(&self, v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, val) in map.iter_mut() {
                    if is_credential_field(k)
                        && let Value::String(s) = val
                    {
                        self.register(s);
                        *s = MASK.to_string();
                        continue;
                    }
                    self.json(val);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.json(x)),
            _ => {}
        }
    }

    /// Masks the registered values in every string of `v`, in place, and nothing by key:
    /// what a server listed (a catalogue, its server info) stays as it was sent, except for
    /// scout's own secrets.
    pub fn values(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                let t = self.text(s);
                if t != *s {
                    *s = t;
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.values(x)),
            Value::Object(m) => m.values_mut().for_each(|x| self.values(x)),
            _ => {}
        }
    }

    /// A body, sniffed: JSON that is not JSON-RPC, SSE or form data are masked
    /// structurally; then registered values are masked as text.
    pub fn body(&self, body: &str) -> String {
        let t = body.trim_start();
        let structural = if t.starts_with('{') || t.starts_with('[') {
            match sniff_jsonrpc(body) {
                Some(false) => match serde_json::from_str::<Value>(body) {
                    Ok(mut v) => {
                        let before = v.clone();
                        self.json(&mut v);
                        // Re-serialise only when something changed: keeps bodies verbatim.
                        if v != before {
                            v.to_string()
                        } else {
                            body.to_string()
                        }
                    }
                    Err(_) => body.to_string(),
                },
                // JSON-RPC, recorded as it came; or not JSON at all.
                _ => body.to_string(),
            }
        } else if looks_like_sse(body) {
            self.sse(body)
        } else if looks_like_form(body) {
            self.form(body)
        } else {
            body.to_string()
        };
        self.text(&structural)
    }

    /// SSE: each `data:` line that holds JSON is masked structurally.
    fn sse(&self, body: &str) -> String {
        body.split_inclusive('\n')
            .map(|line| {
                let (content, nl) = match line.strip_suffix('\n') {
                    Some(c) => (c, "\n"),
                    None => (line, ""),
                };
                match content.strip_prefix("data:") {
                    Some(data) if data.trim_start().starts_with('{') => {
                        let redacted = self.body(data.trim_start());
                        if redacted == data.trim_start() {
                            line.to_string()
                        } else {
                            format!("data: {redacted}{nl}")
                        }
                    }
                    _ => line.to_string(),
                }
            })
            .collect()
    }

    /// One recorded exchange, masked in place.
    pub fn exchange(&self, kind: &mut ExchangeKind) {
        match kind {
            ExchangeKind::Http(h) => {
                // Headers first: they register values the bodies may repeat.
                for (k, v) in h.request_headers.iter_mut() {
                    *v = self.header_in(k, v, Direction::Sent);
                }
                for (k, v) in h.response_headers.iter_mut() {
                    *v = self.header_in(k, v, Direction::Received);
                }
                if let Some(b) = h.request_body.as_mut() {
                    *b = self.body(b);
                }
                if let Some(b) = h.response_body.as_mut() {
                    *b = self.body(b);
                }
                h.url = self.url(&h.url);
                if let Some(e) = h.error.as_mut() {
                    *e = self.text(e);
                }
            }
            // A stdio wire carries JSON-RPC (and stray lines): registered values only.
            ExchangeKind::Stdio(m) => m.line = self.text(&m.line),
        }
    }

    /// Masks every registered value in a finished report: every string in it (exchanges,
    /// findings, server info, stderr kept in finding details).
    pub fn report(&self, report: &mut ServerReport) {
        for ex in report.exchanges.iter_mut() {
            self.exchange(&mut ex.kind);
        }
        for f in report.findings.iter_mut() {
            f.detail = self.text(&f.detail);
            f.advice = self.text(&f.advice);
            f.title = self.text(&f.title);
            if let Some(s) = f.subject.as_mut() {
                *s = self.text(s);
            }
        }
        if let Some(info) = report.server_info.as_mut() {
            self.values(info);
        }
        report.target = self.text(&report.target);
        if let Some(b) = report.blocked.as_mut() {
            *b = self.text(b);
        }
    }
}

fn looks_like_sse(body: &str) -> bool {
    body.lines()
        .any(|l| l.starts_with("data:") || l.starts_with("event:"))
}

fn looks_like_form(body: &str) -> bool {
    let b = body.trim();
    !b.is_empty()
        && b.contains('=')
        && !b.contains(char::is_whitespace)
        && b.split('&').all(|p| p.contains('='))
}

fn url_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| s.to_string())
}

/// Masks structurally-detectable secrets in a finished server report (no registry: use
/// [`Redactor::report`] with the run's redactor to also mask registered values).
pub fn redact_report(report: &mut ServerReport) {
    Redactor::new().report(report);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rule [`sniff_jsonrpc`] reads a text by, on a parsed document.
    fn is_jsonrpc(v: &Value) -> bool {
        match v {
            Value::Object(m) => m.contains_key("jsonrpc"),
            Value::Array(a) => !a.is_empty() && a.iter().all(|x| x.get("jsonrpc").is_some()),
            _ => false,
        }
    }

    #[test]
    fn sniffing_agrees_with_reading_the_whole_document() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"id":1,"result":{"jsonrpc":"nested, not the envelope"}}"#,
            r#"{"access_token":"x","token_type":"Bearer"}"#,
            r#"[{"jsonrpc":"2.0","id":1},{"jsonrpc":"2.0","method":"m"}]"#,
            r#"[{"jsonrpc":"2.0","id":1},{"id":2}]"#,
            r#"[{"jsonrpc":"2.0","id":1},[{"jsonrpc":"2.0"}]]"#,
            r#"[]"#,
            r#"[1,"a",null]"#,
            r#"{"jsonr\u0070c":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":1} trailing"#,
            r#"{"jsonrpc":"2.0","id":"#,
            r#""jsonrpc""#,
            "42",
        ] {
            let whole = serde_json::from_str::<Value>(text)
                .ok()
                .map(|v| is_jsonrpc(&v));
            assert_eq!(sniff_jsonrpc(text), whole, "{text}");
        }
    }

    #[test]
    fn headers_by_name() {
        let r = Redactor::new();
        assert_eq!(
            r.header("Authorization", "Bearer s3cr3t-tok"),
            "Bearer [REDACTED]"
        );
        assert_eq!(r.header("X-Api-Key", "k-123456"), MASK);
        assert_eq!(r.header("Set-Cookie", "sid=abcdef"), MASK);
        assert_eq!(
            r.header("Content-Type", "application/json"),
            "application/json"
        );
        assert_eq!(
            r.header("WWW-Authenticate", "Bearer resource_metadata=\"x\""),
            "Bearer resource_metadata=\"x\""
        );
        // Registered: the token is masked in free text afterwards.
        assert_eq!(r.text("token s3cr3t-tok here"), "token [REDACTED] here");
    }

    #[test]
    fn query_and_form_fields() {
        let r = Redactor::new();
        assert_eq!(
            r.url("https://h/cb?code=abc123xyz&state=ok"),
            "https://h/cb?code=[REDACTED]&state=ok"
        );
        assert_eq!(
            r.body("grant_type=authorization_code&client_secret=shh-very"),
            "grant_type=authorization_code&client_secret=[REDACTED]"
        );
        assert_eq!(r.text("abc123xyz"), MASK);
    }

    #[test]
    fn json_structurally_and_sniffed() {
        let r = Redactor::new();
        let out = r.body(
            r#"{"access_token":"at-987654","error":{"code":-32601},"n":{"password":"pw-1234"}}"#,
        );
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["access_token"], MASK);
        assert_eq!(v["n"]["password"], MASK);
        assert_eq!(v["error"]["code"], json!(-32601), "numeric codes stay");
        // Later plain-text occurrence of a value learnt from JSON.
        assert_eq!(r.text("log: at-987654"), "log: [REDACTED]");
    }

    #[test]
    fn sse_data_lines() {
        let r = Redactor::new();
        let out = r.body("event: message\ndata: {\"access_token\":\"tok-abcdef\"}\n\n");
        assert!(!out.contains("tok-abcdef"), "{out}");
        assert!(out.starts_with("event: message\ndata: "));
    }

    #[test]
    fn registered_values_are_masked_in_a_whole_report() {
        let r = Redactor::new();
        r.register("operator-secret-1");
        let mut report: ServerReport = serde_json::from_value(json!({
            "name": "s", "transport": "http", "target": "http://h/?k=operator-secret-1",
            "era": "legacy", "protocol_versions": [], "server_info": {"name": "operator-secret-1"},
            "score": null, "categories": [], "findings": [], "exchanges": [],
            "blocked": "saw operator-secret-1", "interrupted": false, "anchor": null,
            "duration_ms": 0
        }))
        .expect("a report");
        r.report(&mut report);
        let text = serde_json::to_string(&report).expect("json");
        assert!(!text.contains("operator-secret-1"), "{text}");
    }

    #[test]
    fn json_rpc_messages_are_never_masked_by_key() {
        let r = Redactor::new();
        // scout's own made-up argument value for an argument named `code`: not a secret.
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run","arguments":{"code":"scout","token":"scout-made-up"}}}"#;
        assert_eq!(r.body(call), call);
        // What a server chose to send under a secret-looking key stays for the scan.
        let result = r#"{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"api_key":"AKIAABCDEFGHIJKLMNOP"}}}"#;
        assert_eq!(r.body(result), result);
        let sse = format!("event: message\ndata: {result}\n\n");
        assert_eq!(r.body(&sse), sse);
        assert_eq!(r.text("scout and scout-made-up"), "scout and scout-made-up");
        // A batch is JSON-RPC too.
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"hunter22"}}]"#;
        assert_eq!(r.body(batch), batch);
    }

    #[test]
    fn response_headers_are_masked_where_they_stand_and_not_registered() {
        let r = Redactor::new();
        let mut kind = ExchangeKind::Http(crate::report::exchange::HttpExchange {
            method: "POST".into(),
            url: "http://h/mcp".into(),
            request_headers: vec![
                ("Authorization".into(), "Bearer op-token-123".into()),
                ("Mcp-Param-Api-Key".into(), "scout".into()),
            ],
            response_headers: vec![
                ("X-Auth-Mode".into(), "none-at-all".into()),
                ("Proxy-Authenticate".into(), "Basic realm=\"x\"".into()),
            ],
            ..Default::default()
        });
        r.exchange(&mut kind);
        let ExchangeKind::Http(h) = &kind else {
            panic!("http")
        };
        assert_eq!(h.request_headers[0].1, "Bearer [REDACTED]");
        assert_eq!(
            h.request_headers[1].1, "scout",
            "an argument mirror, not a credential"
        );
        assert_eq!(h.response_headers[0].1, MASK);
        assert_eq!(h.response_headers[1].1, "Basic realm=\"x\"");
        assert_eq!(r.text("op-token-123 none-at-all"), "[REDACTED] none-at-all");
    }

    #[test]
    fn own_secrets_are_known_by_value() {
        let r = Redactor::new();
        r.register("ghp_operatorsowntoken0000000000000000000");
        assert!(r.is_known("ghp_operatorsowntoken0000000000000000000"));
        assert!(!r.is_known("ghp_someoneelsestoken111111111111111111"));
        r.register("key=AKIAABCDEFGHIJKLMNOP");
        assert!(
            r.is_known("AKIAABCDEFGHIJKLMNOP"),
            "inside a registered value"
        );
    }

    #[test]
    fn short_values_are_not_registered() {
        let r = Redactor::new();
        r.register("ab");
        assert_eq!(r.text("ab cd"), "ab cd");
    }
}
