//! The command line: exit codes, usage errors, generated completions and man page.

use crate::common::{Scout, closed_port, workspace};

#[test]
fn help_reads_and_exits_zero() {
    let r = Scout::new().args(["check", "--help"]).run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    for heading in [
        "Target:",
        "Reports:",
        "Gate:",
        "Run:",
        "Safety:",
        "--fail-under-category",
    ] {
        assert!(
            r.stdout.contains(heading),
            "missing {heading}:\n{}",
            r.stdout
        );
    }
}

#[test]
fn unknown_flag_is_exit_2() {
    let r = Scout::new().args(["check", "--no-such-flag"]).run();
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--no-such-flag"), "{}", r.stderr);
}

#[test]
fn bad_flag_values_are_exit_2() {
    for args in [
        vec!["check", "http://127.0.0.1:1/mcp", "--fail-under", "101"],
        vec![
            "check",
            "http://127.0.0.1:1/mcp",
            "--fail-under-category",
            "protocl=90",
        ],
        vec!["check", "http://127.0.0.1:1/mcp", "--timeout", "10 sec"],
        vec!["check", "http://127.0.0.1:1/mcp", "--shard", "3/2"],
        vec!["check", "http://127.0.0.1:1/mcp", "--fail-on", "severe"],
    ] {
        let r = Scout::new().args(&args).run();
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn bad_config_is_exit_2() {
    let dir = workspace(Some("[default]\nfail_under = \"lots\"\n"));
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "http://127.0.0.1:1/mcp"])
        .run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("scout.toml"), "{}", r.stderr);
    assert_eq!(r.stderr.trim().lines().count(), 1, "one line: {}", r.stderr);
}

#[test]
fn credentials_with_stdio_are_refused() {
    for extra in [
        ["--token-env", "TOKEN"],
        ["--header", "Authorization=env:TOKEN"],
    ] {
        let r = Scout::new()
            .args(["check", "--stdio"])
            .args(extra)
            .args(["--", "python3", "server.py"])
            .run();
        assert_eq!(r.code, Some(2), "{}", r.stderr);
        assert!(r.stderr.contains(extra[0]), "{}", r.stderr);
        assert!(r.stderr.contains("--stdio"), "{}", r.stderr);
    }
}

#[test]
fn nothing_to_check_is_exit_2() {
    let dir = workspace(None);
    let r = Scout::new().dir(dir.path()).args(["check"]).run();
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("nothing to check"), "{}", r.stderr);
}

/// An unreachable server is a failed gate (exit 1) with the reason on stderr, never a crash.
#[test]
fn unreachable_server_fails_the_gate() {
    let dir = workspace(None);
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", &url, "--fail-under", "80", "--timeout", "2s"])
        .run();
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("gate failed:"), "{}", r.stderr);
    assert!(r.stdout.contains("gate: FAILED"), "{}", r.stdout);
}

#[test]
fn unwritable_report_is_exit_3() {
    let dir = workspace(None);
    // A report path below a regular file can never be created.
    std::fs::write(dir.path().join("blocker"), "x").expect("write");
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            &url,
            "--timeout",
            "2s",
            "--json",
            "blocker/report.json",
        ])
        .run();
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(
        r.stderr.contains("could not write the json report"),
        "{}",
        r.stderr
    );
}

#[test]
fn out_dir_gets_fixed_names() {
    let dir = workspace(None);
    let url = format!("http://127.0.0.1:{}/mcp", closed_port());
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            &url,
            "--timeout",
            "2s",
            "--out-dir",
            "reports",
            "-q",
        ])
        .run();
    // 0 with the skeleton's transport, 1 once the unreachable server is a finding.
    assert!(matches!(r.code, Some(0 | 1)), "{:?} {}", r.code, r.stderr);
    for name in [
        "scout.json",
        "junit.xml",
        "scout.sarif",
        "summary.md",
        "gitlab-codequality.json",
        "events.ndjson",
    ] {
        assert!(
            dir.path().join("reports").join(name).is_file(),
            "{name} missing"
        );
    }
    assert!(dir.path().join("reports/har").is_dir());
    assert!(
        r.stdout.is_empty(),
        "-q prints no terminal report: {}",
        r.stdout
    );
}

#[test]
fn completions_and_man_are_generated() {
    let r = Scout::new().args(["completions", "bash"]).run();
    assert_eq!(r.code, Some(0));
    assert!(
        r.stdout.contains("_scout()"),
        "{}",
        &r.stdout[..r.stdout.len().min(300)]
    );
    assert!(r.stdout.contains("--fail-under"));
    let r = Scout::new().args(["man"]).run();
    assert_eq!(r.code, Some(0));
    assert!(
        r.stdout.starts_with(".ie") || r.stdout.contains(".TH scout"),
        "{}",
        &r.stdout[..r.stdout.len().min(300)]
    );
}

/// `--shard I/N` splits the config's servers into disjoint, stable subsets that together
/// cover every server.
#[test]
fn shards_partition_the_servers() {
    let names: Vec<String> = (1..=8).map(|i| format!("srv-{i}")).collect();
    let mut config = String::new();
    for n in &names {
        config.push_str(&format!(
            "[[default.servers]]\nname = \"{n}\"\nurl = \"http://127.0.0.1:{}/mcp\"\n\n",
            closed_port()
        ));
    }
    let dir = workspace(Some(&config));
    let checked = |shard: &str| -> Vec<String> {
        let r = Scout::new()
            .dir(dir.path())
            .args(["check", "--timeout", "2s", "--shard", shard])
            .run();
        assert!(matches!(r.code, Some(0 | 1)), "{shard}: {}", r.stderr);
        names
            .iter()
            .filter(|n| r.stdout.lines().any(|l| l.starts_with(&format!("{n}  "))))
            .cloned()
            .collect()
    };
    let first = checked("1/2");
    let second = checked("2/2");
    assert_eq!(first, checked("1/2"), "stable between runs");
    assert!(
        first.iter().all(|n| !second.contains(n)),
        "{first:?} {second:?}"
    );
    assert_eq!(
        first.len() + second.len(),
        names.len(),
        "{first:?} {second:?}"
    );
    // Without a shard, every server is in the one report.
    assert_eq!(checked("1/1").len(), names.len());
}
