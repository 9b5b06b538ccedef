//! The compat category: each host profile's rules against `host_rules.py` (one catalogue per
//! rule broken, and the correct twins), the selection of profiles (`compat`, `--compat`), and
//! the demo server. A host's rule warns and never fails, and the category does not move the
//! overall score.

use scout::report::finding::{Phase, SkipReason, Status};
use scout::report::host::HostProfile;
use scout::report::model::ServerReport;

use crate::common::{Scout, workspace};
use crate::phase_fixtures::{all, expect, fixture, run};

/// `host_rules.py` with the catalogue `which`, through the catalog and compat phases, every
/// profile selected (the opt-in `openai-strict` too).
async fn host_rules(which: &str) -> ServerReport {
    host_rules_with(which, HostProfile::ALL.to_vec()).await
}

/// [`host_rules`] with the profiles `compat` selected (empty: the default ones).
async fn host_rules_with(which: &str, compat: Vec<HostProfile>) -> ServerReport {
    let mut spec = fixture("host_rules.py", &[("HOST_RULES", which.to_string())]);
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Compat,
    ];
    spec.compat = compat;
    run(spec).await
}

/// Asserts `id` warns on every wire and its detail names each of `names`; returns a detail.
fn warns(r: &ServerReport, id: &str, names: &[&str]) -> String {
    let f = expect(r, id, None, Status::Warn);
    for n in names {
        assert!(f.detail.contains(n), "{id} names {n}: {}", f.detail);
    }
    f.detail.clone()
}

/// Asserts `id` neither warns nor fails, and passes on every wire.
fn keeps(r: &ServerReport, id: &str) {
    for f in all(r, id) {
        assert!(
            !matches!(f.status, Status::Warn | Status::Fail),
            "{id} should keep: {f:#?}"
        );
    }
    expect(r, id, None, Status::Pass);
}

#[tokio::test]
async fn a_dot_or_slash_in_a_name_warns_for_anthropic_and_openai() {
    let r = host_rules("name_dot").await;
    let d = warns(
        &r,
        "compat.anthropic",
        &["`files.read`", "`repo/list`", "^[a-zA-Z0-9_-]{1,128}$"],
    );
    assert!(
        !d.contains("`get_weather`"),
        "the fitting tool is not named: {d}"
    );
    warns(
        &r,
        "compat.openai",
        &["`files.read`", "`repo/list`", "^[a-zA-Z0-9_-]{1,64}$"],
    );
    // The evidence is the tools/list exchange that listed them (its request and answer).
    let f = expect(&r, "compat.anthropic", None, Status::Warn);
    let cited: Vec<String> = f
        .evidence
        .iter()
        .map(|seq| {
            let ex = r
                .exchanges
                .iter()
                .find(|e| e.seq == *seq)
                .expect("cited exchange kept");
            format!("{ex:?}")
        })
        .collect();
    assert!(
        cited.iter().any(|e| e.contains("tools/list")),
        "the tools/list exchange is cited: {:?}",
        f.evidence
    );
    // A host rule is never a failure, and it does not move the overall score.
    assert!(
        r.findings
            .iter()
            .all(|f| f.phase != Phase::Compat || f.status != Status::Fail)
    );
}

#[tokio::test]
async fn a_129_character_name_warns_for_anthropic() {
    let r = host_rules("name_129").await;
    warns(&r, "compat.anthropic", &["129 characters"]);
}

#[tokio::test]
async fn a_65_character_name_warns_for_openai_only() {
    let r = host_rules("name_65").await;
    warns(
        &r,
        "compat.openai",
        &["65 characters", "^[a-zA-Z0-9_-]{1,64}$"],
    );
    keeps(&r, "compat.anthropic");
}

#[tokio::test]
async fn openai_strict_schema_rules_each_warn() {
    for (which, rule, at) in [
        (
            "open_object",
            "additionalProperties: false",
            "/properties/filter",
        ),
        (
            "optional_property",
            "every property must be required",
            "limit",
        ),
        ("all_of", "unsupported keyword", "/properties/q/allOf"),
        ("root_any_of", "the root must not use anyOf", "/anyOf"),
    ] {
        let r = host_rules(which).await;
        let d = warns(&r, "compat.openai_strict", &["`search`", rule, at]);
        assert!(
            !d.contains("`get_weather`"),
            "{which}: the fitting tool is not named: {d}"
        );
        // Strict mode is an opt-in: OpenAI's own rules for every function still hold.
        keeps(&r, "compat.openai");
    }
}

/// Previously compat.openai held every tool to strict mode's subset and warned on nearly
/// every real server. The correct twin: ordinary schemas (an open object, an optional
/// property) and good names keep OpenAI's default rules, and the strict profile is not
/// judged unless selected.
#[tokio::test]
async fn a_plain_tool_list_keeps_openais_default_rules() {
    let r = host_rules_with("plain", Vec::new()).await;
    keeps(&r, "compat.openai");
    keeps(&r, "compat.anthropic");
    let f = expect(&r, "compat.openai_strict", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable), "{f:?}");
    assert!(
        f.detail.contains("opt-in") && f.detail.contains("--compat openai-strict"),
        "{}",
        f.detail
    );
    // Selected, the strict subset is judged and refuses the open objects.
    let r = host_rules_with("plain", vec![HostProfile::OpenaiStrict]).await;
    warns(
        &r,
        "compat.openai_strict",
        &["`get_weather`", "additionalProperties: false"],
    );
}

#[tokio::test]
async fn more_tools_than_a_request_takes_warn_for_openai() {
    let r = host_rules_with("too_many", Vec::new()).await;
    warns(&r, "compat.openai", &["at most 128 functions", "129 tools"]);
    keeps(&r, "compat.anthropic");
}

#[tokio::test]
async fn the_strict_twin_keeps_anthropic_openai_and_first_page() {
    let r = host_rules("strict_clean").await;
    keeps(&r, "compat.anthropic");
    keeps(&r, "compat.openai");
    keeps(&r, "compat.openai_strict");
    keeps(&r, "compat.first_page");
    // No schema fits both: OpenAI strict wants additionalProperties, Gemini's subset has none.
    warns(&r, "compat.gemini", &["/additionalProperties"]);
}

#[tokio::test]
async fn gemini_schema_subset_rules_each_warn() {
    for (which, what) in [
        (
            "gemini_keywords",
            vec!["/$defs", "/properties/q/$ref", "/properties/mode/const"],
        ),
        (
            "type_list",
            vec!["/properties/q/type is [\"string\",\"null\"]"],
        ),
        ("true_schema", vec!["/properties/anything is true"]),
    ] {
        let r = host_rules(which).await;
        let mut names = vec!["`search`"];
        names.extend(what);
        let d = warns(&r, "compat.gemini", &names);
        assert!(
            !d.contains("`get_weather`"),
            "{which}: the fitting tool is not named: {d}"
        );
    }
}

#[tokio::test]
async fn the_gemini_twin_keeps_gemini_and_anthropic() {
    let r = host_rules("gemini_clean").await;
    keeps(&r, "compat.gemini");
    keeps(&r, "compat.anthropic");
    keeps(&r, "compat.first_page");
}

#[tokio::test]
async fn tools_beyond_the_first_page_warn() {
    let r = host_rules("paged").await;
    let d = warns(&r, "compat.first_page", &["`get_alerts`", "2 pages"]);
    assert!(
        !d.contains("`get_weather`"),
        "first-page tools are not named: {d}"
    );
    // Both pages are the evidence.
    let f = expect(&r, "compat.first_page", None, Status::Warn);
    assert!(f.evidence.len() >= 2, "{:?}", f.evidence);
    // The other profiles read every page: the catalogue fits them.
    keeps(&r, "compat.anthropic");
    keeps(&r, "compat.openai");
}

#[tokio::test]
async fn only_the_selected_profiles_are_judged() {
    let mut spec = fixture("host_rules.py", &[("HOST_RULES", "name_dot".to_string())]);
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Compat,
    ];
    spec.compat = vec![HostProfile::Anthropic, HostProfile::Openai];
    let r = run(spec).await;
    warns(&r, "compat.anthropic", &["`files.read`"]);
    warns(&r, "compat.openai", &["`files.read`"]);
    for id in ["compat.gemini", "compat.first_page", "compat.openai_strict"] {
        let f = expect(&r, id, None, Status::Skip);
        assert!(f.detail.contains("not selected"), "{id}: {}", f.detail);
    }
}

#[test]
fn an_unknown_profile_is_a_one_line_usage_error() {
    let r = Scout::new()
        .args([
            "check",
            "http://127.0.0.1:1/mcp",
            "--compat",
            "anthropic,claude-desktop",
        ])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("claude-desktop")
            && r.stderr
                .contains("anthropic, openai, openai-strict, gemini, first-page"),
        "{}",
        r.stderr
    );
    let dir = workspace(Some("[default]\ncompat = [\"anthropic\", \"bard\"]\n"));
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "http://127.0.0.1:1/mcp"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(r.stderr.trim().lines().count(), 1, "one line: {}", r.stderr);
    assert!(
        r.stderr.contains(
            "`bard` is not a host profile; expected one of anthropic, openai, openai-strict, gemini, first-page"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn the_config_key_selects_profiles() {
    let dir = workspace(Some("[default]\ncompat = [\"anthropic\", \"openai\"]\n"));
    let json = dir.path().join("r.json");
    let fixture = format!(
        "{}/tests/fixtures/host_rules.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let r = Scout::new()
        .dir(dir.path())
        .env("HOST_RULES", "name_dot")
        .args([
            "-q",
            "check",
            "--only",
            "discovery,handshake,catalog,compat",
            "--stdio",
            "--stdio-env",
            "HOST_RULES",
            "--json",
            json.to_str().expect("utf-8 path"),
            "--",
            "python3",
            &fixture,
        ])
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("report")).expect("json");
    let findings = report["servers"][0]["findings"]
        .as_array()
        .expect("findings");
    let status = |id: &str| -> Vec<&str> {
        findings
            .iter()
            .filter(|f| f["id"] == id)
            .filter_map(|f| f["status"].as_str())
            .collect()
    };
    assert!(status("compat.anthropic").iter().all(|s| *s == "warn"));
    assert!(!status("compat.anthropic").is_empty());
    for id in ["compat.gemini", "compat.first_page"] {
        let st = status(id);
        assert!(
            !st.is_empty() && st.iter().all(|s| *s == "skip"),
            "{id}: {st:?}"
        );
    }
}

/// The demo server (rmcp): what its catalogue shows each host, read from what it lists.
#[test]
fn the_demo_server_is_judged_and_its_score_ignores_compat() {
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let demo = crate::servers::demo_stdio();
    let r = Scout::new()
        .args([
            "-q",
            "check",
            "--stdio",
            "--json",
            json.to_str().expect("utf-8 path"),
            "--",
        ])
        .args(&demo)
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("report")).expect("json");
    let server = &report["servers"][0];
    let findings = server["findings"].as_array().expect("findings");
    let compat: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| f["id"].as_str().is_some_and(|i| i.starts_with("compat.")))
        .collect();
    assert!(!compat.is_empty());
    assert!(compat.iter().all(|f| f["status"] != "fail"));
    // Its tool names fit the Claude API; every tool is on one page.
    for f in &compat {
        if matches!(
            f["id"].as_str(),
            Some("compat.anthropic" | "compat.first_page")
        ) {
            assert_eq!(f["status"], "pass", "{f:#}");
        }
    }
    // The overall score is the mean of the other categories.
    let cats = server["categories"].as_array().expect("categories");
    let scores: Vec<f64> = cats
        .iter()
        .filter(|c| c["phase"] != "compat")
        .filter_map(|c| c["score"].as_f64())
        .collect();
    let mean = (scores.iter().sum::<f64>() / scores.len() as f64).round();
    assert_eq!(server["score"].as_f64(), Some(mean), "{cats:#?}");
}

/// A real server from PyPI, `mcp-server-time`: its two tools' input schemas leave their
/// objects open (no `additionalProperties: false`), which OpenAI's strict mode (selected
/// here) refuses; its names fit OpenAI's default rules and the Claude API, its schemas the
/// Gemini Schema, on one page.
#[test]
fn mcp_server_time_is_open_for_openai_strict_mode() {
    crate::servers::require_setup();
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let r = Scout::new()
        .args([
            "-q",
            "check",
            "--compat",
            "anthropic,openai,openai-strict,gemini,first-page",
            "--only",
            "discovery,handshake,catalog,compat",
            "--stdio",
            "--json",
            json.to_str().expect("utf-8 path"),
            "--",
        ])
        .args(crate::servers::time_stdio())
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.stderr);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("report")).expect("json");
    let findings = report["servers"][0]["findings"]
        .as_array()
        .expect("findings");
    let of = |id: &str| -> Vec<&serde_json::Value> {
        findings.iter().filter(|f| f["id"] == id).collect()
    };
    let openai = of("compat.openai_strict");
    assert!(!openai.is_empty());
    for f in &openai {
        assert_eq!(f["status"], "warn", "{f:#}");
        let d = f["detail"].as_str().expect("detail");
        for named in [
            "`get_current_time` (the root)",
            "`convert_time` (the root)",
            "additionalProperties: false",
        ] {
            assert!(d.contains(named), "{named}: {d}");
        }
    }
    for id in [
        "compat.anthropic",
        "compat.openai",
        "compat.gemini",
        "compat.first_page",
    ] {
        let found = of(id);
        assert!(!found.is_empty(), "{id}");
        assert!(
            found.iter().all(|f| f["status"] == "pass"),
            "{id}: {found:#?}"
        );
    }
}

/// `--fail-under-category compat=100` gates on the selected profiles only: the demo server's
/// names fit the Claude API and its tools are on one page, but its schemas leave objects open
/// for OpenAI's strict mode (selected).
#[test]
fn the_compat_category_gates_only_when_asked() {
    let demo = crate::servers::demo_stdio();
    let check = |extra: &[&str]| {
        Scout::new()
            .args(["-q", "check", "--stdio"])
            .args(extra)
            .args(["--"])
            .args(&demo)
            .run()
    };
    let kept = check(&[
        "--compat",
        "anthropic,first-page",
        "--fail-under-category",
        "compat=100",
    ]);
    assert_eq!(kept.code, Some(0), "{}", kept.stderr);
    let gated = check(&[
        "--compat",
        "openai-strict",
        "--fail-under-category",
        "compat=100",
    ]);
    assert_eq!(gated.code, Some(1), "{}{}", gated.stdout, gated.stderr);
    assert!(
        format!("{}{}", gated.stdout, gated.stderr).contains("compat score"),
        "{}{}",
        gated.stdout,
        gated.stderr
    );
    // Without the threshold the same warnings gate nothing.
    let free = check(&["--compat", "openai-strict"]);
    assert_eq!(free.code, Some(0), "{}", free.stderr);
}
