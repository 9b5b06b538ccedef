//! The run plan (docs/scheduling.md): independent probes run at the same time, yet reports
//! and baselines do not depend on which request finished first, and a server that answers
//! every request slowly is still checked completely within the default deadline.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{scout, stdio_command};

/// The JSON report with what legitimately differs between two runs of the same server
/// replaced: the redactions of the emitter snapshots (run id, start time, durations), plus
/// what scheduling and timing decide: the recorder's sequence numbers (and how many
/// exchanges a finding cites: a reply that arrives within a probe's quiet window is cited,
/// a later one is not), measured times in details ("12.5 ms"), the latency table (which
/// requests were timed alone) and the stdio child's process id.
fn normalised(report: &str) -> String {
    let mut v: Value = serde_json::from_str(report).expect("a JSON report");
    v["run_id"] = "[run_id]".into();
    v["started_at"] = "[started_at]".into();
    v["duration_ms"] = "[duration]".into();
    let ms = regex::Regex::new(r"\d+(\.\d+)? ?ms\b").expect("regex");
    let pid = regex::Regex::new(r"pid \d+").expect("regex");
    for s in v["servers"].as_array_mut().expect("servers") {
        s["duration_ms"] = "[duration]".into();
        for f in s["findings"].as_array_mut().expect("findings") {
            f["evidence"] = "[evidence]".into();
            if f["id"] == "performance.latency" {
                // Its table is timing: which requests had nothing else in flight beside
                // them (and so were timed) is the schedule's doing. Its verdict is compared.
                f["detail"] = "[timings]".into();
                continue;
            }
            let d = f["detail"].as_str().unwrap_or_default();
            let d = ms.replace_all(d, "[ms]");
            f["detail"] = pid.replace_all(&d, "pid [pid]").into_owned().into();
        }
    }
    serde_json::to_string_pretty(&v).expect("serialise")
}

fn check(dir: &Path, i: usize, fixture: &str) -> std::process::Child {
    let mut cmd = scout();
    cmd.args(["check", "-q", "--json"])
        .arg(dir.join(format!("r{i}.json")))
        .arg("--write-baseline")
        .arg(dir.join(format!("b{i}.toml")))
        .arg("--stdio")
        .arg("--")
        .args(stdio_command(fixture))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    cmd.spawn().expect("scout starts")
}

#[test]
fn twenty_runs_of_one_fixture_give_identical_reports_and_baselines() {
    // A fixture with failures and warnings, so the baseline has entries to order. Runs go
    // five at a time: the machine's load then varies the timing too.
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = "lenient_errors.py";
    let mut outputs: Vec<Output> = Vec::new();
    for batch in 0..4 {
        let children: Vec<_> = (0..5)
            .map(|k| check(dir.path(), batch * 5 + k, fixture))
            .collect();
        outputs.extend(
            children
                .into_iter()
                .map(|c| c.wait_with_output().expect("scout ends")),
        );
    }
    for (i, o) in outputs.iter().enumerate() {
        // The fixture's defects fail the gate (1); anything else is an error.
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "run {i}: {:?}\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let read = |name: String| std::fs::read_to_string(dir.path().join(name)).expect("written");
    let first_report = normalised(&read("r0.json".into()));
    let first_baseline = read("b0.toml".into());
    assert!(
        first_baseline.contains("[[accepted]]"),
        "the baseline lists the fixture's findings:\n{first_baseline}"
    );
    for i in 1..20 {
        let report = normalised(&read(format!("r{i}.json")));
        if report != first_report {
            let diff: Vec<String> = first_report
                .lines()
                .zip(report.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(n, (a, b))| format!("line {n}:\n- {a}\n+ {b}"))
                .take(10)
                .collect();
            panic!(
                "run {i}'s report differs from run 0's:\n{}",
                diff.join("\n")
            );
        }
        assert_eq!(
            read(format!("b{i}.toml")),
            first_baseline,
            "run {i}'s baseline differs from run 0's"
        );
    }
}

#[tokio::test]
async fn a_server_that_answers_everything_after_1_5_s_is_checked_within_the_default_deadline() {
    // About 80 exchanges one after another would need two minutes; the run plan sends the
    // independent ones together (on one stdio connection), so every phase finishes.
    let mut spec = crate::phase_fixtures::fixture("slow_every_answer.py", &[]);
    let defaults = scout::probe::spec::ServerSpec::new("defaults", spec.target.clone());
    spec.only = Vec::new();
    spec.timeout = defaults.timeout;
    spec.deadline = defaults.deadline;
    assert_eq!(spec.deadline, std::time::Duration::from_secs(120));
    let r = crate::phase_fixtures::run(spec).await;
    assert!(!r.interrupted, "the run was cut short: {:?}", r.findings);
    let cut: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.detail.contains("deadline"))
        .map(|f| &f.id)
        .collect();
    assert!(cut.is_empty(), "skipped for the deadline: {cut:?}");
    let latency: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id == "performance.latency")
        .collect();
    assert!(!latency.is_empty());
    for f in latency {
        assert_eq!(f.status, scout::report::finding::Status::Warn, "{f:?}");
        for p in ["p50", "p95", "p99"] {
            assert!(f.detail.contains(p), "{}", f.detail);
        }
    }
}

#[test]
fn concurrency_is_a_flag_and_a_config_key_of_at_least_one() {
    use crate::common::{Scout, workspace};
    let dir = workspace(None);
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--format", "json"])
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["values"]["concurrency"]["value"], 8, "{doc}");

    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--concurrency", "0", "http://127.0.0.1:9/mcp"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("--concurrency") && r.stderr.contains("at least 1"),
        "{}",
        r.stderr
    );

    let dir = workspace(Some("[default]\nconcurrency = 0\n"));
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "http://127.0.0.1:9/mcp"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("invalid `concurrency`: expected at least 1 request in flight, got 0"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn the_protocol_phase_sends_its_first_half_once_and_judges_it_in_the_second() {
    // Regression: the first half (GET stream, unknown notification) runs in the concurrent
    // stage and was once dropped before the final stage, which then sent it again.
    use scout::report::finding::Phase;
    use scout::telemetry::ExchangeKind;
    let mut spec = crate::phase_fixtures::fixture_http("minimal_server.py");
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Protocol,
        Phase::Catalog,
        Phase::Execution,
        Phase::Performance,
    ];
    let r = crate::phase_fixtures::run(spec).await;
    let posts_of = |method: &str| {
        r.exchanges
            .iter()
            .filter(|e| match &e.kind {
                ExchangeKind::Http(h) => {
                    h.method == "POST"
                        && h.request_body
                            .as_deref()
                            .is_some_and(|b| b.contains(&format!("\"method\":\"{method}\"")))
                }
                _ => false,
            })
            .count()
    };
    let gets: Vec<_> = r
        .exchanges
        .iter()
        .filter(|e| matches!(&e.kind, ExchangeKind::Http(h) if h.method == "GET"))
        .collect();
    // A dual-era server: the GET stream belongs to the handshake-era wire only; the unknown
    // notification goes once per wire.
    assert_eq!(gets.len(), 1, "{:#?}", gets);
    assert_eq!(posts_of("notifications/scout-probe"), 2);
    let get_stream: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id == "protocol.get_stream")
        .collect();
    assert_eq!(get_stream.len(), 2, "one per wire: {get_stream:#?}");
    let judged = get_stream
        .iter()
        .find(|f| !f.evidence.is_empty())
        .expect("the handshake-era wire's GET is judged");
    assert_eq!(judged.evidence, vec![gets[0].seq]);
}
