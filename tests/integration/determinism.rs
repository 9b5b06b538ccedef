//! The fixtures whose verdicts once depended on the run plan's timing give the same verdict
//! list in every run: ten `scout check` runs of each, one after another (the machine is
//! small; load from the other tests still varies the timing), compared line by line.
//!
//! A verdict is (check id, subject, era, status, skip reason), sorted. Details, cited
//! exchanges and measured times are left out: they carry recorder sequence numbers and
//! durations, which the schedule decides. The statuses of `performance.*` are kept: with
//! these fixtures they do not depend on timing. `performance.latency` judges p95 against
//! a budget of a second (the fixtures answer in well under 10 ms and the sequential slow
//! tool's 1.2 s call is not timed), `performance.cold_start` a first answer within 5 s,
//! `performance.payload_size` sizes, and `performance.throughput` is skipped without
//! `--allow-load`. The performance phase is not skipped in any run here: its latency
//! samples run beside the catalog and execution phases, which is schedule the fixtures
//! must withstand, and skipping it saves no time.

use std::path::Path;

use serde_json::Value;

use crate::common::{HttpFixture, scout, stdio_command};

const RUNS: usize = 10;

/// One run's verdicts, one line each, sorted.
fn verdicts(report: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(report).expect("a JSON report");
    let mut lines: Vec<String> = v["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {}",
                f["id"], f["subject"], f["era"], f["status"], f["skip_reason"]
            )
        })
        .collect();
    lines.sort();
    lines
}

/// Runs `scout check -q --json <file> <args>` once and returns its report.
fn check_once(dir: &Path, i: usize, args: &[String]) -> String {
    let json = dir.join(format!("r{i}.json"));
    let out = scout()
        .args(["check", "-q", "--json"])
        .arg(&json)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("scout runs");
    // The fixtures' defects (and a deadline) fail the gate (1); anything else is an error.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "run {i}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&json).expect("the report was written")
}

/// The arguments that run a fixture over stdio, after `args`.
fn stdio_args(args: &[&str], fixture: &str) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend(["--stdio".to_string(), "--".to_string()]);
    all.extend(stdio_command(fixture));
    all
}

/// Ten runs of a stdio fixture, each against a freshly spawned process.
fn stdio_runs(args: &[&str], fixture: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = stdio_args(args, fixture);
    (0..RUNS)
        .map(|i| check_once(dir.path(), i, &args))
        .collect()
}

/// Ten runs of an HTTP fixture, each against a freshly started server (so that no run
/// meets sessions or state another run left behind).
fn http_runs(fixture: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    (0..RUNS)
        .map(|i| {
            let server = HttpFixture::start(fixture);
            check_once(dir.path(), i, std::slice::from_ref(&server.url))
        })
        .collect()
}

/// Asserts that every run's verdict list equals the first's, naming the run and the
/// verdicts that differ; returns the list.
fn identical(reports: &[String]) -> Vec<String> {
    let first = verdicts(&reports[0]);
    for (i, report) in reports.iter().enumerate().skip(1) {
        let other = verdicts(report);
        if other != first {
            let only_first: Vec<_> = first.iter().filter(|l| !other.contains(l)).collect();
            let only_other: Vec<_> = other.iter().filter(|l| !first.contains(l)).collect();
            panic!(
                "run {i}'s verdicts differ from run 0's:\nonly in run 0: {only_first:#?}\nonly in run {i}: {only_other:#?}"
            );
        }
    }
    first
}

/// The verdict line of `id` on `era` ("legacy", "modern", or "" for none), subject-less.
fn line_of<'a>(list: &'a [String], id: &str, era: &str) -> &'a str {
    let era = if era.is_empty() {
        "null".to_string()
    } else {
        format!("\"{era}\"")
    };
    let prefix = format!("\"{id}\" null {era} ");
    list.iter()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no verdict {prefix}in {list:#?}"))
}

#[test]
fn a_server_that_exits_on_malformed_json_gets_the_same_verdicts_in_ten_runs() {
    // Previously broken input ran beside the probes that need a live server, and which of
    // them met the dead process decided ~15 protocol fails.
    let list = identical(&stdio_runs(&[], "parse_error_crashes.py"));
    assert!(
        line_of(&list, "protocol.parse_error", "modern").contains("\"fail\""),
        "{list:#?}"
    );
}

#[test]
fn an_http_server_that_exits_on_malformed_json_gets_the_same_verdicts_in_ten_runs() {
    // Previously the garbage body went beside the other protocol probes of both wires, and
    // which of them met the dead server was the schedule's choice.
    let list = identical(&http_runs("parse_error_crashes.py"));
    assert!(
        line_of(&list, "protocol.parse_error", "modern").contains("\"fail\""),
        "{list:#?}"
    );
}

#[test]
fn a_server_that_caps_its_sessions_gets_the_same_verdicts_in_ten_runs() {
    // Previously resilience.concurrent_sessions failed in 3 runs of 5, when
    // security.session_entropy's sessions overlapped it and the server ended one.
    let list = identical(&http_runs("session_cap.py"));
    assert!(
        line_of(&list, "resilience.concurrent_sessions", "legacy").contains("\"pass\""),
        "{list:#?}"
    );
}

#[test]
fn a_sequential_server_with_a_slow_tool_gets_the_same_verdicts_in_ten_runs() {
    // Previously a quick tools/list queued behind the 1.2 s tool call was timed, and
    // performance.latency warned or passed as the schedule fell. Timing is the point here:
    // the performance phase runs.
    let list = identical(&stdio_runs(&[], "sequential_slow_tool.py"));
    assert!(
        line_of(&list, "performance.latency", "legacy").contains("\"pass\""),
        "{list:#?}"
    );
}

#[test]
fn a_server_that_answers_413_early_gets_the_same_verdicts_in_ten_runs() {
    // Previously resilience.oversized_request passed when scout read the 413 first and
    // warned when it found the connection closed under its write.
    let list = identical(&http_runs("early_413.py"));
    for era in ["legacy", "modern"] {
        assert!(
            line_of(&list, "resilience.oversized_request", era).contains("\"pass\""),
            "{list:#?}"
        );
    }
}

#[test]
fn a_deadline_inside_a_split_phase_gives_the_same_verdicts_in_ten_runs() {
    // slow_every_answer.py answers every request 2 s after it came (SLOW_DELAY). The
    // handshake takes five rounds one after another (10 s after the first request), and
    // the concurrent stage's first answers cannot come before 12 s after it: a 12 s
    // deadline always falls inside the concurrent stage, where the protocol and
    // performance phases have run their first half only, however long the process took to
    // start (up to 2 s: a loaded machine's Python start). Previously the second half
    // recorded a skip beside the first half's verdict for the same check.
    let mut args: Vec<String> = [
        "--deadline",
        "12s",
        "--stdio",
        "--",
        "/usr/bin/env",
        "SLOW_DELAY=2",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(stdio_command("slow_every_answer.py"));
    let dir = tempfile::tempdir().expect("tempdir");
    let reports: Vec<String> = (0..RUNS)
        .map(|i| check_once(dir.path(), i, &args))
        .collect();
    for r in &reports {
        let v: Value = serde_json::from_str(r).expect("json");
        assert_eq!(
            v["servers"][0]["interrupted"], true,
            "the deadline cut the run"
        );
    }
    let list = identical(&reports);
    assert!(
        line_of(&list, "handshake.initialize", "legacy").contains("\"pass\""),
        "the handshake finished before the deadline: {list:#?}"
    );
}
