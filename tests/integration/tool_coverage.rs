//! `execution.coverage` and `--fail-under-coverage N` on the demo server: which listed
//! tools, prompts and resources the run exercised, and why the others were not.

use serde_json::Value;

use crate::common::{Scout, workspace};

fn demo() -> Vec<String> {
    crate::servers::demo_stdio()
}

/// Checks the demo with `flags`; the exit code and the coverage finding.
fn run(flags: &[&str]) -> (Option<i32>, Value, String) {
    let out = workspace(None);
    let run = Scout::new()
        .args(["-q", "check"])
        .args(flags)
        .args([std::ffi::OsStr::new("--out-dir"), out.path().as_os_str()])
        .args(["--stdio", "--"])
        .args(demo())
        .run();
    let text = std::fs::read_to_string(out.path().join("scout.json")).unwrap_or_default();
    let report: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let f = report["servers"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["id"] == "execution.coverage")
        .cloned()
        .unwrap_or(Value::Null);
    (run.code, f, format!("{}\n{}", run.stdout, run.stderr))
}

#[test]
fn coverage_names_what_was_exercised_and_why_the_rest_was_not() {
    let (code, f, out) = run(&["--fail-under-coverage", "50"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(f["status"], "info", "{f:#}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("4 of 6 listed items exercised (66%)"),
        "{detail}"
    );
    for exercised in [
        "tool add",
        "tool echo",
        "prompt greet",
        "resource demo://readme",
    ] {
        assert!(detail.contains(exercised), "{exercised}: {detail}");
    }
    assert!(
        detail.contains("tool remember: policy: it is not read-only"),
        "{detail}"
    );
    assert!(detail.contains("tool forget_all: policy:"), "{detail}");
    assert!(!f["evidence"].as_array().expect("evidence").is_empty());
}

#[test]
fn coverage_under_the_threshold_fails_the_gate() {
    let (code, _, out) = run(&["--fail-under-coverage", "90"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("coverage 66% < 90%"), "{out}");
    // Allowing mutations lets scout call `remember` too: 5 of 6.
    let (code, f, out) = run(&["--fail-under-coverage", "80", "--allow-mutations"]);
    assert_eq!(code, Some(0), "{f:#}\n{out}");
}

#[test]
fn a_threshold_outside_0_to_100_is_a_usage_error() {
    let run = Scout::new()
        .args([
            "check",
            "--fail-under-coverage",
            "101",
            "http://127.0.0.1:9/mcp",
        ])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("0..=100"), "{}", run.stderr);
}
