//! The one sample report every emitter test reads, built by hand from the public model.
//!
//! Two servers: `everything` (HTTP, legacy, declared in `scout.toml` line 7) and `time`
//! (stdio, dual-era, no anchor, blocked when its process died). Between them: a pass, an
//! info, a warn, a fail of each severity, a skip of each reason, a baselined warn, a check judging two
//! subjects, one check reported twice without a subject, findings of both wires, an
//! exchange whose `Authorization` header was redacted to `Bearer [REDACTED]`, and text with
//! characters that each format must escape (`%`, `:`, `,`, newlines, `<`, `|`).
//!
//! The sample stays consistent with the checks: every pass, warn and fail in it is a verdict
//! scout gives for the exchanges it cites (the status its judge returns for that answer, in
//! its words). When a check's grading changes, change the sample with it, so the report
//! formats are never shown rendering a verdict scout cannot produce.

use scout::report::exchange::{Direction, Exchange, ExchangeKind, HttpExchange, Seq, StdioMessage};
use scout::report::finding::{Era, Finding, Severity, SkipReason, Status, Suppression};
use scout::report::gate::{self, GateConfig};
use scout::report::model::{Anchor, EraKind, Report, ServerReport, TransportKind};
use scout::report::score;
use time::macros::datetime;

/// The thresholds the sample was gated with.
pub(crate) fn gate_config() -> GateConfig {
    GateConfig {
        fail_under: Some(80),
        fail_under_category: Vec::new(),
        fail_on: Some(Severity::Critical),
    }
}

/// A finding with the registry's title and spec, as a phase would have built it.
pub(crate) fn finding(id: &str, status: Status, detail: &str) -> Finding {
    let check = scout::probe::registry::lookup(id).expect("sample uses registered ids");
    Finding {
        id: id.to_string(),
        phase: check.phase,
        title: check.title.to_string(),
        status,
        severity: (status == Status::Fail).then_some(check.severity),
        // The same sentence rule the FindingBuilder applies to every real finding.
        detail: scout::report::wording::sentence(detail.to_string()),
        advice: check.advice.to_string(),
        spec: (!check.spec.is_empty()).then(|| check.spec.to_string()),
        subject: None,
        era: None,
        revision: None,
        evidence: Vec::new(),
        skip_reason: None,
        suppressed: None,
    }
}

/// Small builder helpers so the fixture reads like a list.
pub(crate) trait With {
    fn ev(self, seqs: &[Seq]) -> Self;
    fn subject(self, s: &str) -> Self;
    fn era(self, e: Era) -> Self;
    fn sev(self, s: Severity) -> Self;
    fn skip(self, r: SkipReason) -> Self;
}

impl With for Finding {
    fn ev(mut self, seqs: &[Seq]) -> Self {
        self.evidence = seqs.to_vec();
        self
    }
    fn subject(mut self, s: &str) -> Self {
        self.subject = Some(s.to_string());
        self
    }
    fn era(mut self, e: Era) -> Self {
        self.era = Some(e);
        self
    }
    fn sev(mut self, s: Severity) -> Self {
        self.severity = Some(s);
        self
    }
    fn skip(mut self, r: SkipReason) -> Self {
        self.skip_reason = Some(r);
        self
    }
}

/// Marks a finding as accepted in a baseline.
fn baselined(mut f: Finding, reason: &str) -> Finding {
    f.suppressed = Some(Suppression::Baselined {
        reason: reason.to_string(),
    });
    f
}

fn http(seq: Seq, method: &str, body: &str, status: u16, response: &str) -> Exchange {
    Exchange {
        seq,
        started_at: datetime!(2026-11-30 12:00:00 UTC)
            + time::Duration::milliseconds(seq as i64 * 10),
        duration_ms: 4.0 + seq as f64,
        era: None,
        kind: ExchangeKind::Http(HttpExchange {
            method: method.to_string(),
            url: "http://127.0.0.1:3001/mcp".to_string(),
            request_headers: vec![
                ("content-type".into(), "application/json".into()),
                ("authorization".into(), "Bearer [REDACTED]".into()),
            ],
            request_body: Some(body.to_string()),
            status: Some(status),
            response_headers: vec![("content-type".into(), "application/json".into())],
            response_body: Some(response.to_string()),
            truncated: false,
            error: None,
        }),
    }
}

fn stdio(seq: Seq, direction: Direction, era: Option<Era>, line: &str) -> Exchange {
    Exchange {
        seq,
        started_at: datetime!(2026-11-30 12:00:01 UTC) + time::Duration::milliseconds(seq as i64),
        duration_ms: 0.5,
        era,
        kind: ExchangeKind::Stdio(StdioMessage {
            direction,
            method: None,
            line: line.to_string(),
            not_jsonrpc: false,
        }),
    }
}

/// The `everything` server: HTTP, legacy, declared in `scout.toml` line 7.
pub(crate) fn everything() -> ServerReport {
    use Status::*;
    let exchanges = vec![
        http(
            1,
            "POST",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
            200,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        ),
        http(
            2,
            "POST",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            200,
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"delete_file","inputSchema":{"type":"object"}},{"description":"A tool without a name.","inputSchema":{"type":"object"}},{"name":"write_file","inputSchema":{"type":"object"}},{"name":"echo","description":"Echo\u200b\u200b\u200b <IMPORTANT>","inputSchema":{"type":"object"}}]}}"#,
        ),
        http(
            3,
            "POST",
            r#"{"jsonrpc":"2.0","id":3,"method":"bogus/method"}"#,
            200,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ),
        http(4, "POST", "{not json", 500, "Internal Server Error"),
        http(
            5,
            "POST",
            r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]"#,
            200,
            r#"[{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":6,"result":{}}]"#,
        ),
    ];
    let findings = vec![
        finding("discovery.reachable", Pass, "POST /mcp answered 200 in 5 ms.").ev(&[1]),
        finding("auth.open", Info, "The server answered without credentials; a token was sent anyway (Bearer [REDACTED]).").ev(&[1]),
        finding("handshake.initialize", Pass, "initialize returned protocolVersion 2025-11-25 and serverInfo.").ev(&[1]),
        finding("catalog.tools_list", Fail, "tools/list entries without a string name: #1").ev(&[2]),
        finding("protocol.unknown_method", Fail, "bogus/method returned a result instead of error -32601.").subject("bogus/method").ev(&[3]),
        finding("protocol.parse_error", Fail, "Malformed JSON got HTTP 500 and a text body, not -32700.").ev(&[4]),
        finding("protocol.batch", Warn, "the server still processes batches, which 2025-06-18 removed; 2025-11-25 allows only single messages (both requests answered)").ev(&[5]),
        finding("catalog.annotations", Warn, "Tool \"delete_file\" has no annotations: treated as destructive.").subject("delete_file").ev(&[2]),
        finding("catalog.annotations", Warn, "Tool \"write_file\" has no annotations: treated as destructive.").subject("write_file").ev(&[2]),
        finding("security.hidden_characters", Fail, "The description of \"echo\" hides U+200B 3 times:\n`<IMPORTANT>` read ~/.ssh/id_rsa | 100% sure, really").subject("echo").ev(&[2]),
        baselined(finding("catalog.descriptions", Warn, "2 of 5 tools have no description.").ev(&[2]), "descriptions are tracked in ISSUE-7"),
        finding("protocol.sse", Pass, "The response stream carried only this request's events.").ev(&[1]),
        finding("protocol.sse", Pass, "The second response stream also ended after its response.").ev(&[2]),
        finding("execution.tool_call", Skip, "delete_file is destructive; pass --allow-destructive to call it.").subject("delete_file").skip(SkipReason::Policy),
        finding("execution.progress", Skip, "No tool accepts a progress token.").skip(SkipReason::NotApplicable),
        finding("performance.latency", Skip, "The deadline passed before latency was measured.").skip(SkipReason::NotAssessed),
    ];
    let categories = score::categories(&findings);
    ServerReport {
        name: "everything".into(),
        transport: TransportKind::Http,
        target: "http://127.0.0.1:3001/mcp".into(),
        era: EraKind::Legacy,
        protocol_versions: vec!["2025-11-25".into()],
        server_info: Some(serde_json::json!({"name": "everything", "version": "1.2.0"})),
        score: score::overall(&categories),
        categories,
        findings,
        exchanges,
        exchange_count: None,
        blocked: None,
        interrupted: false,
        anchor: Some(Anchor {
            path: "scout.toml".into(),
            line: 7,
        }),
        duration_ms: 840,
        notes: Default::default(),
        internal_errors: Vec::new(),
    }
}

/// The `time` server: stdio, dual-era, no anchor, blocked when its process died.
pub(crate) fn time_server() -> ServerReport {
    use Status::*;
    let exchanges = vec![
        stdio(
            1,
            Direction::Sent,
            Some(Era::Legacy),
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
        ),
        stdio(
            2,
            Direction::Received,
            Some(Era::Legacy),
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#,
        ),
        stdio(
            3,
            Direction::Sent,
            Some(Era::Modern),
            r#"{"jsonrpc":"2.0","id":"a","method":"server/discover"}"#,
        ),
        stdio(
            4,
            Direction::Received,
            Some(Era::Modern),
            r#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}}"#,
        ),
        stdio(
            5,
            Direction::Sent,
            Some(Era::Modern),
            r#"{"jsonrpc":"2.0","id":"b","method":"prompts/get","params":{}}"#,
        ),
        stdio(
            6,
            Direction::Received,
            Some(Era::Modern),
            r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"}}"#,
        ),
    ];
    let findings = vec![
        finding(
            "handshake.protocol_era",
            Info,
            "Dual: answered both initialize and server/discover.",
        )
        .ev(&[1, 2, 3, 4]),
        finding(
            "handshake.initialize",
            Pass,
            "initialize negotiated 2025-11-25.",
        )
        .era(Era::Legacy)
        .ev(&[1, 2]),
        finding(
            "handshake.discover",
            Pass,
            "server/discover returned supportedVersions [2026-07-28].",
        )
        .era(Era::Modern)
        .ev(&[3, 4]),
        finding("protocol.jsonrpc_ids", Pass, "Integer id 1 echoed as 1.")
            .era(Era::Legacy)
            .ev(&[1, 2]),
        finding(
            "protocol.jsonrpc_ids",
            Warn,
            "string and integer ids are echoed with their type, but 1 error response(s) carry no id member although the request id was readable (JSON-RPC error -32602 \"Invalid params\")",
        )
        .era(Era::Modern)
        .ev(&[3, 4, 5, 6]),
        finding(
            "stdio.stderr",
            Info,
            "The server wrote 2 lines to stderr (kept in the HAR).",
        ),
        finding(
            "stdio.alive",
            Fail,
            "The process exited with status 1 after req#6.",
        )
        .sev(Severity::Critical)
        .ev(&[6]),
        finding(
            "execution.tool_call",
            Skip,
            "Blocked: the server process exited.",
        )
        .skip(SkipReason::Blocked),
        finding(
            "resilience.malformed_survival",
            Skip,
            "Blocked: the server process exited.",
        )
        .skip(SkipReason::Blocked),
    ];
    let categories = score::categories(&findings);
    ServerReport {
        name: "time".into(),
        transport: TransportKind::Stdio,
        target: "python3 -m mcp_server_time".into(),
        era: EraKind::Dual,
        protocol_versions: vec!["2025-11-25".into(), "2026-07-28".into()],
        server_info: Some(serde_json::json!({"name": "mcp-time", "version": "0.6.2"})),
        score: score::overall(&categories),
        categories,
        findings,
        exchanges,
        exchange_count: None,
        blocked: Some("the server process exited (status 1)".into()),
        interrupted: false,
        anchor: None,
        duration_ms: 1210,
        notes: Default::default(),
        internal_errors: Vec::new(),
    }
}

/// Wraps servers into a gated report with fixed run id and times, each server scored as a
/// run scores it (a blocked server has no score).
pub(crate) fn report_of(mut servers: Vec<ServerReport>, run_id: &str) -> Report {
    servers.iter_mut().for_each(score::rescore);
    let gate = gate::evaluate(&servers, &gate_config(), Vec::new());
    Report {
        run_id: run_id.to_string(),
        scout_version: "0.1.0".into(),
        started_at: datetime!(2026-11-30 12:00:00 UTC),
        duration_ms: 2100,
        servers,
        gate,
    }
}

/// The shared sample report.
pub(crate) fn report() -> Report {
    report_of(
        vec![everything(), time_server()],
        "6f1c2b9e-0000-4000-8000-000000000001",
    )
}
