//! Full runs against the real third-party servers of `tests/servers/` (installed by
//! `tests/servers/setup.sh`): the era each really speaks, the deviations each really has
//! (lab/README.md documents them), no fail where a server follows the spec, and no tool
//! called that does not declare itself read-only.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;

use scout::probe::run_server;
use scout::report::exchange::{Direction, ExchangeKind};
use scout::report::finding::{Era, Status};
use scout::report::model::{EraKind, ServerReport, TransportKind};
use scout::spec::ServerSpec;
use scout::spec::{PolicySpec, TargetSpec};

use crate::servers;
use scout::transport::process::ProcessConfig;

fn stdio(argv: Vec<String>) -> TargetSpec {
    TargetSpec::Stdio(ProcessConfig {
        command: argv,
        env_forward: vec![],
        env_set: vec![],
        dir: None,
    })
}

fn http(url: &str) -> TargetSpec {
    TargetSpec::Http {
        url: url.to_string(),
        headers: vec![],
        auth: Default::default(),
        start: None,
    }
}

async fn check_with(target: TargetSpec, policy: PolicySpec) -> ServerReport {
    let mut spec = ServerSpec::new("real", target);
    spec.timeout = Duration::from_secs(10);
    spec.deadline = Duration::from_secs(90);
    spec.policy = policy;
    let (_tx, rx) = watch::channel(false);
    run_server(spec, rx).await
}

async fn check(target: TargetSpec) -> ServerReport {
    check_with(target, PolicySpec::default()).await
}

/// `id [era]: detail` of every counted finding with `status` whose id starts with `prefix`.
fn with_status(r: &ServerReport, status: Status, prefix: &str) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.status == status && f.id.starts_with(prefix))
        .map(|f| format!("{} [{:?}]: {}", f.id, f.era, f.detail))
        .collect()
}

/// The fails of `with_status`, less the one every SDK here shares (see
/// [`refuses_batches_at_2025_03_26`]), which each test asserts on its own.
fn fails(r: &ServerReport, prefix: &str) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.status == Status::Fail && f.id.starts_with(prefix))
        .filter(|f| !(f.id == "protocol.batch" && f.revision.as_deref() == Some("2025-03-26")))
        .map(|f| format!("{} [{:?}]: {}", f.id, f.era, f.detail))
        .collect()
}

/// The revision matrix's verdict on these SDKs: they echo 2025-03-26 in initialize but drop
/// or refuse a batch, which that revision requires ("MCP implementations MAY support sending
/// JSON-RPC batches, but MUST support receiving JSON-RPC batches"): batching went with
/// 2025-06-18, the version lists did not.
fn refuses_batches_at_2025_03_26(r: &ServerReport) {
    let f: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id == "protocol.batch" && f.revision.as_deref() == Some("2025-03-26"))
        .collect();
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].status, Status::Fail, "{:#?}", f[0]);
    assert!(
        f[0].detail.contains("must accept batches"),
        "{}",
        f[0].detail
    );
}

/// The status of `id` on the wire of `era` (or the only finding of `id`).
fn status_of(r: &ServerReport, id: &str, era: Option<Era>) -> Vec<Status> {
    r.findings
        .iter()
        .filter(|f| f.id == id && (era.is_none() || f.era == era || f.era.is_none()))
        .map(|f| f.status)
        .collect()
}

/// Every JSON-RPC message scout sent, from the recorded exchanges.
fn sent_messages(r: &ServerReport) -> Vec<Value> {
    r.exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h) => h.request_body.clone(),
            ExchangeKind::Stdio(m) if m.direction == Direction::Sent => Some(m.line.clone()),
            ExchangeKind::Stdio(_) => None,
        })
        .filter_map(|b| serde_json::from_str::<Value>(&b).ok())
        .collect()
}

/// Names of the tools scout called.
fn called_tools(r: &ServerReport) -> BTreeSet<String> {
    sent_messages(r)
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .filter_map(|m| m["params"]["name"].as_str().map(str::to_string))
        .collect()
}

/// Names of every listed tool, and of those that declare `readOnlyHint: true`, from the
/// tools/list answers.
fn listed_tools(r: &ServerReport) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut all = BTreeSet::new();
    let mut out = BTreeSet::new();
    for e in &r.exchanges {
        let bodies: Vec<String> = match &e.kind {
            ExchangeKind::Http(h) => h
                .response_body
                .clone()
                .map(|b| {
                    if b.trim_start().starts_with('{') {
                        vec![b]
                    } else {
                        b.lines()
                            .filter_map(|l| l.strip_prefix("data:"))
                            .map(|l| l.trim().to_string())
                            .collect()
                    }
                })
                .unwrap_or_default(),
            ExchangeKind::Stdio(m) if m.direction == Direction::Received => vec![m.line.clone()],
            ExchangeKind::Stdio(_) => vec![],
        };
        for b in bodies {
            let Ok(v) = serde_json::from_str::<Value>(&b) else {
                continue;
            };
            for t in v["result"]["tools"].as_array().into_iter().flatten() {
                if let Some(n) = t["name"].as_str() {
                    all.insert(n.to_string());
                }
                if t["annotations"]["readOnlyHint"] == Value::Bool(true)
                    && let Some(n) = t["name"].as_str()
                {
                    out.insert(n.to_string());
                }
            }
        }
    }
    (all, out)
}

fn assert_only_read_only_calls(r: &ServerReport) {
    let called = called_tools(r);
    let (listed, read_only) = listed_tools(r);
    assert!(!called.is_empty(), "scout called no tool at all");
    // Made-up names (the unknown-tool and header probes) are not listed tools.
    let not_read_only: Vec<&String> = called
        .iter()
        .filter(|t| listed.contains(*t) && !read_only.contains(*t))
        .collect();
    assert!(
        not_read_only.is_empty(),
        "tools without readOnlyHint were called: {not_read_only:?} (read-only: {read_only:?})"
    );
}

fn assert_no_timeouts(r: &ServerReport) {
    let waited: Vec<String> =
        r.exchanges
            .iter()
            .filter_map(|e| match &e.kind {
                // The standalone GET stream is listened to for a bounded time by design, and
                // `resilience.timeout_recovery` abandons one request on purpose.
                ExchangeKind::Http(h)
                    if h.method != "GET"
                        && !h.request_body.as_deref().is_some_and(|b| {
                            b.contains(scout::probe::resilience::ABANDONED_ID)
                        })
                        && h.error
                            .as_deref()
                            .is_some_and(|x| x.to_ascii_lowercase().contains("time")) =>
                {
                    Some(format!(
                        "#{} {} {}",
                        e.seq,
                        h.method,
                        h.request_body.clone().unwrap_or_default()
                    ))
                }
                _ => None,
            })
            .collect();
    assert!(waited.is_empty(), "probes waited on a timeout: {waited:?}");
}

#[tokio::test]
async fn server_everything_is_legacy_on_stdio_http_and_sse() {
    let stdio_report = check(stdio(servers::everything_stdio())).await;
    let http_server = servers::everything_http();
    let http_report = check(http(&http_server.url)).await;
    let sse_server = servers::everything_sse();
    let sse_report = check(http(&sse_server.url)).await;
    for (r, transport) in [
        (&stdio_report, TransportKind::Stdio),
        (&http_report, TransportKind::Http),
        (&sse_report, TransportKind::LegacySse),
    ] {
        assert_eq!(r.era, EraKind::Legacy, "{transport:?}: {:?}", r.findings);
        assert_eq!(r.transport, transport);
        assert_eq!(r.protocol_versions, vec!["2025-11-25".to_string()]);
        assert!(
            fails(r, "handshake.").is_empty(),
            "{transport:?}: {:?}",
            fails(r, "handshake.")
        );
        assert!(fails(r, "stdio.").is_empty(), "{:?}", fails(r, "stdio."));
        assert!(
            fails(r, "catalog.").is_empty(),
            "{:?}",
            fails(r, "catalog.")
        );
        assert!(
            fails(r, "execution.").is_empty(),
            "{transport:?}: {:?}",
            fails(r, "execution.")
        );
        // Its one execution deviation is real but livable: an unknown tool gets an isError
        // result (an error the agent can read), a warning.
        let unknown = r
            .findings
            .iter()
            .find(|f| f.id == "execution.unknown_tool")
            .expect("unknown_tool judged");
        assert_eq!(
            unknown.status,
            Status::Warn,
            "{transport:?}: {}",
            unknown.detail
        );
        assert_only_read_only_calls(r);
    }
    // It declares `logging`, which 2026-07-28 deprecates: a notice at 2025-11-25; over
    // HTTP+SSE, a transport deprecated since 2025-03-26, a warning.
    for (r, status) in [
        (&stdio_report, Status::Info),
        (&http_report, Status::Info),
        (&sse_report, Status::Warn),
    ] {
        let f = r
            .findings
            .iter()
            .find(|f| f.id == "catalog.deprecated")
            .expect("deprecated judged");
        assert_eq!(f.status, status, "{:?}: {}", r.transport, f.detail);
        assert!(f.detail.contains("`logging`"), "{}", f.detail);
    }
    // What a host can show of it: the server's title, and a title on every tool.
    let identity = stdio_report
        .findings
        .iter()
        .find(|f| f.id == "catalog.identity")
        .expect("identity stated");
    assert_eq!(identity.status, Status::Info);
    assert!(
        identity
            .detail
            .contains("title \"Everything Reference Server\"")
            && identity.detail.contains("no description"),
        "{}",
        identity.detail
    );
    assert!(
        sse_report
            .findings
            .iter()
            .any(|f| f.id == "catalog.deprecated" && f.detail.contains("HTTP+SSE"))
    );
    // An HTTP+SSE (2024-11-05) wire is not stdio: its skip reasons say what it is.
    let called_stdio: Vec<String> = with_status(&sse_report, Status::Skip, "")
        .into_iter()
        .filter(|s| {
            s.split_once("]: ")
                .is_some_and(|(_, d)| d.contains("wire is stdio") || d.starts_with("stdio has no"))
        })
        .collect();
    assert!(called_stdio.is_empty(), "{called_stdio:?}");
}

#[tokio::test]
async fn server_everything_http_shows_its_documented_protocol_deviations() {
    let server = servers::everything_http();
    let r = check(http(&server.url)).await;
    // An unknown session is answered with 400 instead of 404.
    let bogus = r
        .findings
        .iter()
        .find(|f| f.id == "protocol.bogus_session")
        .expect("bogus_session judged");
    assert_eq!(bogus.status, Status::Fail, "{}", bogus.detail);
    assert!(bogus.detail.contains("400"), "{}", bogus.detail);
    assert!(!bogus.evidence.is_empty());
    // Its error objects for those carry no `id` member: the same answers, so named by
    // protocol.jsonrpc_ids as context, not charged a second time.
    let ids = r
        .findings
        .iter()
        .find(|f| f.id == "protocol.jsonrpc_ids")
        .expect("jsonrpc_ids judged");
    assert_eq!(ids.status, Status::Pass, "{}", ids.detail);
    assert!(ids.detail.contains("already charged"), "{}", ids.detail);
    // Every protocol probe ran, none of them waiting on a timeout.
    let skipped = with_status(&r, Status::Skip, "protocol.")
        .into_iter()
        .filter(|s| !s.contains("2026-07-28") && !s.contains("no tool declares"))
        .collect::<Vec<_>>();
    assert!(
        skipped.iter().all(|s| s.contains("stdio")
            || s.contains("modern")
            || s.contains("not applicable")
            || s.contains("era")),
        "{skipped:?}"
    );
    assert_no_timeouts(&r);
    assert!(r.exchanges.len() > 30, "{} exchanges", r.exchanges.len());
}

#[tokio::test]
async fn python_sdk_server_is_dual_and_correct_where_it_follows_the_spec() {
    let stdio_report = check(stdio(servers::py_stdio())).await;
    let server = servers::py_http();
    let http_report = check(http(&server.url)).await;
    for r in [&stdio_report, &http_report] {
        assert_eq!(r.era, EraKind::Dual, "{:?}", r.findings);
        assert!(
            fails(r, "handshake.").is_empty(),
            "{:?}",
            fails(r, "handshake.")
        );
        assert!(
            fails(r, "protocol.").is_empty(),
            "{:?}",
            fails(r, "protocol.")
        );
        assert!(fails(r, "stdio.").is_empty(), "{:?}", fails(r, "stdio."));
        assert!(
            fails(r, "catalog.").is_empty(),
            "{:?}",
            fails(r, "catalog.")
        );
        assert_only_read_only_calls(r);
        refuses_batches_at_2025_03_26(r);
    }
    // The 2026-07-28 behaviour the Python SDK gets right: -32020, -32022, 404 + -32601.
    let r = &http_report;
    for id in [
        "protocol.routing_headers",
        "protocol.unknown_method",
        "protocol.meta_required",
    ] {
        assert_eq!(
            status_of(r, id, Some(Era::Modern)).first(),
            Some(&Status::Pass),
            "{id}: {:?}",
            r.findings.iter().filter(|f| f.id == id).collect::<Vec<_>>()
        );
    }
    assert!(
        status_of(r, "handshake.version_negotiation", Some(Era::Modern)).contains(&Status::Pass),
        "-32022 with data.supported"
    );
}

#[tokio::test]
async fn typescript_v2_server_is_dual_and_its_strict_endpoint_modern() {
    let server = servers::ts_http();
    let lenient = check(http(&server.url)).await;
    let strict = check(http(&server.url_with_path("/mcp-strict"))).await;
    let stdio_report = check(stdio(servers::ts_stdio())).await;
    assert_eq!(lenient.era, EraKind::Dual);
    assert_eq!(stdio_report.era, EraKind::Dual);
    assert_eq!(strict.era, EraKind::Modern, "{:?}", strict.findings);
    for r in [&lenient, &strict, &stdio_report] {
        assert!(
            fails(r, "handshake.").is_empty(),
            "{:?}",
            fails(r, "handshake.")
        );
        assert!(
            fails(r, "protocol.").is_empty(),
            "{:?}",
            fails(r, "protocol.")
        );
        assert!(
            fails(r, "catalog.").is_empty(),
            "{:?}",
            fails(r, "catalog.")
        );
        assert!(
            fails(r, "execution.").is_empty(),
            "{:?}",
            fails(r, "execution.")
        );
        assert_only_read_only_calls(r);
    }
    // Its stdio transport drops a batch; its HTTP transport answers one, as 2025-03-26 asks.
    refuses_batches_at_2025_03_26(&stdio_report);
    let b: Vec<_> = lenient
        .findings
        .iter()
        .filter(|f| f.id == "protocol.batch" && f.revision.as_deref() == Some("2025-03-26"))
        .collect();
    assert_eq!(b.len(), 1, "{b:#?}");
    assert_eq!(b[0].status, Status::Pass, "{:#?}", b[0]);
    for id in [
        "protocol.routing_headers",
        "protocol.unknown_method",
        "protocol.get_stream",
    ] {
        assert_eq!(
            status_of(&strict, id, Some(Era::Modern)).first(),
            Some(&Status::Pass),
            "{id}: {:?}",
            strict
                .findings
                .iter()
                .filter(|f| f.id == id)
                .collect::<Vec<_>>()
        );
    }
}

#[tokio::test]
async fn mcp_server_time_is_dual_and_has_no_fail() {
    let r = check(stdio(servers::time_stdio())).await;
    assert_eq!(r.era, EraKind::Dual, "{:?}", r.findings);
    assert!(fails(&r, "").is_empty(), "{:?}", fails(&r, ""));
    refuses_batches_at_2025_03_26(&r);
    let called = called_tools(&r);
    assert!(called.contains("get_current_time"), "{called:?}");
    assert_only_read_only_calls(&r);
}

#[tokio::test]
async fn rmcp_demo_server_answers_transport_errors_in_plain_text() {
    let server = servers::demo_http();
    let r = check(http(&server.url)).await;
    assert_eq!(r.era, EraKind::Dual);
    let ct: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id == "protocol.content_type")
        .collect();
    assert!(!ct.is_empty());
    for f in ct {
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert!(f.detail.contains("without content type"), "{}", f.detail);
    }
    assert!(
        fails(&r, "protocol.").is_empty(),
        "{:?}",
        fails(&r, "protocol.")
    );
    refuses_batches_at_2025_03_26(&r);
}

#[tokio::test]
async fn the_policy_decides_which_tools_of_a_real_sdk_server_are_called() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut seen = Vec::new();
    for (i, policy) in [
        PolicySpec::default(),
        PolicySpec {
            allow_mutations: true,
            ..PolicySpec::default()
        },
        PolicySpec {
            allow_destructive: true,
            ..PolicySpec::default()
        },
    ]
    .into_iter()
    .enumerate()
    {
        let log = dir.path().join(format!("calls-{i}.log"));
        let target = TargetSpec::Stdio(ProcessConfig {
            command: servers::py_stdio(),
            env_forward: vec![],
            env_set: vec![("SCOUT_TEST_CALL_LOG".into(), log.display().to_string())],
            dir: None,
        });
        let r = check_with(target, policy).await;
        let called: BTreeSet<String> = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        let policy_findings: Vec<String> = r
            .findings
            .iter()
            .filter(|f| f.id == "execution.policy")
            .map(|f| format!("{} {}", f.subject.clone().unwrap_or_default(), f.detail))
            .collect();
        seen.push((called, policy_findings));
    }
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        seen[0].0,
        names(&["echo", "get_time"]),
        "default: read-only only"
    );
    assert_eq!(
        seen[1].0,
        names(&["add_note", "echo", "get_time"]),
        "--allow-mutations"
    );
    assert_eq!(
        seen[2].0,
        names(&["add_note", "delete_note", "echo", "get_time"]),
        "--allow-destructive"
    );
    // The skipped tools are listed with their reason and the flag that would allow them.
    let default_policy = seen[0].1.join("\n");
    assert!(
        default_policy.contains("add_note") && default_policy.contains("--allow-mutations"),
        "{default_policy}"
    );
    assert!(
        default_policy.contains("delete_note") && default_policy.contains("--allow-destructive"),
        "{default_policy}"
    );
}
