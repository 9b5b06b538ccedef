//! Token sources besides a command-line client secret: a secret file in the config, a token
//! file, a refresh token from the environment (Python SDK authorization server, which
//! rotates it), `scout auth login` with PKCE and the stored token `scout check` then uses, and
//! the one-server commands (`connect`, `tools`) getting their token the same way. Every
//! output is searched for the secrets involved.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::Value;

use crate::common::{HttpFixture, Scout};
use crate::oauth::{
    FIXTURE_CLIENT, FIXTURE_SECRET, artifacts, finding, py_oauth, read_json, server_report, walk,
};

#[test]
fn config_file_credentials_and_a_token_file() {
    let fixture = HttpFixture::start("oauth_server.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let secret_file = dir.path().join("secret");
    std::fs::write(&secret_file, format!("{FIXTURE_SECRET}\n")).expect("write");
    let config = format!(
        "[[default.servers]]\nname = \"fx\"\nurl = \"{}\"\nclient_id = \"{FIXTURE_CLIENT}\"\nclient_secret_file = \"{}\"\nscope = \"mcp\"\n",
        fixture.url,
        secret_file.display()
    );
    std::fs::write(dir.path().join("scout.toml"), config).expect("config");
    let json = dir.path().join("r.json");
    let run = Scout::new()
        .dir(dir.path())
        .args([
            "-q",
            "check",
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let server = server_report(&json);
    assert_eq!(
        server["era"], "dual",
        "the handshake went through with the token"
    );
    assert!(
        finding(&server, "auth.token_acquired")["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("client credentials")
    );

    // A config error: a secret read from two places.
    std::fs::write(
        dir.path().join("scout.toml"),
        format!(
            "[[default.servers]]\nname = \"fx\"\nurl = \"{}\"\nclient_id = \"c\"\nclient_secret_env = \"A\"\nclient_secret_file = \"b\"\n",
            fixture.url
        ),
    )
    .expect("config");
    let bad = Scout::new().dir(dir.path()).args(["check"]).run();
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("client_secret_env"), "{}", bad.stderr);

    // A ready token from a file (the requires_token fixture accepts `fixture-token`).
    let protected = HttpFixture::start("requires_token.py");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "fixture-token\n").expect("write");
    let json = dir.path().join("t.json");
    let run = Scout::new()
        .args([
            "-q",
            "check",
            &protected.url,
            "--only",
            "discovery,auth,handshake",
        ])
        .args(["--token-file".as_ref(), token_file.as_os_str()])
        .args(["--json".as_ref(), json.as_os_str()])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let server = server_report(&json);
    assert_eq!(server["era"], "dual");
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "info", "{f}");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("the file"),
        "{f}"
    );
    assert!(
        !std::fs::read_to_string(&json)
            .expect("report")
            .contains("fixture-token")
    );

    // A token file that does not exist: exit 2, naming it.
    let missing = Scout::new()
        .args(["check", &fixture.url, "--token-file"])
        .args([dir.path().join("no-such-token")])
        .run();
    assert_eq!(missing.code, Some(2), "{}", missing.stderr);
    assert!(
        missing.stderr.contains("no-such-token"),
        "{}",
        missing.stderr
    );
}

/// Plays the browser: GET `url` without following redirects; the status and `Location`.
fn browser_get(url: &str) -> (u16, Option<String>) {
    let u = url::Url::parse(url).expect("url");
    let host = u.host_str().expect("host");
    let port = u.port().expect("port");
    let mut sock = std::net::TcpStream::connect((host, port)).expect("connect");
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let path = match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_string(),
    };
    write!(
        sock,
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut text = String::new();
    sock.read_to_string(&mut text).expect("read");
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let location = text
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("location:"))
        .map(|l| l[9..].trim().to_string());
    (status, location)
}

#[test]
fn auth_login_with_pkce_stores_a_private_token_that_check_then_uses() {
    let server = py_oauth("unused-refresh-token-aa11");
    let home = tempfile::tempdir().expect("config home");
    let xdg = home.path().to_string_lossy().into_owned();
    let mut child = crate::common::command()
        .env("XDG_CONFIG_HOME", &xdg)
        .args([
            "auth",
            "login",
            &server.url,
            "--no-browser",
            "--wait",
            "60s",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scout runs");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut authorize = String::new();
    let mut seen = String::new();
    while authorize.is_empty() {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut stderr, &mut line).expect("read");
        assert!(n > 0, "scout printed no URL: {seen}");
        seen.push_str(&line);
        if line.starts_with("http") {
            authorize = line.trim().to_string();
        }
    }
    for part in [
        "code_challenge_method=S256",
        "code_challenge=",
        "state=",
        "resource=",
    ] {
        assert!(authorize.contains(part), "{part}: {authorize}");
    }
    // The authorization server approves at once and redirects to scout's loopback listener.
    let (status, location) = browser_get(&authorize);
    assert!((300..400).contains(&status), "{status}");
    let callback = location.expect("a redirect");
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    let code = url::Url::parse(&callback)
        .expect("url")
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("a code");
    let (status, _) = browser_get(&callback);
    assert_eq!(status, 200);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).expect("read");
    let status = child.wait().expect("scout exits");
    assert!(status.success(), "{seen}{rest}");
    assert!(rest.contains("token stored in"), "{rest}");
    assert!(
        !seen.contains(&code) && !rest.contains(&code),
        "the code was printed"
    );

    let files = walk(&home.path().join("scout/tokens"));
    assert_eq!(files.len(), 1, "{files:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0])
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let stored: Value = read_json(&files[0]);
    let access = stored["access_token"].as_str().expect("token").to_string();
    assert!(stored["refresh_token"].is_string());

    // `scout check` finds and uses the stored token; it never shows it.
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("XDG_CONFIG_HOME", &xdg)
        .args([
            "-vv",
            "check",
            &server.url,
            "--only",
            "discovery,auth,handshake",
            "--out-dir",
        ])
        .args([out.path()])
        .env("SCOUT_FORMATS", "json,har,events")
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = out.path().join("scout.json");
    let report = server_report(&json);
    assert!(
        finding(&report, "auth.token_acquired")["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("scout auth login"),
        "{report}"
    );
    for (name, text) in artifacts(&run, out.path()) {
        assert!(
            !text.contains(&access),
            "the stored token leaked into {name}"
        );
    }

    // Not in CI.
    let ci = Scout::new()
        .env("CI", "true")
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["auth", "login", &server.url])
        .run();
    assert_eq!(ci.code, Some(2), "{}", ci.stderr);
    assert!(ci.stderr.contains("CI=true"), "{}", ci.stderr);
    // Logout forgets it.
    let out = Scout::new()
        .env("XDG_CONFIG_HOME", &xdg)
        .args(["auth", "logout", &server.url])
        .run();
    assert_eq!(out.code, Some(0));
    assert!(walk(&home.path().join("scout/tokens")).is_empty());
}

#[test]
fn a_refresh_token_from_the_environment_is_exchanged_at_the_start_and_never_shown() {
    let refresh = "rt-seeded-3f9c1b7e5a2d";
    let server = py_oauth(refresh);
    let out = tempfile::tempdir().expect("tempdir");
    let run = Scout::new()
        .env("PY_REFRESH", refresh)
        .args([
            "-vv",
            "check",
            &server.url,
            "--client-id",
            "scout-desk",
            "--refresh-token-env",
            "PY_REFRESH",
            // A token from the environment cannot be rotated in place: accepted here.
            "--allow-refresh-rotation",
            "--out-dir",
        ])
        .args([out.path()])
        .env("SCOUT_FORMATS", "json,junit,sarif,markdown,har,events")
        .run();
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let report = server_report(&out.path().join("scout.json"));
    assert!(report["blocked"].is_null(), "{report}");
    assert_eq!(report["era"], "dual");
    let f = finding(&report, "auth.token_acquired");
    assert_eq!(f["status"], "info");
    let detail = f["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("refresh token grant"), "{detail}");
    assert!(detail.contains("rotation"), "{detail}");
    // The Python SDK sends error="invalid_token" on a request without credentials.
    assert_eq!(finding(&report, "auth.challenge")["status"], "warn");
    // The audience probe needs client credentials: not applicable here, and says so.
    assert_eq!(
        finding(&report, "auth.audience")["skip_reason"],
        "not_applicable"
    );
    let texts = artifacts(&run, out.path());
    assert!(texts.len() >= 7, "{}", texts.len());
    for (name, text) in &texts {
        assert!(
            !text.contains(refresh),
            "the refresh token leaked into {name}"
        );
    }
}

#[test]
fn connect_and_tools_get_their_token_by_client_credentials_too() {
    let fixture = HttpFixture::start("oauth_server.py");
    let creds = [
        "--client-id",
        FIXTURE_CLIENT,
        "--client-secret-env",
        "FX_SECRET",
        "--scope",
        "mcp",
    ];
    let tools = Scout::new()
        .env("FX_SECRET", FIXTURE_SECRET)
        .args(["tools", &fixture.url])
        .args(creds)
        .run();
    assert_eq!(tools.code, Some(0), "{}", tools.stderr);
    assert!(tools.stdout.contains("echo"), "{}", tools.stdout);
    assert!(!tools.all_output().contains(FIXTURE_SECRET));
    // Without them the same command cannot connect.
    let bare = Scout::new().args(["connect", &fixture.url]).run();
    assert_eq!(bare.code, Some(1), "{}", bare.stderr);
    let wrong = Scout::new()
        .env("FX_SECRET", "wrong-secret-value")
        .args(["connect", &fixture.url])
        .args(creds)
        .run();
    assert_eq!(wrong.code, Some(1), "{}", wrong.stderr);
    assert!(wrong.stderr.contains("invalid_client"), "{}", wrong.stderr);
}

#[test]
fn fixed_headers_are_credentials_too_and_do_not_stop_the_run() {
    // requires_token.py accepts `Authorization: Bearer fixture-token`, given here as a header.
    let protected = HttpFixture::start("requires_token.py");
    let out = tempfile::tempdir().expect("tempdir");
    let json = out.path().join("r.json");
    let run = Scout::new()
        .env("FX_AUTH_HEADER", "Bearer fixture-token")
        .args([
            "-q",
            "check",
            &protected.url,
            "--header",
            "Authorization=env:FX_AUTH_HEADER",
            "--only",
            "discovery,auth,handshake",
            "--json",
        ])
        .args([&json])
        .run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let server = server_report(&json);
    assert!(server["blocked"].is_null(), "{server}");
    assert_eq!(server["era"], "dual");
    let f = finding(&server, "auth.token_acquired");
    assert_eq!(f["status"], "skip");
    assert!(
        f["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("fixed headers (Authorization)"),
        "{f}"
    );
}

#[test]
fn a_header_the_server_refuses_stops_at_the_handshake_with_the_keys_named() {
    let protected = HttpFixture::start("requires_token.py");
    let run = Scout::new()
        .env("FX_AUTH_HEADER", "Bearer not-the-token")
        .args([
            "-q",
            "check",
            &protected.url,
            "--header",
            "Authorization=env:FX_AUTH_HEADER",
        ])
        .run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("requires credentials")
            && run.stderr.contains("the configured ones too")
            && run.stderr.contains("--token-file"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("not-the-token"));
}
