//! A server that floods its client (`tests/fixtures/stdout_flood.py`: one million short
//! non-JSON stdout lines before it serves, from every process scout starts) must not make a
//! run unbounded in memory or quadratic in time: the recorder keeps at most
//! `MAX_EXCHANGES` exchanges and `MAX_BYTES` bytes, and the run names the cap in
//! `resilience.output_volume` and counts every line in `stdio.stdout_clean`.
//!
//! The documented bound checked here: scout's peak resident set stays under
//! [`PEAK_RSS_MIB`] MiB, with the HAR of every kept exchange written, and the run finishes
//! within its deadline.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{crate_root, scrubbed, workspace};

/// The peak RSS a flooded run must stay under (measured: about 65 MiB for a debug build).
const PEAK_RSS_MIB: u64 = 192;
/// The server's deadline for this run.
const DEADLINE_S: u64 = 90;

#[test]
fn a_million_stdout_lines_stay_within_the_caps_and_the_deadline() {
    let dir = workspace(None);
    let fixture = crate_root().join("tests/fixtures/stdout_flood.py");
    // A parent that only runs scout and then reads getrusage(RUSAGE_CHILDREN): the peak RSS
    // of the largest process it waited for (scout; the fixture, reaped by scout, is smaller).
    let measure = "import resource, subprocess, sys, time\n\
                   t = time.monotonic()\n\
                   rc = subprocess.call(sys.argv[1:])\n\
                   took = time.monotonic() - t\n\
                   peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n\
                   print(rc, peak, took)";
    let out = scrubbed(Command::new("python3"))
        .current_dir(dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["-c", measure, env!("CARGO_BIN_EXE_scout")])
        .args(["check", "-q", "--json", "scout.json", "--har", "har"])
        .args(["--deadline", &format!("{DEADLINE_S}s"), "--stdio", "--"])
        .arg("python3")
        .arg(&fixture)
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs scout");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stdout.lines().last().unwrap_or_default();
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(fields.len(), 3, "measurement line: {stdout}\n{stderr}");
    let code: i32 = fields[0].parse().expect("exit code");
    let peak_kib: u64 = fields[1].parse().expect("ru_maxrss in KiB");
    let took: f64 = fields[2].parse().expect("seconds");
    eprintln!(
        "stdout flood: peak RSS {} MiB, wall time {took:.1} s, exit {code}",
        peak_kib / 1024
    );
    assert!(
        matches!(code, 0 | 1),
        "scout finished: exit {code}\n{stderr}"
    );
    assert!(
        peak_kib < PEAK_RSS_MIB * 1024,
        "peak RSS {} MiB is over the documented {PEAK_RSS_MIB} MiB",
        peak_kib / 1024
    );
    assert!(took < DEADLINE_S as f64, "took {took:.1} s");

    let doc: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("scout.json")).expect("json report written"),
    )
    .expect("valid JSON");
    let server = &doc["servers"][0];
    assert_eq!(server["interrupted"], false, "finished before its deadline");
    let finding = |id: &str| -> Value {
        server["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no {id} finding"))
    };
    let volume = finding("resilience.output_volume");
    assert_eq!(volume["status"], "fail", "{volume}");
    let detail = volume["detail"].as_str().expect("detail");
    assert!(
        detail.contains("20000 exchanges and 64 MiB"),
        "names the cap: {detail}"
    );
    let clean = finding("stdio.stdout_clean");
    assert_eq!(clean["status"], "fail");
    let detail = clean["detail"].as_str().expect("detail");
    let counted: u64 = detail
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("the count leads the detail");
    assert!(
        counted >= 1_000_000 && counted.is_multiple_of(1_000_000),
        "every flooded line counted, one million per process: {detail}"
    );
    assert!(
        detail.contains("flood line 0"),
        "quotes the first: {detail}"
    );
    // The handshake still worked through the flood: the server was checked, not blocked.
    assert!(server["blocked"].is_null(), "{}", server["blocked"]);
    let kept = server["exchanges"].as_u64().expect("exchange count");
    assert!(
        kept <= 20_000 + 1_000,
        "{kept} exchanges kept: the cap plus scout's own"
    );
}
