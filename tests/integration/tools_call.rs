//! The library side of `scout tools` and `scout call` over a real connection to the
//! records_calls fixture: the table shows what the policy would do, a refused call names the
//! flag and reaches no tool, an allowed one is rendered.

use scout::policy::{self, CallError, Decision};
use scout::probe::{Session, discovery, handshake, stdio};
use scout::spec::PolicySpec;

use crate::phase_fixtures::fixture;

#[tokio::test]
async fn tools_table_and_call_with_the_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let spec = fixture(
        "records_calls.py",
        &[("SCOUT_TEST_CALL_LOG", log.display().to_string())],
    );
    let mut s = Session::new(spec);
    discovery::run(&mut s).await;
    handshake::run(&mut s).await;
    let wire = s.wires.first().cloned().expect("a wire to the fixture");

    let tools = policy::list_tools(&wire).await.expect("tools/list");
    let rows = policy::tool_table(&tools, &PolicySpec::default());
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["read_only", "mutating", "destructive", "unannotated"]
    );
    assert_eq!(rows[0].decision, Decision::Call);
    let text = policy::render_tool_table(&rows);
    assert!(
        text.contains("to allow it, start scout again with --allow-mutations"),
        "{text}"
    );
    let json = policy::tool_table_json(&rows);
    assert_eq!(json[2]["decision"]["action"], "skip");

    let refused = policy::call(
        &wire,
        &tools,
        &PolicySpec::default(),
        "destructive",
        serde_json::json!({}),
    )
    .await;
    match refused {
        Err(e @ CallError::Refused { .. }) => {
            assert!(e.to_string().contains("--allow-destructive"), "{e}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let result = policy::call(
        &wire,
        &tools,
        &PolicySpec::default(),
        "read_only",
        serde_json::json!({}),
    )
    .await
    .expect("the read-only call");
    assert_eq!(policy::render_call_result(&result), "read_only done\n");
    let unknown = policy::call(
        &wire,
        &tools,
        &PolicySpec::default(),
        "nope",
        serde_json::json!({}),
    )
    .await;
    assert_eq!(unknown, Err(CallError::UnknownTool("nope".into())));

    stdio::finish(&mut s).await;
    let called = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(called.lines().collect::<Vec<_>>(), ["read_only"]);
}

/// Previously `scout tools` listed (and `scout call` would call) a tool that
/// `catalog.x_mcp_header` says a client on Streamable HTTP must drop; now it is left out of
/// the table with a warning naming the tool and the reason. The valid tool stays.
#[test]
fn scout_tools_drops_a_tool_with_invalid_x_mcp_header() {
    let server = crate::common::HttpFixture::start("invalid_x_mcp_header.py");
    let out = crate::common::scout()
        .args(["tools", "--json", &server.url])
        .output()
        .expect("scout runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("\"good\""), "{stdout}");
    assert!(!stdout.contains("\"bad\""), "{stdout}");
    assert!(
        stderr.contains("dropped tool `bad`") && stderr.contains("two words"),
        "{stderr}"
    );
    let call = crate::common::scout()
        .args(["call", "bad", &server.url])
        .output()
        .expect("scout runs");
    assert!(!call.status.success());
}
