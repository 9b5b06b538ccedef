//! The emitters against the shared sample report: insta snapshots of every format, the
//! SARIF log through Microsoft's validator and the 2.1.0 schema plus GitHub's ingestion
//! rules, the JUnit file through junitparser and xmllint, a simulated GitHub Actions step,
//! GitLab Code Quality rules, the JSON round trip and `report merge`.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use scout::emit;
use scout::report::finding::Status;
use scout::runner::merge::{self, MergeError};
use serde_json::Value;

use crate::common::{on_path, scrubbed, tool};
use crate::sample;

fn write_temp(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

// ---------------------------------------------------------------------------------------
// Snapshots (reviewed by reading them; CI runs with INSTA_UPDATE=no)

#[test]
fn json_snapshot() {
    let v: Value = serde_json::from_str(&emit::json::render(&sample::report())).expect("json");
    insta::assert_json_snapshot!("json", v, {
        ".run_id" => "[run_id]",
        ".started_at" => "[started_at]",
        ".duration_ms" => "[duration]",
        ".servers[].duration_ms" => "[duration]",
    });
}

#[test]
fn sarif_snapshot() {
    insta::assert_snapshot!("sarif", emit::sarif::render(&sample::report()));
}

#[test]
fn junit_snapshot() {
    insta::assert_snapshot!("junit", emit::junit::render(&sample::report()));
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!("markdown", emit::markdown::render(&sample::report()));
}

#[test]
fn github_annotations_snapshot() {
    insta::assert_snapshot!("github", emit::github::annotations(&sample::report()));
}

#[test]
fn gitlab_snapshot() {
    insta::assert_snapshot!("gitlab", emit::gitlab::render(&sample::report()));
}

// ---------------------------------------------------------------------------------------
// JSON v1

#[test]
fn json_has_the_v1_contract_fields() {
    let v: Value = serde_json::from_str(&emit::json::render(&sample::report())).expect("json");
    assert_eq!(v["schema"], "scout/report/v1");
    for key in [
        "scout_version",
        "run_id",
        "started_at",
        "duration_ms",
        "gate",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let s = &v["servers"][0];
    for key in [
        "name",
        "transport",
        "target",
        "era",
        "protocol_versions",
        "score",
        "categories",
        "findings",
    ] {
        assert!(s.get(key).is_some(), "missing servers[].{key}");
    }
    assert_eq!(s["exchanges"], 5, "exchanges is a count");
    let f = &s["findings"][0];
    for key in [
        "id",
        "phase",
        "status",
        "severity",
        "title",
        "detail",
        "advice",
        "subject",
        "era",
        "spec",
        "evidence",
        "skip_reason",
    ] {
        assert!(f.get(key).is_some(), "missing findings[].{key}");
    }
    assert!(
        v.to_string().contains("Bearer [REDACTED]"),
        "the redacted text is carried"
    );
}

#[test]
fn json_round_trips_with_the_exchange_count_kept() {
    let report = sample::report();
    let text = emit::json::render(&report);
    let back = emit::json::parse(&text).expect("parses its own output");
    assert_eq!(emit::json::render(&back), text);
    assert!(back.servers[0].exchanges.is_empty());
    assert_eq!(back.servers[0].exchange_total(), 5);
    assert_eq!(back.servers[1].findings, report.servers[1].findings);
    assert_eq!(back.servers[0].categories, report.servers[0].categories);
}

#[test]
fn json_parse_refuses_other_schemas_and_unknown_values() {
    let text = emit::json::render(&sample::report());
    let v2 = text.replace("scout/report/v1", "scout/report/v2");
    let err = emit::json::parse(&v2).expect_err("v2 refused");
    assert!(err.to_string().contains("scout/report/v2"), "{err}");
    let bad = text.replacen("\"status\": \"pass\"", "\"status\": \"great\"", 1);
    let err = emit::json::parse(&bad).expect_err("unknown status refused");
    assert!(err.to_string().contains("great"), "{err}");
    assert!(emit::json::parse("{").is_err());
}

// ---------------------------------------------------------------------------------------
// SARIF

#[test]
fn sarif_is_accepted_by_the_sarif_multitool() {
    let multitool = tool("node/node_modules/.bin/sarif-multitool");
    let dir = tempfile::tempdir().expect("tempdir");
    let input = write_temp(
        dir.path(),
        "scout.sarif",
        &emit::sarif::render(&sample::report()),
    );
    let output = dir.path().join("validation.sarif");
    let run = scrubbed(Command::new(&multitool))
        .args(["validate", "--output"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("run sarif-multitool");
    let log = std::fs::read_to_string(&output).unwrap_or_default();
    assert!(
        run.status.success(),
        "sarif-multitool failed: {}\n{}\n{log}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let v: Value = serde_json::from_str(&log).expect("validation log is SARIF");
    let errors: Vec<&Value> = v["runs"][0]["results"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter(|r| matches!(r["level"].as_str(), Some("error" | "warning")))
                .collect()
        })
        .unwrap_or_default();
    assert!(errors.is_empty(), "validator errors: {errors:#?}");
    // The validator really looked: a broken log gets errors.
    let broken = write_temp(
        dir.path(),
        "broken.sarif",
        r#"{"version":"2.1.0","runs":[{}]}"#,
    );
    let run = scrubbed(Command::new(&multitool))
        .args(["validate", "--force", "--output"])
        .arg(&output)
        .arg(&broken)
        .output()
        .expect("run sarif-multitool");
    let log = std::fs::read_to_string(&output).unwrap_or_default();
    assert!(
        !run.status.success() || log.contains("\"error\""),
        "a log without a tool must not validate"
    );
}

#[test]
fn sarif_is_valid_against_the_2_1_0_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json"),
        )
        .expect("schema fixture"),
    )
    .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let log: Value =
        serde_json::from_str(&emit::sarif::render(&sample::report())).expect("sarif is JSON");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn sarif_follows_github_ingestion_rules() {
    let report = sample::report();
    let log: Value = serde_json::from_str(&emit::sarif::render(&report)).expect("json");
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one run for the whole report");
    let run = &runs[0];
    let category = run["automationDetails"]["id"].as_str().expect("category");
    assert_eq!(category, "scout/everything+time/");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "scout");
    assert!(driver["informationUri"].as_str().is_some());
    let rules = driver["rules"].as_array().expect("rules");
    let results = run["results"].as_array().expect("results");

    let judged = report
        .servers
        .iter()
        .flat_map(|s| &s.findings)
        .filter(|f| matches!(f.status, Status::Warn | Status::Fail))
        .count();
    assert_eq!(results.len(), judged, "one result per warn and fail");

    let mut fingerprints = HashSet::new();
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let idx = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], id, "ruleIndex points at the rule");
        assert!(matches!(r["level"].as_str(), Some("error" | "warning")));
        let title = rules[idx]["shortDescription"]["text"]
            .as_str()
            .expect("title");
        let text = r["message"]["text"].as_str().expect("message");
        assert!(
            text.starts_with(&format!("{title}. ")),
            "first sentence is the title: {text}"
        );
        let loc = &r["locations"][0];
        let uri = loc["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or_else(|| panic!("{id}: every result needs a physical location"));
        assert!(
            !uri.contains("://") && !uri.starts_with('/') && !uri.contains(':'),
            "{uri} must be repository-relative"
        );
        assert!(loc["physicalLocation"]["region"]["startLine"].as_u64() >= Some(1));
        assert!(
            loc["logicalLocations"][0]["name"].as_str().is_some(),
            "server as a logical location"
        );
        let fp = r["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .expect("fingerprint");
        assert!(
            fingerprints.insert(fp.to_string()),
            "fingerprint {fp} repeats"
        );
    }
    // The anchored server points at its config line; the other one at mcp/<server>.
    let uris: HashSet<(String, u64)> = results
        .iter()
        .map(|r| {
            let p = &r["locations"][0]["physicalLocation"];
            (
                p["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                p["region"]["startLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(uris.contains(&("scout.toml".to_string(), 7)), "{uris:?}");
    assert!(uris.contains(&("mcp/time".to_string(), 1)), "{uris:?}");

    let mut seen = HashSet::new();
    for rule in rules {
        let id = rule["id"].as_str().expect("rule id");
        assert!(seen.insert(id), "rule {id} repeats");
        for field in [
            "name",
            "shortDescription",
            "fullDescription",
            "help",
            "helpUri",
        ] {
            assert!(!rule[field].is_null(), "{id}: rule.{field}");
        }
        assert!(rule["help"]["markdown"].as_str().is_some());
        assert!(rule["fullDescription"]["text"].as_str().map(str::len) <= Some(1024));
        assert!(rule["defaultConfiguration"]["level"].as_str().is_some());
        assert!(
            rule["properties"]["tags"]
                .as_array()
                .is_some_and(|t| t.len() <= 20)
        );
        let uri = rule["helpUri"].as_str().expect("helpUri");
        assert!(uri.starts_with("https://"), "{uri}");
        let sec = rule["properties"]["security-severity"].as_str();
        if id.starts_with("security.") {
            let score: f64 = sec.expect("security-severity").parse().expect("a number");
            assert!((0.0..=10.0).contains(&score));
        } else {
            assert!(sec.is_none(), "{id} is not a security rule");
        }
    }
    // Fingerprints do not depend on the run: a rerun with another id gives the same ones.
    let mut rerun = report.clone();
    rerun.run_id = "another".into();
    rerun.servers[0].anchor = Some(scout::report::Anchor {
        path: "scout.toml".into(),
        line: 12,
    });
    let log2: Value = serde_json::from_str(&emit::sarif::render(&rerun)).expect("json");
    let fps2: HashSet<String> = log2["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["partialFingerprints"]["primaryLocationLineHash"].as_str())
        .map(String::from)
        .collect();
    assert_eq!(fps2, fingerprints);
}

// ---------------------------------------------------------------------------------------
// JUnit

/// What junitparser read.
fn junitparser_read(xml: &str) -> Value {
    let python = tool(".venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/junit_read.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_temp(dir.path(), "junit.xml", xml);
    let out = scrubbed(Command::new(python))
        .arg(script)
        .arg(&file)
        .output()
        .expect("run junitparser");
    assert!(
        out.status.success(),
        "junitparser could not read the report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("reader prints JSON")
}

#[test]
fn junit_is_read_back_by_junitparser() {
    let report = sample::report();
    let seen = junitparser_read(&emit::junit::render(&report));
    let cases: Vec<&Value> = seen["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .flat_map(|s| s["cases"].as_array().expect("cases"))
        .collect();
    let total: usize = report.servers.iter().map(|s| s.findings.len()).sum();
    assert_eq!(cases.len(), total, "one case per finding");

    let mut pairs = HashSet::new();
    for c in &cases {
        let key = (
            c["classname"].as_str().expect("classname").to_string(),
            c["name"].as_str().expect("name").to_string(),
        );
        assert!(
            pairs.insert(key.clone()),
            "duplicate (classname, name): {key:?}"
        );
        assert!(c["time"].as_f64().is_some(), "time on {key:?}");
    }

    // Every finding maps to the case its documented name and classname give.
    for server in &report.servers {
        let anchor = emit::common::anchor_of(server);
        let mut count = std::collections::HashMap::new();
        for f in &server.findings {
            let mut name = f.id.clone();
            if let Some(s) = &f.subject {
                name.push_str(&format!("[{s}]"));
            }
            if let Some(e) = f.era {
                name.push_str(&format!(" ({})", e.as_str()));
            }
            let n = count.entry(name.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                name = format!("{name} #{n}");
            }
            let classname = format!("{}.{}", server.name, f.phase.as_str());
            let c = cases
                .iter()
                .find(|c| c["classname"] == classname.as_str() && c["name"] == name.as_str())
                .unwrap_or_else(|| panic!("no case {classname} / {name}"));
            let expected = match f.status {
                Status::Fail => "failure",
                Status::Skip => "skipped",
                _ => "passed",
            };
            assert_eq!(c["outcome"], expected, "{name}");
            let ms: f64 = server
                .exchanges
                .iter()
                .filter(|e| f.evidence.contains(&e.seq))
                .map(|e| e.duration_ms)
                .sum();
            let time = c["time"].as_f64().expect("time");
            assert!(
                (time - ms / 1000.0).abs() < 0.0015,
                "{name}: time {time} vs {ms} ms"
            );
            assert_eq!(c["file"], anchor.path.as_str());
            assert_eq!(c["line"], anchor.line.to_string().as_str());
            match f.status {
                Status::Fail => {
                    let sev = f.severity.expect("fails have a severity").as_str();
                    assert_eq!(c["type"], format!("{}/{sev}", f.id).as_str());
                    let body = c["text"].as_str().expect("failure body");
                    assert!(body.contains(&f.advice), "{name}: advice in body");
                    assert!(body.contains("evidence: req#"), "{name}: evidence in body");
                }
                Status::Skip => {
                    let reason = f.skip_reason.expect("skips have a reason").as_str();
                    assert!(c["message"].as_str().expect("message").starts_with(reason));
                }
                _ => {
                    let out = c["system_out"].as_str().expect("system-out");
                    assert!(out.contains(&f.detail), "{name}: detail in system-out");
                }
            }
        }
    }
    // Spot checks of the naming rules.
    for name in [
        "protocol.sse #2",
        "catalog.annotations[delete_file]",
        "catalog.annotations[write_file]",
        "protocol.jsonrpc_ids (legacy)",
        "protocol.jsonrpc_ids (modern)",
        "stdio.alive",
    ] {
        assert!(cases.iter().any(|c| c["name"] == name), "{name}");
    }
    let suite = seen["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .find(|s| s["name"] == "everything.protocol")
        .expect("a suite per server × phase");
    assert_eq!(
        suite["properties"]["score"],
        report.servers[0]
            .score
            .expect("scored")
            .to_string()
            .as_str()
    );
    assert_eq!(suite["properties"]["era"], "legacy");
    assert_eq!(suite["properties"]["protocol_versions"], "2025-11-25");
    assert_eq!(suite["failures"], 2);
}

#[test]
fn junit_validates_against_the_jenkins_xsd_with_xmllint() {
    let xmllint = on_path("xmllint");
    let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit-scout.xsd");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_temp(
        dir.path(),
        "junit.xml",
        &emit::junit::render(&sample::report()),
    );
    let out = scrubbed(Command::new(&xmllint))
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(&file)
        .output()
        .expect("run xmllint");
    assert!(
        out.status.success(),
        "xmllint rejected the JUnit report: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The schema really constrains: an unknown element fails.
    let bad = write_temp(
        dir.path(),
        "bad.xml",
        r#"<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><bogus/></testsuite></testsuites>"#,
    );
    let out = scrubbed(Command::new(&xmllint))
        .args(["--noout", "--schema"])
        .arg(&xsd)
        .arg(&bad)
        .output()
        .expect("run xmllint");
    assert!(
        !out.status.success(),
        "xmllint must reject an unknown element"
    );
}

// ---------------------------------------------------------------------------------------
// GitHub Actions, simulated: this test runs the `actions_child` test below in a child
// process with GITHUB_ACTIONS=true and temp files for the summary and the outputs, so the
// real environment-reading code paths run (setting variables in-process needs `unsafe`).

const CHILD_FLAG: &str = "SCOUT_TEST_ACTIONS_CHILD";

#[test]
#[ignore = "run by github_actions_step_is_simulated in a child process"]
fn actions_child() {
    if std::env::var_os(CHILD_FLAG).is_none() {
        return;
    }
    let report = sample::report();
    let workspace = std::env::var("GITHUB_WORKSPACE").expect("workspace set by the parent");
    let sarif = Path::new(&workspace).join("out/scout.sarif");
    let junit = Path::new(&workspace).join("out/junit.xml");
    let wrote =
        emit::markdown::append_step_summary(&report, &Default::default()).expect("summary written");
    assert!(wrote);
    let acted = emit::github::write_if_actions(&report, &[("sarif", &sarif), ("junit", &junit)])
        .expect("outputs written");
    assert!(acted);
}

#[test]
fn github_actions_step_is_simulated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = write_temp(dir.path(), "summary.md", "previous step\n");
    let output = write_temp(dir.path(), "output.txt", "earlier=1\n");
    let exe = std::env::current_exe().expect("test binary");
    let out = scrubbed(Command::new(exe))
        // --quiet: libtest then prints nothing on the lines the annotations are written to.
        .args([
            "emit::actions_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--quiet",
        ])
        .env(CHILD_FLAG, "1")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_WORKSPACE", dir.path())
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The summary was appended, not overwritten.
    let md = std::fs::read_to_string(&summary).expect("summary");
    assert!(md.starts_with("previous step\n# scout report"), "{md}");
    assert!(md.contains("## ❌ everything — "));
    assert!(md.contains("**Gate: ❌ failed**"));
    assert!(md.len() < 1024 * 1024);

    // Outputs: appended, paths workspace-relative. `score` is the lowest server score, and
    // empty here: `time` was blocked, so it has no score and `everything`'s must not stand
    // in for the whole run.
    let report = sample::report();
    assert!(report.servers[0].score.is_some() && report.servers[1].score.is_none());
    let outputs = std::fs::read_to_string(&output).expect("outputs");
    let lines: Vec<&str> = outputs.lines().collect();
    assert_eq!(
        lines,
        vec![
            "earlier=1".to_string(),
            "score=".to_string(),
            "passed=false".into(),
            "sarif=out/scout.sarif".into(),
            "junit=out/junit.xml".into(),
        ]
    );

    // Annotations on stdout: errors first, escaped, then one notice.
    let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    let errors = commands
        .iter()
        .filter(|l| l.starts_with("::error "))
        .count();
    let warnings = commands
        .iter()
        .filter(|l| l.starts_with("::warning "))
        .count();
    assert_eq!(errors, 5);
    assert_eq!(warnings, 4);
    assert!(
        commands[0].starts_with("::error file=scout.toml,line=7,title=catalog.tools_list"),
        "{}",
        commands[0]
    );
    assert!(
        commands
            .last()
            .expect("notice")
            .starts_with("::notice title=scout::gate failed")
    );
    let poison = commands
        .iter()
        .find(|l| l.contains("security.hidden_characters"))
        .expect("hidden characters annotated");
    assert!(poison.contains("100%25 sure"), "{poison}");
    assert!(
        poison.contains("3 times%3A") || poison.contains("3 times:%0A"),
        "{poison}"
    );
    assert!(!poison.contains('\r'));
    let time_fail = commands
        .iter()
        .find(|l| l.contains("stdio.alive"))
        .expect("stdio.alive annotated");
    assert!(
        time_fail.starts_with("::error file=mcp/time,line=1,"),
        "{time_fail}"
    );
}

#[test]
fn annotations_are_capped_at_ten_per_level() {
    let mut report = sample::report();
    let extra: Vec<_> = (0..15)
        .map(|i| {
            let mut f = report.servers[0].findings[6].clone(); // protocol.batch, a warn
            f.subject = Some(format!("case{i}"));
            f
        })
        .collect();
    report.servers[0].findings.extend(extra);
    let text = emit::github::annotations(&report);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("::warning ")).count(),
        10
    );
    let notice = text.lines().last().expect("notice");
    assert!(notice.contains("19 warning"), "{notice}");
    assert!(notice.contains("10 most severe"), "{notice}");
}

// ---------------------------------------------------------------------------------------
// Markdown and GitLab

#[test]
fn markdown_of_a_huge_server_stays_under_the_comment_limit() {
    let mut report = sample::report();
    let template = report.servers[0].findings[6].clone();
    report.servers[0].findings.extend((0..6000).map(|i| {
        let mut f = template.clone();
        f.subject = Some(format!("tool_{i}"));
        f.detail = "x".repeat(200);
        f
    }));
    let md = emit::markdown::render(&report);
    assert!(
        md.chars().count() <= 65_536,
        "{} characters",
        md.chars().count()
    );
    assert!(md.contains("more failing or warning check(s); see the full report"));
    // Deterministic.
    assert_eq!(md, emit::markdown::render(&report));
}

#[test]
fn gitlab_code_quality_rules() {
    let report = sample::report();
    let issues: Vec<Value> =
        serde_json::from_str(&emit::gitlab::render(&report)).expect("a JSON array");
    let counted = report
        .servers
        .iter()
        .flat_map(|s| &s.findings)
        .filter(|f| f.counts() && matches!(f.status, Status::Warn | Status::Fail))
        .count();
    assert_eq!(issues.len(), counted);
    let mut fps = HashSet::new();
    for i in &issues {
        assert!(fps.insert(i["fingerprint"].as_str().expect("fingerprint").to_string()));
        assert!(matches!(
            i["severity"].as_str(),
            Some("info" | "minor" | "major" | "critical")
        ));
        assert!(i["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(i["check_name"].as_str().is_some());
        assert!(i["location"]["path"].as_str().is_some());
        assert!(i["location"]["lines"]["begin"].as_u64() >= Some(1));
    }
    let sev = |id: &str| {
        issues
            .iter()
            .find(|i| i["check_name"] == id)
            .map(|i| i["severity"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(sev("catalog.tools_list").as_deref(), Some("critical"));
    assert_eq!(sev("protocol.unknown_method").as_deref(), Some("major"));
    assert_eq!(sev("protocol.parse_error").as_deref(), Some("minor"));
    assert_eq!(sev("protocol.batch").as_deref(), Some("info"));
}

// ---------------------------------------------------------------------------------------
// report merge

/// A JSON report with the run-specific values blanked.
fn comparable(report: &scout::report::Report) -> Value {
    let mut v: Value = serde_json::from_str(&emit::json::render(report)).expect("json");
    v["run_id"] = Value::Null;
    v["started_at"] = Value::Null;
    v["duration_ms"] = Value::Null;
    for s in v["servers"].as_array_mut().expect("servers") {
        s["duration_ms"] = Value::Null;
    }
    v
}

#[test]
fn merging_shards_equals_the_unsharded_run() {
    let whole = sample::report();
    // Shards as `report merge` reads them: JSON files, in any order.
    let shard_a = sample::report_of(vec![sample::time_server()], "run-a");
    let mut shard_b = sample::report_of(vec![sample::everything()], "run-b");
    shard_b.started_at += time::Duration::seconds(3);
    let read = |r: &scout::report::Report| {
        emit::json::parse(&emit::json::render(r)).expect("shard reads back")
    };
    let merged =
        merge::merge(vec![read(&shard_a), read(&shard_b)], &sample::gate_config()).expect("merge");
    assert_eq!(comparable(&merged), comparable(&whole));
    assert_eq!(merged.run_id, "run-a+run-b");
    assert_eq!(merged.started_at, shard_a.started_at);
    assert_eq!(merged.duration_ms, 3000 + shard_b.duration_ms);
    assert!(!merged.gate.passed);

    let dup = merge::merge(vec![read(&shard_b), read(&shard_b)], &sample::gate_config());
    assert_eq!(dup, Err(MergeError::DuplicateServer("everything".into())));
    assert_eq!(
        merge::merge(Vec::new(), &sample::gate_config()),
        Err(MergeError::Empty)
    );
}

// ---------------------------------------------------------------------------------------
// Hostile text from a server stays inert in every format

#[test]
fn hostile_server_text_stays_inert() {
    let mut report = sample::report();
    let f = &mut report.servers[0].findings[6]; // protocol.batch, a warn
    f.detail = "\u{1b}[31mred\u{0}\n::error title=fake::owned\r\n<script>alert(1)</script>".into();
    f.subject = Some("a\u{1}b".into());

    let annotations = emit::github::annotations(&report);
    assert!(!annotations.contains('\u{1b}') && !annotations.contains('\u{0}'));
    assert!(
        annotations
            .lines()
            .all(|l| !l.starts_with("::error title=fake")),
        "{annotations}"
    );

    let md = emit::markdown::render(&report);
    assert!(!md.contains("<script>"), "markdown must escape HTML");

    let seen = junitparser_read(&emit::junit::render(&report));
    let names: Vec<String> = seen["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .flat_map(|s| s["cases"].as_array().expect("cases").iter())
        .map(|c| c["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(names.iter().any(|n| n == "protocol.batch[ab]"), "{names:?}");

    let back = emit::json::parse(&emit::json::render(&report)).expect("round trip");
    assert_eq!(
        back.servers[0].findings[6].detail,
        report.servers[0].findings[6].detail
    );
}

#[test]
fn sarif_caps_results_and_says_so() {
    let mut report = sample::report();
    let template = report.servers[0].findings[6].clone(); // a warn
    report.servers[0]
        .findings
        .extend((0..emit::sarif::MAX_RESULTS).map(|i| {
            let mut f = template.clone();
            f.subject = Some(format!("tool_{i}"));
            f
        }));
    let log: Value = serde_json::from_str(&emit::sarif::render(&report)).expect("json");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), emit::sarif::MAX_RESULTS);
    // The most severe are kept.
    assert!(results.iter().any(|r| r["ruleId"] == "catalog.tools_list"));
    let note = log["runs"][0]["properties"]["truncated"]
        .as_str()
        .expect("a note");
    assert!(note.starts_with("10 results"), "{note}");
}
