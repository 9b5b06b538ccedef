//! Turns a [`Probe`] into the bytes and headers that go on the wire: ids, the 2026-07-28
//! `_meta` envelope, and the HTTP request-metadata headers.

use serde_json::{Map, Value, json};

use crate::client::{Connection, MODERN_VERSION};
use crate::report::finding::Era;
use crate::transport::headers::encode_value;
use crate::transport::http::HttpClients;
use crate::transport::{IdKind, MetaMode, Probe};

/// `_meta` key: the protocol version of a 2026-07-28 request.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities.
pub const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's Implementation info.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key in results: the server's Implementation info.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What a probe becomes.
#[derive(Debug, Clone, Default)]
pub struct Built {
    /// The JSON-RPC body (None for GET/DELETE without raw body).
    pub body: Option<String>,
    pub method: Option<String>,
    /// The id sent (None for notifications and raw bodies without one).
    pub id: Option<Value>,
    /// `params._meta.progressToken`, to attribute progress notifications.
    pub progress_token: Option<Value>,
    /// `_meta` protocol version actually sent (modern requests).
    pub meta_version: Option<String>,
    /// `params.name` / `params.uri` for the `Mcp-Name` header.
    pub name: Option<String>,
}

/// scout's `clientInfo`.
pub fn client_info() -> Value {
    json!({"name": "scout", "version": env!("CARGO_PKG_VERSION")})
}

/// The 2026-07-28 envelope for `version`, declaring no client capability (the bare client).
pub fn envelope(version: &str) -> Value {
    envelope_declaring(version, json!({}))
}

/// The 2026-07-28 envelope for `version` declaring `capabilities` (a persona's).
pub fn envelope_declaring(version: &str, capabilities: Value) -> Value {
    json!({
        META_VERSION: version,
        META_CAPS: capabilities,
        META_CLIENT_INFO: client_info(),
    })
}

/// Builds the message for `probe` on `conn`.
pub fn build(probe: &Probe, conn: &Connection) -> Built {
    if let Some(raw) = &probe.raw_body {
        let parsed = serde_json::from_str::<Value>(raw).ok();
        let field = |k: &str| parsed.as_ref().and_then(|v| v.get(k)).cloned();
        return Built {
            body: Some(raw.clone()),
            method: field("method").and_then(|m| m.as_str().map(str::to_string)),
            id: field("id"),
            ..Built::default()
        };
    }
    let Some(method) = probe.method.clone() else {
        return Built::default();
    };
    let id = match &probe.id {
        IdKind::Auto => Some(conn.connector().next_id()),
        IdKind::Str(s) => Some(Value::String(s.clone())),
        IdKind::Int(i) => Some(Value::from(*i)),
        IdKind::Null => Some(Value::Null),
        IdKind::Absent => None,
    };
    let meta = match &probe.meta {
        MetaMode::Omit => None,
        MetaMode::Custom(v) => Some(v.clone()),
        MetaMode::Auto if conn.era() == Era::Modern => {
            let v = if conn.protocol_version().is_empty() {
                MODERN_VERSION
            } else {
                conn.protocol_version()
            };
            // "Servers MUST NOT send an inputRequests that the client has not declared
            // support for in its capabilities": each request declares the persona's.
            Some(envelope_declaring(v, conn.persona().capabilities()))
        }
        MetaMode::Auto => None,
    };
    let mut params = probe.params.clone();
    if let Some(meta) = &meta {
        let p = params.get_or_insert_with(|| Value::Object(Map::new()));
        if let Some(obj) = p.as_object_mut() {
            match obj.get_mut("_meta").and_then(Value::as_object_mut) {
                // The caller's own _meta keys (progressToken …) stay; the envelope fills in.
                Some(existing) if matches!(probe.meta, MetaMode::Auto) => {
                    if let Some(env) = meta.as_object() {
                        for (k, v) in env {
                            existing.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                }
                _ => {
                    obj.insert("_meta".into(), meta.clone());
                }
            }
        }
    }
    let meta_obj = params.as_ref().and_then(|p| p.get("_meta"));
    let progress_token = meta_obj.and_then(|m| m.get("progressToken")).cloned();
    let meta_version = meta_obj
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
        .map(str::to_string);
    let name_key = match method.as_str() {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The tasks extension's Streamable HTTP binding: the client sets Mcp-Name to
        // params.taskId, so that intermediaries route every request of a task alike.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    let name = name_key
        .and_then(|k| params.as_ref().and_then(|p| p.get(k)))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut msg = Map::new();
    msg.insert("jsonrpc".into(), json!("2.0"));
    if let Some(id) = &id {
        msg.insert("id".into(), id.clone());
    }
    msg.insert("method".into(), Value::String(method.clone()));
    if let Some(p) = params {
        msg.insert("params".into(), p);
    }
    Built {
        body: Some(Value::Object(msg).to_string()),
        method: Some(method),
        id,
        progress_token,
        meta_version,
        name,
    }
}

/// The headers of an HTTP probe, overrides applied last.
pub fn http_headers(
    probe: &Probe,
    built: &Built,
    conn: &Connection,
    clients: &HttpClients,
    session: Option<String>,
) -> Vec<(String, String)> {
    let mut h: Vec<(String, String)> = Vec::new();
    let verb = probe.http_method.as_deref().unwrap_or("POST");
    if verb == "GET" {
        h.push(("Accept".into(), "text/event-stream".into()));
    } else {
        h.push((
            "Accept".into(),
            "application/json, text/event-stream".into(),
        ));
    }
    if verb == "POST" {
        h.push(("Content-Type".into(), "application/json".into()));
    }
    h.push(("X-MCP-Trace-ID".into(), clients.trace_id.clone()));
    if !probe.bare {
        h.extend(clients.credentials());
    }
    if conn.era() == Era::Modern {
        let version = built
            .meta_version
            .clone()
            .unwrap_or_else(|| conn.protocol_version().to_string());
        if !version.is_empty() {
            h.push(("MCP-Protocol-Version".into(), version));
        }
        if verb == "POST" {
            if let Some(m) = &built.method {
                h.push(("Mcp-Method".into(), m.clone()));
            }
            if let Some(n) = &built.name {
                h.push(("Mcp-Name".into(), encode_value(n)));
            }
        }
    } else if !conn.protocol_version().is_empty() && built.method.as_deref() != Some("initialize") {
        h.push((
            "MCP-Protocol-Version".into(),
            conn.protocol_version().to_string(),
        ));
    }
    if let Some(s) = session {
        h.push(("Mcp-Session-Id".into(), s));
    }
    for (name, value) in &probe.headers {
        h.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            h.push((name.clone(), v.clone()));
        }
    }
    h
}
