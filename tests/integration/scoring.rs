//! Scores as users see them, through the real binary: a dual-era server and a single-era
//! server with the same defect get the same category score; categories of only
//! observations are "not assessed" everywhere; a blocked server has no score in any output
//! (JSON, terminal, Markdown, JUnit, GitHub outputs, badge, merge, diff); internal errors
//! reach every report and exit 3.

use std::path::Path;

use serde_json::Value;

use crate::common::{HttpFixture, Scout, fixture};
use crate::sample;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).expect("JSON")
}

/// `(score, assessed)` of one category of the first server.
fn category(report: &Value, phase: &str) -> (Value, Value) {
    let c = report["servers"][0]["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .find(|c| c["phase"] == phase)
        .unwrap_or_else(|| panic!("no {phase} category"))
        .clone();
    (c["score"].clone(), c["assessed"].clone())
}

/// The `<properties>` of the JUnit suite `name`.
fn junit_properties<'a>(xml: &'a str, suite: &str) -> &'a str {
    let start = xml
        .find(&format!("<testsuite name=\"{suite}\""))
        .unwrap_or_else(|| panic!("no suite {suite} in {xml}"));
    let rest = &xml[start..];
    &rest[..rest.find("</properties>").expect("properties")]
}

#[test]
fn a_defect_costs_a_dual_era_server_what_it_costs_a_single_era_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut reports = Vec::new();
    for script in ["unannotated_tools.py", "unannotated_tools_legacy_only.py"] {
        let json = dir.path().join(format!("{script}.json"));
        let run = Scout::new()
            .args(["-q", "check", "--json"])
            .args([&json])
            .args(["--stdio", "--", "python3"])
            .args([&fixture(script)])
            .run();
        assert_eq!(run.code, Some(0), "{script}: {}", run.stderr);
        reports.push(read_json(&json));
    }
    let (dual, single) = (&reports[0], &reports[1]);
    assert_eq!(dual["servers"][0]["era"], "dual");
    assert_eq!(single["servers"][0]["era"], "legacy");
    // The same defect on both wires: both findings stay in the report, with their era…
    let eras = |r: &Value| -> Vec<Value> {
        r["servers"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["id"] == "catalog.annotations" && f["status"] == "warn")
            .map(|f| f["era"].clone())
            .collect()
    };
    let mut dual_eras = eras(dual);
    dual_eras.sort_by_key(|e| e.to_string());
    assert_eq!(dual_eras, ["legacy", "modern"]);
    assert_eq!(eras(single).len(), 1);
    // …but it costs the category once: the same score as on one wire.
    assert_eq!(category(dual, "catalog"), category(single, "catalog"));
    assert_eq!(category(dual, "catalog").0, 95);
}

#[test]
fn categories_of_only_observations_are_not_assessed_in_every_report() {
    // auth.open can only be an observation (info) on an open HTTP server.
    let server = HttpFixture::start("minimal_server.py");
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .args(["check", &server.url, "--out-dir"])
        .args([out.path()])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = read_json(&out.path().join("scout.json"));
    let s = &json["servers"][0];
    let auth: Vec<&Value> = s["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["phase"] == "auth")
        .collect();
    assert!(
        !auth.is_empty()
            && auth
                .iter()
                .all(|f| f["status"] == "info" || f["status"] == "skip"),
        "the fixture's auth phase only observes: {auth:?}"
    );
    assert_eq!(category(&json, "auth"), (Value::Null, Value::Bool(false)));

    // The overall score is the mean of the assessed categories only, host compatibility
    // (`compat`, scored on its own) left out.
    let assessed: Vec<u64> = s["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .filter(|c| c["phase"] != "compat")
        .filter_map(|c| c["score"].as_u64())
        .collect();
    let mean = (assessed.iter().sum::<u64>() as f64 / assessed.len() as f64).round() as u64;
    assert_eq!(s["score"].as_u64(), Some(mean));

    // Terminal, JUnit and Markdown say "not assessed" for it.
    assert!(
        run.stdout.contains("\n  auth           -  not assessed"),
        "{}",
        run.stdout
    );
    let name = s["name"].as_str().expect("name");
    let junit = read(&out.path().join("junit.xml"));
    let props = junit_properties(&junit, &format!("{name}.auth"));
    assert!(
        props.contains(r#"<property name="category_score" value="not assessed"/>"#),
        "{props}"
    );
    let md = read(&out.path().join("summary.md"));
    let line = md
        .lines()
        .find(|l| l.starts_with("Not assessed"))
        .unwrap_or_else(|| panic!("no not-assessed line: {md}"));
    assert!(line.contains("auth"), "{line}");
    assert!(!md.contains("| auth |"), "no score row for auth: {md}");
}

#[test]
fn a_blocked_server_has_no_score_anywhere_and_fails_the_gate() {
    // Answers only 401, and no credentials are given: nothing past discovery can run.
    let server = HttpFixture::start("requires_token.py");
    let ws = tempfile::tempdir().expect("tempdir");
    let output = ws.path().join("github_output");
    let summary = ws.path().join("step_summary.md");
    let run = Scout::new()
        .github_actions(ws.path(), &output, &summary)
        .args([
            "check",
            &server.url,
            "--out-dir",
            "out",
            "--fail-under",
            "50",
        ])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("run blocked: the server requires credentials"),
        "a clear gate reason: {}",
        run.stderr
    );
    let out = ws.path().join("out");
    let json = read_json(&out.join("scout.json"));
    let s = &json["servers"][0];
    assert!(s["blocked"].is_string());
    assert_eq!(s["score"], Value::Null, "{s}");
    assert!(
        !json["gate"]["reasons"].to_string().contains("score"),
        "no score is compared: {}",
        json["gate"]
    );

    // Terminal.
    assert!(
        run.stdout.contains("score not assessed · FAILED"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("score 100"), "{}", run.stdout);
    // Markdown (file and step summary).
    for md in [read(&out.join("summary.md")), read(&summary)] {
        assert!(md.contains("— not assessed"), "{md}");
        assert!(!md.contains("100/100"), "{md}");
    }
    // JUnit.
    let junit = read(&out.join("junit.xml"));
    assert!(
        junit.contains(r#"<property name="score" value="not assessed"/>"#),
        "{junit}"
    );
    assert!(!junit.contains(r#"<property name="score" value="100"/>"#));
    // GitHub outputs: empty score, not 100.
    let outputs = read(&output);
    assert!(outputs.lines().any(|l| l == "score="), "{outputs}");
    assert!(
        run.stdout.contains("not assessed; "),
        "notice: {}",
        run.stdout
    );
    // Badge: grey "not assessed".
    let badge = read(&out.join("badge.svg"));
    assert!(badge.contains("scout: not assessed"), "{badge}");
    assert!(badge.contains(scout::emit::badge::GREY), "{badge}");

    // report merge keeps it unscored, and so does the badge it writes.
    let merged = ws.path().join("merged.json");
    let merged_badge = ws.path().join("merged.svg");
    let m = Scout::new()
        .args(["report", "merge"])
        .args([&out.join("scout.json")])
        .args(["--json"])
        .args([&merged])
        .args(["--badge"])
        .args([&merged_badge])
        .run();
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert_eq!(read_json(&merged)["servers"][0]["score"], Value::Null);
    assert!(read(&merged_badge).contains("not assessed"));

    // report diff shows "not assessed", never a number or a delta — even against a report
    // whose writer (an older scout) gave the blocked run a score of 100.
    let mut older = read_json(&out.join("scout.json"));
    older["servers"][0]["score"] = 100.into();
    let older_path = ws.path().join("older.json");
    std::fs::write(&older_path, older.to_string()).expect("write");
    let d = Scout::new()
        .args(["report", "diff"])
        .args([&older_path])
        .args([&merged])
        .args(["--json"])
        .args([ws.path().join("diff.json")])
        .run();
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    assert!(
        d.stdout.contains("score not assessed → not assessed\n"),
        "{}",
        d.stdout
    );
    let diff = read_json(&ws.path().join("diff.json"));
    assert_eq!(diff["servers"][0]["score_delta"], Value::Null);
}

#[test]
fn internal_errors_reach_every_report_and_exit_3() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut report = sample::report();
    let error = "protocol.batch could not be recorded as fail: protocol.batch: a fail finding must cite at least one exchange (or say it has none)";
    report.servers[0].internal_errors.push(error.into());
    let input = dir.path().join("in.json");
    std::fs::write(&input, scout::emit::json::render(&report)).expect("write");
    let run = Scout::new()
        .dir(dir.path())
        .args([
            "report",
            "merge",
            "in.json",
            "--json",
            "out.json",
            "--junit",
            "junit.xml",
            "--sarif",
            "scout.sarif",
            "--markdown",
            "summary.md",
        ])
        .run();
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(run.stderr.contains("internal error"), "{}", run.stderr);
    let json = read_json(&dir.path().join("out.json"));
    assert_eq!(json["servers"][0]["internal_errors"][0], error);
    assert_eq!(json["servers"][1]["internal_errors"], serde_json::json!([]));
    assert_eq!(json["gate"]["passed"], false);
    assert!(
        json["gate"]["reasons"]
            .to_string()
            .contains("internal error"),
        "{}",
        json["gate"]
    );
    let junit = read(&dir.path().join("junit.xml"));
    assert!(
        junit.contains(r#"<testsuite name="everything.scout""#)
            && junit.contains(r#"type="internal_error""#),
        "{junit}"
    );
    let sarif = read_json(&dir.path().join("scout.sarif"));
    let inv = &sarif["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert!(
        inv["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .is_some_and(|t| t.contains(error)),
        "{inv}"
    );
    let schema: Value = serde_json::from_str(&read(
        &crate::common::crate_root().join("tests/fixtures/sarif-schema-2.1.0.json"),
    ))
    .expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let md = read(&dir.path().join("summary.md"));
    assert!(md.contains("**Internal error:**"), "{md}");
    // The terminal shows it too.
    let text = scout::emit::text::render(&report, Default::default());
    assert!(text.contains(&format!("internal error: {error}")), "{text}");
}
