//! The Session the phases share for one server: the connections, the recorder, what has
//! been learnt so far, and the findings.

use serde_json::Value;

use crate::client::{Connection, Connector};
use crate::report::finding::{Era, Finding, FindingBuilder};
use crate::report::model::EraKind;
use crate::spec::{RunContext, ServerSpec};
use crate::telemetry::Recorder;

/// What the catalog phase learnt on one wire, for the phases after it.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub era: Option<Era>,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// The pages of `tools/list`: how many tools each brought and its exchanges (empty when
    /// the tool list was not judged: no tools capability, or a list that did not answer).
    pub tool_pages: Vec<(usize, Vec<crate::report::exchange::Seq>)>,
    /// The exchanges the lists came from, for later phases to cite.
    pub evidence: Vec<crate::report::exchange::Seq>,
    /// The exchanges of `prompts/list` when it answered with a list (empty when the prompt
    /// list was not judged), for the manifest's comparison to cite.
    pub prompt_pages: Vec<crate::report::exchange::Seq>,
    /// The list methods (`tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`) the server declared but whose answer could not be read
    /// whole this run (an error, a malformed result, paging stopped early). Its list above
    /// is then not what the server offers, so nothing may be judged absent from it.
    pub unread: Vec<&'static str>,
}

impl Catalog {
    /// Whether `method`'s list was read whole this run (a list the server declared no
    /// capability for counts: it offers none).
    pub fn read_whole(&self, method: &str) -> bool {
        !self.unread.contains(&method)
    }
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
    /// What this run shares with the rest of the run: its id (sent as `X-MCP-Trace-ID` on
    /// every HTTP request), the host's rate limiter and the progress observer.
    pub ctx: RunContext,
    /// Internal errors: findings a phase tried to record that broke the finding invariants
    /// (no evidence, unknown evidence, a skip without a reason). They are not findings —
    /// scout cannot cite what showed them — but they are carried into the report
    /// (`ServerReport::internal_errors`), shown in every format, fail the gate and make the
    /// run exit 3, so a dropped fail can never silently lift a score.
    pub internal_errors: Vec<String>,
    /// What the discovery and auth phases learnt about the server's protection.
    pub oauth: crate::probe::auth::State,
    /// The cancellation probes the execution phase planned for the final stage.
    pub cancellations: Vec<crate::probe::execution::PlannedCancel>,
    /// What a server that speaks only 2026-07-28 answered the handshake phase's
    /// `initialize` (its error should name the versions it supports).
    pub initialize_refused: Option<crate::transport::Reply>,
    /// The exchanges of the revision matrix's extra handshakes (`protocol::revisions`),
    /// judged there at their own revision: the whole-run judgements leave them out.
    pub matrix_seqs: Vec<crate::report::exchange::Seq>,
    /// When the server's `--deadline` passes (set by the run plan), for steps that are
    /// worth running only with time to spare.
    pub deadline: Option<tokio::time::Instant>,
}

impl Session {
    /// A fresh session for `spec`, a run of its own.
    pub fn new(spec: ServerSpec) -> Self {
        Session::in_run(spec, RunContext::default())
    }

    /// A fresh session for `spec` within the run `ctx` (an empty run id: one is made up).
    pub fn in_run(spec: ServerSpec, mut ctx: RunContext) -> Self {
        if ctx.run_id.is_empty() {
            ctx.run_id = uuid::Uuid::new_v4().to_string();
        }
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
            ctx,
            internal_errors: Vec::new(),
            oauth: crate::probe::auth::State::default(),
            cancellations: Vec::new(),
            initialize_refused: None,
            matrix_seqs: Vec::new(),
            deadline: None,
        }
    }

    /// A session for one branch of the run's concurrent stage: it shares the spec, the
    /// recorder (sequence numbers stay unique), the connector and the wires, copies what
    /// the earlier phases learnt, and starts with no findings of its own. Its findings,
    /// internal errors and block are folded back with [`Session::join`].
    pub fn fork(&self) -> Session {
        Session {
            spec: self.spec.clone(),
            recorder: self.recorder.clone(),
            findings: Vec::new(),
            era: self.era,
            wires: self.wires.clone(),
            catalogs: self.catalogs.clone(),
            protocol_versions: self.protocol_versions.clone(),
            server_info: self.server_info.clone(),
            blocked: self.blocked.clone(),
            connector: self.connector.clone(),
            opened: None,
            ctx: self.ctx.clone(),
            internal_errors: Vec::new(),
            oauth: self.oauth.clone(),
            cancellations: Vec::new(),
            initialize_refused: self.initialize_refused.clone(),
            matrix_seqs: self.matrix_seqs.clone(),
            deadline: self.deadline,
        }
    }

    /// Folds a branch made by [`Session::fork`] back in: its findings and internal errors,
    /// the catalogues it learnt (the catalog phase runs in a branch), and its block.
    pub fn join(&mut self, branch: Session) {
        self.findings.extend(branch.findings);
        self.internal_errors.extend(branch.internal_errors);
        self.cancellations.extend(branch.cancellations);
        for q in branch.matrix_seqs {
            if !self.matrix_seqs.contains(&q) {
                self.matrix_seqs.push(q);
            }
        }
        if self.catalogs.is_empty() {
            self.catalogs = branch.catalogs;
        }
        if self.blocked.is_none() {
            self.blocked = branch.blocked;
        }
    }

    /// Records a finding after checking its invariants (evidence must have been recorded).
    /// A finding that breaks them is kept as an internal error naming what it would have
    /// said, in debug and release builds alike.
    pub fn add(&mut self, finding: FindingBuilder) {
        let recorder = self.recorder.clone();
        let what = format!(
            "{} could not be recorded as {}",
            finding.check().id,
            finding.status().as_str()
        );
        match finding.build(|seq| recorder.contains(seq)) {
            Ok(f) => {
                crate::telemetry::events::emit(&self.ctx.observer, || {
                    crate::telemetry::events::RunEvent::Finding {
                        server: self.spec.name.clone(),
                        phase: f.phase,
                        id: f.id.to_string(),
                        status: f.status,
                        subject: f.subject.clone(),
                    }
                });
                self.findings.push(f)
            }
            Err(e) => {
                tracing::error!("internal error: {what}: {e}");
                self.internal_errors.push(format!("{what}: {e}"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::registry;
    use crate::spec::TargetSpec;
    use crate::transport::process::ProcessConfig;

    fn session() -> Session {
        Session::new(ServerSpec::new(
            "s",
            TargetSpec::Stdio(ProcessConfig {
                command: vec!["srv".into()],
                env_forward: vec![],
                env_set: vec![],
                dir: None,
            }),
        ))
    }

    #[test]
    fn a_malformed_finding_becomes_an_internal_error_not_a_silent_drop() {
        let mut s = session();
        let check = registry::all().next().expect("a registered check");
        // A fail citing no exchange breaks the invariants.
        s.add(check.fail("it failed, trust me"));
        assert!(
            s.findings.is_empty(),
            "a finding without evidence is not recorded"
        );
        assert_eq!(s.internal_errors.len(), 1);
        let e = &s.internal_errors[0];
        assert!(
            e.starts_with(&format!("{} could not be recorded as fail: ", check.id)),
            "{e}"
        );
        // A well-formed one still goes through.
        s.add(check.info("an observation").without_exchange());
        assert_eq!(s.findings.len(), 1);
        assert_eq!(s.internal_errors.len(), 1);
    }
}
