//! The execution phase against fixture servers, and the safety policy proven by a server
//! that records every call it receives.

use scout::report::finding::{Era, SkipReason, Status};
use scout::spec::PolicySpec;

use crate::phase_fixtures::{
    all, expect, expect_era, fixture, fixture_http, never, no_fails, run, with_policy,
};

#[tokio::test]
async fn correct_fixture_passes_execution() {
    let r = run(fixture("minimal_server.py", &[])).await;
    expect(&r, "execution.tool_call", Some("echo"), Status::Pass);
    expect(&r, "execution.tool_call", Some("add"), Status::Pass);
    expect(&r, "execution.structured_output", Some("add"), Status::Pass);
    expect(&r, "execution.content_blocks", Some("echo"), Status::Pass);
    expect(&r, "execution.unknown_tool", None, Status::Pass);
    expect(&r, "execution.invalid_arguments", None, Status::Pass);
    expect(&r, "execution.resource_read", None, Status::Pass);
    expect(&r, "execution.prompt_get", None, Status::Pass);
    // mcpfixture sends no progress: an observation, not a judgement.
    expect(&r, "execution.progress", None, Status::Info);
    for id in ["execution.tool_call", "execution.cancellation"] {
        never(&r, id, Status::Fail);
    }
    no_fails(&r, "execution.");
}

#[tokio::test]
async fn structured_output_mismatch_fails() {
    let r = run(fixture("structured_output_mismatch.py", &[])).await;
    let f = expect(&r, "execution.structured_output", Some("add"), Status::Fail);
    assert!(f.detail.contains("does not match"), "{}", f.detail);
}

#[tokio::test]
async fn lenient_errors_fail() {
    let r = run(fixture("lenient_errors.py", &[])).await;
    // An isError result to an unknown tool is an error an agent can read: a warning.
    let f = expect(&r, "execution.unknown_tool", None, Status::Warn);
    assert!(f.detail.contains("isError"), "{}", f.detail);
    expect(&r, "execution.invalid_arguments", None, Status::Fail);
    // A missing resource read as empty contents: 2026-07-28 forbids it (MUST NOT); the
    // handshake revisions only ask for -32002 (SHOULD).
    let f = expect_era(
        &r,
        "execution.resource_read",
        None,
        Some(Era::Modern),
        Status::Fail,
    );
    assert!(f.detail.contains("empty contents"), "{}", f.detail);
    expect_era(
        &r,
        "execution.resource_read",
        None,
        Some(Era::Legacy),
        Status::Warn,
    );
    expect(&r, "execution.prompt_get", None, Status::Fail);
}

/// Previously a listed resource whose read answered -32603 (its backend unreachable) failed
/// execution.resource_read major, quoting the rule about empty contents for a non-existent
/// resource. An outage is a warning with the error, on both transports; minimal_server.py,
/// which serves the same resource, passes.
#[tokio::test]
async fn a_read_that_fails_upstream_is_a_warning_not_a_violation() {
    let (stdio, http, twin) = tokio::join!(
        run(fixture("read_fails_upstream.py", &[])),
        run(fixture_http("read_fails_upstream.py")),
        run(fixture_http("minimal_server.py")),
    );
    for r in [&stdio, &http] {
        let f = expect(r, "execution.resource_read", None, Status::Warn);
        assert!(f.detail.contains("-32603"), "{}", f.detail);
        assert!(
            f.detail.contains("upstream cluster unreachable"),
            "{}",
            f.detail
        );
        assert!(!f.detail.contains("empty"), "{}", f.detail);
    }
    expect(&twin, "execution.resource_read", None, Status::Pass);
}

#[tokio::test]
async fn an_unknown_tool_that_succeeds_fails() {
    let r = run(fixture(
        "lenient_errors.py",
        &[("UNKNOWN_TOOL_SUCCEEDS", "1".into())],
    ))
    .await;
    let f = expect(&r, "execution.unknown_tool", None, Status::Fail);
    assert!(f.detail.contains("successful result"), "{}", f.detail);
}

#[tokio::test]
async fn progress_going_backwards_warns_and_increasing_passes() {
    // Progress that does not increase is a deviation the agent can live with: it still
    // gets the call's result.
    let r = run(fixture("progress_backwards.py", &[])).await;
    expect(&r, "execution.progress", None, Status::Warn);
    never(&r, "execution.progress", Status::Fail);
    let ok = run(fixture(
        "progress_backwards.py",
        &[("PROGRESS_OK", "1".into())],
    ))
    .await;
    expect(&ok, "execution.progress", None, Status::Pass);
}

#[tokio::test]
async fn progress_after_the_result_warns() {
    let r = run(fixture("progress_after_result.py", &[])).await;
    let f = expect(&r, "execution.progress", None, Status::Warn);
    assert!(f.detail.contains("after the result"), "{}", f.detail);
}

/// Runs records_calls.py under `policy` and returns the tools it says were called.
async fn called_under(policy: PolicySpec) -> (Vec<String>, scout::report::model::ServerReport) {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let spec = with_policy(
        fixture(
            "records_calls.py",
            &[("SCOUT_TEST_CALL_LOG", log.display().to_string())],
        ),
        policy,
    );
    let report = run(spec).await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let mut called: Vec<String> = text.lines().map(str::to_string).collect();
    called.sort();
    called.dedup();
    (called, report)
}

#[tokio::test]
async fn default_policy_calls_only_read_only_tools() {
    let (called, r) = called_under(PolicySpec::default()).await;
    assert_eq!(called, vec!["read_only"]);
    for (tool, flag) in [
        ("mutating", "--allow-mutations"),
        ("destructive", "--allow-destructive"),
        ("unannotated", "--allow-destructive"),
    ] {
        let f = expect(&r, "execution.policy", Some(tool), Status::Info);
        assert!(f.detail.contains(flag), "{tool}: {}", f.detail);
    }
    // The read-only tool was called: no "not called" finding names it (it is named only
    // as open-world, which it is by the spec's default).
    assert!(
        all(&r, "execution.policy")
            .iter()
            .filter(|f| f.subject.as_deref() == Some("read_only"))
            .all(|f| f.detail.contains("was called although it is open-world")),
        "{:#?}",
        all(&r, "execution.policy")
    );
}

/// Why `s` could reach somewhere: a URL, an e-mail address or a dotted name whose host is
/// not under `.invalid`, or an IP literal outside the documentation ranges (RFC 5737 / 3849).
fn reaches(s: &str) -> Option<String> {
    let nowhere = |h: &str| h.trim_end_matches('.').ends_with(".invalid");
    if let Ok(u) = url::Url::parse(s)
        && let Some(h) = u.host_str()
    {
        return (!nowhere(h)).then(|| format!("the URL {s:?} names {h}"));
    }
    if let Some((_, domain)) = s.rsplit_once('@') {
        return (!nowhere(domain)).then(|| format!("the address {s:?} names {domain}"));
    }
    if let Ok(ip) = s.parse::<std::net::IpAddr>() {
        let doc = match ip {
            std::net::IpAddr::V4(v4) => v4.octets()[..3] == [192, 0, 2],
            std::net::IpAddr::V6(v6) => v6.segments()[..2] == [0x2001, 0xdb8],
        };
        return (!doc).then(|| format!("{s:?} is an address that routes"));
    }
    let labels: Vec<&str> = s.split('.').collect();
    let dotted = labels.len() > 1
        && labels
            .last()
            .is_some_and(|l| l.chars().all(|c| c.is_ascii_alphabetic()));
    (dotted && !nowhere(s)).then(|| format!("{s:?} is a host name that resolves"))
}

/// A read-only tool that fetches, resolves or mails gets arguments that point
/// nowhere, and every open-world tool scout calls is named in `execution.policy`.
#[tokio::test]
async fn generated_arguments_point_nowhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("args.log");
    let r = run(fixture(
        "reaches_out.py",
        &[("SCOUT_TEST_ARGS_LOG", log.display().to_string())],
    ))
    .await;
    let text = std::fs::read_to_string(&log).expect("the fixture logged its calls");
    let mut tools = Vec::new();
    let mut values = 0;
    for line in text.lines() {
        let call: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        tools.push(call["tool"].as_str().unwrap_or_default().to_string());
        for (name, v) in call["arguments"].as_object().into_iter().flatten() {
            let s = v.as_str().unwrap_or_default();
            values += 1;
            assert_eq!(reaches(s), None, "{}: {name} = {s:?}", call["tool"]);
        }
    }
    tools.sort();
    tools.dedup();
    assert_eq!(tools, vec!["fetch", "hook", "lookup", "mail"]);
    assert!(values >= 7, "only {values} arguments seen: {text}");
    for tool in ["fetch", "hook", "lookup", "mail"] {
        let f = expect(&r, "execution.policy", Some(tool), Status::Info);
        assert!(
            f.detail.contains("open-world") && f.detail.contains(".invalid"),
            "{tool}: {}",
            f.detail
        );
    }
}

#[tokio::test]
async fn allow_mutations_adds_the_non_destructive_tool() {
    let (called, r) = called_under(PolicySpec {
        allow_mutations: true,
        ..Default::default()
    })
    .await;
    assert_eq!(called, vec!["mutating", "read_only"]);
    expect(&r, "execution.policy", Some("destructive"), Status::Info);
}

#[tokio::test]
async fn only_allow_destructive_calls_the_destructive_tool() {
    let (called, _) = called_under(PolicySpec {
        allow_destructive: true,
        ..Default::default()
    })
    .await;
    assert_eq!(
        called,
        vec!["destructive", "mutating", "read_only", "unannotated"]
    );
    let (called, r) = called_under(PolicySpec {
        allow_destructive: true,
        deny_tools: vec!["destructive".into()],
        ..Default::default()
    })
    .await;
    assert!(!called.contains(&"destructive".to_string()), "{called:?}");
    let f = expect(&r, "execution.policy", Some("destructive"), Status::Info);
    assert!(f.detail.contains("deny_tools"), "{}", f.detail);
}

#[tokio::test]
async fn nothing_allowed_skips_calls_as_policy() {
    let (called, r) = called_under(PolicySpec {
        allow_tools: vec!["none_of_them".into()],
        ..Default::default()
    })
    .await;
    assert!(called.is_empty(), "{called:?}");
    let f = expect(&r, "execution.tool_call", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::Policy));
}

#[tokio::test]
async fn broken_call_results_fail() {
    let r = run(fixture("bad_call_results.py", &[])).await;
    expect(&r, "execution.tool_call", Some("no_content"), Status::Fail);
    let f = expect(
        &r,
        "execution.content_blocks",
        Some("bad_image"),
        Status::Fail,
    );
    assert!(
        f.detail.contains("base64") && f.detail.contains("mimeType"),
        "{}",
        f.detail
    );
}

#[tokio::test]
async fn cancellation_on_stdio() {
    let r = run(fixture("slow_tool_cancellable.py", &[])).await;
    expect(&r, "execution.cancellation", None, Status::Pass);
    let ignored = run(fixture(
        "slow_tool_cancellable.py",
        &[("IGNORE_CANCEL", "1".into())],
    ))
    .await;
    expect(&ignored, "execution.cancellation", None, Status::Warn);
}

/// Previously a tool that answers at once was cancelled all the same, and whether its answer
/// beat the cancellation (and so what the report said, and whether a Python SDK server
/// crashed on it) changed from run to run. A quick tool with no wait argument gets no
/// cancellation at all: the check is not applicable, and nothing was sent.
#[tokio::test]
async fn a_tool_that_answers_at_once_is_not_cancelled() {
    let r = run(fixture("minimal_server.py", &[])).await;
    let f = expect(&r, "execution.cancellation", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    assert!(f.detail.contains("none was sent"), "{}", f.detail);
    let sent_cancel = r.exchanges.iter().any(|e| {
        serde_json::to_string(&e.kind)
            .unwrap_or_default()
            .contains("notifications/cancelled")
    });
    assert!(!sent_cancel, "no cancellation went to the server");
}

/// Over Streamable HTTP both eras are probed (routing headers, sessions); the correct
/// fixture gets no failure in either phase and cancellation is not applicable.
#[tokio::test]
async fn correct_fixture_over_http() {
    let r = run(fixture_http("minimal_server.py")).await;
    let fails: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.id.starts_with("catalog.") || f.id.starts_with("execution."))
        .filter(|f| f.status == Status::Fail)
        .collect();
    assert!(fails.is_empty(), "{fails:#?}");
    expect(&r, "execution.tool_call", Some("add"), Status::Pass);
    expect(&r, "execution.resource_read", None, Status::Pass);
    let f = expect(&r, "execution.cancellation", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
}

/// Errors an agent can still read are warnings, and the retired code is still
/// reported where it belongs (`protocol.error_codes`).
#[tokio::test]
async fn livable_errors_warn() {
    let mut spec = fixture("livable_errors.py", &[]);
    spec.only.push(scout::report::finding::Phase::Protocol);
    let r = run(spec).await;
    let f = expect(&r, "catalog.resources", None, Status::Warn);
    assert!(
        f.detail.contains("resources/templates/list"),
        "{}",
        f.detail
    );
    never(&r, "catalog.resources", Status::Fail);
    let read = all(&r, "execution.resource_read");
    let modern = read
        .iter()
        .find(|f| f.era == Some(Era::Modern))
        .expect("read judged on the modern wire");
    assert_eq!(modern.status, Status::Warn, "{}", modern.detail);
    assert!(modern.detail.contains("-32002"), "{}", modern.detail);
    let legacy = read
        .iter()
        .find(|f| f.era == Some(Era::Legacy))
        .expect("read judged on the handshake wire");
    assert_eq!(legacy.status, Status::Pass, "{}", legacy.detail);
    let codes = all(&r, "protocol.error_codes");
    assert!(
        codes
            .iter()
            .any(|f| f.era == Some(Era::Modern) && f.status == Status::Fail),
        "{codes:#?}"
    );
}

/// The `Mcp-Param-Region` headers of the modern-wire `tools/call`s of `forecast` in `r`.
fn forecast_param_headers(r: &scout::report::model::ServerReport) -> Vec<Option<String>> {
    r.exchanges
        .iter()
        .filter_map(|e| match &e.kind {
            scout::report::exchange::ExchangeKind::Http(h)
                if h.request_body.as_deref().is_some_and(|b| {
                    b.contains("\"tools/call\"")
                        && b.contains("\"forecast\"")
                        && b.contains("io.modelcontextprotocol/protocolVersion")
                        && !b.contains("scout-param-")
                }) =>
            {
                Some(
                    h.request_headers
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case("mcp-param-region"))
                        .map(|(_, v)| v.clone()),
                )
            }
            _ => None,
        })
        .collect()
}

/// Previously: `scout check` called tools without the `Mcp-Param-*` headers their
/// `x-mcp-header` declares, so a server that enforces the rule (as 2026-07-28 says it must)
/// got `execution.tool_call` fail for a refusal scout caused. The call now carries them,
/// as `scout call` does.
#[tokio::test]
async fn check_sends_the_declared_param_headers_to_an_enforcing_server() {
    let r = run(fixture_http("param_header_enforced.py")).await;
    let f = crate::phase_fixtures::expect_era(
        &r,
        "execution.tool_call",
        Some("forecast"),
        Some(Era::Modern),
        Status::Pass,
    );
    assert!(!f.evidence.is_empty());
    let headers = forecast_param_headers(&r);
    assert!(
        !headers.is_empty() && headers.iter().all(Option::is_some),
        "{headers:?}"
    );
    no_fails(&r, "execution.");
}

/// The twin: a server that ignores the header serves the same calls; they pass too.
#[tokio::test]
async fn param_headers_sent_to_a_server_that_ignores_them() {
    let r = run(fixture_http("param_header_ignored.py")).await;
    expect(&r, "execution.tool_call", Some("forecast"), Status::Pass);
    assert!(forecast_param_headers(&r).iter().all(Option::is_some));
    no_fails(&r, "execution.");
}

/// Previously: a server that declares `prompts` but answers prompts/get with -32601 got
/// `execution.prompt_get` warn ("answered scout's generated arguments with an error") for a
/// prompt with arguments, so a declared capability that is not served went unflagged.
#[tokio::test]
async fn declared_prompts_without_prompts_get_fail() {
    let r = run(fixture("prompts_get_missing.py", &[])).await;
    let f = expect(&r, "execution.prompt_get", None, Status::Fail);
    assert!(
        f.detail.contains("Method not found") && f.detail.contains("`greet`"),
        "{}",
        f.detail
    );
    // With nothing listed, the made-up prompt's -32601 is the only sign, and it is enough.
    let r = run(fixture(
        "prompts_get_missing.py",
        &[("NO_PROMPTS", "1".into())],
    ))
    .await;
    let f = expect(&r, "execution.prompt_get", None, Status::Fail);
    assert!(f.detail.contains("Method not found"), "{}", f.detail);
    // Resources are served by the same fixture until told otherwise (the twin).
    expect(&r, "execution.resource_read", None, Status::Pass);
}

/// The same for resources: declared, nothing listed, and resources/read answers -32601.
/// Previously a warning ("got error -32601; -32002 is expected").
#[tokio::test]
async fn declared_resources_without_resources_read_fail() {
    let r = run(fixture(
        "prompts_get_missing.py",
        &[("NO_RESOURCES", "1".into())],
    ))
    .await;
    let f = expect(&r, "execution.resource_read", None, Status::Fail);
    assert!(f.detail.contains("Method not found"), "{}", f.detail);
}

/// A server that exits on a cancellation (as an SDK does when the cancellation lands just as
/// the tool finishes): the first cancellation scout sends is resilience.timeout_recovery's
/// (it abandons the run's slowest request and cancels it, then asks again), so the stop is
/// reported once, by resilience.stays_up naming that cancellation, and what came after it is
/// not assessed. Nothing else is charged: every verdict that differs from the correct
/// twin's is the stop, a check the stop left not assessed, or the process's own exit.
#[tokio::test]
async fn a_server_that_exits_on_a_cancellation_loses_no_other_verdict() {
    let every_phase = |mut spec: scout::spec::ServerSpec| {
        spec.only.clear();
        spec
    };
    let exits = run(every_phase(fixture(
        "slow_tool_cancellable.py",
        &[("EXIT_ON_CANCEL", "1".into())],
    )))
    .await;
    let twin = run(every_phase(fixture("slow_tool_cancellable.py", &[]))).await;
    let stop = expect(&exits, "resilience.stays_up", None, Status::Fail);
    assert_eq!(
        stop.severity,
        Some(scout::report::finding::Severity::Critical)
    );
    let cancel_seq = stop.evidence[0];
    assert!(
        stop.detail.contains(&format!("req#{cancel_seq}")),
        "{}",
        stop.detail
    );
    for id in ["execution.cancellation", "resilience.timeout_recovery"] {
        assert!(
            all(&exits, id)
                .iter()
                .all(|f| f.status == Status::Fail || f.skip_reason == Some(SkipReason::NotAssessed)),
            "{:#?}",
            all(&exits, id)
        );
    }
    expect(&twin, "execution.cancellation", None, Status::Pass);
    expect(&twin, "resilience.stays_up", None, Status::Pass);
    expect(&exits, "stdio.alive", None, Status::Fail);
    // A pass of stdio.alive is the process still running at the end; it cites the last line
    // the process wrote, which shows it was serving to the end.
    assert!(
        all(&twin, "stdio.alive")
            .iter()
            .all(|f| f.status == Status::Pass && f.evidence.len() == 1),
        "{:#?}",
        all(&twin, "stdio.alive")
    );
    // Timings and the whole-run judgements over every message (which read the cancelled
    // call's exchanges too) aside, every verdict of the exiting server is its twin's, or not
    // assessed because the server had stopped.
    let key = |f: &scout::report::finding::Finding| format!("{} {:?} {:?}", f.id, f.era, f.subject);
    let judged = |f: &&scout::report::finding::Finding| {
        !f.id.starts_with("stdio.")
            && !f.id.starts_with("performance.")
            && f.id != "resilience.stays_up"
    };
    let mut compared = 0;
    for f in exits.findings.iter().filter(judged) {
        if f.skip_reason == Some(SkipReason::NotAssessed) {
            continue;
        }
        let Some(t) = twin.findings.iter().find(|t| key(t) == key(f)) else {
            continue;
        };
        assert_eq!(f.status, t.status, "{f:#?}\nthe twin: {t:#?}");
        compared += 1;
    }
    assert!(compared > 20, "only {compared} verdicts were compared");
    assert!(
        exits
            .findings
            .iter()
            .any(|f| f.id.starts_with("protocol.") && f.status == Status::Pass),
        "the protocol phase ran"
    );
}

/// `execution.resource_templates`: each listed template, expanded with inert values, is read;
/// contents or a resource-not-found error are answers, an empty success is none ("Servers
/// MUST NOT return an empty contents array for a non-existent resource", 2026-07-28
/// server/resources), and a template that is no RFC 6570 template warns.
#[tokio::test]
async fn resource_templates_are_expanded_read_and_judged_on_both_eras() {
    let defect = |d: &str| fixture("resource_templates.py", &[("TEMPLATE_DEFECT", d.into())]);
    let (good, empty, broken) = tokio::join!(
        run(fixture("resource_templates.py", &[])),
        run(defect("empty")),
        run(defect("not_rfc6570")),
    );
    let f = expect(&good, "execution.resource_templates", None, Status::Pass);
    assert!(
        f.detail.contains("1 answered with contents") && f.detail.contains("archive://scout/1"),
        "{}",
        f.detail
    );
    let f = expect(&empty, "execution.resource_templates", None, Status::Fail);
    assert!(
        f.detail
            .to_lowercase()
            .contains("reading notes://scout returned empty contents"),
        "{}",
        f.detail
    );
    let f = expect(&broken, "execution.resource_templates", None, Status::Warn);
    assert!(
        f.detail.contains("is not an RFC 6570 template"),
        "{}",
        f.detail
    );
}

/// `execution.tasks` (2025-11-25): the correct `tasks.py` runs two tasks of its
/// task-required tool through their lifecycle and passes; each defect fails on the rule it
/// breaks — counting task ids ("receivers MUST generate cryptographically secure task IDs"
/// without context binding), a task handle to a call that asked for none ("Receivers that
/// do not declare the task capability for a request type MUST process requests of that type
/// normally"; a declared one may only refuse), an unknown id found ("Invalid or
/// nonexistent taskId in tasks/get … -32602"), tasks/result without the related-task _meta
/// ("The tasks/result operation MUST include this metadata in its response") and an ended
/// task cancelled ("Receivers MUST reject cancellation requests for tasks already in a
/// terminal status … with error code -32602").
#[tokio::test]
async fn tasks_run_through_their_lifecycle_and_each_defect_fails() {
    let defect = |d: &str| fixture("tasks.py", &[("TASKS_DEFECT", d.into())]);
    let (good, guessable, unasked, found, unrelated, cancelled) = tokio::join!(
        Box::pin(run(fixture("tasks.py", &[]))),
        Box::pin(run(defect("guessable"))),
        Box::pin(run(defect("handle_unasked"))),
        Box::pin(run(defect("unknown_found"))),
        Box::pin(run(defect("no_related"))),
        Box::pin(run(defect("cancel_ended"))),
    );
    let f = expect(&good, "execution.tasks", None, Status::Pass);
    for part in [
        "2 task(s) of report were created",
        "version 4",
        "got -32602",
        "tasks/list lists",
        "cancelling the ended task got -32602",
    ] {
        assert!(f.detail.contains(part), "{part}: {}", f.detail);
    }
    assert!(!f.evidence.is_empty());
    no_fails(&good, "execution.");
    for (r, says) in [
        (&guessable, "ids count up"),
        (&unasked, "answered with a task handle"),
        (&found, "never issued was answered with a result"),
        (
            &unrelated,
            "lacks the io.modelcontextprotocol/related-task _meta",
        ),
        (&cancelled, "of a task that had ended was accepted"),
    ] {
        let f = expect(r, "execution.tasks", None, Status::Fail);
        assert!(f.detail.contains(says), "{says}: {}", f.detail);
    }
}

/// `execution.tasks` on 2026-07-28 (the io.modelcontextprotocol/tasks extension): the correct
/// `tasks_ext.py` hands the full persona two tasks (one asks for a form on the way), which
/// scout polls to their end, over stdio and HTTP; each defect fails on its rule — a task to a
/// client that did not declare the extension ("A server MUST NOT return CreateTaskResult to a
/// client that did not include the extension capability on its request"), tasks/get served to
/// such a client ("Servers MUST return this error [-32021] for non-declaring clients issuing
/// tasks/get"), a completed task without its result ("the server MUST return a Task object
/// with status completed and a result field") and tasks/get with another resultType ("The
/// resultType field MUST be set to complete").
#[tokio::test]
async fn tasks_of_the_extension_are_followed_to_their_end_and_each_defect_fails() {
    let defect = |d: &str| fixture("tasks_ext.py", &[("TASKS_EXT_DEFECT", d.into())]);
    let (over_stdio, over_http, unasked, bare_get, no_result, result_type) = tokio::join!(
        Box::pin(run(fixture("tasks_ext.py", &[]))),
        Box::pin(run(fixture_http("tasks_ext.py"))),
        Box::pin(run(defect("unasked"))),
        Box::pin(run(defect("bare_get"))),
        Box::pin(run(defect("no_result"))),
        Box::pin(run(defect("result_type"))),
    );
    for r in [&over_stdio, &over_http] {
        let f = expect(r, "execution.tasks", None, Status::Pass);
        for part in [
            "from a client that did not declare the extension got -32021",
            "never issued got -32602",
            "of report ended completed after 2 poll(s)",
            "of confirm_report ended completed after 3 poll(s) and 1 tasks/update",
            "version 4",
        ] {
            assert!(f.detail.contains(part), "{part}: {}", f.detail);
        }
        no_fails(r, "execution.");
    }
    for (r, says) in [
        (
            &unasked,
            "did not declare the tasks extension was answered with a task",
        ),
        (&bare_get, "it must get -32021"),
        (&no_result, "a completed task without its result"),
        (&result_type, "resultType is \"task\", not \"complete\""),
    ] {
        let f = expect(r, "execution.tasks", None, Status::Fail);
        assert!(f.detail.contains(says), "{says}: {}", f.detail);
    }
}

/// A tool failure answered as a plain result whose payload says it failed
/// (`{"success": false, "error": …}`, isError absent) reads as a success to an agent: a
/// warning quoting the field, on every wire and transport. It used to pass unnoticed. The
/// twin reports the same failure with isError: true, and its `lint` tool, whose normal
/// output talks about errors, is never flagged.
#[tokio::test]
async fn tool_failure_dressed_as_success_warns() {
    let dressed = [("TOOL_ERRORS_DRESSED", "1")];
    for r in [
        run(fixture(
            "tool_errors.py",
            &[("TOOL_ERRORS_DRESSED", "1".into())],
        ))
        .await,
        run(crate::phase_fixtures::fixture_http_env(
            "tool_errors.py",
            &dressed,
        ))
        .await,
    ] {
        let f = expect(&r, "execution.error_reporting", None, Status::Warn);
        assert!(f.detail.contains("`lookup`"), "{}", f.detail);
        assert!(f.detail.contains(r#""success": false"#), "{}", f.detail);
        assert!(!f.detail.contains("`lint`"), "{}", f.detail);
    }
    for r in [
        run(fixture("tool_errors.py", &[])).await,
        run(fixture_http("tool_errors.py")).await,
    ] {
        expect(&r, "execution.error_reporting", None, Status::Pass);
        expect(&r, "execution.invalid_arguments", None, Status::Pass);
    }
}

/// Arguments that violate the schema and crash the tool (-32603 Internal error) were
/// counted as "refused"; a crash is a warning. A -32601 Method not found says nothing about
/// the arguments: reported as what came, not a refusal. The twin answers -32602 (above).
#[tokio::test]
async fn invalid_arguments_crash_warns_and_method_not_found_is_no_refusal() {
    let crash = [("TOOL_ERRORS_BAD_ARGS", "crash")];
    for r in [
        run(fixture(
            "tool_errors.py",
            &[("TOOL_ERRORS_BAD_ARGS", "crash".into())],
        ))
        .await,
        run(crate::phase_fixtures::fixture_http_env(
            "tool_errors.py",
            &crash,
        ))
        .await,
    ] {
        let f = expect(
            &r,
            "execution.invalid_arguments",
            Some("lookup"),
            Status::Warn,
        );
        assert!(f.detail.contains("-32603"), "{}", f.detail);
    }
    let r = run(fixture(
        "tool_errors.py",
        &[("TOOL_ERRORS_BAD_ARGS", "missing".into())],
    ))
    .await;
    let f = expect(
        &r,
        "execution.invalid_arguments",
        Some("lookup"),
        Status::Info,
    );
    assert!(f.detail.contains("not a refusal"), "{}", f.detail);
}

/// Task ids of the 2026-07-28 tasks extension are judged as session ids are, from the two or
/// more a run is handed ("Servers MUST generate them with sufficient entropy that a third
/// party cannot enumerate or guess them"): `tasks_ext.py` counting them up (task-1, task-2)
/// fails without credentials, over stdio and HTTP; its twin's random UUIDs pass.
#[tokio::test]
async fn counting_task_ids_of_the_extension_fail() {
    let env = [("TASKS_EXT_DEFECT", "guessable")];
    let (over_stdio, over_http, twin) = tokio::join!(
        Box::pin(run(fixture(
            "tasks_ext.py",
            &[("TASKS_EXT_DEFECT", "guessable".into())]
        ))),
        Box::pin(run(crate::phase_fixtures::fixture_http_env(
            "tasks_ext.py",
            &env
        ))),
        Box::pin(run(fixture("tasks_ext.py", &[]))),
    );
    for r in [&over_stdio, &over_http] {
        let f = expect(r, "execution.tasks", None, Status::Fail);
        assert!(f.detail.contains("ids count up"), "{}", f.detail);
    }
    let f = expect(&twin, "execution.tasks", None, Status::Pass);
    assert!(f.detail.contains("version 4"), "{}", f.detail);
}
