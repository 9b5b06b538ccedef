//! Expectations (`[[servers.expect]]`, docs/expectations.md): the author's own assertions,
//! reported in the `expectations` category and gated like every check.

use std::path::Path;

use serde_json::Value;

use crate::common::{Scout, crate_root, fixture, workspace};

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("scout.json")).expect("scout.json written");
    serde_json::from_str(&text).expect("JSON")
}

/// The findings of the first server whose id starts with `expect.`.
fn expectations(report: &Value) -> Vec<Value> {
    report["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["id"].as_str().is_some_and(|id| id.starts_with("expect.")))
        .cloned()
        .collect()
}

fn demo_binary() -> String {
    crate::servers::demo_stdio()[0].clone()
}

#[test]
fn the_demo_expectations_all_hold_and_pass_the_gate() {
    let _ = demo_binary();
    let out = workspace(None);
    let run = Scout::new()
        .dir(&crate_root())
        .args(["-q", "check", "--config", "examples/demo-expect.toml"])
        .args(["--fail-under-category", "expectations=100"])
        .args([std::ffi::OsStr::new("--out-dir"), out.path().as_os_str()])
        .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let found = expectations(&report(out.path()));
    assert_eq!(found.len(), 5, "{found:#?}");
    for f in &found {
        assert_eq!(f["status"], "pass", "{f:#}");
        assert_eq!(f["phase"], "expectations", "{f:#}");
    }
    assert!(
        found
            .iter()
            .any(|f| f["id"] == "expect.add_sums_two_numbers")
    );
}

/// The demo as a changed release would behave (`SCOUT_DEMO_DRIFT=1`): `add` is off by one and
/// `echo` shouts. The named expectations fail with what was expected and what came, in the
/// terminal, JUnit and Markdown, and the gate fails.
#[test]
fn a_changed_demo_fails_named_expectations_with_readable_diffs() {
    let example = std::fs::read_to_string(crate_root().join("examples/demo-expect.toml"))
        .expect("the example");
    let variant = example.replace(
        "command = [\"target/debug/examples/demo-server\", \"stdio\"]",
        &format!(
            "command = [{:?}, \"stdio\"]\nstdio_set = {{ SCOUT_DEMO_DRIFT = \"1\" }}",
            demo_binary()
        ),
    );
    assert_ne!(variant, example, "the example names the demo's command");
    let dir = workspace(Some(&variant));
    std::fs::create_dir_all(dir.path().join("demo-expect")).expect("mkdir");
    std::fs::copy(
        crate_root().join("examples/demo-expect/add-result.schema.json"),
        dir.path().join("demo-expect/add-result.schema.json"),
    )
    .expect("copy the schema");
    let run = Scout::new()
        .dir(dir.path())
        .args(["check", "--fail-under-category", "expectations=100"])
        .args(["--out-dir", "out"])
        .run();
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let sum = "/structuredContent/sum: expected 5, received 6";
    let echo = "missing text \"hello scout\" in the content blocks, which read \"HELLO SCOUT\"";
    for wanted in [
        sum,
        echo,
        "expect.add_sums_two_numbers",
        "expect.echo_returns_its_text",
    ] {
        assert!(
            run.stdout.contains(wanted),
            "terminal lacks {wanted}:\n{}",
            run.stdout
        );
    }
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).expect("junit");
    assert!(junit.contains("expect.add_sums_two_numbers"), "{junit}");
    assert!(junit.contains(sum), "{junit}");
    let md = std::fs::read_to_string(dir.path().join("out/summary.md")).expect("markdown");
    assert!(
        md.contains(sum) && md.contains("expect.echo_returns_its_text"),
        "{md}"
    );
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/scout.sarif")).expect("sarif"),
    )
    .expect("SARIF is JSON");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let add = results
        .iter()
        .find(|r| r["ruleId"] == "expect.add_sums_two_numbers")
        .unwrap_or_else(|| panic!("a SARIF result for the expectation: {results:#?}"));
    assert_eq!(add["level"], "error", "{add:#}");
    // GitHub annotations name the expectation and say what came.
    let output = dir.path().join("gh-output");
    let summary = dir.path().join("gh-summary");
    let gh = Scout::new()
        .github_actions(dir.path(), &output, &summary)
        .args(["check", "--out-dir", "out-gh"])
        .run();
    let annotation = gh
        .stdout
        .lines()
        .find(|l| l.starts_with("::error") && l.contains("expect.add_sums_two_numbers"))
        .unwrap_or_else(|| panic!("an annotation for the expectation:\n{}", gh.stdout));
    assert!(
        annotation.contains("expected 5, received 6"),
        "{annotation}"
    );
    let found = expectations(&report(&dir.path().join("out")));
    let status = |id: &str| {
        found
            .iter()
            .find(|f| f["id"] == id)
            .map(|f| f["status"].as_str().unwrap_or_default().to_string())
    };
    assert_eq!(
        status("expect.add_sums_two_numbers").as_deref(),
        Some("fail")
    );
    assert_eq!(
        status("expect.echo_returns_its_text").as_deref(),
        Some("fail")
    );
    // What the drift did not touch still holds.
    assert_eq!(
        status("expect.greet_asks_for_a_greeting").as_deref(),
        Some("pass")
    );
}

#[test]
fn five_trials_against_a_tool_that_fails_one_call_in_three_report_pass_k_and_fail() {
    let config = format!(
        "[[default.servers]]\nname = \"flaky\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\n\
         [[default.servers.expect]]\nname = \"lookup answers\"\ncall = \"lookup\"\n\
         arguments = {{ q = \"flaky\" }}\ncontains = [\"found flaky\"]\ntrials = 5\n",
        fixture("fails_one_in_three.py").display().to_string()
    );
    let dir = workspace(Some(&config));
    let run = Scout::new()
        .dir(dir.path())
        .args(["check", "--fail-under-category", "expectations=100"])
        .args(["--out-dir", "out"])
        .run();
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let found = expectations(&report(&dir.path().join("out")));
    assert_eq!(found.len(), 1, "{found:#?}");
    let detail = found[0]["detail"].as_str().unwrap_or_default();
    assert_eq!(found[0]["status"], "fail");
    assert!(
        detail.contains("pass^5` not met: 4 of 5 trials held; trial 3"),
        "{detail}"
    );
    assert!(
        detail.contains("received isError true: backend timed out"),
        "{detail}"
    );
}

#[test]
fn a_malformed_expectation_is_a_one_line_config_error_naming_the_key() {
    let dir = workspace(Some(
        "[[default.servers]]\nname = \"x\"\ncommand = [\"true\"]\n\n\
         [[default.servers.expect]]\nname = \"bad\"\ncall = \"a\"\ntrials = 0\n",
    ));
    let run = Scout::new().dir(dir.path()).args(["check"]).run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("expectation `bad`: `trials` must be at least 1"),
        "{}",
        run.stderr
    );
    let typo = workspace(Some(
        "[[default.servers]]\nname = \"x\"\ncommand = [\"true\"]\n\n\
         [[default.servers.expect]]\nname = \"bad\"\ncall = \"a\"\ncontain = [\"x\"]\n",
    ));
    let run = Scout::new().dir(typo.path()).args(["check"]).run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("contain"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

/// Every TOML example of docs/expectations.md is a valid config: loaded the way `scout check`
/// loads one, expectations validated, so the page cannot drift from the keys.
#[test]
fn the_examples_in_docs_expectations_md_load() {
    let page = std::fs::read_to_string(crate_root().join("docs/expectations.md")).expect("page");
    let blocks: Vec<&str> = page
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks.len() >= 2, "the page has its examples");
    for block in blocks {
        let dir = workspace(Some(block));
        let loaded = scout::config::load(scout::config::LoadOptions {
            config: Some(dir.path().join("scout.toml")),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("{block}\n{e:?}"));
        assert!(
            loaded.servers.iter().any(|p| !p.spec.expect.is_empty()),
            "{block}"
        );
    }
}

/// A tool that is not read-only is called by an expectation only when the expectation says
/// `allow = "mutations"` and the run has `--allow-mutations`: with either missing it is a
/// policy skip that says what would allow it, and the server sees no call.
#[test]
fn a_mutation_needs_both_allow_and_the_flag_else_it_is_a_policy_skip() {
    let config = |allow: &str| {
        format!(
            "[[default.servers]]\nname = \"calls\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
             stdio_env = [\"SCOUT_TEST_CALL_LOG\"]\n\n\
             [[default.servers.expect]]\nname = \"mutating works\"\ncall = \"mutating\"\n{allow}\
             contains = [\"mutating done\"]\n",
            fixture("records_calls.py").display().to_string()
        )
    };
    let run = |text: &str, flags: &[&str]| {
        let dir = workspace(Some(text));
        let log = dir.path().join("calls.log");
        let r = Scout::new()
            .dir(dir.path())
            .env("SCOUT_TEST_CALL_LOG", &log.to_string_lossy())
            .args(["check", "--out-dir", "out"])
            .args(flags)
            .run();
        let found = expectations(&report(&dir.path().join("out")));
        let calls = std::fs::read_to_string(&log).unwrap_or_default();
        (r, found, calls)
    };
    let with_allow = config("allow = \"mutations\"\n");
    // No flag: refused, and the server never saw `mutating` called.
    let (_, found, calls) = run(&with_allow, &[]);
    assert_eq!(found[0]["status"], "skip", "{found:#?}");
    assert_eq!(found[0]["skip_reason"], "policy", "{found:#?}");
    assert!(
        found[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("--allow-mutations")),
        "{found:#?}"
    );
    assert!(!calls.lines().any(|l| l.trim() == "mutating"), "{calls}");
    // The flag without the expectation's allow: refused too.
    let (_, found, calls) = run(&config(""), &["--allow-mutations"]);
    assert_eq!(found[0]["skip_reason"], "policy", "{found:#?}");
    assert!(
        found[0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("allow = \"mutations\"")),
        "{found:#?}"
    );
    // (scout's own execution probes call it under the flag: the log cannot tell them apart.)
    let _ = calls;
    // Both: it runs and holds.
    let (r, found, calls) = run(&with_allow, &["--allow-mutations"]);
    assert_eq!(found[0]["status"], "pass", "{found:#?}\n{}", r.stdout);
    assert!(calls.lines().any(|l| l.trim() == "mutating"), "{calls}");
}

/// The real npm `@modelcontextprotocol/server-memory` (pinned in tests/servers), over stdio.
fn memory_js() -> String {
    let js = crate_root()
        .join("tests/servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    assert!(
        js.exists(),
        "{} is missing: run `bash tests/servers/setup.sh` once to install the real test servers",
        js.display()
    );
    js.display().to_string()
}

/// A setup step creates an entity (a mutation: `allow = "mutations"` and `--allow-mutations`)
/// and captures its name; the expectation reads it back by that name. Without the flag the
/// same expectation is a policy skip, and the server's store holds nothing of it.
#[test]
fn a_setup_chain_creates_an_entity_in_server_memory_and_reads_it_back() {
    let dir = workspace(None);
    let store = dir.path().join("memory.jsonl");
    let config = format!(
        "[[default.servers]]\nname = \"memory\"\ncommand = [\"node\", {js:?}]\n\
         stdio_set = {{ MEMORY_FILE_PATH = {store:?} }}\n\n\
         [[default.servers.expect]]\nname = \"a created entity reads back\"\n\
         call = \"open_nodes\"\narguments = {{ names = [\"{{{{entity}}}}\"] }}\n\
         allow = \"mutations\"\ncontains = [\"made by scout\"]\n\
         json = {{ \"$.structuredContent.entities[0].entityType\" = \"scout_test\" }}\n\n\
         [[default.servers.expect.setup]]\ncall = \"create_entities\"\n\
         arguments = {{ entities = [{{ name = \"scout-expect-probe\", entityType = \"scout_test\", observations = [\"made by scout\"] }}] }}\n\
         capture = {{ entity = \"$.structuredContent.entities[0].name\" }}\n",
        js = memory_js(),
        store = store.display().to_string(),
    );
    std::fs::write(dir.path().join("scout.toml"), &config).expect("config");
    let check = |flags: &[&str]| {
        let r = Scout::new()
            .dir(dir.path())
            .args(["check", "--out-dir", "out"])
            .args(flags)
            .run();
        (r, expectations(&report(&dir.path().join("out"))))
    };

    // Refused: no --allow-mutations.
    let (_, found) = check(&[]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["status"], "skip", "{found:#?}");
    assert_eq!(found[0]["skip_reason"], "policy", "{found:#?}");
    let stored = std::fs::read_to_string(&store).unwrap_or_default();
    assert!(
        !stored.contains("scout-expect-probe"),
        "the server saw no create_entities of the expectation: {stored}"
    );

    // Allowed: the chain runs and holds.
    let (r, found) = check(&["--allow-mutations"]);
    assert_eq!(found[0]["status"], "pass", "{found:#?}\n{}", r.stdout);
    assert!(
        found[0]["evidence"]
            .as_array()
            .is_some_and(|e| e.len() >= 2)
    );
    let stored = std::fs::read_to_string(&store).expect("the server wrote its store");
    assert!(stored.contains("scout-expect-probe"), "{stored}");
}

/// `scout expect init` writes one expectation per read-only tool it called (even when the
/// flags would allow more), and the file, given the server's command, passes the gate.
#[test]
fn expect_init_writes_starter_expectations_that_hold_on_the_next_run() {
    let demo = demo_binary();
    let dir = workspace(None);
    let init = Scout::new()
        .dir(dir.path())
        .args([
            "-q",
            "expect",
            "init",
            "--write",
            "starter.toml",
            "--allow-mutations",
        ])
        .args(["--stdio", "--", &demo, "stdio"])
        .run();
    assert_eq!(init.code, Some(0), "{}\n{}", init.stdout, init.stderr);
    let starter = std::fs::read_to_string(dir.path().join("starter.toml")).expect("written");
    assert!(
        starter.contains("call = \"add\"") && starter.contains("call = \"echo\""),
        "{starter}"
    );
    assert!(
        !starter.contains("remember"),
        "a mutation is never proposed: {starter}"
    );
    let config = starter.replacen(
        "name = \"demo-server\"\n",
        &format!("name = \"demo-server\"\ncommand = [{demo:?}, \"stdio\"]\n"),
        1,
    );
    std::fs::write(dir.path().join("scout.toml"), config).expect("config");
    let run = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            "--fail-under-category",
            "expectations=100",
            "--out-dir",
            "out",
        ])
        .run();
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let found = expectations(&report(&dir.path().join("out")));
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|f| f["status"] == "pass"), "{found:#?}");
}

/// The phases an expectation needs (the connection, the lists it is looked up in, and the
/// expectations themselves): the rest of a check would only slow these tests.
const EXPECT_ONLY: &[&str] = &["--only", "discovery,handshake,catalog,expectations"];

/// `scout check` of `config` (a scout.toml) with the expectations gate: the exit code and
/// the expectations' findings by id.
fn gate(config: &str) -> (Option<i32>, Vec<Value>, String) {
    let dir = workspace(Some(config));
    let run = Scout::new()
        .dir(dir.path())
        .args(["-q", "check", "--out-dir", "out"])
        .args(EXPECT_ONLY)
        .args(["--fail-under-category", "expectations=100"])
        .run();
    let found = expectations(&report(&dir.path().join("out")));
    (run.code, found, format!("{}\n{}", run.stdout, run.stderr))
}

fn by_id<'a>(found: &'a [Value], id: &str) -> &'a Value {
    found
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no {id}: {found:#?}"))
}

fn detail(f: &Value) -> String {
    f["detail"].as_str().unwrap_or_default().to_lowercase()
}

/// `error_answers.py` as a server entry, with `set` as its environment and `expect` after it.
fn error_answers(set: &str, expect: &str) -> String {
    format!(
        "[[default.servers]]\nname = \"errors\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
         stdio_set = {{ {set} }}\n\n{expect}",
        fixture("error_answers.py").display().to_string()
    )
}

/// An expectation of an error pins *which* error: before, any JSON-RPC error satisfied
/// `is_error = true` and its `contains`, `json` and `max_ms` were never read, so a tool that
/// crashed passed an expectation of "quota exceeded". Now every assertion applies to the
/// error's message and data (and `json` to the error object), and the twin that names the
/// error that came holds.
#[test]
fn an_error_expectation_holds_only_for_the_error_it_names() {
    let expect = "[[default.servers.expect]]\nname = \"charge reports the quota\"\n\
         call = \"charge\"\nis_error = true\ncontains = [\"quota exceeded\"]\n\n\
         [[default.servers.expect]]\nname = \"charge reports the crash\"\ncall = \"charge\"\n\
         is_error = true\ncontains = [\"database crashed\", \"users\"]\n\
         json = { \"$.code\" = -32603, \"$.data.table\" = \"users\" }\n\n\
         [[default.servers.expect]]\nname = \"quota says it is exceeded\"\ncall = \"quota\"\n\
         is_error = true\ncontains = [\"quota exceeded\"]\n\n\
         [[default.servers.expect]]\nname = \"silent failure says why\"\n\
         call = \"silent_failure\"\nis_error = true\ncontains = [\"because\"]\n";
    let (code, found, out) = gate(&error_answers("", expect));
    assert_eq!(code, Some(1), "{out}");
    let wrong = by_id(&found, "expect.charge_reports_the_quota");
    assert_eq!(wrong["status"], "fail", "{wrong:#}");
    assert!(
        detail(wrong).contains("missing text \"quota exceeded\" in the json-rpc error's message and data, which read \"database crashed"),
        "{wrong:#}"
    );
    assert!(
        !wrong["evidence"].as_array().expect("evidence").is_empty(),
        "{wrong:#}"
    );
    let silent = by_id(&found, "expect.silent_failure_says_why");
    assert_eq!(silent["status"], "fail", "{silent:#}");
    assert!(
        detail(silent).contains("nothing (the error result has no text content)"),
        "{silent:#}"
    );
    for twin in [
        "expect.charge_reports_the_crash",
        "expect.quota_says_it_is_exceeded",
    ] {
        assert_eq!(by_id(&found, twin)["status"], "pass", "{found:#?}");
    }
}

/// `max_ms` holds for an error as for a result: an error after 1.5 s misses a 1000 ms
/// budget; the same error at once meets it.
#[test]
fn max_ms_holds_for_an_error_answer() {
    let expect = "[[default.servers.expect]]\nname = \"charge fails fast\"\ncall = \"charge\"\n\
         is_error = true\ncontains = [\"database crashed\"]\nmax_ms = 1000\n";
    let (code, found, out) = gate(&error_answers("ERROR_DELAY_MS = \"1500\"", expect));
    assert_eq!(code, Some(1), "{out}");
    let slow = by_id(&found, "expect.charge_fails_fast");
    assert_eq!(slow["status"], "fail", "{slow:#}");
    assert!(
        detail(slow).contains("expected an answer within 1000 ms"),
        "{slow:#}"
    );
    let (code, found, out) = gate(&error_answers("ERROR_DELAY_MS = \"0\"", expect));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(by_id(&found, "expect.charge_fails_fast")["status"], "pass");
}

/// An expectation of a tool, prompt or resource the server does not list fails, citing the
/// lists: before, a missing tool was looked up as an unannotated (so destructive) one and
/// skipped "by policy", and the expectations gate passed. A skip by policy stays for a tool
/// that is listed with annotations the policy refuses; a URI a listed template describes is
/// listed.
#[test]
fn an_expectation_of_an_item_the_server_does_not_list_fails_citing_the_lists() {
    let expect = "[[default.servers.expect]]\nname = \"lookup finds\"\ncall = \"lookup\"\n\n\
         [[default.servers.expect]]\nname = \"summary prompt\"\nprompt = \"summary\"\n\n\
         [[default.servers.expect]]\nname = \"gone resource\"\nresource = \"fixture://gone\"\n\n\
         [[default.servers.expect]]\nname = \"a note reads\"\nresource = \"fixture://notes/7\"\n\
         contains = [\"note 7\"]\n\n\
         [[default.servers.expect]]\nname = \"echo answers\"\ncall = \"echo\"\n\
         arguments = { message = \"hi\" }\ncontains = [\"hi\"]\n\n\
         [[default.servers.expect]]\nname = \"drop the table\"\ncall = \"drop_table\"\n";
    let (code, found, out) = gate(&error_answers("", expect));
    assert_eq!(code, Some(1), "the gate fails: {out}");
    for (id, said) in [
        (
            "expect.lookup_finds",
            "lookup is not in tools/list (7 tools listed)",
        ),
        (
            "expect.summary_prompt",
            "summary is not in prompts/list (1 prompt listed)",
        ),
        (
            "expect.gone_resource",
            "fixture://gone` is not in resources/list (1 resource listed) and matches none of resources/templates/list (1 template listed)",
        ),
    ] {
        let f = by_id(&found, id);
        assert_eq!(f["status"], "fail", "{f:#}");
        assert!(detail(f).contains(said), "{f:#}");
        assert!(
            !f["evidence"].as_array().expect("evidence").is_empty(),
            "the list exchanges are cited: {f:#}"
        );
    }
    for twin in ["expect.a_note_reads", "expect.echo_answers"] {
        assert_eq!(by_id(&found, twin)["status"], "pass", "{found:#?}");
    }
    let refused = by_id(&found, "expect.drop_the_table");
    assert_eq!(refused["status"], "skip", "{refused:#}");
    assert_eq!(refused["skip_reason"], "policy", "{refused:#}");
    assert!(detail(refused).contains("destructive"), "{refused:#}");
}

/// A JSONPath query that is not singular (here a wildcard) yields a node list, compared as
/// an array however many nodes it selects: before, one tag was compared as a scalar and
/// `tags[*] = ["noun"]` failed a server that returned exactly that. A singular query
/// (`tags[0]`) yields the value itself.
#[test]
fn a_wildcard_path_is_compared_as_an_array_even_for_one_value() {
    let expect = "[[default.servers.expect]]\nname = \"tags as a list\"\ncall = \"tags\"\n\
         json = { \"$.structuredContent.tags[*]\" = [\"noun\"] }\n\n\
         [[default.servers.expect]]\nname = \"first tag\"\ncall = \"tags\"\n\
         json = { \"$.structuredContent.tags[0]\" = \"noun\" }\n\n\
         [[default.servers.expect]]\nname = \"tags as a scalar\"\ncall = \"tags\"\n\
         json = { \"$.structuredContent.tags[*]\" = \"noun\" }\n";
    let (_, found, out) = gate(&error_answers("", expect));
    assert_eq!(
        by_id(&found, "expect.tags_as_a_list")["status"],
        "pass",
        "{found:#?}\n{out}"
    );
    assert_eq!(by_id(&found, "expect.first_tag")["status"], "pass");
    let scalar = by_id(&found, "expect.tags_as_a_scalar");
    assert_eq!(scalar["status"], "fail", "{scalar:#}");
    assert!(
        detail(scalar).contains("expected \"noun\", received [\"noun\"]"),
        "{scalar:#}"
    );
    // Two tags: the same list expectation compares the whole list.
    let (_, found, _) = gate(&error_answers("TAGS = \"noun,verb\"", expect));
    let two = by_id(&found, "expect.tags_as_a_list");
    assert_eq!(two["status"], "fail", "{two:#}");
    assert!(
        detail(two).contains("expected [\"noun\"], received [\"noun\",\"verb\"]"),
        "{two:#}"
    );
}

/// A request that takes several round trips (2026-07-28 `input_required`) is timed from its
/// first send to its final result: before, only the last round was, so a tool that took
/// 1.5 s before asking for input passed a 1000 ms budget. The quick twin holds.
#[test]
fn max_ms_times_a_multi_round_request_from_its_first_send() {
    let config = |delay: &str| {
        format!(
            "[[default.servers]]\nname = \"rounds\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
             stdio_set = {{ INPUT_FIRST_DELAY_MS = \"{delay}\" }}\n\n\
             [[default.servers.expect]]\nname = \"counting stays within a second\"\n\
             call = \"count_to_three\"\ncontains = [\"three\"]\nmax_ms = 1000\n",
            fixture("input_required.py").display().to_string()
        )
    };
    let (code, found, out) = gate(&config("1500"));
    assert_eq!(code, Some(1), "{out}");
    let slow = by_id(&found, "expect.counting_stays_within_a_second");
    assert_eq!(slow["status"], "fail", "{slow:#}");
    assert_eq!(slow["era"], "modern", "the multi-round wire: {slow:#}");
    assert!(
        detail(slow).contains("expected an answer within 1000 ms"),
        "{slow:#}"
    );
    let (code, found, out) = gate(&config("0"));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        by_id(&found, "expect.counting_stays_within_a_second")["status"],
        "pass"
    );
}

/// A list that failed says nothing of what the server offers: an expectation of a prompt
/// looked up in a `prompts/list` that answered with an error is not assessed, where before
/// it failed as "not in prompts/list (0 prompts listed)" on a server that still has it. The
/// twin: the same list read whole, and the prompt there, holds.
#[test]
fn an_expectation_looked_up_in_a_list_that_failed_is_not_assessed() {
    let config = |set: &str| {
        format!(
            "[[default.servers]]\nname = \"items\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
             stdio_set = {{ {set} }}\n\n\
             [[default.servers.expect]]\nname = \"greet prompt\"\nprompt = \"greet\"\n\
             arguments = {{ who = \"scout\" }}\n",
            fixture("snapshot_items.py").display().to_string()
        )
    };
    let (_, found, out) = gate(&config("SNAPSHOT_PROMPTS_FAIL = \"1\""));
    let f = by_id(&found, "expect.greet_prompt");
    assert_eq!(
        (f["status"].as_str(), f["skip_reason"].as_str()),
        (Some("skip"), Some("not_assessed")),
        "{f:#}\n{out}"
    );
    assert!(
        detail(f).contains("prompts/list` could not be read whole"),
        "{f:#}"
    );
    let (code, found, out) = gate(&config(""));
    assert_eq!(
        by_id(&found, "expect.greet_prompt")["status"],
        "pass",
        "{out}"
    );
    assert_eq!(code, Some(0), "{out}");
}
