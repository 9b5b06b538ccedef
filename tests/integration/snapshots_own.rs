//! Snapshots (`scout check --snapshots DIR`, docs/expectations.md): the catalogue and the
//! read-only call results kept one file per item, compared on later runs, reviewed and
//! accepted like insta's pending `.new` files.

use std::path::Path;

use serde_json::Value;

use crate::common::{Scout, fixture, workspace};

fn config(version: &str) -> String {
    format!(
        "[[default.servers]]\nname = \"status\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
         stdio_set = {{ SNAPSHOT_VERSION = \"{version}\" }}\n",
        fixture("changing_result.py").display().to_string()
    )
}

/// Runs `scout check` in `dir` with the snapshot folder `snaps` and `extra` flags.
fn check(dir: &Path, version: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    std::fs::write(dir.join("scout.toml"), config(version)).expect("config");
    let run = Scout::new()
        .dir(dir)
        .args(["-q", "check", "--out-dir", "out", "--snapshots", "snaps"])
        .args([
            "--snapshot-ignore",
            "$.._meta",
            "--snapshot-ignore",
            "$..took_ms",
        ])
        .args(extra)
        .run();
    let text = std::fs::read_to_string(dir.join("out/scout.json")).expect("scout.json");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let snapshot = report["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["id"] == "expect.snapshot")
        .cloned()
        .unwrap_or(Value::Null);
    (
        run.code,
        snapshot,
        format!("{}\n{}", run.stdout, run.stderr),
    )
}

/// The gate the author would set: every expectation and snapshot must hold.
const GATE: &[&str] = &["--fail-under-category", "expectations=100"];

fn pending(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.to_string_lossy().ends_with(".new") {
                out.push(p.display().to_string());
            }
        }
    }
    walk(dir, &mut out);
    out.sort();
    out
}

#[test]
fn a_changed_result_fails_with_a_diff_masked_values_do_not_and_update_accepts_it() {
    let dir = workspace(None);
    let snaps = dir.path().join("snaps");

    // First run: nothing stored yet, so every item is pending and nothing fails (without a
    // category threshold: an info alone leaves the category not assessed).
    let (code, f, out) = check(dir.path(), "1", &[]);
    assert_eq!(f["status"], "info", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");
    let first = pending(&snaps);
    assert!(
        first
            .iter()
            .any(|p| p.ends_with("status/calls/status.json.new"))
            && first
                .iter()
                .any(|p| p.ends_with("status/tools/status.json.new")),
        "{first:?}"
    );

    // Review lists them; accepting moves them over the stored files.
    let review = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "review", "snaps"])
        .run();
    assert_eq!(review.code, Some(0), "{}", review.stderr);
    assert!(review.stdout.contains("new: "), "{}", review.stdout);
    assert!(
        review
            .stdout
            .contains(&format!("{} pending snapshot(s)", first.len())),
        "{}",
        review.stdout
    );
    let accept = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "accept", "snaps"])
        .run();
    assert_eq!(accept.code, Some(0), "{}", accept.stderr);
    assert!(pending(&snaps).is_empty());
    let stored = std::fs::read_to_string(snaps.join("status/calls/status.json")).expect("stored");
    for masked in ["[uuid]", "[timestamp]", "[ignored]"] {
        assert!(stored.contains(masked), "{masked} in {stored}");
    }

    // Same server, new UUID, time, counter and took_ms: the masks hold, the snapshot passes.
    let (code, f, out) = check(dir.path(), "1", GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");

    // A real change fails with a unified diff, and the gate fails.
    let (code, f, out) = check(dir.path(), "2", GATE);
    assert_eq!(f["status"], "fail", "{f:#}\n{out}");
    assert_eq!(code, Some(1), "{out}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("calls/status.json"), "{detail}");
    let line = |sign: char, v: &str| {
        detail
            .lines()
            .any(|l| l.starts_with(sign) && l.trim_start_matches(sign).trim() == v)
    };
    assert!(line('-', r#""version": "1""#), "{detail}");
    assert!(line('+', r#""version": "2""#), "{detail}");
    assert!(
        !f["evidence"].as_array().expect("evidence").is_empty(),
        "{f:#}"
    );
    let review = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "review", "snaps"])
        .run();
    assert!(review.stdout.contains("changed: "), "{}", review.stdout);
    assert!(
        review.stdout.contains(r#"+      "version": "2""#),
        "{}",
        review.stdout
    );

    // --update-snapshots accepts the new state; the next run passes.
    let (code, f, out) = check(dir.path(), "2", &["--update-snapshots", GATE[0], GATE[1]]);
    assert_eq!(code, Some(0), "{f:#}\n{out}");
    assert!(pending(&snaps).is_empty(), "{:?}", pending(&snaps));
    let (code, f, out) = check(dir.path(), "2", GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");

    // Rejecting drops a pending file and keeps the stored one.
    let (_, f, _) = check(dir.path(), "3", &[]);
    assert_eq!(f["status"], "fail", "{f:#}");
    let reject = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "reject", "snaps"])
        .run();
    assert_eq!(reject.code, Some(0), "{}", reject.stderr);
    assert!(pending(&snaps).is_empty());
    let kept = std::fs::read_to_string(snaps.join("status/calls/status.json")).expect("kept");
    assert!(kept.contains("\"version\": \"2\""), "{kept}");
}

#[test]
fn a_bad_ignore_pattern_is_a_usage_error() {
    let dir = workspace(Some(&config("1")));
    let run = Scout::new()
        .dir(dir.path())
        .args(["check", "--snapshots", "snaps", "--snapshot-ignore", "$[?"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid --snapshot-ignore"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

#[test]
fn review_of_a_missing_folder_is_a_one_line_error() {
    let dir = workspace(None);
    let run = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "review", "nowhere"])
        .run();
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

/// The catalogue snapshot and `scout pin` share one canonical form: each tool's and prompt's
/// snapshot file, read back and hashed as compact JSON, is the hash `scout.lock` pinned.
#[test]
fn pin_and_the_catalogue_snapshot_hash_the_same_bytes() {
    use sha2::{Digest, Sha256};
    let demo = crate::servers::demo_stdio();
    let config = format!(
        "[[default.servers]]\nname = \"demo\"\ncommand = {}\n",
        serde_json::to_string(&demo).expect("JSON array")
    );
    let dir = workspace(Some(&config));
    let pin = Scout::new().dir(dir.path()).args(["pin"]).run();
    assert_eq!(pin.code, Some(0), "{}\n{}", pin.stdout, pin.stderr);
    let (_, f, out) = check_demo(dir.path());
    assert_eq!(f["status"], "info", "{f:#}\n{out}");
    let lock: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.path().join("scout.lock")).expect("lock"))
            .expect("TOML");
    let server = &lock["servers"].as_array().expect("servers")[0];
    let mut compared = 0;
    for (list, folder) in [("tools", "tools"), ("prompts", "prompts")] {
        for entry in server[list].as_array().expect("entries") {
            let name = entry["name"].as_str().expect("name");
            let file = dir
                .path()
                .join(format!("snaps/demo/{folder}/{name}.json.new"));
            let text = std::fs::read_to_string(&file).expect("snapshot file");
            let v: Value = serde_json::from_str(&text).expect("JSON");
            let compact = serde_json::to_string(&v).expect("compact");
            let hex: String = Sha256::digest(compact.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(
                format!("sha256:{hex}"),
                entry["hash"].as_str().expect("hash"),
                "{name}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 5, "4 tools and 1 prompt");
}

/// `scout check --snapshots snaps` in `dir` with its scout.toml as it is.
fn check_demo(dir: &Path) -> (Option<i32>, Value, String) {
    let run = Scout::new()
        .dir(dir)
        .args(["-q", "check", "--out-dir", "out", "--snapshots", "snaps"])
        .run();
    let text = std::fs::read_to_string(dir.join("out/scout.json")).expect("scout.json");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let f = report["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["id"] == "expect.snapshot")
        .cloned()
        .unwrap_or(Value::Null);
    (run.code, f, format!("{}\n{}", run.stdout, run.stderr))
}

/// The snapshot keys in the config file alone: the folder is relative to the file (not to
/// where scout runs), the ignore list masks as the flag does, `update_snapshots` accepts, and
/// a change fails the gate with the diff readable in the JUnit and Markdown reports.
#[test]
fn config_keys_alone_write_and_compare_snapshots_and_the_diff_reaches_junit_and_markdown() {
    let dir = workspace(None);
    std::fs::create_dir_all(dir.path().join("cfg")).expect("cfg");
    let run = |version: &str, update: bool| {
        let toml = format!(
            "[default]\nsnapshots = \"snaps\"\nsnapshot_ignore = [\"$.._meta\", \"$..took_ms\"]\n\
             update_snapshots = {update}\nformats = [\"json\", \"junit\", \"markdown\"]\n\
             fail_under_category = {{ expectations = 100 }}\n{}",
            config(version)
        );
        std::fs::write(dir.path().join("cfg/scout.toml"), toml).expect("config");
        let run = Scout::new()
            .dir(dir.path())
            .args([
                "-q",
                "check",
                "--config",
                "cfg/scout.toml",
                "--out-dir",
                "out",
            ])
            .run();
        let text = std::fs::read_to_string(dir.path().join("out/scout.json")).expect("json");
        let report: Value = serde_json::from_str(&text).expect("JSON");
        let f = report["servers"][0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["id"] == "expect.snapshot")
            .cloned()
            .unwrap_or(Value::Null);
        (run.code, f, format!("{}\n{}", run.stdout, run.stderr))
    };

    // update_snapshots = true writes the stored files beside the config, none pending.
    let (code, _, out) = run("1", true);
    assert_eq!(code, Some(0), "{out}");
    let snaps = dir.path().join("cfg/snaps");
    let stored = std::fs::read_to_string(snaps.join("status/calls/status.json"))
        .unwrap_or_else(|e| panic!("stored beside the config: {e}\n{out}"));
    assert!(
        stored.contains("[ignored]"),
        "the ignore list masked: {stored}"
    );
    assert!(pending(&snaps).is_empty(), "{:?}", pending(&snaps));
    assert!(
        !dir.path().join("snaps").exists(),
        "not relative to the cwd"
    );

    // Same version, new random took_ms and _meta: the masks hold.
    let (code, f, out) = run("1", false);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");

    // A real change: the gate fails, and both reports carry the diff line by line.
    let (code, f, out) = run("2", false);
    assert_eq!(f["status"], "fail", "{f:#}\n{out}");
    assert_eq!(code, Some(1), "{out}");
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).expect("junit");
    let md = std::fs::read_to_string(dir.path().join("out/summary.md")).expect("markdown");
    for (name, text) in [("junit", &junit), ("markdown", &md)] {
        assert!(text.contains("expect.snapshot"), "{name}: {text}");
        assert!(text.contains("calls/status.json"), "{name}: {text}");
        // Readable: each side of the change on a line of its own (in Markdown's table cell,
        // lines apart by `<br>`), quotes and spaces as the reader sees them rendered.
        let lines: Vec<String> = text
            .lines()
            .flat_map(|l| l.split("<br>"))
            .map(|l| {
                l.replace("&quot;", "\"")
                    .replace("&nbsp;", " ")
                    .trim()
                    .to_string()
            })
            .collect();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with('-') && l.ends_with(r#""version": "1""#)),
            "{name}: {text}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with('+') && l.ends_with(r#""version": "2""#)),
            "{name}: {text}"
        );
    }
}

/// A flag replaces the file's folder (and is relative to where scout runs); snapshot keys
/// that cannot work are one-line usage errors whether they come from the file or a flag.
#[test]
fn the_snapshots_flag_overrides_the_file_and_bad_snapshot_keys_are_usage_errors() {
    let dir = workspace(None);
    std::fs::create_dir_all(dir.path().join("cfg")).expect("cfg");
    let write = |top: &str| {
        std::fs::write(
            dir.path().join("cfg/scout.toml"),
            format!("[default]\n{top}\n{}", config("1")),
        )
        .expect("config");
    };
    write("snapshots = \"from_file\"\nupdate_snapshots = true");
    let run = Scout::new()
        .dir(dir.path())
        .args(["-q", "check", "--config", "cfg/scout.toml"])
        .args(["--snapshots", "from_flag"])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        dir.path()
            .join("from_flag/status/calls/status.json")
            .is_file(),
        "the flag's folder, relative to the working directory: {}",
        run.stderr
    );
    assert!(!dir.path().join("cfg/from_file").exists());
    // `SCOUT_SNAPSHOTS` also replaces the file's folder, relative to the working directory.
    let run = Scout::new()
        .dir(dir.path())
        .env("SCOUT_SNAPSHOTS", "from_env")
        .args(["-q", "check", "--config", "cfg/scout.toml"])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        dir.path()
            .join("from_env/status/calls/status.json")
            .is_file(),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("cfg/from_file").exists());

    for (top, flags, needle) in [
        (
            "snapshots = \"s\"\nsnapshot_ignore = [\"$[?\"]",
            &[][..],
            "snapshot_ignore",
        ),
        ("update_snapshots = true", &[][..], "snapshot folder"),
        ("", &["--update-snapshots"][..], "snapshot folder"),
    ] {
        write(top);
        let run = Scout::new()
            .dir(dir.path())
            .args(["check", "--config", "cfg/scout.toml"])
            .args(flags)
            .run();
        assert_eq!(run.code, Some(2), "{top} {flags:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{top}: {}", run.stderr);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    }
}

/// `scout check --snapshots snaps` of `snapshot_items.py` in `dir`, with `set` as the
/// server's environment and `extra` flags: the exit code and the snapshot finding.
fn check_items(dir: &Path, set: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    std::fs::write(
        dir.join("scout.toml"),
        format!(
            "[[default.servers]]\nname = \"items\"\ncommand = [\"python3\", {:?}, \"stdio\"]\n\
             stdio_set = {{ {set} }}\n",
            fixture("snapshot_items.py").display().to_string()
        ),
    )
    .expect("config");
    let run = Scout::new()
        .dir(dir)
        .args(["-q", "check", "--out-dir", "out", "--snapshots", "snaps"])
        .args([
            "--only",
            "discovery,handshake,catalog,execution,expectations",
        ])
        .args(extra)
        .run();
    let text = std::fs::read_to_string(dir.join("out/scout.json")).expect("scout.json");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    let f = report["servers"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["id"] == "expect.snapshot")
        .cloned()
        .unwrap_or(Value::Null);
    (run.code, f, format!("{}\n{}", run.stdout, run.stderr))
}

/// The stored snapshot files under `dir` (no pending ones), relative to it, sorted.
fn stored(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(d: &Path, base: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                let rel = p.strip_prefix(base).expect("under base");
                out.push(rel.display().to_string());
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Tools `a b` and `a_b`, and resources `x://item/1` and `x://item:1`, read alike once
/// every character outside `[A-Za-z0-9._-]` is `_`: before, each pair shared one file, one
/// overwrote the other, and every later run of the unchanged server failed. Each item now
/// has a file of its own, a name that needed no change keeps it, and the unchanged server
/// passes. A file stored under the old name of an item that shared it with nobody
/// (`x___solo.json`) is still that item's.
#[test]
fn items_whose_names_read_alike_get_files_of_their_own_and_old_names_are_kept() {
    let dir = workspace(None);
    let (code, f, out) = check_items(dir.path(), "", &["--update-snapshots"]);
    assert_eq!(code, Some(0), "{f:#}\n{out}");
    let snaps = dir.path().join("snaps/items");
    let files = stored(&snaps);
    for plain in ["tools/a_b.json", "calls/a_b.json", "tools/lookup.json"] {
        assert!(files.iter().any(|f| f == plain), "{plain}: {files:?}");
    }
    let spaced = files.iter().filter(|f| f.starts_with("tools/a_b@")).count();
    let items = files
        .iter()
        .filter(|f| f.starts_with("resources/x___item_1@"))
        .count();
    assert_eq!((spaced, items), (1, 2), "{files:?}");

    let (code, f, out) = check_items(dir.path(), "", GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");

    // A folder written before names were one to one: x://solo under its old name.
    let solo = files
        .iter()
        .find(|f| f.starts_with("resources/x___solo@"))
        .expect("x://solo's file");
    std::fs::rename(snaps.join(solo), snaps.join("resources/x___solo.json")).expect("rename");
    let (code, f, out) = check_items(dir.path(), "", GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");
    let files = stored(&snaps);
    assert!(
        files.iter().any(|f| f == "resources/x___solo.json")
            && !files.iter().any(|f| f.starts_with("resources/x___solo@")),
        "the old name is kept: {files:?}"
    );
    assert!(pending(&snaps).is_empty(), "{:?}", pending(&snaps));
}

/// What is gone is a difference: a tool the server no longer lists (and its call) fails,
/// naming each stored file and why, until the removal is accepted; a server whose lists
/// are now empty fails for every stored file. Before, only this run's items were compared,
/// and both passed.
#[test]
fn a_stored_snapshot_without_an_item_fails_until_its_removal_is_accepted() {
    let dir = workspace(None);
    let (code, _, out) = check_items(dir.path(), "", &["--update-snapshots"]);
    assert_eq!(code, Some(0), "{out}");
    let snaps = dir.path().join("snaps/items");
    let before = stored(&snaps);

    // `lookup` removed.
    let (code, f, out) = check_items(dir.path(), "SNAPSHOT_DROP = \"lookup\"", GATE);
    assert_eq!(f["status"], "fail", "{f:#}\n{out}");
    assert_eq!(code, Some(1), "{out}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("tools/lookup.json (no such tool in this run)")
            && detail.contains("calls/lookup.json (no answered call of this read-only tool"),
        "{detail}"
    );
    let review = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "review", "snaps"])
        .run();
    assert!(
        review.stdout.contains("gone: ") && review.stdout.contains("no such tool in this run"),
        "{}",
        review.stdout
    );
    // Rejecting keeps the file, and the next run still fails; accepting removes it.
    let reject = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "reject", "snaps"])
        .run();
    assert_eq!(reject.code, Some(0), "{}", reject.stderr);
    assert_eq!(stored(&snaps), before);
    let (code, f, _) = check_items(dir.path(), "SNAPSHOT_DROP = \"lookup\"", GATE);
    assert_eq!(
        (code, f["status"].as_str()),
        (Some(1), Some("fail")),
        "{f:#}"
    );
    let accept = Scout::new()
        .dir(dir.path())
        .args(["snapshots", "accept", "snaps"])
        .run();
    assert_eq!(accept.code, Some(0), "{}", accept.stderr);
    assert!(accept.stdout.contains("removed: "), "{}", accept.stdout);
    let after = stored(&snaps);
    assert!(
        !after.iter().any(|f| f.contains("lookup")),
        "removed: {after:?}"
    );
    assert!(pending(&snaps).is_empty(), "{:?}", pending(&snaps));
    let (code, f, out) = check_items(dir.path(), "SNAPSHOT_DROP = \"lookup\"", GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");

    // Every list empty: every stored file is gone, and --update-snapshots removes them.
    let (code, f, out) = check_items(dir.path(), "SNAPSHOT_EMPTY = \"1\"", GATE);
    assert_eq!(f["status"], "fail", "{f:#}\n{out}");
    assert_eq!(code, Some(1), "{out}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains(&format!("{} stored snapshot(s) have no item", after.len()))
            && detail.contains("prompts/greet.json (no such prompt in this run)"),
        "{detail}"
    );
    let (code, f, out) = check_items(
        dir.path(),
        "SNAPSHOT_EMPTY = \"1\"",
        &["--update-snapshots", GATE[0], GATE[1]],
    );
    assert_eq!(code, Some(0), "{f:#}\n{out}");
    assert!(stored(&snaps).is_empty(), "{:?}", stored(&snaps));
    assert!(pending(&snaps).is_empty(), "{:?}", pending(&snaps));
}

/// Only what this run enumerated can be judged gone. A run narrowed with `--skip
/// execution` has no answered call, and a `prompts/list` that failed lists no prompt: the
/// stored call and prompt files of the unchanged server are kept and reported as not
/// compared, never failed as gone, and `--update-snapshots` does not delete them. An
/// expectation of a prompt looked up in the failed list is not assessed. The twin: a tool
/// the server really dropped still fails, its call file with it.
#[test]
fn a_narrowed_run_or_a_failed_list_judges_nothing_gone() {
    let dir = workspace(None);
    let (code, _, out) = check_items(dir.path(), "", &["--update-snapshots"]);
    assert_eq!(code, Some(0), "{out}");
    let snaps = dir.path().join("snaps/items");
    let before = stored(&snaps);
    assert!(
        before.iter().any(|f| f == "calls/lookup.json"),
        "{before:?}"
    );

    let narrowed = ["--skip", "execution", GATE[0], GATE[1]];
    let (code, f, out) = check_items(dir.path(), "SNAPSHOT_PROMPTS_FAIL = \"1\"", &narrowed);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("calls/lookup.json (the tool is still listed")
            && detail.contains("prompts/greet.json (prompts/list could not be read whole"),
        "{detail}"
    );
    let (code, f, out) = check_items(
        dir.path(),
        "SNAPSHOT_PROMPTS_FAIL = \"1\"",
        &["--skip", "execution", "--update-snapshots"],
    );
    assert_eq!(code, Some(0), "{f:#}\n{out}");
    assert_eq!(stored(&snaps), before, "nothing unseen is removed");

    // The twin: `lookup` really dropped, from a list read whole, with the same narrowing.
    let (code, f, out) = check_items(dir.path(), "SNAPSHOT_DROP = \"lookup\"", &narrowed);
    assert_eq!(f["status"], "fail", "{f:#}\n{out}");
    assert_eq!(code, Some(1), "{out}");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("tools/lookup.json (no such tool")
            && detail.contains("calls/lookup.json (no answered call"),
        "{detail}"
    );
}

/// A resource URI longer than a file name may be: before, its snapshot could not be
/// written and the whole finding was not assessed, so the gate failed on a correct,
/// unchanged server. Its file now keeps the URI's start and the hash of all of it, and the
/// unchanged server passes (the twin without the long URI is every test above).
#[test]
fn a_name_longer_than_a_file_name_may_be_still_gets_a_snapshot() {
    let dir = workspace(None);
    let long = "SNAPSHOT_LONG_URI = \"1\"";
    let (code, f, out) = check_items(dir.path(), long, &["--update-snapshots"]);
    assert_eq!(
        (code, f["status"].as_str()),
        (Some(0), Some("pass")),
        "{f:#}\n{out}"
    );
    let (code, f, out) = check_items(dir.path(), long, GATE);
    assert_eq!(f["status"], "pass", "{f:#}\n{out}");
    assert_eq!(code, Some(0), "{out}");
    let files = stored(&dir.path().join("snaps/items"));
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("resources/x___llll") && f.len() < 200),
        "{files:?}"
    );
}
