//! Config layering (defaults < [default] < [profile] < SCOUT_* < flags), `config show`
//! sources, unknown keys and secrets, through the real binary.

use serde_json::Value;

use crate::common::{Scout, workspace};

const CONFIG: &str = r#"
[default]
fail_under = 70
timeout = "5s"
jobs = 3

[[default.servers]]
name = "everything"
url = "http://127.0.0.1:3001/mcp"
headers = { "X-Tenant" = "ci", "X-Api-Key" = "env:SCOUT_TEST_API_KEY", Authorization = "Bearer literal-secret-4711" }
token_env = "SCOUT_TEST_TOKEN"

[[default.servers]]
name = "time"
command = ["python3", "-m", "mcp_server_time"]
stdio_env = ["TZ"]
stdio_set = { API_TOKEN = "child-secret-0815", MODE = "test" }

[ci]
fail_under = 90
deadline = "1m"
"#;

/// `config show --format json` in a folder with `CONFIG`, plus extra args and env.
fn show(args: &[&str], env: &[(&str, &str)]) -> Value {
    let dir = workspace(Some(CONFIG));
    let mut s = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--format", "json"])
        .args(args);
    for (k, v) in env {
        s = s.env(k, v);
    }
    let r = s.run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    serde_json::from_str(&r.stdout).expect("config show prints JSON")
}

fn value<'a>(doc: &'a Value, key: &str) -> (&'a Value, &'a str) {
    let entry = &doc["values"][key];
    (
        &entry["value"],
        entry["source"]
            .as_str()
            .expect("every value names its source"),
    )
}

#[test]
fn built_in_defaults_are_the_lowest_layer() {
    let dir = workspace(None);
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--format", "json"])
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(value(&doc, "timeout"), (&Value::from("10s"), "default"));
    assert_eq!(value(&doc, "jobs"), (&Value::from(4), "default"));
    assert!(doc["file"].is_null());
}

#[test]
fn file_default_overrides_built_in() {
    let doc = show(&[], &[]);
    assert_eq!(
        value(&doc, "timeout"),
        (&Value::from("5s"), "scout.toml [default]")
    );
    assert_eq!(
        value(&doc, "fail_under"),
        (&Value::from(70), "scout.toml [default]")
    );
    assert_eq!(value(&doc, "deadline"), (&Value::from("120s"), "default"));
}

#[test]
fn profile_overrides_file_default() {
    let doc = show(&["--profile", "ci"], &[]);
    assert_eq!(doc["profile"], "ci");
    assert_eq!(
        value(&doc, "fail_under"),
        (&Value::from(90), "scout.toml [ci]")
    );
    assert_eq!(
        value(&doc, "deadline"),
        (&Value::from("1m"), "scout.toml [ci]")
    );
    // Keys the profile does not set still come from [default].
    assert_eq!(
        value(&doc, "timeout"),
        (&Value::from("5s"), "scout.toml [default]")
    );
}

#[test]
fn scout_profile_selects_a_profile() {
    let doc = show(&[], &[("SCOUT_PROFILE", "ci")]);
    assert_eq!(doc["profile"], "ci");
    assert_eq!(
        value(&doc, "fail_under"),
        (&Value::from(90), "scout.toml [ci]")
    );
}

#[test]
fn environment_overrides_the_profile() {
    let doc = show(
        &["--profile", "ci"],
        &[("SCOUT_FAIL_UNDER", "95"), ("SCOUT_JOBS", "2")],
    );
    assert_eq!(
        value(&doc, "fail_under"),
        (&Value::from(95), "env SCOUT_FAIL_UNDER")
    );
    assert_eq!(value(&doc, "jobs"), (&Value::from(2), "env SCOUT_JOBS"));
}

#[test]
fn flags_beat_environment_and_selected_profile() {
    let doc = show(
        &["--profile", "ci", "--fail-under", "60", "--deadline", "30s"],
        &[("SCOUT_FAIL_UNDER", "95")],
    );
    assert_eq!(
        value(&doc, "fail_under"),
        (&Value::from(60), "flag --fail-under")
    );
    assert_eq!(
        value(&doc, "deadline"),
        (&Value::from("30s"), "flag --deadline")
    );
}

#[test]
fn text_form_names_each_source() {
    let dir = workspace(Some(CONFIG));
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--profile", "ci", "--rps", "5"])
        .env("SCOUT_JOBS", "2")
        .run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let line = |key: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("{key} missing:\n{}", r.stdout))
            .to_string()
    };
    assert!(
        line("fail_under").ends_with("# scout.toml [ci]"),
        "{}",
        r.stdout
    );
    assert!(
        line("timeout").ends_with("# scout.toml [default]"),
        "{}",
        r.stdout
    );
    assert!(line("jobs").ends_with("# env SCOUT_JOBS"), "{}", r.stdout);
    assert!(line("rps").ends_with("# flag --rps"), "{}", r.stdout);
    assert!(line("max_body").ends_with("# default"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("[[servers]]  # scout.toml [default] line 7"),
        "{}",
        r.stdout
    );
}

#[test]
fn unknown_key_names_key_and_file() {
    let dir = workspace(Some("[default]\nfail_under = 80\nfail_undr = 90\n"));
    for cmd in [
        vec!["config", "show"],
        vec!["check", "http://127.0.0.1:1/mcp"],
    ] {
        let r = Scout::new().dir(dir.path()).args(&cmd).run();
        assert_eq!(r.code, Some(2), "{cmd:?}: {}", r.stderr);
        assert!(r.stderr.contains("fail_undr"), "{}", r.stderr);
        assert!(r.stderr.contains("scout.toml:3"), "{}", r.stderr);
    }
    // Inside a server entry too.
    let dir = workspace(Some(
        "[[default.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\ntoken = \"x\"\n",
    ));
    let r = Scout::new().dir(dir.path()).args(["config", "show"]).run();
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("`token`") && r.stderr.contains("scout.toml:4"),
        "{}",
        r.stderr
    );
}

#[test]
fn explicit_config_must_exist_but_implicit_may_not() {
    let dir = workspace(None);
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--config", "missing.toml"])
        .run();
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("missing.toml"), "{}", r.stderr);
    let r = Scout::new().dir(dir.path()).args(["config", "show"]).run();
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn unknown_profile_is_a_config_error() {
    let dir = workspace(Some(CONFIG));
    let r = Scout::new()
        .dir(dir.path())
        .args(["config", "show", "--profile", "staging"])
        .run();
    assert_eq!(r.code, Some(2));
    assert!(
        r.stderr.contains("staging") && r.stderr.contains("[ci]"),
        "{}",
        r.stderr
    );
}

#[test]
fn invalid_servers_are_refused() {
    for (text, needle) in [
        (
            "[[default.servers]]\nname = \"a\"\n",
            "neither `url` nor `command`",
        ),
        (
            "[[default.servers]]\nname = \"a\"\nurl = \"http://h/\"\ncommand = [\"x\"]\n",
            "both `url` and `command`",
        ),
        (
            "[[default.servers]]\nname = \"a\"\nurl = \"http://h/\"\n[[default.servers]]\nname = \"a\"\nurl = \"http://h/\"\n",
            "unique",
        ),
        (
            "[[default.servers]]\nname = \"a\"\nurl = \"http://h/\"\ntimeout = \"fast\"\n",
            "timeout",
        ),
        (
            "[[default.servers]]\nname = \"a\"\ncommand = [\"x\"]\ntoken_env = \"T\"\n",
            "stdio",
        ),
        (
            "[default.checks]\nignore = [{ id = \"protocol.nope\", reason = \"r\" }]\n",
            "protocol.nope",
        ),
        (
            "[default.checks]\nignore = [{ id = \"protocol.batch\" }]\n",
            "reason",
        ),
    ] {
        let dir = workspace(Some(text));
        let r = Scout::new().dir(dir.path()).args(["config", "show"]).run();
        assert_eq!(r.code, Some(2), "{text}: {}", r.stderr);
        assert!(
            r.stderr.contains(needle),
            "{text}: expected {needle:?} in {}",
            r.stderr
        );
    }
}

/// Secrets never reach any output of `config show`: `env:` values and token variables are
/// shown by name, literal credentials are masked.
#[test]
fn config_show_never_prints_a_secret() {
    let token = "tok-9f8e7d6c5b4a-unique";
    let api_key = "key-1a2b3c4d5e6f-unique";
    for format in ["text", "json"] {
        let dir = workspace(Some(CONFIG));
        let r = Scout::new()
            .dir(dir.path())
            .args(["config", "show", "--format", format, "-vv"])
            .env("SCOUT_TEST_TOKEN", token)
            .env("SCOUT_TEST_API_KEY", api_key)
            .run();
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let all = r.all_output();
        for secret in [token, api_key, "literal-secret-4711", "child-secret-0815"] {
            assert!(!all.contains(secret), "{format}: {secret} leaked:\n{all}");
        }
        assert!(all.contains("env:SCOUT_TEST_API_KEY"), "{all}");
        assert!(all.contains("SCOUT_TEST_TOKEN"), "{all}");
        assert!(all.contains("X-Tenant") && all.contains("\"ci\""), "{all}");
    }
}

#[test]
fn settings_outside_a_profile_are_explained() {
    for text in [
        "fail_under = 80\n",
        "[checks]\nignore = []\n",
        "[[servers]]\nname = \"a\"\n",
        "[global]\nfail_under = 1\n",
    ] {
        let dir = workspace(Some(text));
        let r = Scout::new().dir(dir.path()).args(["config", "show"]).run();
        assert_eq!(r.code, Some(2), "{text}");
        assert!(
            r.stderr.contains("[default]") && r.stderr.contains("scout.toml"),
            "{}",
            r.stderr
        );
    }
}
