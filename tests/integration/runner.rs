//! Whole runs of the binary: a correct stdio fixture (`tests/fixtures/minimal_server.py`) and a
//! closed port.

use serde_json::Value;

use crate::common::{Scout, closed_port, crate_root, workspace};

fn fixture() -> String {
    crate_root()
        .join("tests/fixtures/minimal_server.py")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn correct_server_passes_the_gate() {
    let dir = workspace(None);
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            "--fail-under",
            "50",
            "--json",
            "scout.json",
            "--stdio",
            "--",
            "python3",
        ])
        .args([fixture()])
        .run();
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let doc: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("scout.json")).expect("json report written"),
    )
    .expect("valid JSON");
    assert_eq!(doc["gate"]["passed"], true);
    assert_eq!(doc["servers"][0]["name"], "minimal_server");
}

#[test]
fn one_unreachable_server_does_not_stop_the_other() {
    let port = closed_port();
    let config = format!(
        "[[default.servers]]\nname = \"good\"\ncommand = [\"python3\", {fixture:?}]\n\n[[default.servers]]\nname = \"down\"\nurl = \"http://127.0.0.1:{port}/mcp\"\n",
        fixture = fixture()
    );
    let dir = workspace(Some(&config));
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--json", "scout.json", "--timeout", "3s"])
        .run();
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("down:"),
        "gate reason on stderr: {}",
        r.stderr
    );
    let doc: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("scout.json")).expect("json report written"),
    )
    .expect("valid JSON");
    let servers = doc["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 2);
    let by_name = |n: &str| {
        servers
            .iter()
            .find(|s| s["name"] == n)
            .unwrap_or_else(|| panic!("{n} missing"))
    };
    let down = by_name("down");
    let findings = down["findings"].as_array().expect("findings");
    let reachable = findings
        .iter()
        .find(|f| f["id"] == "discovery.reachable")
        .expect("reachable finding");
    assert_eq!(reachable["status"], "fail");
    assert_eq!(reachable["severity"], "critical");
    let later: Vec<&Value> = findings
        .iter()
        .filter(|f| !["discovery", "auth"].contains(&f["phase"].as_str().unwrap_or("")))
        .collect();
    assert!(!later.is_empty());
    for f in later {
        assert_eq!(f["status"], "skip", "{f}");
        assert_eq!(f["skip_reason"], "blocked", "{f}");
    }
    let good = by_name("good");
    let assessed = good["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .filter(|c| c["assessed"] == true)
        .count();
    assert!(assessed >= 4, "the reachable server is assessed: {good}");
}

#[test]
fn score_below_fail_under_is_exit_1() {
    let dir = workspace(None);
    // No server scores above 100, and a failed category threshold names the phase.
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            "--fail-under-category",
            "auth=100",
            "--stdio",
            "--",
            "python3",
        ])
        .args([fixture()])
        .run();
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("auth"), "{}", r.stderr);
}

/// Ctrl-C stops a server that hangs, writes a partial report with it marked interrupted, and
/// exits 3 (scout could not finish) — without waiting for the deadline.
#[test]
fn ctrl_c_writes_a_partial_report() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use std::time::{Duration, Instant};

    let dir = workspace(None);
    let mut child = crate::common::command()
        .current_dir(dir.path())
        .args([
            "check",
            "--json",
            "scout.json",
            "--timeout",
            "30s",
            "--stdio",
            "--",
        ])
        .args(["python3", "-c", "import time; time.sleep(60)"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scout starts");
    std::thread::sleep(Duration::from_millis(1500));
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    kill(pid, Signal::SIGINT).expect("signal");
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("scout did not stop after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(3));
    let doc: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("scout.json")).expect("partial report written"),
    )
    .expect("valid JSON");
    assert_eq!(doc["gate"]["passed"], false);
}

/// Regression: with stderr closed (piped into `head`), a diagnostic write used to panic (exit
/// 3) and the panic hook's `exit` skipped the destructors, leaving a `start`ed server running.
#[test]
fn closed_stderr_leaves_no_started_server_running() {
    let port = crate::common::closed_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let fixture = crate::common::crate_root().join("tests/fixtures/minimal_server.py");
    let mut cmd = crate::common::command();
    cmd.args(["-vv", "check", &url])
        .args(["--start", "python3", "--start"])
        .arg(&fixture)
        .args([
            "--start",
            "http",
            "--start",
            "--port",
            "--start",
            &port.to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("scout starts");
    // Close the read end at once: every write to stderr now fails.
    drop(child.stderr.take());
    let status = child.wait().expect("scout ends");
    assert_eq!(
        status.code(),
        Some(0),
        "a closed stderr does not end the run: {status}"
    );
    // Whatever happened, nothing may still listen on the started server's port.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the started server is still running on {port} (scout exited with {status})"
    );
}
