//! Gating across runs, as CI uses it: a baseline written by one run lets the next pass and
//! fails it once an entry goes stale; shard reports merged with `scout report merge` equal
//! the unsharded run.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common::{Scout, crate_root, workspace};

fn fixture(name: &str) -> String {
    crate_root()
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("report written")).expect("JSON")
}

#[test]
fn write_baseline_then_baseline_passes_and_a_stale_entry_fails() {
    // One server name, two builds of it: with the defect, then fixed.
    let config = |script: &str| {
        format!(
            "[[default.servers]]\nname = \"svc\"\ncommand = [\"python3\", {:?}]\n",
            fixture(script)
        )
    };
    let defective = workspace(Some(&config("bad_input_schema.py")));
    let fixed = workspace(Some(&config("minimal_server.py")));
    let baseline = defective.path().join("baseline.toml");
    let check = |dir: &Path, extra: &[&str]| {
        Scout::new()
            .dir(dir)
            .args(["-q", "check", "--fail-on", "minor"])
            .args(extra)
            .run()
    };
    let b = baseline.to_string_lossy().into_owned();

    let first = check(defective.path(), &["--write-baseline", &b]);
    assert_eq!(
        first.code,
        Some(1),
        "an invalid input schema fails the gate: {}",
        first.stderr
    );
    let text = std::fs::read_to_string(&baseline).expect("baseline written");
    assert!(text.contains("catalog.tool_schema"), "{text}");

    let second = check(defective.path(), &["--baseline", &b]);
    assert_eq!(
        second.code,
        Some(0),
        "the baselined fail no longer counts: {}",
        second.stderr
    );

    // Fixed: the entries no longer occur, so they are stale and fail the gate.
    let stale = check(fixed.path(), &["--baseline", &b]);
    assert_eq!(
        stale.code,
        Some(1),
        "stale entries fail the gate: {}",
        stale.stderr
    );
    assert!(
        stale.stderr.contains("stale") || stale.stderr.contains("no longer"),
        "{}",
        stale.stderr
    );

    let allowed = check(fixed.path(), &["--baseline", &b, "--allow-stale-baseline"]);
    assert_eq!(allowed.code, Some(0), "{}", allowed.stderr);
}

/// (server, id, status, subject, era) of every finding: what a merge must preserve (details
/// carry timings and are not compared).
fn shape(report: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in report["servers"].as_array().into_iter().flatten() {
        for f in s["findings"].as_array().into_iter().flatten() {
            out.insert(format!(
                "{} {} {} {} {}",
                s["name"], f["id"], f["status"], f["subject"], f["era"]
            ));
        }
    }
    out
}

#[test]
fn merged_shards_equal_the_unsharded_run() {
    let config = format!(
        "[[default.servers]]\nname = \"alpha\"\ncommand = [\"python3\", {:?}]\n\n[[default.servers]]\nname = \"beta\"\ncommand = [\"python3\", {:?}]\n\n[[default.servers]]\nname = \"gamma\"\ncommand = [\"python3\", {:?}]\n",
        fixture("minimal_server.py"),
        fixture("schema_root_not_object.py"),
        fixture("unannotated_tools.py"),
    );
    let ws = workspace(Some(&config));
    // The security phase's cross-server rules judge the servers of one run together, which
    // a shard cannot (the fixtures' `echo` tools differ, a shadowing warning unsharded): the
    // comparison leaves that phase out.
    let run = |extra: &[&str], out: &str| {
        let r = Scout::new()
            .dir(ws.path())
            .args(["-q", "check", "--skip", "security", "--json", out])
            .args(extra)
            .run();
        assert!(
            r.code == Some(0) || r.code == Some(1),
            "{:?} {}",
            r.code,
            r.stderr
        );
    };
    run(&[], "all.json");
    run(&["--shard", "1/2"], "s1.json");
    run(&["--shard", "2/2"], "s2.json");
    let merged = Scout::new()
        .dir(ws.path())
        .args([
            "report",
            "merge",
            "s1.json",
            "s2.json",
            "--json",
            "merged.json",
            "--fail-on",
            "minor",
        ])
        .run();
    assert_eq!(
        merged.code,
        Some(1),
        "the non-object input schema fails the re-evaluated gate: {}",
        merged.stderr
    );

    let all = read_json(&ws.path().join("all.json"));
    let s1 = read_json(&ws.path().join("s1.json"));
    let s2 = read_json(&ws.path().join("s2.json"));
    let m = read_json(&ws.path().join("merged.json"));
    let names = |r: &Value| -> Vec<String> {
        r["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s["name"].to_string())
            .collect()
    };
    assert!(
        !names(&s1).is_empty() && !names(&s2).is_empty(),
        "both shards hold servers"
    );
    assert_eq!(names(&m), names(&all));
    assert_eq!(shape(&m), shape(&all));
    let scores = |r: &Value| -> Vec<Value> {
        r["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s["score"].clone())
            .collect()
    };
    assert_eq!(scores(&m), scores(&all));
}

#[test]
fn under_github_actions_the_binary_writes_annotations_outputs_and_the_step_summary() {
    let ws = tempfile::tempdir().expect("tempdir");
    let output = ws.path().join("github_output");
    let summary = ws.path().join("step_summary.md");
    let run = Scout::new()
        .github_actions(ws.path(), &output, &summary)
        .args([
            "check",
            "--fail-on",
            "minor",
            "--out-dir",
            "reports",
            "--stdio",
            "--",
        ])
        .args(["python3", &fixture("bad_input_schema.py")])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("::error ") && l.contains("catalog.tool_schema")),
        "an ::error annotation for the failing check: {}",
        run.stdout
    );
    let outputs = std::fs::read_to_string(&output).expect("GITHUB_OUTPUT appended");
    assert!(outputs.contains("passed=false"), "{outputs}");
    assert!(
        outputs.lines().any(|l| l.starts_with("score=")),
        "{outputs}"
    );
    assert!(
        outputs.contains("json=reports/scout.json")
            && outputs.contains("sarif=reports/scout.sarif"),
        "report paths, workspace-relative: {outputs}"
    );
    let md = std::fs::read_to_string(&summary).expect("step summary appended");
    assert!(md.contains("catalog.tool_schema"), "{md}");
    assert!(md.contains("bad_input_schema"), "{md}");
}

#[test]
fn every_request_carries_the_report_run_id_as_trace_id() {
    let server = crate::common::HttpFixture::start("minimal_server.py");
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .args(["-q", "check", &server.url, "--out-dir"])
        .args([out.path()])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report = read_json(&out.path().join("scout.json"));
    let run_id = report["run_id"].as_str().expect("run_id").to_string();
    let har_dir = out.path().join("har");
    let har_file = std::fs::read_dir(&har_dir)
        .expect("har folder")
        .flatten()
        .next()
        .expect("a HAR file")
        .path();
    let har = read_json(&har_file);
    let entries = har["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!entries.is_empty());
    for e in entries {
        let trace = e["request"]["headers"]
            .as_array()
            .and_then(|h| {
                h.iter()
                    .find(|h| {
                        h["name"]
                            .as_str()
                            .is_some_and(|n| n.eq_ignore_ascii_case("x-mcp-trace-id"))
                    })
                    .and_then(|h| h["value"].as_str().map(str::to_string))
            })
            .unwrap_or_default();
        assert_eq!(
            trace, run_id,
            "entry {} carries another trace id",
            e["_seq"]
        );
    }
}
