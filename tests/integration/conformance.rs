//! scout beside the official conformance suite (`@modelcontextprotocol/conformance`): the
//! aliases of `probe::conformance` name scenarios and check ids the pinned suite really has,
//! and its frozen requirement sets are the ones scout lists.

use std::path::{Path, PathBuf};

use scout::probe::conformance;

/// Node 22 and the pinned suite's CLI, installed into target/conformance/ when absent by
/// scripts/conformance-install.sh (which keeps concurrent installs apart: several tests ask
/// at once, and two npm installs into one prefix break each other).
fn installed() -> &'static (PathBuf, PathBuf) {
    static PATHS: std::sync::OnceLock<(PathBuf, PathBuf)> = std::sync::OnceLock::new();
    PATHS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = std::process::Command::new(root.join("scripts/conformance-install.sh"))
            .env("CONFORMANCE_VERSION", conformance::SUITE_VERSION)
            .output()
            .expect("the install script runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut lines = text.lines().map(PathBuf::from);
        let node = lines.next().expect("node's path");
        let cli = lines.next().expect("the CLI's path");
        (node, cli)
    })
}

/// The installed package of the pinned suite version.
fn suite_package() -> PathBuf {
    let cli = &installed().1;
    cli.parent()
        .and_then(Path::parent)
        .expect("dist/index.js lies in the package")
        .to_path_buf()
}

/// Node 22 (the suite needs it; the machine's node may be older).
fn node22() -> PathBuf {
    installed().0.clone()
}

#[test]
fn every_alias_names_a_scenario_and_check_of_the_pinned_suite() {
    let pkg = suite_package();
    let bundle = std::fs::read_to_string(pkg.join("dist/index.js")).expect("bundle");
    let version: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(pkg.join("package.json")).expect("package.json"),
    )
    .expect("json");
    assert_eq!(version["version"], conformance::SUITE_VERSION);
    // A scenario is a class whose `name` is its id; a check id is a string literal of the
    // bundle (its scenarios build their checks as `{id: `…`, …}`).
    for s in conformance::SERVER_SCENARIOS {
        assert!(
            bundle.contains(&format!("this.name=`{s}`")),
            "{s} is no scenario of the bundle"
        );
    }
    for (id, aliases) in conformance::ALIASES {
        for a in *aliases {
            if let Some((_, check)) = a.split_once(':') {
                // Some scenarios build one check id per method from a template
                // (`sep-2575-http-server-method-not-found-404-${t}`); the prefix is the literal.
                let templated = check
                    .match_indices('-')
                    .any(|(i, _)| bundle.contains(&format!("`{}-${{", &check[..i])));
                assert!(
                    bundle.contains(&format!("`{check}`")) || templated,
                    "{id}: {a} names a check id the bundle does not have"
                );
            }
        }
    }
    for (check, _) in conformance::EVERY_SCENARIO {
        assert!(bundle.contains(&format!("`{check}`")), "{check}");
    }
    for (scenario, tool) in conformance::FIXTURE_TOOLS {
        assert!(
            bundle.contains(&format!("`{tool}`")),
            "{scenario}: the bundle names no fixture tool {tool}"
        );
    }
}

#[test]
fn the_frozen_server_sets_are_the_suites() {
    let pkg = suite_package();
    for (revision, ours) in [
        ("2025-11-25", conformance::REQUIRED_2025_11_25),
        ("2026-07-28", conformance::REQUIRED_2026_07_28),
    ] {
        let text = std::fs::read_to_string(pkg.join(format!("requirements/{revision}.yaml")))
            .expect("requirements file");
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).expect("yaml");
        let theirs: Vec<&str> = doc["server"]
            .as_sequence()
            .expect("server list")
            .iter()
            .map(|v| v.as_str().expect("name"))
            .collect();
        assert_eq!(theirs, ours, "{revision}");
    }
}

/// An official baseline of either shape, imported, makes the failure the suite expects
/// expected in a scout run too; the fixed build makes the entries stale, as the suite calls
/// a passing baselined scenario stale; what maps to nothing is listed on stderr.
#[test]
fn an_imported_official_baseline_expects_the_same_failures() {
    use crate::common::{Scout, crate_root, workspace};
    let fixture = |name: &str| {
        crate_root()
            .join("tests/fixtures")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    // One server name, two builds: prompts/get missing (the suite's prompts-get-simple
    // fails), then a build that serves it.
    let config = |script: &str| {
        format!(
            "[[default.servers]]\nname = \"svc\"\ncommand = [\"python3\", {:?}]\n",
            fixture(script)
        )
    };
    let defective = workspace(Some(&config("prompts_get_missing.py")));
    let fixed = workspace(Some(&config("minimal_server.py")));
    let check = |dir: &Path, extra: &[&str]| {
        Scout::new()
            .dir(dir)
            .args(["-q", "check", "--fail-on", "minor"])
            .args(extra)
            .run()
    };
    let without = check(defective.path(), &[]);
    assert_eq!(
        without.code,
        Some(1),
        "the defect fails: {}",
        without.stderr
    );
    assert!(
        without.stderr.contains("execution.prompt_get"),
        "{}",
        without.stderr
    );

    for (yml, unmapped) in [
        (
            "expected-failures-scenarios.yml",
            &["server: tools-call-sampling", "client: sse-retry"][..],
        ),
        (
            "expected-failures-checks.yml",
            &["server: dns-rebinding-protection:localhost-host-valid-accepted"][..],
        ),
    ] {
        let out = defective.path().join(format!("{yml}.toml"));
        let o = out.to_string_lossy().into_owned();
        let import = Scout::new()
            .args([
                "baseline",
                "import",
                &fixture(&format!("conformance/{yml}")),
            ])
            .args(["--server", "svc", "-o", &o])
            .run();
        assert_eq!(import.code, Some(0), "{yml}: {}", import.stderr);
        assert!(
            import.stderr.contains(&format!(
                "{} official entries map to no scout check",
                unmapped.len()
            )),
            "{yml}: {}",
            import.stderr
        );
        for u in unmapped {
            assert!(
                import.stderr.contains(u),
                "{yml}: {u} not listed: {}",
                import.stderr
            );
        }
        let text = std::fs::read_to_string(&out).expect("baseline written");
        assert!(text.contains("execution.prompt_get"), "{yml}: {text}");

        let expected = check(defective.path(), &["--baseline", &o]);
        assert_eq!(
            expected.code,
            Some(0),
            "{yml}: the failure the suite expects is expected: {}",
            expected.stderr
        );
        let stale = check(fixed.path(), &["--baseline", &o]);
        assert_eq!(
            stale.code,
            Some(1),
            "{yml}: fixed, the entry is stale: {}",
            stale.stderr
        );
        assert!(
            stale.stderr.contains("no longer occurs"),
            "{}",
            stale.stderr
        );
    }

    let bad = Scout::new()
        .args([
            "baseline",
            "import",
            &fixture("conformance/expected-failures-malformed.yml"),
            "--server",
            "svc",
            "-o",
        ])
        .args([defective.path().join("never.toml")])
        .run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert_eq!(bad.stderr.trim().lines().count(), 1, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("no space after the colon"),
        "{}",
        bad.stderr
    );
    assert!(!defective.path().join("never.toml").exists());
}

/// What docs/conformance.md says before the tables.
const INTRO: &str = "# scout and the official conformance suite

<!-- Generated from src/probe/conformance.rs by tests/integration/conformance.rs; do not edit by hand. Regenerate with `SCOUT_UPDATE_DOCS=1 cargo test --test integration docs`. -->

Teams that run the official suite, `@modelcontextprotocol/conformance`, in CI can run scout beside it or instead of it. This page lists every server scenario of the suite version below, each with the scout checks that cover it, and how far: *covered* (the checks judge what the scenario judges, on any server), *partly covered* (the note says what is left), *needs fixture tools* (the scenario calls the official everything-server's tools, prompts or resources by name; scout judges whatever the server lists with its own checks, not those exact expectations) or *not covered* (with the reason).

The names were read from the suite's published package (its bundle, `conformance list --server`, `requirements/2025-11-25.yaml` and `requirements/2026-07-28.yaml`); `tests/integration/conformance.rs` reads the installed package and fails when a name scout uses is not in it. It also runs the suite (`--requirements 2025-11-25`) and scout side by side on server-everything and fails when a scenario scout judges (covered and passed, or covered and failed) gets the other verdict from the suite, unless the scenario is named under [Where the verdicts may differ](#where-the-verdicts-may-differ).

## Where the aliases show

- Every check's entry in [docs/checks.md](checks.md) lists the scenarios (`scenario`) or scenario checks (`scenario:check-id`) it covers.
- JUnit: each test case of such a check carries `<property name=\"conformance\" value=\"scenario:check-id\"/>`, one per alias, written as the suite's `expected-failures.yml` writes an entry.
- SARIF: each rule and result of such a check is tagged `conformance:<scenario>`.
- The suite adds `wire-schema-valid` (every message checked against the schema of its revision) to every scenario; scout's `protocol.wire_schema` judges the same property across the whole run, and at 2026-07-28 leaves `resultType` to `protocol.result_type` and `ttlMs`/`cacheScope` to `protocol.cache_hints` (one defect, one finding).

## Importing an official baseline

```
scout baseline import expected-failures.yml --server everything -o scout-baseline.toml
scout check URL --baseline scout-baseline.toml
```

Both shapes the suite's loader accepts are read: `- scenario` (the whole scenario may fail) and `- scenario:check-id` (one check of it). A server entry becomes one scout entry per scout check that covers it (for every subject, `any_subject = true`), marked with the official entry it came from (`official = \"…\"`). An entry that no scout check covers, and every `client:` entry (scout checks servers), is listed on stderr and counted; a file the suite would refuse (an empty entry, `- scenario: check-id` with a space, a scenario listed both whole and per check) is a one-line error, exit 2.

As in the suite, a baselined failure that no longer occurs fails the gate (a stale entry): the scout entries made from one official entry are stale together, only when none of them matches, so an official `- server-stateless` entry is stale only once none of the checks it covers fails or warns. Two differences remain: the suite tolerates a per-check entry whose check did not run at all, which scout reports as stale; and a `scenario:wire-schema-valid` entry excuses `protocol.wire_schema` for the whole run, not for one scenario.

## The parity view

`scout check … --conformance-summary` prints, per server, each scenario of the two frozen sets as *covered and passed*, *covered and failed* (a check mapped to any of the scenario's checks failed on that wire, even when baselined: the suite would fail it too; and, for `server-initialize`, `ping`, `tools-list`, `resources-list` and `prompts-list`, a failed `protocol.wire_schema`, or at 2026-07-28 `protocol.result_type` or `protocol.cache_hints`, that cites a message of the method the scenario sends, as the suite's `wire-schema-valid` fails it), *not applicable* (the covering checks only skipped, e.g. the server does not offer the feature, or the server does not speak the set's revision), *needs fixture tools* or *not covered*, each with the findings and exchanges (`req#N`) it rests on. The 2025-11-25 set is judged on the handshake wire, the 2026-07-28 set on the stateless one. With `--markdown` (or in a GitHub step summary) the same view is added as a folded section per server and set.

## Where the verdicts may differ

- `dns-rebinding-protection`: the suite sends a foreign Host and a foreign Origin in one request and passes a server that checks either. scout sends them apart and fails a loopback server that serves a foreign Origin, because the transports make Origin the MUST: “Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks” (2025-11-25 basic/transports). A served foreign Host alone is a warning.
- `caching`: the suite asks tools/list, prompts/list, resources/list and resources/templates/list of every server and fails the scenario when one answers -32601, even on a server that offers no prompts or resources. scout judges the hints on the results a server gives: a server need not offer prompts (“Servers that support prompts MUST declare the prompts capability in their DiscoverResult”, 2026-07-28 server/prompts), and an error carries no result to hint. A tools-only server (the TypeScript SDK's, for one) passes scout and fails the suite here.
- `logging-set-level`: the suite sends logging/setLevel even to a server that does not declare logging, and checks the level of the messages that follow; scout judges neither (partly covered), so it can pass a server the suite fails.
- `tools-list`: the suite lists three times and wants the same order (tools-list-deterministic-order, 2026-07-28), which scout does not judge. A tool's inputSchema and outputSchema are judged by `catalog.tool_schema` and `catalog.output_schema` against their JSON Schema dialect, not by `protocol.wire_schema`, and those checks are not mapped to the scenario: a schema the suite's wire schema accepts can fail them, and the scenario still reads passed.
- `resources-list`, `prompts-list`, `resources-subscribe`, `resources-unsubscribe`: the suite sends the request whatever the server declares and fails the scenario on an error; scout asks only a server that declares the capability, and otherwise reads *not applicable*.
- `server-stateless`: the suite also judges list-changed notifications on a subscription and the notification filter (with its fixture tool test_trigger_tool_change), subscriptions/listen over stdio, and -32021 for its fixture tool test_missing_capability; scout judges the acknowledgement and its subscriptionId (`protocol.subscriptions`) and the -32021 refusals of the calls it makes (`protocol.capability_use`), so it can pass a server the suite fails, and reads passed on a server that refused none of scout's calls.
- `sep-2164-resource-not-found`: the suite also wants the URI in the error's data (sep-2164-data-uri), which scout does not judge.
- `wire-schema-valid` in other scenarios: the suite validates the messages of each scenario; scout validates every message of its run once. A violation in a message of a method other than the five scenarios above (a tools/call result, say) fails `protocol.wire_schema` in scout but no scenario of the view, while the suite fails the scenario that sent it (those scenarios need fixture tools in scout's view). A violation in a message the suite never provokes (one of scout's own probes) fails scout only.
- Everything scout judges beyond the suite (security, resilience, performance, catalogue quality, host compatibility) has no official scenario; those checks carry no alias.

";

fn render_conformance_md() -> String {
    let mut out = String::from(INTRO);
    out.push_str(&format!(
        "## Server scenarios of {} {}\n\n",
        conformance::SUITE,
        conformance::SUITE_VERSION
    ));
    let sets: [(&str, &[&str]); 2] = [
        ("2025-11-25", conformance::REQUIRED_2025_11_25),
        ("2026-07-28", conformance::REQUIRED_2026_07_28),
    ];
    let row = |s: &conformance::Scenario| {
        let checks = conformance::checks_of(s.id);
        let checks = if checks.is_empty() {
            "—".to_string()
        } else {
            checks
                .iter()
                .map(|c| format!("[`{c}`](checks.md#{})", c.replace(['.', '_'], "-")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "| `{}` | {} | {} | {} |\n",
            s.id,
            checks,
            s.coverage.as_str(),
            s.note
        )
    };
    for (revision, set) in sets {
        out.push_str(&format!(
            "### Required by {revision} ({} server scenarios)\n\n| scenario | scout checks | coverage | note |\n|---|---|---|---|\n",
            set.len()
        ));
        for id in set {
            out.push_str(&row(
                conformance::scenario(id).expect("every scenario has a note")
            ));
        }
        out.push('\n');
    }
    out.push_str("### Not scored by either frozen set\n\nExtensions, scenarios added after a release and scenarios the suite's own reference server cannot pass yet: the suite runs them for visibility.\n\n| scenario | scout checks | coverage | note |\n|---|---|---|---|\n");
    for s in conformance::SCENARIOS {
        if !sets.iter().any(|(_, set)| set.contains(&s.id)) {
            out.push_str(&row(s));
        }
    }
    format!("{}\n", out.trim_end())
}

#[test]
fn docs_conformance_md_lists_every_server_scenario() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance.md");
    let expected = render_conformance_md();
    if std::env::var_os("SCOUT_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &expected).expect("write docs/conformance.md");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/conformance.md is out of date; run `SCOUT_UPDATE_DOCS=1 cargo test --test integration docs` and commit it"
    );
    for s in conformance::SERVER_SCENARIOS {
        assert!(actual.contains(&format!("| `{s}` |")), "{s} missing");
    }
}

/// The parity view judges each scenario of a frozen set from the findings of the checks that
/// cover it, on the wire of the set's revision.
#[test]
fn the_parity_view_judges_each_scenario_from_scouts_findings() {
    use crate::sample::With;
    use scout::emit::conformance::{Verdict, summary};
    // The sample's everything server speaks only the handshake revisions; its tools/list
    // fails and its unknown method got a result.
    let server = crate::sample::everything();
    let sets = summary(&server);
    assert_eq!(sets.len(), 2);
    let (old, new) = (&sets[0], &sets[1]);
    assert_eq!((old.revision, old.rows.len()), ("2025-11-25", 30));
    assert_eq!((new.revision, new.rows.len()), ("2026-07-28", 37));
    let row = |id: &str| old.rows.iter().find(|r| r.scenario == id).expect(id);
    let tools = row("tools-list");
    assert_eq!(tools.verdict, Verdict::Failed, "{tools:?}");
    assert!(
        tools.evidence.contains("catalog.tools_list fail"),
        "{tools:?}"
    );
    assert!(tools.evidence.contains("req#"), "{tools:?}");
    assert_eq!(row("server-initialize").verdict, Verdict::Passed);
    assert_eq!(
        row("server-sse-multiple-streams").verdict,
        Verdict::NotCovered
    );
    // Read by execution.resource_templates, with scout's own values, not the fixture's.
    assert_eq!(
        row("resources-templates-read").verdict,
        Verdict::NeedsFixture
    );
    // Covered by protocol.logging, of which the sample has no finding.
    assert_eq!(row("logging-set-level").verdict, Verdict::NotApplicable);
    assert_eq!(row("tools-call-image").verdict, Verdict::NeedsFixture);
    assert!(
        row("tools-call-simple-text")
            .evidence
            .starts_with("the suite calls the fixture tool test_simple_text"),
        "{:?}",
        row("tools-call-simple-text")
    );
    // A server that lists the fixture tool (scout called it) is told so.
    let mut fixture = crate::sample::everything();
    fixture.findings.push(
        crate::sample::finding(
            "execution.tool_call",
            scout::report::finding::Status::Pass,
            "test_simple_text answered a valid CallToolResult.",
        )
        .subject("test_simple_text")
        .ev(&[2]),
    );
    let with = summary(&fixture);
    let simple = with[0]
        .rows
        .iter()
        .find(|r| r.scenario == "tools-call-simple-text")
        .expect("listed");
    assert_eq!(simple.verdict, Verdict::NeedsFixture);
    assert!(
        simple
            .evidence
            .starts_with("the server lists the fixture tool test_simple_text; scout's own checks: execution.tool_call pass [test_simple_text] (req#2)"),
        "{simple:?}"
    );
    // A legacy-only server is not judged against the stateless revision's set.
    assert!(
        new.rows.iter().all(|r| r.verdict == Verdict::NotApplicable),
        "{new:?}"
    );
}

/// `scout check --conformance-summary` against a real fixture server prints the view and
/// adds it to the Markdown summary; without the flag the Markdown has no such section.
#[test]
fn conformance_summary_on_a_real_run() {
    use crate::common::{Scout, crate_root};
    let dir = tempfile::tempdir().expect("tempdir");
    let md = dir.path().join("summary.md");
    let server = crate_root().join("tests/fixtures/prompts_get_missing.py");
    let run = Scout::new()
        .args(["-q", "check", "--conformance-summary", "--markdown"])
        .args([&md])
        .args(["--stdio", "--", "python3"])
        .args([&server])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let line = |id: &str| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("{id} not listed: {}", run.stdout))
            .to_string()
    };
    assert!(line("server-initialize").contains("covered and passed"));
    assert!(line("server-initialize").contains("handshake.initialize pass (req#"));
    // A stdio server has no HTTP endpoint: DNS rebinding does not apply.
    assert!(line("dns-rebinding-protection").contains("not applicable"));
    assert!(line("prompts-get-simple").contains("execution.prompt_get fail"));
    assert!(
        run.stdout.contains("2026-07-28 (37 scenarios)"),
        "{}",
        run.stdout
    );
    let text = std::fs::read_to_string(&md).expect("markdown written");
    assert!(text.contains("## Official conformance scenarios"), "{text}");
    assert!(
        text.contains("| `server-initialize` | covered and passed |"),
        "{text}"
    );

    let plain = Scout::new()
        .args(["-q", "check", "--markdown"])
        .args([&md])
        .args(["--stdio", "--", "python3"])
        .args([&server])
        .run();
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(
        !plain.stdout.contains("Official conformance"),
        "{}",
        plain.stdout
    );
    let text = std::fs::read_to_string(&md).expect("markdown written");
    assert!(!text.contains("Official conformance"), "{text}");
}

/// A real server for the side-by-side test: its name, how to start it, the frozen sets it
/// speaks.
type Subject = (
    &'static str,
    fn() -> crate::servers::HttpServer,
    &'static [&'static str],
);

/// The official suite and scout side by side on real servers (server-everything, our Python
/// SDK and TypeScript SDK servers), each frozen set the server speaks: a scenario scout
/// covers gets the suite's verdict. A partly covered one may fail in the suite for a part
/// scout does not judge (docs/conformance.md says which), so there only a scenario the suite
/// passes must pass in scout too. A difference docs/conformance.md names under "Where the
/// verdicts may differ" is allowed.
#[test]
fn the_official_suite_and_scout_agree_on_real_servers() {
    use crate::common::Scout;
    use conformance::Coverage;
    let pkg = suite_package();
    let node = node22();
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance.md"))
            .expect("docs/conformance.md");
    let differences = docs
        .split("## Where the verdicts may differ")
        .nth(1)
        .and_then(|d| d.split("\n## ").next())
        .unwrap_or("")
        .to_string();
    let mut compared = 0;
    let mut disagree = Vec::new();
    let servers: [Subject; 3] = [
        (
            "server-everything",
            crate::servers::everything_http,
            &["2025-11-25"],
        ),
        (
            "python-sdk",
            crate::servers::py_http,
            &["2025-11-25", "2026-07-28"],
        ),
        (
            "typescript-sdk",
            crate::servers::ts_http,
            &["2025-11-25", "2026-07-28"],
        ),
    ];
    for (who, start, revisions) in servers {
        let server = start();
        let scout = Scout::new()
            .args(["-q", "check", &server.url, "--conformance-summary"])
            .run();
        for revision in revisions {
            let results = tempfile::tempdir().expect("tempdir");
            let official = std::process::Command::new(&node)
                .arg(pkg.join("dist/index.js"))
                .args(["server", "--url", &server.url, "--requirements", revision])
                .current_dir(results.path())
                .output()
                .expect("the suite runs");
            let official = String::from_utf8_lossy(&official.stdout).into_owned();
            // `✓ scenario: 3 passed, 0 failed` / `✗ scenario: 1 passed, 1 failed`
            let theirs = |id: &str| -> Option<bool> {
                official.lines().find_map(|l| {
                    let l = l.trim();
                    let (mark, rest) = l.split_at_checked(l.char_indices().nth(1)?.0)?;
                    let name = rest.trim().split(':').next()?;
                    (name == id && rest.contains(" passed, ")).then_some(mark == "✓")
                })
            };
            // scout's block for this set: from its `· <revision>` heading to the next one.
            let block: String = scout
                .stdout
                .split(&format!(" · {revision} ("))
                .nth(1)
                .and_then(|b| b.split(" · 20").next())
                .unwrap_or("")
                .to_string();
            let ours = |id: &str| -> Option<bool> {
                block.lines().find_map(|l| {
                    let mut words = l.split_whitespace();
                    (words.next()? == id).then_some(())?;
                    let rest: Vec<&str> = words.collect();
                    match rest.get(..3) {
                        Some(["covered", "and", "passed"]) => Some(true),
                        Some(["covered", "and", "failed"]) => Some(false),
                        _ => None,
                    }
                })
            };
            let set = if *revision == "2025-11-25" {
                conformance::REQUIRED_2025_11_25
            } else {
                conformance::REQUIRED_2026_07_28
            };
            for id in set {
                let Some(ours) = ours(id) else { continue };
                let theirs = theirs(id).unwrap_or_else(|| {
                    panic!("{who} {revision}: the suite did not report {id}:\n{official}")
                });
                compared += 1;
                let partly =
                    conformance::scenario(id).map(|s| s.coverage) == Some(Coverage::Partly);
                let agrees = ours == theirs || (partly && ours && !theirs);
                if !agrees && !differences.contains(&format!("`{id}`")) {
                    disagree.push(format!(
                        "{who} {revision} {id}: scout {ours}, official {theirs}"
                    ));
                }
            }
        }
    }
    assert!(
        compared >= 15,
        "too few scenarios judged by both: {compared}"
    );
    assert!(
        disagree.is_empty(),
        "verdicts differ (passed = true) and docs/conformance.md does not say why: {disagree:?}"
    );
}

/// The parity view counts every scout check mapped to a scenario's checks: a subscription
/// acknowledged late fails `server-stateless` (the suite's subscription-ack check), and a
/// 2026-07-28 list result without the cache hints its schema requires fails the list
/// scenario (the suite's `wire-schema-valid`), while the correct twin passes both.
#[tokio::test]
async fn the_parity_view_fails_a_scenario_any_mapped_check_failed() {
    use crate::phase_fixtures::{fixture_http, fixture_http_env, run};
    use scout::emit::conformance::{Verdict, summary};
    use scout::report::finding::Phase;
    let phases = |mut spec: scout::spec::ServerSpec| {
        spec.only.push(Phase::Protocol);
        spec
    };
    let (twin, late_ack, bare) = tokio::join!(
        run(phases(fixture_http("minimal_server.py"))),
        run(phases(fixture_http_env(
            "listen_defects.py",
            &[("LISTEN_DEFECT", "not_first")],
        ))),
        run(phases(fixture_http("bare_results.py"))),
    );
    let verdict = |r: &scout::report::model::ServerReport, revision: &str, id: &str| {
        let sets = summary(r);
        let set = sets
            .iter()
            .find(|s| s.revision == revision)
            .expect(revision);
        set.rows
            .iter()
            .find(|row| row.scenario == id)
            .cloned()
            .expect(id)
    };
    for id in [
        "server-stateless",
        "tools-list",
        "resources-list",
        "prompts-list",
    ] {
        let row = verdict(&twin, "2026-07-28", id);
        assert_eq!(row.verdict, Verdict::Passed, "{row:?}");
    }
    let stateless = verdict(&late_ack, "2026-07-28", "server-stateless");
    assert_eq!(stateless.verdict, Verdict::Failed, "{stateless:?}");
    assert!(
        stateless.evidence.contains("protocol.subscriptions fail"),
        "{stateless:?}"
    );
    for id in ["tools-list", "resources-list", "prompts-list"] {
        let row = verdict(&bare, "2026-07-28", id);
        assert_eq!(row.verdict, Verdict::Failed, "{row:?}");
        assert!(
            row.evidence.contains("protocol.cache_hints fail"),
            "{row:?}"
        );
        // The handshake wire's results are judged by their own revision's schema.
        let old = verdict(&bare, "2025-11-25", id);
        assert_eq!(old.verdict, Verdict::Passed, "{old:?}");
    }
}

/// `scout check` itself under the suite's client mode, on the mock that lists tools with
/// invalid x-mcp-header declarations (it answers `initialize` with 2026-07-28 and speaks
/// 2026-07-28). Previously scout failed the answer and then ran a 2025-11-25 session on it
/// all the same, calling every tool there, dropped or not; the suite failed all eleven.
#[test]
fn scout_check_calls_no_tool_the_suites_client_mode_says_to_drop() {
    let scout = assert_cmd::cargo::cargo_bin("scout");
    let command = format!("{} check -q --allow-destructive", scout.display());
    let results = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(node22())
        .arg(suite_package().join("dist/index.js"))
        .args([
            "client",
            "--command",
            &command,
            "--scenario",
            "http-invalid-tool-headers",
        ])
        .current_dir(results.path())
        .env_remove("CI")
        .output()
        .expect("the suite runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains(" 0 failed"), "{text}");
    assert!(text.contains("OVERALL: PASSED"), "{text}");
}
