//! `scout connect`, `scout tools` and `scout call` as a user runs them: human and `--json`
//! output, the policy's refusal (exit 1, naming the flag), and a server that cannot be reached.

use serde_json::Value;

use crate::common::{Scout, closed_port, crate_root};

fn fixture(name: &str) -> String {
    crate_root()
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn connect_names_era_versions_and_server_in_text_and_json() {
    let text = Scout::new()
        .args([
            "connect",
            "--stdio",
            "--",
            "python3",
            &fixture("minimal_server.py"),
        ])
        .run();
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(text.stdout.contains("era: dual"), "{}", text.stdout);
    assert!(
        text.stdout.contains("protocol 2026-07-28"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("protocol 2025-11-25"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("mcpfixture"), "{}", text.stdout);

    let json = Scout::new()
        .args([
            "connect",
            "--json",
            "--stdio",
            "--",
            "python3",
            &fixture("minimal_server.py"),
        ])
        .run();
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let v: Value = serde_json::from_str(&json.stdout).expect("connect --json is JSON");
    assert_eq!(v["era"], "dual");
    assert_eq!(v["wires"].as_array().map(Vec::len), Some(2));
}

#[test]
fn connect_to_a_closed_port_is_exit_1_with_one_line() {
    let run = Scout::new()
        .args([
            "connect",
            &format!("http://127.0.0.1:{}/mcp", closed_port()),
        ])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("could not connect"), "{}", run.stderr);
}

#[test]
fn tools_shows_what_the_policy_would_do() {
    let run = Scout::new()
        .args([
            "tools",
            "--stdio",
            "--",
            "python3",
            &fixture("records_calls.py"),
        ])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let line = |name: &str| {
        run.stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("read_only").contains("may call"), "{}", run.stdout);
    assert!(
        line("mutating").contains("--allow-mutations"),
        "{}",
        run.stdout
    );
    assert!(
        line("destructive").contains("--allow-destructive"),
        "{}",
        run.stdout
    );

    let json = Scout::new()
        .args([
            "tools",
            "--json",
            "--allow-mutations",
            "--stdio",
            "--",
            "python3",
            &fixture("records_calls.py"),
        ])
        .run();
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let rows: Value = serde_json::from_str(&json.stdout).expect("tools --json is JSON");
    let decision = |name: &str| {
        rows.as_array()
            .and_then(|r| r.iter().find(|t| t["name"] == name))
            .map(|t| t["decision"]["action"].clone())
    };
    assert_eq!(decision("read_only"), Some(Value::from("call")));
    assert_eq!(
        decision("mutating"),
        Some(Value::from("call")),
        "--allow-mutations applies"
    );
    assert_eq!(decision("destructive"), Some(Value::from("skip")));
}

#[test]
fn call_applies_the_policy_and_renders_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let set = format!("SCOUT_TEST_CALL_LOG={}", log.display());
    let refused = Scout::new()
        .args([
            "call",
            "--stdio",
            "destructive",
            "--stdio-set",
            &set,
            "--",
            "python3",
            &fixture("records_calls.py"),
        ])
        .run();
    assert_eq!(
        refused.code,
        Some(1),
        "a refused call exits 1: {}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("--allow-destructive"),
        "{}",
        refused.stderr
    );
    // The same server and log with a tool the policy allows: the log must then exist and
    // name only that call, so "nothing logged" above cannot come from a log never written.
    let allowed = Scout::new()
        .args([
            "call",
            "--stdio",
            "read_only",
            "--stdio-set",
            &set,
            "--",
            "python3",
            &fixture("records_calls.py"),
        ])
        .run();
    assert_eq!(allowed.code, Some(0), "{}", allowed.stderr);
    let calls = std::fs::read_to_string(&log).expect("the allowed call wrote the call log");
    assert_eq!(
        calls.lines().collect::<Vec<_>>(),
        vec!["read_only"],
        "only the allowed tool was called; the refused one never was"
    );

    let human = Scout::new()
        .args([
            "call",
            "--stdio",
            "add",
            "--arg",
            "a=2",
            "--arg",
            "b=3",
            "--",
            "python3",
            &fixture("minimal_server.py"),
        ])
        .run();
    assert_eq!(human.code, Some(0), "{}", human.stderr);
    assert!(human.stdout.contains("\"sum\": 5"), "{}", human.stdout);

    let json = Scout::new()
        .args([
            "call",
            "--stdio",
            "echo",
            "--json-args",
            r#"{"message":"hi"}"#,
            "--json",
            "--",
            "python3",
            &fixture("minimal_server.py"),
        ])
        .run();
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    let v: Value = serde_json::from_str(&json.stdout).expect("call --json is JSON");
    assert_eq!(v["content"][0]["text"], "Echo: hi");

    let bad = Scout::new()
        .args([
            "call",
            "--stdio",
            "add",
            "--arg",
            "a=two",
            "--",
            "python3",
            &fixture("minimal_server.py"),
        ])
        .run();
    assert_eq!(
        bad.code,
        Some(2),
        "a badly typed --arg is a usage error: {}",
        bad.stderr
    );
}
