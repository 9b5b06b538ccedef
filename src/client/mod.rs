//! The MCP client: era detection, requests with the 2026-07-28 `_meta` envelope and routing
//! headers, sessions, catalogue paging, calls. One [`Connection`] is one wire in one era.
//!
//! SKELETON: the transport work (issue "Transports, recorder, handshake…") fills this in;
//! the public signatures below are the contract the phases code against.

use serde_json::Value;

use crate::report::finding::Era;
use crate::report::model::TransportKind;
use crate::transport::{Outcome, Probe, Reply};

/// One open wire to the server, in one era. Cheap to clone; safe to use from concurrent
/// probes (one reader matches replies to requests by id).
#[derive(Debug, Clone)]
pub struct Connection {
    era: Era,
    version: String,
    transport: TransportKind,
    capabilities: Value,
    server_info: Option<Value>,
}

impl Connection {
    /// The era this wire speaks.
    pub fn era(&self) -> Era {
        self.era
    }
    /// The protocol version in use (negotiated, or sent in `_meta`).
    pub fn protocol_version(&self) -> &str {
        &self.version
    }
    /// How the wire reaches the server.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }
    /// The server's capabilities (from `initialize` or `server/discover`).
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }
    /// `serverInfo` as the server gave it.
    pub fn server_info(&self) -> Option<&Value> {
        self.server_info.as_ref()
    }
    /// Sends one probe and waits for what it produces (bounded by the timeout).
    pub async fn send(&self, _probe: Probe) -> Reply {
        Reply {
            evidence: Vec::new(),
            outcome: Outcome::TransportError("transport not built yet".into()),
            response: None,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            http: None,
            elapsed: std::time::Duration::ZERO,
        }
    }
    /// An ordinary request.
    pub async fn request(&self, method: &str, params: Value) -> Reply {
        self.send(Probe::request(method, params)).await
    }
    /// An ordinary notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Reply {
        self.send(Probe::notification(method, params)).await
    }
}
