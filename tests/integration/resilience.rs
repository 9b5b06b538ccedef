//! The resilience checks that need a misbehaving server: each test runs a defective fixture
//! (the check fails) and a correct one (it passes), through the library.

use scout::report::finding::{Phase, Status};
use scout::spec::ServerSpec;

use crate::phase_fixtures::{
    expect, expect_era, fixture, fixture_http, fixture_http_env, never, run,
};
use scout::transport::process::ProcessConfig;

fn resilience(mut spec: ServerSpec) -> ServerSpec {
    spec.only = vec![Phase::Discovery, Phase::Handshake, Phase::Resilience];
    spec
}

#[tokio::test]
async fn an_abandoned_request_must_not_stop_the_server() {
    // stalls_abandoned_request.py never answers the abandoned request but serves the rest.
    let (good, bad) = tokio::join!(
        run(resilience(fixture("stalls_abandoned_request.py", &[]))),
        run(resilience(fixture("stall_blocks_server.py", &[])))
    );
    let f = expect(&good, "resilience.timeout_recovery", None, Status::Pass);
    assert!(f.detail.contains("gave up"), "{}", f.detail);
    // Both the abandoned request and the follow-up are cited (stdio: sent lines at least).
    assert!(f.evidence.len() >= 3, "{f:?}");
    // stall_blocks_server.py sleeps on the abandoned request, blocking the next one.
    let f = expect(&bad, "resilience.timeout_recovery", None, Status::Fail);
    assert!(f.detail.contains("timed out"), "{}", f.detail);
}

#[tokio::test]
async fn a_server_stuck_after_an_abandoned_request_fails_on_both_transports() {
    // abandon_leaks_lock.py: its read-only tool `slow` holds the server's one work lock; a
    // call the client gives up on never releases it, and every later request waits for it.
    // Previously scout abandoned only tools/list, which takes the lock and lets it go, and
    // the server passed. Now scout abandons the run's slowest request once it reports
    // progress, cancels it, and asks again. The twin releases the lock of an abandoned call.
    // One run of each on stdio and on HTTP, at once (repeated by hand: ten runs of each
    // gave the same verdicts).
    const RUNS: usize = 1;
    let quick = |mut spec: ServerSpec| {
        // After the lock is lost every request waits out its timeout: keep it short.
        spec.timeout = std::time::Duration::from_secs(3);
        with_execution(spec)
    };
    let release = || vec![("SCOUT_FIXTURE_RELEASE", "1".to_string())];
    let specs = move |twin: bool| -> Vec<ServerSpec> {
        let env = if twin { release() } else { vec![] };
        let http_env: Vec<(&str, &str)> = if twin {
            vec![("SCOUT_FIXTURE_RELEASE", "1")]
        } else {
            vec![]
        };
        (0..RUNS)
            .flat_map(|_| {
                [
                    quick(fixture("abandon_leaks_lock.py", &env)),
                    quick(fixture_http_env("abandon_leaks_lock.py", &http_env)),
                ]
            })
            .collect()
    };
    let task = |spec| tokio::spawn(run(spec));
    let (good, bad) = tokio::join!(
        futures_util::future::join_all(specs(true).into_iter().map(task)),
        futures_util::future::join_all(specs(false).into_iter().map(task)),
    );
    for r in good.into_iter().map(|r| r.expect("a run's task")) {
        let f = expect(&r, "resilience.timeout_recovery", None, Status::Pass);
        assert!(f.detail.contains("tools/call of slow"), "{}", f.detail);
        assert!(f.detail.contains("progress notification"), "{}", f.detail);
        never(&r, "resilience.timeout_recovery", Status::Warn);
        never(&r, "execution.cancellation", Status::Fail);
        never(&r, "execution.cancellation", Status::Warn);
    }
    for r in bad.into_iter().map(|r| r.expect("a run's task")) {
        never(&r, "resilience.timeout_recovery", Status::Pass);
        let f = crate::phase_fixtures::all(&r, "resilience.timeout_recovery")
            .into_iter()
            .find(|f| f.status == Status::Fail)
            .unwrap_or_else(|| panic!("{:#?}", r.findings));
        assert!(f.detail.contains("tools/call of slow"), "{}", f.detail);
        assert!(f.detail.contains("next ordinary request"), "{}", f.detail);
    }
}

#[tokio::test]
async fn an_oversized_body_is_refused_or_served_never_fatal() {
    let (good, bad) = tokio::join!(
        run(resilience(fixture("minimal_server.py", &[]))),
        run(resilience(fixture("crashes_on_large_body.py", &[])))
    );
    expect(&good, "resilience.oversized_request", None, Status::Pass);
    // crashes_on_large_body.py exits on the first line over 1 MiB: the first wire's probe
    // kills the process, so at least that wire fails and none passes.
    let fails: Vec<_> = bad
        .findings
        .iter()
        .filter(|f| f.id == "resilience.oversized_request" && f.status == Status::Fail)
        .collect();
    assert!(!fails.is_empty(), "{:#?}", bad.findings);
    never(&bad, "resilience.oversized_request", Status::Pass);
}

#[tokio::test]
async fn an_oversized_body_over_http_is_judged_too() {
    let (good, bad) = tokio::join!(
        run(resilience(fixture_http("minimal_server.py"))),
        run(resilience(fixture_http("crashes_on_large_body.py")))
    );
    expect(&good, "resilience.oversized_request", None, Status::Pass);
    never(&bad, "resilience.oversized_request", Status::Pass);
}

#[tokio::test]
async fn an_http_server_that_exits_before_reading_a_big_body_fails() {
    // crashes_on_large_body.py with SCOUT_FIXTURE_EARLY=1 exits on reading a Content-Length
    // over 1 MiB: scout finds the connection closed under its write, exactly as with
    // early_413.py, which refuses with 413 and keeps serving. The next request tells them
    // apart: the crash fails and never passes, the refusal passes (three runs of each).
    const RUNS: usize = 3;
    let early = || fixture_http_env("crashes_on_large_body.py", &[("SCOUT_FIXTURE_EARLY", "1")]);
    let (bad, good) = tokio::join!(
        futures_util::future::join_all((0..RUNS).map(|_| run(resilience(early())))),
        futures_util::future::join_all(
            (0..RUNS).map(|_| run(resilience(fixture_http("early_413.py"))))
        ),
    );
    for r in &bad {
        never(r, "resilience.oversized_request", Status::Pass);
        let f = crate::phase_fixtures::all(r, "resilience.oversized_request")
            .into_iter()
            .find(|f| f.status == Status::Fail)
            .unwrap_or_else(|| panic!("{:#?}", r.findings));
        assert!(f.detail.contains("next ordinary request"), "{}", f.detail);
    }
    for r in &good {
        expect(r, "resilience.oversized_request", None, Status::Pass);
        never(r, "resilience.oversized_request", Status::Warn);
    }
}

#[tokio::test]
async fn answers_must_not_depend_on_the_connection() {
    let (good, bad) = tokio::join!(
        run(resilience(fixture("minimal_server.py", &[]))),
        run(resilience(fixture("answers_drift.py", &[])))
    );
    let f = expect(&good, "resilience.stateless", None, Status::Pass);
    assert_eq!(f.era, None, "one finding, about the 2026-07-28 wire");
    // answers_drift.py adds a tool from the second tools/list of a process on.
    let f = expect(&bad, "resilience.stateless", None, Status::Fail);
    assert!(f.detail.contains("differ"), "{}", f.detail);
}

#[tokio::test]
async fn a_client_can_start_over_after_its_session_ended() {
    let (good, bad) = tokio::join!(
        run(resilience(fixture_http("minimal_server.py"))),
        run(resilience(fixture_http("reinitialize_refused.py")))
    );
    let f = expect(&good, "resilience.session_recovery", None, Status::Pass);
    assert!(f.evidence.len() >= 4, "{f:?}");
    // reinitialize_refused.py answers every initialize after a DELETE with 400.
    let f = expect(&bad, "resilience.session_recovery", None, Status::Fail);
    assert!(f.detail.contains("initialize"), "{}", f.detail);
    // Over stdio there are no sessions.
    let r = run(resilience(fixture("minimal_server.py", &[]))).await;
    let f = expect(&r, "resilience.session_recovery", None, Status::Skip);
    assert!(f.detail.contains("Streamable HTTP"), "{}", f.detail);
}

#[tokio::test]
async fn two_clients_at_once_must_stay_apart() {
    let (good, bad, stdio) = tokio::join!(
        run(resilience(fixture_http("minimal_server.py"))),
        run(resilience(fixture_http("inflight_by_id.py"))),
        run(resilience(fixture("minimal_server.py", &[]))),
    );
    // minimal_server.py speaks both eras over HTTP: two sessions, and two connections.
    let f = expect(&good, "resilience.concurrent_sessions", None, Status::Pass);
    assert!(f.evidence.len() >= 6, "{f:?}");
    // inflight_by_id.py hands the answer to whichever request holds the id when it is done.
    let f = expect(&bad, "resilience.concurrent_sessions", None, Status::Fail);
    assert!(f.detail.contains("same id"), "{}", f.detail);
    assert!(f.detail.contains("lost"), "{}", f.detail);
    never(&bad, "resilience.concurrent_sessions", Status::Pass);
    let f = expect(&stdio, "resilience.concurrent_sessions", None, Status::Skip);
    assert!(f.detail.contains("process"), "{}", f.detail);
}

/// The phases that find the run's slowest request (catalog, execution) and the resilience
/// phase.
fn with_execution(mut spec: ServerSpec) -> ServerSpec {
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
        Phase::Resilience,
    ];
    spec
}

#[tokio::test]
async fn same_id_requests_of_two_clients_overlap_and_stay_apart() {
    // request_state_by_id.py keeps a resources/read in flight in a table keyed by its id
    // alone (its slow tool carries no annotations, so scout does not call it); every other
    // method answers at once. Previously the rounds paired only those millisecond methods,
    // nothing met in the server, and the check passed. Now both clients repeat the run's
    // slowest request (the read) with the same id and their own progress token. The twin
    // keys the table by session or connection. Three runs of each at once, every one with
    // the same verdict.
    const RUNS: usize = 3;
    let twin = || {
        with_execution(fixture_http_env(
            "request_state_by_id.py",
            &[("SCOUT_FIXTURE_KEY", "session")],
        ))
    };
    let defect = || with_execution(fixture_http("request_state_by_id.py"));
    let (good, bad) = tokio::join!(
        futures_util::future::join_all((0..RUNS).map(|_| run(twin()))),
        futures_util::future::join_all((0..RUNS).map(|_| run(defect()))),
    );
    for r in &good {
        let f = expect(r, "resilience.concurrent_sessions", None, Status::Pass);
        assert!(
            f.detail.contains("resources/read of fixture://readme"),
            "{}",
            f.detail
        );
        assert!(f.detail.contains("in flight together"), "{}", f.detail);
        never(r, "resilience.concurrent_sessions", Status::Warn);
    }
    for r in &bad {
        let fails = crate::phase_fixtures::all(r, "resilience.concurrent_sessions");
        // Both eras' wires share the table: each fails.
        assert_eq!(fails.len(), 2, "{fails:#?}");
        for f in fails {
            assert_eq!(f.status, Status::Fail, "{}", f.detail);
            assert_eq!(f.severity, Some(scout::report::finding::Severity::Critical));
            assert!(
                f.detail.contains("progress notification(s) for client")
                    || f.detail.contains("lost"),
                "{}",
                f.detail
            );
        }
    }
}

/// A spec for a real server over HTTP, with the phases that find a progress tool and the
/// resilience phase.
fn real_http(url: &str) -> ServerSpec {
    let mut spec = ServerSpec::new(
        "real",
        scout::spec::TargetSpec::Http {
            url: url.to_string(),
            headers: vec![],
            auth: Default::default(),
            start: None,
        },
    );
    spec.timeout = std::time::Duration::from_secs(10);
    spec.deadline = std::time::Duration::from_secs(90);
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
        Phase::Resilience,
    ];
    spec
}

#[tokio::test]
async fn real_servers_keep_two_clients_apart() {
    let everything = crate::servers::everything_http();
    let python = crate::servers::py_http();
    let (e, p) = tokio::join!(run(real_http(&everything.url)), run(real_http(&python.url)));
    // server-everything: two sessions; its read-only trigger-long-running-operation reports
    // progress, so both clients also call it with their own token.
    let f = expect(&e, "resilience.concurrent_sessions", None, Status::Pass);
    assert!(f.detail.contains("progress token"), "{}", f.detail);
    // The Python SDK server: two sessions and two connections.
    let f = expect(&p, "resilience.concurrent_sessions", None, Status::Pass);
    assert!(f.detail.contains("same ids"), "{}", f.detail);
}

/// `spec` with every phase (the load ramp included), a pid file for every fixture process,
/// and a deadline of `secs`.
fn whole_run(mut spec: ServerSpec, pids: &std::path::Path, secs: u64) -> ServerSpec {
    spec.only = Vec::new();
    spec.policy.allow_load = true;
    spec.deadline = std::time::Duration::from_secs(secs);
    let pid_file = (
        "SCOUT_TEST_PID_FILE".to_string(),
        pids.display().to_string(),
    );
    match &mut spec.target {
        scout::spec::TargetSpec::Stdio(ProcessConfig { env_set, .. }) => env_set.push(pid_file),
        scout::spec::TargetSpec::Http {
            start: Some(cmd), ..
        } => {
            // Through env(1): the started server gets the variable, and keeps env's pid.
            cmd.insert(0, format!("{}={}", pid_file.0, pid_file.1));
            cmd.insert(0, "env".into());
        }
        _ => {}
    }
    spec
}

/// The pids a fixture run wrote; asserts there was at least one and that none is alive (a
/// child left unreaped is still there for kill(pid, 0)).
fn assert_all_gone(name: &str, pids: &std::path::Path) {
    let text = std::fs::read_to_string(pids).unwrap_or_default();
    let pids: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
    assert!(!pids.is_empty(), "{name}: no fixture process wrote its pid");
    for pid in pids {
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        assert!(
            !alive,
            "{name}: fixture process {pid} is still there after the run"
        );
    }
}

#[tokio::test]
async fn the_acceptance_fixtures_end_within_their_deadline_and_leave_no_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid = |n: &str| dir.path().join(format!("{n}.pids"));
    const DEADLINE: u64 = 60;
    // Four whole runs at once, each a task of its own (as `scout check` runs servers), not
    // four futures polled from one: in a debug build that nesting outgrows a test thread's
    // stack.
    let task = |spec| tokio::spawn(run(spec));
    let (drift, serial_stdio, serial_http, crash) = tokio::join!(
        task(whole_run(
            fixture("answers_drift.py", &[]),
            &pid("drift"),
            DEADLINE
        )),
        task(whole_run(
            fixture("serialises_requests.py", &[]),
            &pid("serial-stdio"),
            DEADLINE
        )),
        task(whole_run(
            fixture_http("serialises_requests.py"),
            &pid("serial-http"),
            DEADLINE
        )),
        task(whole_run(
            fixture("crashes_on_large_body.py", &[]),
            &pid("crash"),
            DEADLINE
        )),
    );
    let [drift, serial_stdio, serial_http, crash] =
        [drift, serial_stdio, serial_http, crash].map(|r| r.expect("a run's task"));
    // What each fixture is for.
    expect(&drift, "resilience.stateless", None, Status::Fail);
    expect(&serial_http, "performance.throughput", None, Status::Warn);
    expect(&serial_stdio, "performance.throughput", None, Status::Warn);
    assert!(
        crash
            .findings
            .iter()
            .any(|f| f.id == "resilience.oversized_request" && f.status == Status::Fail),
        "{:#?}",
        crash.findings
    );
    for (name, r) in [
        ("drift", &drift),
        ("serial-stdio", &serial_stdio),
        ("serial-http", &serial_http),
        ("crash", &crash),
    ] {
        // Every phase ran to its end: the deadline did not cut the run short.
        assert!(!r.interrupted, "{name}: the run was interrupted");
        assert!(
            r.duration_ms <= DEADLINE * 1000,
            "{name}: {} ms, past the {DEADLINE} s deadline",
            r.duration_ms
        );
        assert_all_gone(name, &pid(name));
    }
}

#[tokio::test]
async fn malformed_survival_follows_up_with_a_request_the_server_declared() {
    // Previously the follow-up after the garbage was tools/list on every handshake-era
    // wire, so legacy_without_tools.py (prompts only, -32601 for tools/list) failed major
    // although it survived the garbage. Its twin parse_error_crashes.py still fails.
    let (small, crash) = tokio::join!(
        run(resilience(fixture("legacy_without_tools.py", &[]))),
        run(resilience(fixture("parse_error_crashes.py", &[]))),
    );
    let f = expect(&small, "resilience.malformed_survival", None, Status::Pass);
    never(&small, "resilience.malformed_survival", Status::Fail);
    assert!(
        f.evidence.len() >= 5,
        "the garbage and the follow-up: {f:?}"
    );
    let cited: Vec<Option<&str>> = small
        .exchanges
        .iter()
        .filter(|e| f.evidence.contains(&e.seq))
        .filter_map(|e| match &e.kind {
            scout::report::exchange::ExchangeKind::Stdio(m) => Some(m.method.as_deref()),
            _ => None,
        })
        .collect();
    assert!(
        cited.contains(&Some("ping")),
        "the follow-up is a ping: {cited:?}"
    );
    assert!(!cited.contains(&Some("tools/list")), "{cited:?}");
    // The crash is charged once, to the wire whose garbage took the server down; what the
    // other wire sent after that is not assessed.
    let charged: Vec<_> = crash
        .findings
        .iter()
        .filter(|f| f.id == "resilience.malformed_survival")
        .collect();
    assert!(
        charged.iter().any(|f| f.status == Status::Fail),
        "{charged:#?}"
    );
    assert!(
        charged.iter().all(|f| f.status == Status::Fail
            || f.skip_reason == Some(scout::report::finding::SkipReason::NotAssessed)),
        "{charged:#?}"
    );
}

#[tokio::test]
async fn an_independent_connection_is_a_connection_of_its_own() {
    // state_per_connection.py answers the first request on each TCP connection as if
    // nothing had been negotiated there. Previously the "fresh, independent connection"
    // rode the run's pooled keep-alive connection and the check passed; on a client with a
    // connection pool of its own the drift shows. Its twin minimal_server.py passes.
    let (bad, good) = tokio::join!(
        run(resilience(fixture_http("state_per_connection.py"))),
        run(resilience(fixture_http("minimal_server.py"))),
    );
    let f = expect(&bad, "resilience.stateless", None, Status::Fail);
    assert!(f.detail.contains("differ"), "{}", f.detail);
    assert!(f.detail.contains("of its own"), "{}", f.detail);
    let f = expect(&good, "resilience.stateless", None, Status::Pass);
    assert!(f.detail.contains("independent connection"), "{}", f.detail);
    never(&good, "resilience.concurrent_sessions", Status::Fail);
}

#[tokio::test]
async fn an_early_413_is_a_refusal_whichever_is_seen_first() {
    // early_413.py answers 413 and closes as soon as it reads a Content-Length over 1 MiB,
    // while scout is still writing the 4 MiB body. Previously the verdict depended on which
    // scout saw first: the 413 (pass) or the connection closed under its write (a warning
    // "broke the connection"). Both are the server refusing the body. Several runs, each
    // the same verdict; the twin crashes_on_large_body.py never passes (see above).
    let runs = futures_util::future::join_all(
        (0..4).map(|_| run(resilience(fixture_http("early_413.py")))),
    )
    .await;
    for r in &runs {
        let f = expect(r, "resilience.oversized_request", None, Status::Pass);
        assert!(f.detail.contains("refused"), "{}", f.detail);
        never(r, "resilience.oversized_request", Status::Warn);
    }
}

#[tokio::test]
async fn an_abandoned_request_is_probed_on_a_remote_target_too() {
    // Previously the abandon over https:// was a 1 ms deadline that no host but loopback can
    // meet, so on a remote target the check was silently never assessed. Now the request is
    // written whole on a connection of its own (TLS for https://) and closed unread once the
    // write completed, wherever the server is: the same path here, on a target treated as
    // remote. stalls_abandoned_request.py stalls that request and serves the next one.
    let mut spec = resilience(fixture_http("stalls_abandoned_request.py"));
    spec.treat_as_remote = true;
    spec.rps = Some(50.0);
    let r = run(spec).await;
    let f = expect(&r, "resilience.timeout_recovery", None, Status::Pass);
    let abandoned = r
        .exchanges
        .iter()
        .find(|e| f.evidence.contains(&e.seq))
        .expect("the abandoned request is cited");
    let scout::report::exchange::ExchangeKind::Http(h) = &abandoned.kind else {
        panic!("an HTTP exchange: {abandoned:?}");
    };
    assert!(
        h.error
            .as_deref()
            .is_some_and(|e| e.contains("closed it without reading")),
        "{h:?}"
    );
    assert!(h.status.is_none(), "nothing was read: {h:?}");
}

/// Previously every resilience probe followed up with `ping` and read its -32601 as "the
/// server stopped serving": four false fails on a server whose missing `ping` is
/// handshake.ping's to report. Liveness is now asked with a request the server already
/// answered (here tools/list), and any JSON-RPC answer counts; a server that really stops
/// answering after malformed input (the same fixture, muted by its garbage) still fails.
#[tokio::test]
async fn a_server_without_ping_is_not_read_as_broken() {
    let muted = || fixture("no_ping.py", &[("MUTE_AFTER_GARBAGE", "1".into())]);
    let (stdio, http, mute_stdio, mute_http) = tokio::join!(
        run(resilience(fixture("no_ping.py", &[]))),
        run(resilience(fixture_http("no_ping.py"))),
        run(resilience(muted())),
        run(resilience(crate::phase_fixtures::fixture_http_env(
            "no_ping.py",
            &[("MUTE_AFTER_GARBAGE", "1")]
        ))),
    );
    for (name, r) in [("stdio", &stdio), ("http", &http)] {
        let blamed: Vec<String> = r
            .findings
            .iter()
            .filter(|f| f.phase == Phase::Resilience)
            .filter(|f| matches!(f.status, Status::Fail | Status::Warn))
            .map(|f| format!("{} {:?}: {}", f.id, f.era, f.detail))
            .collect();
        assert!(blamed.is_empty(), "{name}: {blamed:#?}");
        for id in [
            "resilience.malformed_survival",
            "resilience.timeout_recovery",
            "resilience.oversized_request",
        ] {
            expect(r, id, None, Status::Pass);
        }
        // The missing ping is reported once, where it belongs.
        expect_era(
            r,
            "handshake.ping",
            None,
            Some(scout::report::finding::Era::Legacy),
            Status::Fail,
        );
        // The follow-up after the garbage is a request the server answered before.
        let f = &r
            .findings
            .iter()
            .find(|f| f.id == "resilience.malformed_survival")
            .expect("judged");
        // (Over stdio the garbage is paced by sentinel pings, which any answer serves.)
        let cited = methods_sent(r, &f.evidence);
        assert_eq!(
            cited.last().map(String::as_str),
            Some("tools/list"),
            "{name}: {cited:?}"
        );
    }
    expect(&http, "resilience.session_recovery", None, Status::Pass);
    for (name, r) in [("stdio", &mute_stdio), ("http", &mute_http)] {
        let f = r
            .findings
            .iter()
            .find(|f| f.id == "resilience.malformed_survival" && f.status == Status::Fail)
            .unwrap_or_else(|| panic!("{name}: {:#?}", r.findings));
        assert!(f.detail.contains("timed out"), "{name}: {}", f.detail);
        never(r, "resilience.malformed_survival", Status::Pass);
    }
}

/// The JSON-RPC methods scout sent in `evidence` (stdio lines and HTTP bodies alike).
fn methods_sent(r: &scout::report::model::ServerReport, evidence: &[u64]) -> Vec<String> {
    r.exchanges
        .iter()
        .filter(|e| evidence.contains(&e.seq))
        .filter_map(|e| match &e.kind {
            scout::report::exchange::ExchangeKind::Stdio(m) => m.method.clone(),
            scout::report::exchange::ExchangeKind::Http(h) => h
                .request_body
                .as_deref()
                .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
                .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(String::from)),
        })
        .collect()
}

/// One `scout check` of `exits_after_answers.py` that exits after its `exit_after`-th answer
/// (0: never), over stdio or over HTTP started by scout with `start`.
fn stop_run(dir: &std::path::Path, i: usize, http: bool, exit_after: u32) -> std::process::Child {
    let fixture = crate::common::fixture("exits_after_answers.py");
    let mut cmd = crate::common::scout();
    cmd.args(["check", "-q", "--deadline", "90s", "--json"])
        .arg(dir.join(format!("r{i}.json")));
    if http {
        let port = crate::common::closed_port().to_string();
        cmd.arg(format!("http://127.0.0.1:{port}/mcp"));
        for a in [
            "python3",
            &fixture.display().to_string(),
            "http",
            "--port",
            &port,
            "--exit-after",
            &exit_after.to_string(),
        ] {
            cmd.args(["--start", a]);
        }
    } else {
        cmd.args(["--stdio", "--", "python3"]).arg(&fixture).args([
            "stdio",
            "--exit-after",
            &exit_after.to_string(),
        ]);
    }
    cmd.env("PYTHONDONTWRITEBYTECODE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("scout starts")
}

/// Runs `scout check` once per entry of `exit_after`, three at a time (as checks share a
/// CI runner), and returns each run's exit code and JSON report.
fn stop_runs(http: bool, exit_after: &[u32]) -> Vec<(u32, Option<i32>, serde_json::Value)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut out = Vec::new();
    for (batch, ns) in exit_after.chunks(3).enumerate() {
        let children: Vec<_> = ns
            .iter()
            .enumerate()
            .map(|(j, n)| (*n, batch * 3 + j))
            .map(|(n, i)| (n, i, stop_run(dir.path(), i, http, n)))
            .collect();
        for (n, i, mut child) in children {
            let code = child.wait().expect("scout ends").code();
            let report = std::fs::read_to_string(dir.path().join(format!("r{i}.json")))
                .unwrap_or_else(|e| panic!("run {i} (exit after {n}) wrote no report: {e}"));
            out.push((
                n,
                code,
                serde_json::from_str(&report).expect("a JSON report"),
            ));
        }
    }
    out
}

/// Every run of a server that exits after its Nth answer: one critical finding, from
/// `resilience.stays_up`, naming the request it stopped at; the gate fails on it; what could
/// not be reached says why; nothing else is charged for the stop. And the correct twin (it
/// never exits) passes the check.
fn a_server_that_stops_mid_run_fails_the_gate_in_every_run(http: bool) {
    // Several N, the stop meeting different phases; the twins (0) run among them.
    let mut plan: Vec<u32> = [3, 6, 14, 40].repeat(5);
    plan.extend([0, 0]);
    let runs = stop_runs(http, &plan);
    for (n, code, report) in runs {
        let server = &report["servers"][0];
        let findings = server["findings"].as_array().expect("findings");
        let of = |id: &str| -> Vec<&serde_json::Value> {
            findings.iter().filter(|f| f["id"] == id).collect()
        };
        let stays_up = of("resilience.stays_up");
        if n == 0 {
            assert_eq!(stays_up.len(), 1, "{stays_up:#?}");
            assert_eq!(stays_up[0]["status"], "pass", "{:#}", stays_up[0]);
            let reasons = report["gate"]["reasons"].to_string();
            assert!(!reasons.contains("stays_up"), "{reasons}");
            continue;
        }
        let ctx = format!("exit after {n}, http {http}");
        assert_eq!(code, Some(1), "{ctx}: the gate fails: {:#}", report["gate"]);
        assert_eq!(report["gate"]["passed"], false, "{ctx}");
        assert!(
            report["gate"]["reasons"]
                .to_string()
                .contains("resilience.stays_up"),
            "{ctx}: {:#}",
            report["gate"]
        );
        assert_eq!(stays_up.len(), 1, "{ctx}: {stays_up:#?}");
        let f = stays_up[0];
        assert_eq!(f["status"], "fail", "{ctx}: {f:#}");
        assert_eq!(f["severity"], "critical", "{ctx}: {f:#}");
        let at = f["evidence"][0].as_u64().expect("cites the request");
        let named = format!("after req#{at}");
        assert!(
            f["detail"].as_str().is_some_and(|d| d.contains(&named)),
            "{ctx}: {f:#}"
        );
        // One critical finding; no other check is charged for the stop (over stdio the
        // process's own exit is reported by stdio.alive too, with its status and stderr).
        let others: Vec<_> = findings
            .iter()
            .filter(|f| matches!(f["status"].as_str(), Some("fail" | "warn")))
            .filter(|f| f["id"] != "resilience.stays_up" && f["id"] != "stdio.alive")
            // The host profiles' rules judge the catalogue, not the server's conduct.
            .filter(|f| f["phase"] != "compat")
            .map(|f| format!("{} {} {}", f["id"], f["status"], f["detail"]))
            .collect();
        assert!(others.is_empty(), "{ctx}: {others:#?}");
        // What could not be reached says why: the checks of the phases the stop kept from
        // running name it.
        let named_skips = findings
            .iter()
            .filter(|f| f["skip_reason"] == "not_assessed")
            .filter(|f| {
                f["detail"]
                    .as_str()
                    .is_some_and(|d| d.to_lowercase().contains(&named))
            })
            .count();
        assert!(named_skips > 0, "{ctx}: no skip names the stop");
    }
}

#[test]
fn a_stdio_server_that_stops_mid_run_fails_the_gate_in_every_run() {
    a_server_that_stops_mid_run_fails_the_gate_in_every_run(false);
}

#[test]
fn an_http_server_that_stops_mid_run_fails_the_gate_in_every_run() {
    a_server_that_stops_mid_run_fails_the_gate_in_every_run(true);
}
