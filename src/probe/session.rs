//! The Session the phases share for one server: the connections, the recorder, what has
//! been learnt so far, and the findings.

use serde_json::Value;

use crate::client::{Connection, Connector};
use crate::probe::spec::ServerSpec;
use crate::report::finding::{Era, Finding, FindingBuilder};
use crate::report::model::EraKind;
use crate::telemetry::Recorder;

/// What the catalog phase learnt on one wire, for the phases after it.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub era: Option<Era>,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// The exchanges the lists came from, for later phases to cite.
    pub evidence: Vec<crate::telemetry::Seq>,
}

/// The state of one server run.
pub struct Session {
    pub spec: ServerSpec,
    pub recorder: Recorder,
    pub findings: Vec<Finding>,
    /// Which generations the server speaks (decided by the handshake phase).
    pub era: EraKind,
    /// One connection per era spoken (two for a dual-era server). Empty until the handshake.
    pub wires: Vec<Connection>,
    /// Catalogues per wire, filled by the catalog phase.
    pub catalogs: Vec<Catalog>,
    /// Versions used on the wire.
    pub protocol_versions: Vec<String>,
    pub server_info: Option<Value>,
    /// Set when the run cannot go on; every later phase is skipped as blocked.
    pub blocked: Option<String>,
    /// Opens wires to the target and owns every child process (set by discovery).
    pub connector: Option<Connector>,
    /// The wire discovery opened, before the handshake decided its era (taken by it).
    pub opened: Option<Connection>,
    /// Sent as `X-MCP-Trace-ID` on every HTTP request (one per server run).
    pub run_id: String,
    /// Internal errors (a phase that tried to record an invalid finding), logged, never shown
    /// as findings.
    pub internal_errors: Vec<String>,
    /// What the discovery and auth phases learnt about the server's protection.
    pub oauth: crate::probe::auth::State,
}

impl Session {
    /// A fresh session for `spec`.
    pub fn new(spec: ServerSpec) -> Self {
        let run_id = if spec.run_id.is_empty() {
            uuid::Uuid::new_v4().to_string()
        } else {
            spec.run_id.clone()
        };
        Session {
            spec,
            recorder: Recorder::new(),
            findings: Vec::new(),
            era: EraKind::Unknown,
            wires: Vec::new(),
            catalogs: Vec::new(),
            protocol_versions: Vec::new(),
            server_info: None,
            blocked: None,
            connector: None,
            opened: None,
            run_id,
            internal_errors: Vec::new(),
            oauth: crate::probe::auth::State::default(),
        }
    }

    /// Records a finding after checking its invariants (evidence must have been recorded).
    pub fn add(&mut self, finding: FindingBuilder) {
        let recorder = self.recorder.clone();
        match finding.build(|seq| recorder.contains(seq)) {
            Ok(f) => self.findings.push(f),
            Err(e) => {
                tracing::error!("internal: {e}");
                debug_assert!(false, "invalid finding: {e}");
                self.internal_errors.push(e.to_string());
            }
        }
    }

    /// Records several findings.
    pub fn add_all(&mut self, findings: impl IntoIterator<Item = FindingBuilder>) {
        for f in findings {
            self.add(f);
        }
    }

    /// Marks the run blocked: later phases are skipped with this reason.
    pub fn block(&mut self, why: impl Into<String>) {
        if self.blocked.is_none() {
            self.blocked = Some(why.into());
        }
    }

    /// The wire of `era`, if the server speaks it.
    pub fn wire(&self, era: Era) -> Option<&Connection> {
        self.wires.iter().find(|w| w.era() == era)
    }
}
