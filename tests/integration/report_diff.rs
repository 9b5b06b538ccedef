//! The pull-request experience: `scout report diff` on two real runs of fixtures that differ
//! by one fixed and one new defect, `--fail-on-new`, and the PR Markdown of a 50-server
//! fleet within GitHub's 65,536-character comment limit.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common::{Scout, fixture, workspace};
use crate::sample::{self, With};
use scout::report::finding::{Era, Severity, Status};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", path.display()))
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).expect("JSON")
}

/// Runs `scout check` on `script` configured as the server `srv`, writing `json`.
fn check(script: &str, json: &Path) -> Value {
    let ws = workspace(Some(&format!(
        // One host profile only: the fixtures' schemas differ in ways other hosts' rules
        // also see, and this test is about the one defect each fixture was made for.
        "[default]\ncompat = [\"anthropic\"]\n[[default.servers]]\nname = \"srv\"\ncommand = [\"python3\", {:?}]\n",
        fixture(script).display().to_string()
    )));
    let run = Scout::new()
        .dir(ws.path())
        .args(["-q", "check", "--json"])
        .args([json])
        .run();
    assert_eq!(run.code, Some(0), "{script}: {}", run.stderr);
    read_json(json)
}

/// The check ids of a diff list, without the timing-dependent performance observations
/// (a p95 above 1 s on a loaded machine would be a real, but unrelated, change).
fn ids(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .filter_map(|f| f["id"].as_str())
        .filter(|id| !id.starts_with("performance."))
        .map(String::from)
        .collect()
}

fn category(report: &Value, phase: &str) -> Option<i64> {
    report["servers"][0]["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .find(|c| c["phase"] == phase)
        .and_then(|c| c["score"].as_i64())
}

#[test]
fn report_diff_shows_exactly_the_fixed_and_the_new_defect_with_deltas() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (base_path, head_path) = (dir.path().join("base.json"), dir.path().join("head.json"));
    // base: tools without annotations (a warning on both wires); head: annotated tools,
    // but the echo tool's input schema is not an object (a new failure).
    let base = check("unannotated_tools.py", &base_path);
    let head = check("schema_root_not_object.py", &head_path);

    let (md, json) = (dir.path().join("comment.md"), dir.path().join("diff.json"));
    let run = Scout::new()
        .args(["report", "diff"])
        .args([&base_path, &head_path])
        .args(["--markdown"])
        .args([&md])
        .args(["--json"])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(0), "without --fail-on-new: {}", run.stderr);

    let d = read_json(&json);
    assert_eq!(d["schema"], "scout/diff/v1");
    let s = &d["servers"][0];
    assert_eq!(s["name"], "srv");
    assert_eq!(s["presence"], "both");
    assert_eq!(
        ids(&s["new"]),
        BTreeSet::from(["catalog.tool_schema".into()])
    );
    assert_eq!(
        ids(&s["fixed"]),
        BTreeSet::from(["catalog.annotations".into()])
    );
    assert!(s["unverified"].as_array().expect("list").is_empty(), "{s}");
    // Both wires of the dual-era server are in the lists, each with its era.
    let eras: BTreeSet<String> = s["fixed"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|f| f["era"].as_str().map(String::from))
        .collect();
    assert_eq!(eras, BTreeSet::from(["legacy".into(), "modern".into()]));

    // Deltas are those of the two reports.
    let score = |r: &Value| r["servers"][0]["score"].as_i64().expect("scored");
    let (b, h) = (score(&base), score(&head));
    assert_eq!(s["score_delta"].as_i64(), Some(h - b));
    let (cb, ch) = (
        category(&base, "catalog").expect("catalog assessed"),
        category(&head, "catalog").expect("catalog assessed"),
    );
    assert!(ch < cb, "a major fail costs more than a warning");
    let cat = s["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .find(|c| c["phase"] == "catalog")
        .expect("catalog");
    assert_eq!(cat["delta"].as_i64(), Some(ch - cb));
    assert_eq!(d["new_fails"].as_u64(), Some(2), "one per wire: {d}");

    // The text on stdout names exactly those, with the deltas.
    let arrow = |n: i64| match n {
        n if n > 0 => format!("▲ {n}"),
        n if n < 0 => format!("▼ {}", -n),
        _ => "±0".into(),
    };
    assert!(
        run.stdout
            .contains(&format!("srv  score {b} → {h} ({})\n", arrow(h - b))),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "  catalog      {cb} → {ch} ({})\n",
            arrow(ch - cb)
        )),
        "{}",
        run.stdout
    );
    let listed: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("    new") || l.starts_with("    fixed"))
        .filter(|l| !l.contains("performance."))
        .collect();
    // Two new (one per wire) and two fixed (one per wire).
    assert_eq!(listed.len(), 4, "{}", run.stdout);
    assert!(
        listed.iter().all(
            |l| (l.starts_with("    new") && l.contains("catalog.tool_schema"))
                || (l.starts_with("    fixed") && l.contains("catalog.annotations"))
        ),
        "{}",
        run.stdout
    );

    // The PR comment: the score with its delta, the new check as one row naming both eras,
    // the fixed one listed.
    let md = read(&md);
    assert!(
        md.contains(&format!("## ✅ srv — {h}/100 {}", arrow(h - b))),
        "{md}"
    );
    assert!(
        md.contains("| 🆕 ❌ major | `catalog.tool_schema` (echo) | legacy, modern |"),
        "{md}"
    );
    assert!(
        md.contains("| ✅ ⚠️ warn | `catalog.annotations` | legacy, modern | pass |"),
        "{md}"
    );
    assert!(md.contains(&format!("| catalog | {ch} |")), "{md}");
    assert!(md.len() < 65_536);

    // --fail-on-new gates on the new fails only…
    let gated = Scout::new()
        .args(["report", "diff"])
        .args([&base_path, &head_path])
        .args(["--fail-on-new"])
        .run();
    assert_eq!(gated.code, Some(1), "{}", gated.stderr);
    // -q keeps the gate and the reasons on stderr but prints no summary.
    let quiet = Scout::new()
        .args(["-q", "report", "diff"])
        .args([&base_path, &head_path])
        .args(["--fail-on-new"])
        .run();
    assert_eq!(quiet.code, Some(1), "{}", quiet.stderr);
    assert_eq!(quiet.stdout, "", "-q prints no summary");
    assert!(
        quiet.stderr.contains("new failing check"),
        "{}",
        quiet.stderr
    );
    assert!(
        gated
            .stderr
            .contains("new failing check: srv: catalog.tool_schema[echo] (legacy)"),
        "{}",
        gated.stderr
    );
    // …so the other way round (a new warning, a fixed fail) passes.
    let back = Scout::new()
        .args(["report", "diff"])
        .args([&head_path, &base_path])
        .args(["--fail-on-new", "--markdown", "-"])
        .run();
    assert_eq!(back.code, Some(0), "{}", back.stderr);
    assert!(
        back.stdout.starts_with("# scout report diff\n"),
        "Markdown on stdout"
    );

    // A file that is not a report is a usage error.
    let bad = Scout::new()
        .args(["report", "diff"])
        .args([&base_path, &dir.path().join("missing.json")])
        .run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
}

/// A fleet of `n` servers, each with many long findings on both wires.
fn fleet(n: usize, variant: usize) -> scout::report::Report {
    let servers = (0..n)
        .map(|i| {
            let mut s = sample::everything();
            s.name = format!("server-{i:02}-with-a-rather-long-name-for-the-fleet");
            if variant == 1 {
                // Fixed in the head run: protocol's score rises.
                for f in s
                    .findings
                    .iter_mut()
                    .filter(|f| f.id == "protocol.parse_error")
                {
                    f.status = Status::Pass;
                    f.severity = None;
                }
            }
            let long = "a detail that goes on and on ".repeat(40);
            for t in 0..30 {
                for era in [Era::Legacy, Era::Modern] {
                    let status = if (t + variant).is_multiple_of(3) {
                        Status::Fail
                    } else {
                        Status::Warn
                    };
                    let mut f = sample::finding("catalog.annotations", status, &long)
                        .subject(&format!("tool_{t}"))
                        .era(era)
                        .ev(&[2]);
                    if status == Status::Fail {
                        f = f.sev(Severity::Minor);
                    }
                    s.findings.push(f);
                }
            }
            s
        })
        .collect();
    sample::report_of(servers, &format!("fleet-{variant}"))
}

#[test]
fn the_pr_markdown_of_a_50_server_fleet_fits_a_comment() {
    let base = fleet(50, 0);
    let head = fleet(50, 1);
    let diff = scout::report::diff::diff(&base, &head);
    let opts = scout::emit::markdown::Options {
        diff: Some(&diff),
        full_report: scout::emit::markdown::full_report_note(
            Some("https://github.com/o/r/actions/runs/7"),
            Some("scout-report/scout.json"),
        ),
        max_bytes: 0,
        conformance: false,
    };
    let md = scout::emit::markdown::render_with(&head, &opts);
    assert!(
        md.chars().count() <= 65_536,
        "{} characters",
        md.chars().count()
    );
    // Every server has its line with score and delta in the overview…
    for s in &head.servers {
        let d = diff.server(&s.name).expect("compared");
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| ❌ | {} |", s.name.replace('_', "\\_"))))
            .unwrap_or_else(|| panic!("no overview line for {}", s.name));
        let score = s.score.expect("scored").to_string();
        assert!(line.contains(&format!("| {score} |")), "{line}");
        let delta = scout::report::diff::delta(d.base_score, d.head_score).expect("both scored");
        assert!(delta > 0, "protocol.parse_error was fixed: {delta}");
        assert!(line.contains(&format!("| ▲ {delta} |")), "{line}");
    }
    // …and what did not fit is named, with where the full report is.
    assert!(md.contains("> **Truncated:** the details of"), "{md}");
    assert!(
        md.contains("`scout-report/scout.json` in the artifacts of [this workflow run](https://github.com/o/r/actions/runs/7)"),
        "{md}"
    );
    // New problems are marked, fixed ones listed, a dual-era check is one row.
    assert!(md.contains("🆕"), "new rows are marked");
    assert!(
        md.contains("**Fixed since the base run"),
        "fixed are listed"
    );
    assert!(
        md.contains("| `catalog.annotations` (tool\\_0) | legacy, modern |"),
        "one row for both eras"
    );
    assert_eq!(
        md,
        scout::emit::markdown::render_with(&head, &opts),
        "deterministic"
    );
}

/// Every pull-request run of an HTTP server on a random port gets another default name
/// (`host:port`): the base and head servers were "new server" and "only in the base run", so
/// `--fail-on-new` could never fire. With one server on each side they are one server.
#[test]
fn the_same_server_on_another_port_is_paired_and_its_new_fail_gates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (base_path, head_path) = (dir.path().join("base.json"), dir.path().join("head.json"));
    let run_on = |script: &str, out: &Path| {
        let server = crate::common::HttpFixture::start(script);
        let r = Scout::new()
            .args(["-q", "check", "--skip", "performance", "--json"])
            .args([out])
            .args([&server.url])
            .run();
        assert!(matches!(r.code, Some(0 | 1)), "{script}: {}", r.stderr);
        read_json(out)
    };
    let base = run_on("minimal_server.py", &base_path);
    let head = run_on("schema_root_not_object.py", &head_path);
    assert_ne!(
        base["servers"][0]["name"], head["servers"][0]["name"],
        "two ports, two default names"
    );
    let (json, md) = (dir.path().join("diff.json"), dir.path().join("comment.md"));
    let gated = Scout::new()
        .args(["report", "diff"])
        .args([&base_path, &head_path])
        .args(["--fail-on-new", "--json"])
        .args([&json])
        .args(["--markdown"])
        .args([&md])
        .run();
    assert_eq!(gated.code, Some(1), "the new fail gates: {}", gated.stderr);
    // The top of the PR comment: titled as a diff, base and head named, the gate that
    // --fail-on-new applied, and the head run's own gate with the thresholds it had.
    let md = read(&md);
    let top: String = md
        .lines()
        .take_while(|l| !l.starts_with("| "))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!("diff_markdown_top", top);
    let d = read_json(&json);
    let servers = d["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 1, "one server, paired: {d}");
    assert_eq!(servers[0]["presence"], "both");
    assert_eq!(servers[0]["paired_by"], "only_server");
    assert_eq!(servers[0]["base_name"], base["servers"][0]["name"]);
    assert!(
        gated.stdout.contains("(the only server of each run)"),
        "the text says how they were paired: {}",
        gated.stdout
    );
}
