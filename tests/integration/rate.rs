//! `--rps` holds for the whole run and per host: two servers on one local host:port, treated
//! as remote (`treat_as_remote`), run at the same time through discovery, the handshake, the
//! protocol phase's concurrent probe groups and the catalog. The HAR files' start times show
//! that N requests took at least (N-1)/rps from the first to the last.

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::common::{HttpFixture, Scout, workspace};

/// The rate the run is held to.
const RPS: f64 = 50.0;

/// Start times of every request in a HAR file.
fn starts(har: &std::path::Path) -> Vec<OffsetDateTime> {
    let doc: Value =
        serde_json::from_slice(&std::fs::read(har).expect("HAR written")).expect("HAR is JSON");
    doc["log"]["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            OffsetDateTime::parse(e["startedDateTime"].as_str().expect("time"), &Rfc3339)
                .expect("RFC 3339")
        })
        .collect()
}

#[test]
fn rps_holds_across_phases_and_servers_on_one_host() {
    let fixture = HttpFixture::start("minimal_server.py");
    let config = format!(
        "[default]\ntreat_as_remote = true\nrps = {RPS}\njobs = 2\nonly = [\"discovery\", \"auth\", \"handshake\", \"protocol\", \"catalog\", \"security\"]\n\n\
         [[default.servers]]\nname = \"a\"\nurl = \"{url}\"\n\n[[default.servers]]\nname = \"b\"\nurl = \"{url}\"\n",
        url = fixture.url
    );
    let dir = workspace(Some(&config));
    let r = Scout::new()
        .dir(dir.path())
        .args(["check", "--har", "har", "-q"])
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.all_output());
    let a = starts(&dir.path().join("har/a.har"));
    let b = starts(&dir.path().join("har/b.har"));
    assert!(
        a.len() > 20 && b.len() > 20,
        "both servers were probed: {} and {} requests",
        a.len(),
        b.len()
    );
    let mut all: Vec<OffsetDateTime> = a.into_iter().chain(b).collect();
    all.sort();
    let n = all.len();
    let span = (all[n - 1] - all[0]).as_seconds_f64();
    let floor = (n - 1) as f64 / RPS;
    // 5 ms for reading the clock after the limiter let a request go; no upper bound.
    assert!(
        span >= floor - 0.005,
        "{n} requests to one host at {RPS} rps took {span:.3} s from first to last; at least {floor:.3} s expected"
    );
}

#[test]
fn loopback_is_not_throttled_by_default() {
    let fixture = HttpFixture::start("minimal_server.py");
    let dir = workspace(None);
    // 1 rps would take minutes if it applied to a loopback server.
    let r = Scout::new()
        .dir(dir.path())
        .args([
            "check",
            &fixture.url,
            "--rps",
            "1",
            "--only",
            "discovery,handshake,catalog",
            "--har",
            "har",
            "-q",
        ])
        .run();
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.all_output());
    // The server is named after host:port; its HAR file after that, made file-safe.
    let name = fixture
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .replace(':', "_");
    let s = starts(&dir.path().join(format!("har/{name}.har")));
    assert!(s.len() > 5, "{} requests", s.len());
    let span = (s[s.len() - 1] - s[0]).as_seconds_f64();
    assert!(
        span < (s.len() - 1) as f64 / 2.0,
        "{} loopback requests took {span:.3} s: throttled",
        s.len()
    );
}
