//! The catalog phase against fixture servers: each check passes on the correct fixture and
//! fails (or warns) on the fixture named after its defect.

use std::io::Read;
use std::net::TcpListener;

use scout::report::finding::{Era, SkipReason, Status};

use crate::phase_fixtures::{
    all, expect, expect_era, fixture, fixture_http, fixture_http_env, never, no_fails, run,
};

#[tokio::test]
async fn correct_fixture_passes_the_catalog() {
    let r = run(fixture("minimal_server.py", &[])).await;
    for id in [
        "catalog.tools_list",
        "catalog.pagination",
        "catalog.tool_schema",
        "catalog.output_schema",
        "catalog.tool_names",
        "catalog.annotations",
        "catalog.descriptions",
        "catalog.resources",
        "catalog.prompts",
    ] {
        expect(&r, id, None, Status::Pass);
        never(&r, id, Status::Fail);
    }
    // completions are declared on the handshake wire only.
    expect_era(
        &r,
        "catalog.completions",
        None,
        Some(Era::Legacy),
        Status::Pass,
    );
    let f = expect_era(
        &r,
        "catalog.completions",
        None,
        Some(Era::Modern),
        Status::Skip,
    );
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    expect(&r, "catalog.context_size", None, Status::Info);
    never(&r, "handshake.capabilities", Status::Fail);
    no_fails(&r, "catalog.");
}

#[tokio::test]
async fn cursor_loop_fails_pagination() {
    let r = run(fixture("cursor_loop.py", &[])).await;
    let f = expect(&r, "catalog.pagination", None, Status::Fail);
    assert!(f.detail.contains("loop"), "{}", f.detail);
}

#[tokio::test]
async fn lenient_cursor_warns() {
    let r = run(fixture("lenient_errors.py", &[])).await;
    expect(&r, "catalog.pagination", None, Status::Warn);
}

#[tokio::test]
async fn unannotated_tools_warn() {
    let r = run(fixture("unannotated_tools.py", &[])).await;
    let f = expect(&r, "catalog.annotations", None, Status::Warn);
    assert!(
        f.detail.contains("echo") && f.detail.contains("destructive"),
        "{}",
        f.detail
    );
}

#[tokio::test]
async fn bad_input_schemas_fail() {
    let r = run(fixture("bad_input_schema.py", &[])).await;
    expect(&r, "catalog.tool_schema", Some("stringly"), Status::Fail);
    expect(&r, "catalog.tool_schema", Some("broken"), Status::Fail);
}

#[tokio::test]
async fn duplicate_and_malformed_names() {
    let r = run(fixture("duplicate_tool_names.py", &[])).await;
    // Was a major fail; the spec says only "Tool names SHOULD be unique within a server".
    expect(&r, "catalog.tool_names", Some("echo"), Status::Warn);
    expect(&r, "catalog.tool_names", Some("echo twice"), Status::Warn);
}

/// Schemas with a remote `$ref` and a `file:///etc/passwd` ref cause no
/// network access (the listener receives nothing) and become findings, not crashes.
#[tokio::test]
async fn remote_refs_are_never_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port().to_string();
    let r = run(fixture(
        "remote_ref_schema.py",
        &[("SCOUT_TEST_REF_PORT", port)],
    ))
    .await;
    let remote = expect(&r, "catalog.tool_schema", Some("remote_ref"), Status::Warn);
    assert!(remote.detail.contains("not fetched"), "{}", remote.detail);
    expect(&r, "catalog.tool_schema", Some("file_ref"), Status::Warn);
    if let Ok((mut conn, _)) = listener.accept() {
        let mut buf = String::new();
        let _ = conn.read_to_string(&mut buf);
        panic!("scout connected to the $ref listener: {buf}");
    }
}

#[tokio::test]
async fn output_schema_with_array_root_fails_before_2026() {
    let r = run(fixture("bad_input_schema.py", &[])).await;
    let f = expect(&r, "catalog.output_schema", Some("array_out"), Status::Fail);
    assert_eq!(f.era, Some(Era::Legacy));
    let modern: Vec<_> = all(&r, "catalog.output_schema")
        .into_iter()
        .filter(|f| f.era == Some(Era::Modern))
        .collect();
    assert!(
        modern.iter().all(|f| f.status == Status::Pass),
        "{modern:#?}"
    );
}

#[tokio::test]
async fn broken_tools_list_fails() {
    let r = run(fixture("tools_list_broken.py", &[])).await;
    expect(&r, "catalog.tools_list", None, Status::Fail);
}

#[tokio::test]
async fn x_mcp_header_declarations() {
    let r = run(fixture("invalid_x_mcp_header.py", &[])).await;
    let f = expect(&r, "catalog.x_mcp_header", Some("bad"), Status::Fail);
    assert_eq!(f.era, Some(Era::Modern));
    assert!(
        f.detail.contains("two words") && f.detail.contains("object"),
        "{}",
        f.detail
    );
    let ok = run(fixture(
        "invalid_x_mcp_header.py",
        &[("ONLY_VALID", "1".into())],
    ))
    .await;
    // x-mcp-header exists only in 2026-07-28.
    expect_era(
        &ok,
        "catalog.x_mcp_header",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    let f = expect_era(
        &ok,
        "catalog.x_mcp_header",
        None,
        Some(Era::Legacy),
        Status::Skip,
    );
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
    never(&ok, "catalog.x_mcp_header", Status::Fail);
}

#[tokio::test]
async fn incomplete_entries_fail() {
    let r = run(fixture("incomplete_entries.py", &[])).await;
    expect(&r, "catalog.resources", None, Status::Fail);
    expect(&r, "catalog.prompts", None, Status::Fail);
    expect(&r, "catalog.completions", None, Status::Fail);
    let f = expect(&r, "catalog.descriptions", None, Status::Warn);
    assert!(f.detail.contains("tool `echo`"), "{}", f.detail);
}

#[tokio::test]
async fn working_but_undeclared_prompts_fail_capabilities() {
    let r = run(fixture("undeclared_prompts.py", &[])).await;
    expect(&r, "handshake.capabilities", None, Status::Fail);
    let f = expect(&r, "catalog.prompts", None, Status::Skip);
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable));
}

/// Previously a server that answered resources/list and prompts/list with empty lists,
/// declaring neither, failed handshake.capabilities major: the rule it quoted binds the
/// client that asks, and an empty list offers an agent nothing. A non-empty list for an
/// undeclared capability (undeclared_prompts.py without the switch) still fails.
#[tokio::test]
async fn an_empty_list_of_an_undeclared_capability_is_no_fault() {
    let empty = || fixture("undeclared_prompts.py", &[("EMPTY_UNDECLARED", "1".into())]);
    let (stdio, http, offered) = tokio::join!(
        run(empty()),
        run(fixture_http_env(
            "undeclared_prompts.py",
            &[("EMPTY_UNDECLARED", "1")]
        )),
        run(fixture_http("undeclared_prompts.py")),
    );
    for r in [&stdio, &http] {
        never(r, "handshake.capabilities", Status::Fail);
        never(r, "handshake.capabilities", Status::Warn);
        let noted: Vec<_> = all(r, "handshake.capabilities")
            .into_iter()
            .filter(|f| f.status == Status::Info)
            .collect();
        for method in ["resources/list", "prompts/list"] {
            let f = noted
                .iter()
                .find(|f| f.subject.as_deref() == Some(method))
                .unwrap_or_else(|| panic!("no note for {method}: {noted:#?}"));
            assert!(f.detail.contains("empty list"), "{}", f.detail);
            assert!(!f.evidence.is_empty(), "{f:?}");
        }
    }
    let f = expect(
        &offered,
        "handshake.capabilities",
        Some("prompts/list"),
        Status::Fail,
    );
    assert!(f.detail.contains("1 entry"), "{}", f.detail);
}

#[tokio::test]
async fn context_size_warns_above_the_threshold() {
    let mut spec = fixture("minimal_server.py", &[]);
    spec.context_warn_tokens = 10;
    let r = run(spec).await;
    let f = expect(&r, "catalog.context_size", None, Status::Warn);
    assert!(f.detail.contains("threshold of 10"), "{}", f.detail);
}

/// The `tools/call`s of `tool` on the 2026-07-28 wire (the bodies carry the `_meta` envelope).
fn modern_calls_of(r: &scout::report::model::ServerReport, tool: &str) -> usize {
    let name = format!("\"name\":\"{tool}\"");
    r.exchanges
        .iter()
        .filter(|e| match &e.kind {
            scout::report::exchange::ExchangeKind::Http(h) => {
                h.request_body.as_deref().is_some_and(|b| {
                    b.contains("\"tools/call\"")
                        && b.replace(' ', "").contains(&name)
                        && b.contains("io.modelcontextprotocol/protocolVersion")
                })
            }
            _ => false,
        })
        .count()
}

/// Previously: the tool `catalog.x_mcp_header` says a client must drop was still called
/// (`execution.tool_call` judged it like any other). Over Streamable HTTP on 2026-07-28 it
/// is now dropped before any call, and `execution.policy` says so.
#[tokio::test]
async fn a_tool_clients_must_drop_is_not_called() {
    let r = run(crate::phase_fixtures::fixture_http(
        "invalid_x_mcp_header.py",
    ))
    .await;
    expect_era(
        &r,
        "catalog.x_mcp_header",
        Some("bad"),
        Some(Era::Modern),
        Status::Fail,
    );
    let note = expect_era(
        &r,
        "execution.policy",
        Some("bad"),
        Some(Era::Modern),
        Status::Info,
    );
    assert!(note.detail.contains("dropped"), "{}", note.detail);
    assert_eq!(modern_calls_of(&r, "bad"), 0);
    assert!(
        !r.findings.iter().any(|f| f.id == "execution.tool_call"
            && f.era == Some(Era::Modern)
            && f.subject.as_deref() == Some("bad")),
        "the dropped tool was judged"
    );
    // The valid tool beside it is called as usual.
    assert!(modern_calls_of(&r, "good") > 0);
    expect_era(
        &r,
        "execution.tool_call",
        Some("good"),
        Some(Era::Modern),
        Status::Pass,
    );
}

/// The twin: only the valid declaration, over HTTP; nothing is dropped and nothing fails.
#[tokio::test]
async fn valid_x_mcp_header_tools_are_called() {
    let r = run(crate::phase_fixtures::fixture_http_env(
        "invalid_x_mcp_header.py",
        &[("ONLY_VALID", "1")],
    ))
    .await;
    assert!(
        !all(&r, "execution.policy")
            .iter()
            .any(|f| f.detail.contains("dropped")),
        "{:#?}",
        all(&r, "execution.policy")
    );
    assert!(modern_calls_of(&r, "good") > 0);
    no_fails(&r, "catalog.");
    no_fails(&r, "execution.");
}

/// Icons under `javascript:`, `file:` or plain `http:` warn, each named (clients must reject
/// them); the twin with only `https:` and `data:` icons passes.
#[tokio::test]
async fn unsafe_icon_schemes_warn() {
    let r = run(fixture("icon_schemes.py", &[("ICONS", "unsafe".into())])).await;
    let f = expect(&r, "catalog.icons", None, Status::Warn);
    for named in [
        "tool `echo`: \"javascript:alert(1)\"",
        "resource `fixture://readme`: \"file:///etc/passwd\"",
        "prompt `greet`: \"http://icons.example.invalid/greet.png\"",
    ] {
        assert!(f.detail.contains(named), "{named}: {}", f.detail);
    }
    assert!(
        !f.detail.contains("echo.png"),
        "safe icons are not named: {}",
        f.detail
    );
    let twin = run(fixture("icon_schemes.py", &[])).await;
    expect(&twin, "catalog.icons", None, Status::Pass);
    never(&twin, "catalog.icons", Status::Warn);
}

/// `logging` declared on the 2026-07-28 wire, whose revision deprecated it, warns with the
/// migration and the earliest removal; declared only at 2025-11-25 (the twin), it is a
/// notice on that wire and the modern wire passes.
#[tokio::test]
async fn logging_declared_where_it_is_deprecated_warns() {
    let r = run(fixture(
        "logging_declared.py",
        &[("LOGGING", "modern".into())],
    ))
    .await;
    let f = expect_era(
        &r,
        "catalog.deprecated",
        None,
        Some(Era::Modern),
        Status::Warn,
    );
    assert!(
        f.detail.contains("`logging`") && f.detail.contains("2027-07-28"),
        "{}",
        f.detail
    );
    assert!(!f.evidence.is_empty(), "cites the discover answer");
    let twin = run(fixture("logging_declared.py", &[])).await;
    expect_era(
        &twin,
        "catalog.deprecated",
        None,
        Some(Era::Modern),
        Status::Pass,
    );
    let notice = expect_era(
        &twin,
        "catalog.deprecated",
        None,
        Some(Era::Legacy),
        Status::Info,
    );
    assert!(notice.detail.contains("2026-07-28"), "{}", notice.detail);
    never(&twin, "catalog.deprecated", Status::Warn);
}

/// Previously: the protocol phase's `Mcp-Param-*` probe called a tool whose x-mcp-header
/// declarations `catalog.x_mcp_header` had just said a client must drop. Now only tools a
/// client may offer are called to test headers; the twin's valid declaration still is.
#[tokio::test]
async fn the_header_probe_calls_no_tool_clients_must_drop() {
    let with_protocol = |mut spec: scout::spec::ServerSpec| {
        spec.only.push(scout::report::finding::Phase::Protocol);
        spec
    };
    let (invalid, valid) = tokio::join!(
        run(with_protocol(crate::phase_fixtures::fixture_http_env(
            "invalid_x_mcp_header.py",
            &[("ONLY_INVALID", "1")],
        ))),
        run(with_protocol(crate::phase_fixtures::fixture_http_env(
            "invalid_x_mcp_header.py",
            &[("ONLY_VALID", "1")],
        ))),
    );
    expect_era(
        &invalid,
        "catalog.x_mcp_header",
        Some("bad"),
        Some(Era::Modern),
        Status::Fail,
    );
    assert_eq!(modern_calls_of(&invalid, "bad"), 0);
    let f = expect_era(
        &invalid,
        "protocol.param_headers",
        None,
        Some(Era::Modern),
        Status::Skip,
    );
    assert_eq!(f.skip_reason, Some(SkipReason::NotApplicable), "{f:#?}");
    assert!(modern_calls_of(&valid, "good") > 0);
    let judged: Vec<_> = valid
        .findings
        .iter()
        .filter(|f| f.id == "protocol.param_headers" && f.era == Some(Era::Modern))
        .collect();
    assert!(
        judged.len() == 1 && judged[0].status != Status::Skip,
        "{judged:#?}"
    );
}
