//! `scout action`, run as GitHub's runner runs it: a scrubbed environment plus `INPUT_*`
//! variables (every input the action declares is set, empty unless given, hyphens kept as the
//! runner keeps them), `GITHUB_ACTIONS`, `GITHUB_WORKSPACE`, `GITHUB_OUTPUT` and
//! `GITHUB_STEP_SUMMARY`. Asserts the outputs file, the summary, the reports in the workspace,
//! the exit codes, and that every bad input stops the run with one line naming it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{HttpFixture, Run, Scout, closed_port, crate_root, fixture};
use scout::cli::action::INPUTS;

/// A runner's view of one step: the workspace and the file-command files outside it.
struct Step {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    output: PathBuf,
    summary: PathBuf,
}

impl Step {
    fn new() -> Step {
        let dir = tempfile::tempdir().expect("tempdir");
        let workspace = dir.path().join("workspace");
        let files = dir.path().join("file_commands");
        std::fs::create_dir_all(&workspace).expect("workspace");
        std::fs::create_dir_all(&files).expect("file_commands");
        Step {
            output: files.join("set_output"),
            summary: files.join("step_summary"),
            workspace,
            _dir: dir,
        }
    }

    /// `scout action` with `inputs` (input name → value; every other input set empty), run
    /// from the crate root: scout must move into the workspace itself.
    fn run(&self, inputs: &[(&str, &str)]) -> Run {
        self.run_env(inputs, &[])
    }

    /// `run`, with more variables in the step's environment (`env:` of the step).
    fn run_env(&self, inputs: &[(&str, &str)], env: &[(&str, &str)]) -> Run {
        let mut scout = Scout::new()
            .dir(&crate_root())
            .args(["action"])
            .env("GITHUB_ACTIONS", "true")
            .env("CI", "true")
            .env("GITHUB_WORKSPACE", &self.workspace.to_string_lossy())
            .env("GITHUB_OUTPUT", &self.output.to_string_lossy())
            .env("GITHUB_STEP_SUMMARY", &self.summary.to_string_lossy());
        for name in INPUTS {
            if !inputs
                .iter()
                .any(|(n, _)| runner_name(n) == runner_name(name))
            {
                scout = scout.env(&runner_name(name), "");
            }
        }
        for (name, value) in inputs {
            // A name given in capitals is used as written (to test the underscore spelling).
            let var = if name.starts_with("INPUT_") {
                name.to_string()
            } else {
                runner_name(name)
            };
            scout = scout.env(&var, value);
        }
        for (name, value) in env {
            scout = scout.env(name, value);
        }
        scout.run()
    }

    /// The `name=value` lines of `$GITHUB_OUTPUT`.
    fn outputs(&self) -> BTreeMap<String, String> {
        std::fs::read_to_string(&self.output)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn report(&self, rel: &str) -> Value {
        let text = std::fs::read_to_string(self.workspace.join(rel)).expect("JSON report");
        serde_json::from_str(&text).expect("JSON")
    }
}

/// The variable GitHub's runner sets for an input: upper-cased, hyphens kept.
fn runner_name(input: &str) -> String {
    if input.starts_with("INPUT_") {
        input.replace('_', "-").replacen("INPUT-", "INPUT_", 1)
    } else {
        format!("INPUT_{}", input.to_ascii_uppercase())
    }
}

fn lowest_score(report: &Value) -> u64 {
    report["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["score"].as_u64())
        .min()
        .expect("a scored server")
}

fn fixture_arg(name: &str) -> String {
    fixture(name).to_string_lossy().into_owned()
}

#[test]
fn an_http_server_gives_outputs_summary_and_reports_in_the_workspace() {
    let server = HttpFixture::start("minimal_server.py");
    let step = Step::new();
    let run = step.run(&[
        ("url", &server.url),
        ("fail-under", "50"),
        ("fail-under-category", "handshake=50\nprotocol=50"),
        ("formats", "json, sarif,junit\nmarkdown,har"),
        (
            "args",
            "--timeout\n20s\n\n--only=discovery,handshake,protocol,catalog",
        ),
        ("INPUT_NOT_AN_INPUT", "x"),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stderr
            .contains("ignoring INPUT_NOT_AN_INPUT: the action has no such input"),
        "{}",
        run.stderr
    );

    // Reports in the workspace's default out-dir, none in the directory scout started in.
    let report = step.report("scout-report/scout.json");
    assert_eq!(report["gate"]["passed"], true);
    // `--only` from args reached the check: the phases left out were skipped.
    let findings = report["servers"][0]["findings"]
        .as_array()
        .expect("findings");
    let outside: Vec<&Value> = findings
        .iter()
        .filter(|f| {
            let phase = f["id"].as_str().unwrap_or_default().split('.').next();
            matches!(
                phase,
                Some("execution" | "performance" | "resilience" | "security")
            )
        })
        .collect();
    assert!(!outside.is_empty(), "skipped phases are listed");
    assert!(
        outside.iter().all(|f| f["status"] == "skip"),
        "--only from args was applied: {outside:?}"
    );

    let outputs = step.outputs();
    assert_eq!(outputs["score"], lowest_score(&report).to_string());
    assert_eq!(outputs["passed"], "true");
    for (name, rel) in [
        ("json", "scout-report/scout.json"),
        ("sarif", "scout-report/scout.sarif"),
        ("junit", "scout-report/junit.xml"),
        ("markdown", "scout-report/summary.md"),
        ("har", "scout-report/har"),
    ] {
        assert_eq!(
            outputs.get(name).map(String::as_str),
            Some(rel),
            "{outputs:?}"
        );
        assert!(step.workspace.join(rel).exists(), "{rel} written");
    }
    assert!(
        !outputs.contains_key("gitlab") && !outputs.contains_key("events"),
        "only the formats asked for: {outputs:?}"
    );
    assert!(
        !step
            .workspace
            .join("scout-report/gitlab-codequality.json")
            .exists()
    );

    let summary = std::fs::read_to_string(&step.summary).expect("step summary written");
    assert!(summary.starts_with("# scout report"), "{summary}");
    assert!(summary.contains(&outputs["score"]), "{summary}");
    assert!(
        run.stdout.contains("::notice title=scout::gate passed"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_stdio_command_one_argument_per_line_and_the_underscore_spelling() {
    let step = Step::new();
    let command = format!("python3\n{}\nstdio\n", fixture_arg("bad_input_schema.py"));
    let run = step.run(&[
        ("command", &command),
        ("INPUT_FAIL_ON", "minor"),
        ("INPUT_OUT_DIR", "out/mcp"),
        ("formats", "json"),
    ]);
    assert_eq!(
        run.code,
        Some(1),
        "an invalid input schema fails a minor gate: {}",
        run.all_output()
    );
    assert!(run.stderr.contains("gate failed"), "{}", run.stderr);
    let outputs = step.outputs();
    assert_eq!(outputs["passed"], "false");
    assert_eq!(outputs["json"], "out/mcp/scout.json");
    let report = step.report("out/mcp/scout.json");
    assert_eq!(outputs["score"], lowest_score(&report).to_string());
    assert!(
        report["servers"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["id"] == "catalog.tool_schema" && f["status"] == "fail"),
        "the fixture was started as given"
    );
}

/// The servers' names and their manifest findings' (id, status), from a report.
fn manifest_statuses(report: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for s in report["servers"].as_array().into_iter().flatten() {
        for f in s["findings"].as_array().into_iter().flatten() {
            if f["phase"] == "manifest" {
                out.push((
                    s["name"].as_str().unwrap_or_default().to_string(),
                    f["id"].as_str().unwrap_or_default().to_string(),
                    f["status"].as_str().unwrap_or_default().to_string(),
                ));
            }
        }
    }
    out
}

#[test]
fn a_server_json_input_checks_its_remote_against_the_manifest() {
    let demo = crate::servers::demo_http();
    let step = Step::new();
    std::fs::copy(
        crate_root().join("examples/demo-server.json"),
        step.workspace.join("server.json"),
    )
    .expect("copy the demo's server.json");
    // The remote's `{port}` comes from the step's environment by the variable's name.
    let run = step.run_env(
        &[
            ("server-json", "server.json"),
            ("formats", "json"),
            ("args", "--only\ndiscovery,handshake,manifest"),
        ],
        &[("port", &demo.port.to_string())],
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let outputs = step.outputs();
    assert_eq!(outputs["passed"], "true");
    let report = step.report(&outputs["json"]);
    let found = manifest_statuses(&report);
    assert!(
        found
            .iter()
            .any(|(s, id, st)| s == "server/remotes/0" && id == "manifest.version" && st == "pass"),
        "{found:?}"
    );
    assert!(found.iter().all(|(_, _, st)| st != "fail"), "{found:?}");
}

#[test]
fn an_mcpb_input_starts_the_bundles_server_and_compares_it() {
    let step = Step::new();
    crate::mcpb::fill(&step.workspace.join("notes"), &crate::mcpb::demo_manifest());
    let run = step.run(&[
        ("mcpb", "notes"),
        ("formats", "json"),
        ("args", "--only\ndiscovery,handshake,catalog,manifest"),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let outputs = step.outputs();
    let report = step.report(&outputs["json"]);
    assert_eq!(report["servers"][0]["name"], "notes", "{report:#}");
    let found = manifest_statuses(&report);
    for id in ["manifest.tools", "manifest.prompts"] {
        assert!(
            found.iter().any(|(_, i, st)| i == id && st == "pass"),
            "{id}: {found:?}"
        );
    }
    // A bundle's version is reported beside serverInfo.version, never graded.
    assert!(
        found
            .iter()
            .any(|(_, i, st)| i == "manifest.version" && st == "info"),
        "{found:?}"
    );
}

#[test]
fn the_host_action_passes_every_input_to_scout() {
    let text =
        std::fs::read_to_string(crate_root().join("host/action.yml")).expect("host/action.yml");
    let declared: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "inputs:")
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' ') || l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
        .filter_map(|l| l.strip_suffix(':'))
        .collect();
    for name in INPUTS {
        assert!(
            declared.contains(&name),
            "host/action.yml lacks the input {name}"
        );
        let var = format!("INPUT_{}", name.to_ascii_uppercase().replace('-', "_"));
        assert!(
            text.contains(&format!("        {var}: ${{{{ inputs.{name} }}}}\n")),
            "host/action.yml does not pass {name} as {var}"
        );
    }
}

#[test]
fn the_hyphenated_threshold_is_what_gates() {
    let server = HttpFixture::start("duplicate_tool_names.py");
    let step = Step::new();
    let run = step.run(&[
        ("url", &server.url),
        ("fail-under", "100"),
        ("formats", "json"),
    ]);
    let report = step.report("scout-report/scout.json");
    let score = lowest_score(&report);
    assert!(score < 100, "the fixture has a defect");
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert!(
        run.stderr.contains(&format!("score {score} < 100")),
        "{}",
        run.stderr
    );
    assert_eq!(step.outputs()["passed"], "false");
}

#[test]
fn every_bad_input_stops_before_anything_runs_with_one_line() {
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (
            vec![("url", &url), ("fail-under", "eighty")],
            "error: input fail-under:",
        ),
        (
            vec![("url", &url), ("INPUT_FAIL_UNDER", "101")],
            "error: input fail-under:",
        ),
        (
            vec![
                ("url", &url),
                ("fail-under", "80"),
                ("INPUT_FAIL_UNDER", "90"),
            ],
            "given twice",
        ),
        (
            vec![("url", &url), ("fail-on", "blocker")],
            "error: input fail-on:",
        ),
        (
            vec![
                ("url", &url),
                ("fail-under-category", "protocol=90,speed=1"),
            ],
            "error: input fail-under-category:",
        ),
        (
            vec![("url", &url), ("formats", "json\npdf")],
            "error: input formats:",
        ),
        (vec![("url", "file:///etc/passwd")], "error: input url:"),
        (vec![("url", "--allow-destructive")], "error: input url:"),
        (
            vec![("url", &url), ("command", "python3\nserver.py")],
            "error: inputs url and command are both given",
        ),
        (vec![("start", "node\nserver.js")], "error: input start:"),
        (
            vec![("url", &url), ("token-env", "ghp_secret value")],
            "error: input token-env:",
        ),
        (
            vec![("url", &url), ("args", "--only protocol")],
            "error: input args, line 1:",
        ),
        (
            vec![("url", &url), ("args", "--allow-mutations\n--\nrm\n-rf")],
            "error: input args, line 2:",
        ),
        (
            vec![("url", &url), ("args", "--out-dir=/tmp/x")],
            "use the out-dir input",
        ),
        (
            vec![("url", &url), ("args", "--no-such-flag")],
            "error: the inputs do not make a valid check:",
        ),
        (
            vec![("url", &url), ("args", "http://127.0.0.1:1/other")],
            "error: the inputs do not make a valid check:",
        ),
        (
            vec![("url", &url), ("token-env", "SCOUT_TEST_UNSET_TOKEN")],
            "SCOUT_TEST_UNSET_TOKEN, which is not set",
        ),
        (vec![], "nothing to check"),
    ];
    for (inputs, want) in cases {
        let step = Step::new();
        let run = step.run(&inputs);
        assert_eq!(run.code, Some(2), "{inputs:?}: {}", run.all_output());
        assert_eq!(
            run.stderr.lines().count(),
            1,
            "{inputs:?}: one line: {}",
            run.stderr
        );
        assert!(run.stderr.contains(want), "{inputs:?}: {}", run.stderr);
        assert!(!step.output.exists(), "{inputs:?}: no outputs were written");
        assert!(
            std::fs::read_dir(&step.workspace)
                .expect("workspace")
                .next()
                .is_none(),
            "{inputs:?}: nothing was written to the workspace"
        );
    }
}

#[test]
fn a_workspace_that_is_not_there_is_a_usage_error() {
    let step = Step::new();
    let run = Scout::new()
        .args(["action"])
        .env(
            "GITHUB_WORKSPACE",
            &step.workspace.join("missing").to_string_lossy(),
        )
        .env("INPUT_URL", "http://127.0.0.1:1/mcp")
        .run();
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("GITHUB_WORKSPACE"), "{}", run.stderr);
}

/// The inputs and outputs `action.yml` declares: the top-level keys of one section.
fn declared(section: &str) -> Vec<String> {
    let text = std::fs::read_to_string(crate_root().join("action.yml")).expect("action.yml");
    text.lines()
        .skip_while(|l| *l != format!("{section}:"))
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' ') || l.starts_with('#'))
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#'))
        .filter_map(|l| l.strip_suffix(':'))
        .map(str::to_string)
        .collect()
}

#[test]
fn action_yml_declares_what_scout_reads_and_writes() {
    let mut inputs = declared("inputs");
    inputs.sort();
    let mut known: Vec<String> = INPUTS.iter().map(|s| s.to_string()).collect();
    known.sort();
    assert_eq!(
        inputs, known,
        "action.yml inputs vs scout::cli::action::INPUTS"
    );

    let mut outputs = declared("outputs");
    outputs.sort();
    let mut written: Vec<String> = ["score", "passed"]
        .into_iter()
        .map(str::to_string)
        .chain(
            scout::emit::outputs::Format::ALL
                .iter()
                .map(|f| f.as_str().to_string()),
        )
        .collect();
    written.sort();
    assert_eq!(outputs, written, "action.yml outputs vs what scout writes");

    let text = std::fs::read_to_string(crate_root().join("action.yml")).expect("action.yml");
    assert!(
        !text.contains("${{"),
        "no expression in action.yml: inputs reach scout only as INPUT_* variables"
    );
}

#[test]
fn the_help_states_the_contract() {
    let run = Scout::new().args(["action", "--help"]).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for name in INPUTS {
        assert!(
            run.stdout.contains(&format!("  {name} ")),
            "{name}: {}",
            run.stdout
        );
    }
    for needle in [
        "INPUT_FAIL-UNDER",
        "INPUT_FAIL_UNDER",
        "GITHUB_OUTPUT",
        "GITHUB_STEP_SUMMARY",
    ] {
        assert!(run.stdout.contains(needle), "{needle}: {}", run.stdout);
    }
}

#[test]
fn runner_names_keep_hyphens() {
    assert_eq!(runner_name("fail-under"), "INPUT_FAIL-UNDER");
    assert_eq!(runner_name("INPUT_FAIL_UNDER"), "INPUT_FAIL-UNDER");
    assert!(Path::new(&crate_root()).join("action.yml").exists());
}
