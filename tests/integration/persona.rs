//! scout answers the server: with the full persona, server-everything (npm) registers the
//! tools that talk back (they exist only for a client that declares the capability) and
//! each call that makes the server ask (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`) completes once scout answered, on stdio and on Streamable HTTP, with the
//! answer recorded. Without answers these calls hung until the timeout.
//!
//! Policy: `trigger-elicitation-request` and `trigger-sampling-request` are annotated
//! `readOnlyHint: false, destructiveHint: false`, so calling them needs `--allow-mutations`
//! (`PolicySpec::allow_mutations`); `get-roots-list` is read-only and needs nothing.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use scout::client::Connection;
use scout::policy::{self, Decision};
use scout::probe::{Session, discovery, handshake, stdio};
use scout::report::exchange::{Direction, ExchangeKind, jsonrpc_messages};
use scout::spec::{PolicySpec, ServerSpec, TargetSpec};
use scout::transport::Outcome;
use scout::transport::answer::{Persona, SAMPLING_TEXT};
use scout::transport::process::ProcessConfig;

use crate::servers;

const TIMEOUT: Duration = Duration::from_secs(10);

fn spec(target: TargetSpec, persona: Persona) -> ServerSpec {
    let mut spec = ServerSpec::new("everything", target);
    spec.timeout = TIMEOUT;
    spec.deadline = Duration::from_secs(60);
    spec.client = persona;
    spec
}

fn stdio_target() -> TargetSpec {
    TargetSpec::Stdio(ProcessConfig {
        command: servers::everything_stdio(),
        env_forward: vec![],
        env_set: vec![],
        dir: None,
    })
}

fn http_target(url: &str) -> TargetSpec {
    TargetSpec::Http {
        url: url.to_string(),
        headers: vec![],
        auth: Default::default(),
        start: None,
    }
}

async fn open(spec: ServerSpec) -> (Session, Connection) {
    let mut s = Session::new(spec);
    discovery::run(&mut s).await;
    handshake::run(&mut s).await;
    let wire = s
        .wires
        .first()
        .cloned()
        .expect("a wire to server-everything");
    (s, wire)
}

/// The message scout sent answering the server's request `id`, among `evidence`.
fn answer_in(s: &Session, evidence: &[u64], request: &Value) -> Option<Value> {
    let id = request.get("id")?;
    s.recorder
        .shared()
        .iter()
        .filter(|e| evidence.contains(&e.seq))
        .filter_map(|e| match &e.kind {
            ExchangeKind::Stdio(m) if m.direction == Direction::Sent => {
                serde_json::from_str::<Value>(&m.line).ok()
            }
            ExchangeKind::Http(h) if h.method == "POST" => h
                .request_body
                .as_deref()
                .and_then(|b| serde_json::from_str::<Value>(b).ok()),
            _ => None,
        })
        .find(|m| m.get("id") == Some(id) && m.get("method").is_none())
}

/// Calls `tool` and checks that it completed well within the timeout, that the server asked
/// `method` during it and that scout's answer to it is cited in the reply.
async fn call_that_asks(
    s: &Session,
    wire: &Connection,
    tools: &[Value],
    tool: &str,
    arguments: Value,
    method: &str,
) -> (Value, Value) {
    let listed = tools
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} is registered for the full persona"));
    let policy = PolicySpec {
        allow_mutations: true,
        ..PolicySpec::default()
    };
    assert_eq!(policy::decide(listed, &policy), Decision::Call, "{tool}");
    let started = Instant::now();
    let reply = wire
        .call_tool(tool, arguments, &listed["inputSchema"])
        .await;
    assert_eq!(
        reply.outcome,
        Outcome::Answered,
        "{tool}: {}",
        reply.describe()
    );
    assert!(
        started.elapsed() < TIMEOUT / 2,
        "{tool} took {:?}: was the request answered?",
        started.elapsed()
    );
    let result = reply.result().cloned().unwrap_or_else(|| {
        panic!("{tool}: {}", reply.describe());
    });
    let asked = reply
        .server_requests
        .iter()
        .find(|m| m["method"] == method)
        .cloned()
        .unwrap_or_else(|| panic!("{tool}: the server sent no {method} during the call"));
    let answer = answer_in(s, &reply.evidence, &asked)
        .unwrap_or_else(|| panic!("{tool}: scout's answer to {method} is not in the evidence"));
    (result, answer)
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn full_persona_answers(s: &Session, wire: &Connection) {
    let tools = policy::list_tools(wire).await.expect("tools/list");

    let (result, answer) = call_that_asks(
        s,
        wire,
        &tools,
        "trigger-elicitation-request",
        json!({}),
        "elicitation/create",
    )
    .await;
    // The full persona declines by default, and the server reports the decline.
    assert_eq!(answer["result"], json!({"action": "decline"}));
    assert!(text_of(&result).contains("decline"), "{result}");

    let (result, answer) = call_that_asks(
        s,
        wire,
        &tools,
        "trigger-sampling-request",
        json!({"prompt": "hello", "maxTokens": 10}),
        "sampling/createMessage",
    )
    .await;
    assert_eq!(answer["result"]["role"], "assistant");
    assert!(text_of(&result).contains(SAMPLING_TEXT), "{result}");

    // get-roots-list asks only when the server has no roots yet: it may have asked (and
    // been answered) right after the handshake. Either way the call completes and the
    // server knows the (empty) list scout gave.
    let listed = tools
        .iter()
        .find(|t| t["name"] == "get-roots-list")
        .expect("get-roots-list is registered for the full persona");
    assert_eq!(
        policy::decide(listed, &PolicySpec::default()),
        Decision::Call
    );
    let reply = wire
        .call_tool("get-roots-list", json!({}), &listed["inputSchema"])
        .await;
    let result = reply.result().cloned().expect("get-roots-list answered");
    assert!(
        text_of(&result).contains("no roots are currently configured"),
        "{result}"
    );
    let answered_roots = s.recorder.shared().iter().any(|e| {
        jsonrpc_messages(e)
            .iter()
            .any(|m| m.get("result").and_then(|r| r.get("roots")) == Some(&json!([])))
    });
    assert!(answered_roots, "scout's answer to roots/list was recorded");
}

#[tokio::test]
async fn the_full_persona_answers_server_everything_over_stdio() {
    let (mut s, wire) = open(spec(stdio_target(), Persona::full())).await;
    full_persona_answers(&s, &wire).await;
    stdio::finish(&mut s).await;
}

#[tokio::test]
async fn the_full_persona_answers_server_everything_over_http() {
    let server = servers::everything_http();
    let (s, wire) = open(spec(http_target(&server.url), Persona::full())).await;
    full_persona_answers(&s, &wire).await;
    // Each answer went back as a POST of its own carrying the session.
    let session = wire.session_id().expect("a session");
    let posts: Vec<_> = s
        .recorder
        .shared()
        .iter()
        .filter_map(|e| match &e.kind {
            ExchangeKind::Http(h)
                if h.request_body
                    .as_deref()
                    .is_some_and(|b| b.contains("\"action\":\"decline\"")) =>
            {
                Some(h.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(posts.len(), 1, "one answer to the one elicitation");
    assert!(
        posts[0]
            .request_headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("mcp-session-id") && *v == session)
    );
    assert_eq!(posts[0].status, Some(202));
    let _ = wire.close().await;
}

#[tokio::test]
async fn the_bare_persona_declares_nothing_and_gets_no_tool_that_talks_back() {
    let (mut s, wire) = open(spec(stdio_target(), Persona::bare())).await;
    let tools = policy::list_tools(&wire).await.expect("tools/list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"echo"), "{names:?}");
    for asks in [
        "trigger-elicitation-request",
        "trigger-sampling-request",
        "get-roots-list",
    ] {
        assert!(
            !names.contains(&asks),
            "{asks} registered for a bare client"
        );
    }
    stdio::finish(&mut s).await;
}

/// The answers the `asks_back` fixture quotes from its one `ask` call, by method.
async fn asks_back(persona: Persona, env: &[(&str, String)]) -> Value {
    let mut spec = crate::phase_fixtures::fixture("asks_back.py", env);
    spec.client = persona;
    let (mut s, wire) = open(spec).await;
    let started = Instant::now();
    let reply = wire.call_tool("ask", json!({}), &Value::Null).await;
    assert_eq!(reply.outcome, Outcome::Answered, "{}", reply.describe());
    assert!(started.elapsed() < Duration::from_secs(3), "the call hung");
    let text = reply
        .result()
        .map(text_of)
        .unwrap_or_else(|| panic!("{}", reply.describe()));
    // Each request the server made is in the reply, and so is scout's answer to it.
    for asked in &reply.server_requests {
        assert!(
            answer_in(&s, &reply.evidence, asked).is_some(),
            "no answer to {asked} cited"
        );
    }
    stdio::finish(&mut s).await;
    serde_json::from_str(&text).expect("the fixture quotes JSON")
}

#[tokio::test]
async fn the_bare_persona_refuses_what_it_did_not_declare_and_the_call_completes() {
    let got = asks_back(
        Persona::bare(),
        &[("SCOUT_TEST_ASK_UNDECLARED", "1".into())],
    )
    .await;
    // client/elicitation: a mode not declared gets -32602; the other methods do not exist
    // for a client that declared neither sampling nor roots.
    assert_eq!(got["elicitation/create"]["error"]["code"], -32602, "{got}");
    assert_eq!(
        got["sampling/createMessage"]["error"]["code"], -32601,
        "{got}"
    );
    assert_eq!(got["roots/list"]["error"]["code"], -32601, "{got}");
    // The correct twin asks a bare client nothing.
    let twin = asks_back(Persona::bare(), &[]).await;
    assert_eq!(twin, json!({}));
}

#[tokio::test]
async fn the_full_persona_answers_as_configured() {
    let got = asks_back(Persona::full(), &[]).await;
    assert_eq!(
        got["elicitation/create"]["result"],
        json!({"action": "decline"})
    );
    assert_eq!(
        got["sampling/createMessage"]["result"]["content"]["text"],
        SAMPLING_TEXT
    );
    assert_eq!(got["roots/list"]["result"], json!({"roots": []}));

    let mut accepting = Persona::full();
    accepting.elicitation = scout::transport::answer::ElicitAnswer::Accept;
    accepting.roots.push(scout::transport::answer::Root {
        uri: "file:///workspace".into(),
        name: Some("workspace".into()),
    });
    let got = asks_back(accepting.clone(), &[]).await;
    // Accepted with the schema's defaults, nothing invented.
    assert_eq!(
        got["elicitation/create"]["result"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(
        got["roots/list"]["result"]["roots"][0]["uri"],
        "file:///workspace"
    );

    accepting
        .per_tool
        .insert("ask".into(), scout::transport::answer::ElicitAnswer::Cancel);
    let got = asks_back(accepting, &[]).await;
    assert_eq!(
        got["elicitation/create"]["result"],
        json!({"action": "cancel"})
    );
}

/// `[client]` in scout.toml becomes the persona of every server's spec, a server entry's
/// own table replaces it, and a bad value is a one-line usage error naming the key.
#[test]
fn the_client_table_configures_the_persona() {
    use scout::transport::answer::{ElicitAnswer, PersonaKind};
    let load = |toml: &str| {
        let dir = crate::common::workspace(Some(toml));
        scout::config::load(scout::config::LoadOptions {
            config: Some(dir.path().join("scout.toml")),
            ..Default::default()
        })
    };
    let loaded = load(
        "[default.client]\npersona = \"full\"\nelicitation = \"accept\"\n\
         roots = [{ uri = \"file:///workspace\", name = \"workspace\" }]\n\
         [default.client.tools]\ndeploy = \"cancel\"\n\
         [[default.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n\
         [[default.servers]]\nname = \"b\"\nurl = \"http://127.0.0.1:2/mcp\"\n\
         client = { persona = \"bare\" }\n",
    )
    .expect("a valid [client]");
    let a = &loaded.servers[0].spec.client;
    assert_eq!(a.kind, PersonaKind::Full);
    assert_eq!(a.elicitation, ElicitAnswer::Accept);
    assert_eq!(a.per_tool.get("deploy"), Some(&ElicitAnswer::Cancel));
    assert_eq!(a.roots[0].uri, "file:///workspace");
    assert_eq!(loaded.servers[1].spec.client, Persona::bare());

    let bad = |toml: &str| load(toml).expect_err(toml).to_string();
    let e = bad("[default.client]\npersona = \"chatty\"\n");
    assert!(
        e.contains("[client] persona") && e.contains("bare or full"),
        "{e}"
    );
    let e = bad("[default.client]\npersona = \"full\"\nelicitation = \"maybe\"\n");
    assert!(e.contains("decline, accept or cancel"), "{e}");
    let e =
        bad("[default.client]\npersona = \"full\"\nroots = [{ uri = \"https://example.com\" }]\n");
    assert!(e.contains("file://"), "{e}");
    // `trigger`: a tool with its arguments, or a command, never both or neither.
    let servers = "[[default.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n";
    let t = load(&format!(
        "[default.client]\ntrigger = {{ tool = \"add_note\", arguments = {{ text = \"scout\" }} }}\n{servers}"
    ))
    .expect("a tool trigger");
    assert_eq!(
        t.servers[0].spec.list_trigger,
        Some(scout::spec::ListTrigger::Tool {
            name: "add_note".into(),
            arguments: serde_json::json!({"text": "scout"}),
        })
    );
    let t = load(&format!(
        "[default.client]\ntrigger = {{ command = [\"touch\", \"x\"] }}\n{servers}"
    ))
    .expect("a command trigger");
    assert_eq!(
        t.servers[0].spec.list_trigger,
        Some(scout::spec::ListTrigger::Command(vec![
            "touch".into(),
            "x".into()
        ]))
    );
    for wrong in [
        "trigger = { tool = \"a\", command = [\"b\"] }",
        "trigger = { command = [] }",
        "trigger = { arguments = { a = 1 } }",
        "trigger = { tool = \"a\", arguments = 3 }",
    ] {
        let e = bad(&format!("[default.client]\n{wrong}\n"));
        assert!(e.contains("[client] trigger"), "{wrong}: {e}");
    }
    // With the bare persona, the answers are those of the full persona's connection.
    let answers = load(
        "[default.client]\nelicitation = \"accept\"\n\
         [[default.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
    )
    .expect("answers for the full persona's connection");
    let a = &answers.servers[0].spec.client;
    assert_eq!(
        (a.kind, a.elicitation),
        (PersonaKind::Bare, ElicitAnswer::Accept)
    );
    let e = bad("[default.client]\npersona = \"full\"\nanswer = \"yes\"\n");
    assert!(e.contains("answer"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
}

// ------------------------------------------------------------------ the checks

use scout::report::finding::{Phase, Status};
use scout::report::model::ServerReport;

const TALKBACK: [&str; 4] = [
    "protocol.capability_use",
    "execution.elicitation",
    "execution.sampling",
    "execution.roots",
];

/// `id: status detail` of every finding of the four talk-back checks.
fn verdicts(r: &ServerReport) -> Vec<(String, Status, String)> {
    r.findings
        .iter()
        .filter(|f| TALKBACK.contains(&f.id.as_str()))
        .map(|f| (f.id.clone(), f.status, f.detail.clone()))
        .collect()
}

fn status_of(r: &ServerReport, id: &str) -> Vec<Status> {
    r.findings
        .iter()
        .filter(|f| f.id == id)
        .map(|f| f.status)
        .collect()
}

async fn checked(mut spec: ServerSpec, policy: PolicySpec) -> ServerReport {
    spec.only = vec![
        Phase::Discovery,
        Phase::Handshake,
        Phase::Catalog,
        Phase::Execution,
    ];
    spec.policy = policy;
    crate::phase_fixtures::run(spec).await
}

/// server-everything plays by the rules: it registers the tools that ask only for a client
/// that declared the capability, asks a bare client nothing, and every request it sends
/// the full persona is well formed, with the call that asked completing after scout's
/// answer. Policy: `--allow-mutations`, since `trigger-elicitation-request`,
/// `trigger-sampling-request` and `trigger-url-elicitation` are not read-only.
async fn everything_is_judged_and_nothing_fails(spec: ServerSpec) {
    let policy = PolicySpec {
        allow_mutations: true,
        ..PolicySpec::default()
    };
    let r = checked(spec, policy).await;
    let v = verdicts(&r);
    for id in TALKBACK {
        let statuses = status_of(&r, id);
        assert!(!statuses.is_empty(), "{id} has no finding: {v:?}");
        // lifecycle: "Both parties MUST: … Only use capabilities that were successfully
        // negotiated"; elicitation: "Servers MUST NOT send elicitation requests with modes
        // that are not supported by the client"; sampling: no tools without sampling.tools.
        // server-everything keeps each: judged, and a pass.
        assert!(
            statuses.iter().all(|s| *s == Status::Pass),
            "{id} should pass on server-everything: {v:?}"
        );
    }
    let elicitation = &v
        .iter()
        .find(|(id, ..)| id == "execution.elicitation")
        .expect("elicitation")
        .2;
    assert!(elicitation.contains("with decline"), "{elicitation}");
    assert!(
        elicitation.contains("trigger-elicitation-request"),
        "{elicitation}"
    );
    // Tasks (2025-11-25): simulate-research-query (taskSupport required, allowed by
    // --allow-mutations) runs as two tasks to completion; its task ids are 32 random hex
    // digits; tasks/list lists the task, cancelling it once ended gets -32602, and an
    // unknown id -32602 — each a MUST of the tasks utility that server-everything keeps.
    let tasks = crate::phase_fixtures::expect(&r, "execution.tasks", None, Status::Pass);
    for part in [
        "2 task(s) of simulate-research-query were created",
        "ended (",
        "drawn from hex",
        "tasks/list lists",
        "cancelling the ended task got -32602",
        "never issued got -32602",
    ] {
        assert!(tasks.detail.contains(part), "{part}: {}", tasks.detail);
    }
    // Its two resource templates (demo://resource/dynamic/{text,blob}/{resourceId}), each
    // expanded with resourceId 1 and read, answer with contents.
    let templates =
        crate::phase_fixtures::expect(&r, "execution.resource_templates", None, Status::Pass);
    assert!(
        templates
            .detail
            .contains("2 template(s) expanded and read: 2 answered with contents"),
        "{}",
        templates.detail
    );
}

#[tokio::test]
async fn server_everything_talks_back_correctly_over_stdio() {
    everything_is_judged_and_nothing_fails(spec(stdio_target(), Persona::bare())).await;
}

#[tokio::test]
async fn server_everything_talks_back_correctly_over_http() {
    let server = servers::everything_http();
    everything_is_judged_and_nothing_fails(spec(http_target(&server.url), Persona::bare())).await;
}

/// Without `--allow-mutations` the tools that make server-everything ask for elicitation
/// and sampling are not called: those two are policy skips naming the flag, while roots
/// (asked after the handshake, and by the read-only get-roots-list) is still judged.
#[tokio::test]
async fn the_policy_decides_which_calls_may_make_the_server_ask() {
    let r = checked(spec(stdio_target(), Persona::bare()), PolicySpec::default()).await;
    let v = verdicts(&r);
    assert_eq!(status_of(&r, "execution.roots"), [Status::Pass], "{v:?}");
    assert_eq!(
        status_of(&r, "protocol.capability_use"),
        [Status::Pass],
        "{v:?}"
    );
    for id in ["execution.elicitation", "execution.sampling"] {
        let f = r.findings.iter().find(|f| f.id == id).expect(id);
        assert_eq!(f.status, Status::Skip, "{v:?}");
        assert!(f.detail.contains("--allow-mutations"), "{}", f.detail);
    }
}

/// The asks_back defect asks a bare client for elicitation, sampling and roots: a
/// capability_use fail citing them; its correct twin (asks only what was declared) passes,
/// and on the full persona's connection its requests are well formed.
#[tokio::test]
async fn asking_a_bare_client_fails_and_the_twin_passes() {
    let defect = crate::phase_fixtures::fixture(
        "asks_back.py",
        &[("SCOUT_TEST_ASK_UNDECLARED", "1".into())],
    );
    let r = checked(defect, PolicySpec::default()).await;
    let v = verdicts(&r);
    let f = r
        .findings
        .iter()
        .find(|f| f.id == "protocol.capability_use")
        .expect("capability_use");
    assert_eq!(f.status, Status::Fail, "{v:?}");
    assert!(
        f.detail.contains("elicitation (form mode)") && f.detail.contains("roots"),
        "{}",
        f.detail
    );
    assert!(!f.evidence.is_empty());

    let twin = crate::phase_fixtures::fixture("asks_back.py", &[]);
    let r = checked(twin, PolicySpec::default()).await;
    let v = verdicts(&r);
    for id in TALKBACK {
        assert_eq!(status_of(&r, id), [Status::Pass], "{id}: {v:?}");
    }
}

/// execution.elicitation on asks_back.py: a form that asks for an API key warns ("Servers
/// MUST NOT use form mode elicitation to request sensitive information such as passwords, API
/// keys", read from the field's words, so a warning), a -32042 refusal without its list fails
/// ("The error MUST include a list of elicitations that are required"), and one that lists a
/// URL-mode elicitation with its elicitationId passes.
#[tokio::test]
async fn secrets_in_forms_warn_and_url_refusals_must_list_their_elicitations() {
    let with = |k: &str, v: &str| crate::phase_fixtures::fixture("asks_back.py", &[(k, v.into())]);
    let (secret, bare, listed) = tokio::join!(
        Box::pin(checked(
            with("SCOUT_TEST_ASK_SECRET", "1"),
            PolicySpec::default()
        )),
        Box::pin(checked(
            with("SCOUT_TEST_URL_REQUIRED", "bare"),
            PolicySpec::default()
        )),
        Box::pin(checked(
            with("SCOUT_TEST_URL_REQUIRED", "listed"),
            PolicySpec::default()
        )),
    );
    let f = crate::phase_fixtures::expect(&secret, "execution.elicitation", None, Status::Warn);
    assert!(
        f.detail.contains("\"api_key\", which reads as a secret"),
        "{}",
        f.detail
    );
    let f = crate::phase_fixtures::expect(&bare, "execution.elicitation", None, Status::Fail);
    assert!(
        f.detail
            .contains("-32042 refusal of ask: data.elicitations is missing or empty"),
        "{}",
        f.detail
    );
    let f = crate::phase_fixtures::expect(&listed, "execution.elicitation", None, Status::Pass);
    assert!(
        f.detail.contains("-32042 refusals naming URL elicitations"),
        "{}",
        f.detail
    );
}

/// "The server SHOULD NOT send requests other than pings and logging before receiving the
/// initialized notification" (2025-11-25 lifecycle): asks_back.py asking the full persona for
/// its roots while it handles initialize gets a warning; its twin (asking only during the
/// tool call) passes (`asking_a_bare_client_fails_and_the_twin_passes`).
#[tokio::test]
async fn a_request_before_initialized_warns() {
    let early =
        crate::phase_fixtures::fixture("asks_back.py", &[("SCOUT_TEST_ASK_EARLY", "1".into())]);
    let r = checked(early, PolicySpec::default()).await;
    let f = crate::phase_fixtures::expect(&r, "protocol.capability_use", None, Status::Warn);
    assert!(
        f.detail
            .contains("roots/list to the full persona before scout's notifications/initialized"),
        "{}",
        f.detail
    );
}

/// JSON Schema 2020-12, the schema's dialect, counts a number with a zero fractional part as
/// an integer: a sampling request with `maxTokens: 100.0` passes execution.sampling (it
/// failed "no integer maxTokens" while the official-schema check passed the same message);
/// `100.5` still fails.
#[tokio::test]
async fn max_tokens_100_point_0_is_an_integer() {
    let with = |v: &str| {
        crate::phase_fixtures::fixture("asks_back.py", &[("SCOUT_TEST_MAX_TOKENS", v.into())])
    };
    let (whole, half) = tokio::join!(
        checked(with("100.0"), PolicySpec::default()),
        checked(with("100.5"), PolicySpec::default()),
    );
    let v = verdicts(&whole);
    assert_eq!(
        status_of(&whole, "execution.sampling"),
        [Status::Pass],
        "{v:?}"
    );
    let f = crate::phase_fixtures::expect(&half, "execution.sampling", None, Status::Fail);
    assert!(f.detail.contains("no integer maxTokens"), "{}", f.detail);
}

/// The call that asked counts as completed only when it ends in a result: asks_back.py ending
/// `ask` in JSON-RPC error -32603 after scout answered warns on elicitation, sampling and
/// roots, naming the call and scout's answer (it passed as "completed" before); its twin
/// ending in an `isError: true` result completes, as does the plain result.
#[tokio::test]
async fn an_error_after_scout_answered_is_not_a_completion() {
    let with = |v: &str| {
        crate::phase_fixtures::fixture("asks_back.py", &[("SCOUT_TEST_END_AFTER_ANSWER", v.into())])
    };
    let (error, is_error) = tokio::join!(
        checked(with("error"), PolicySpec::default()),
        checked(with("is_error"), PolicySpec::default()),
    );
    for (id, answer) in [
        ("execution.elicitation", "with decline"),
        ("execution.sampling", "with a result"),
        ("execution.roots", "with a result"),
    ] {
        let f = crate::phase_fixtures::expect(&error, id, None, Status::Warn);
        assert!(
            f.detail.contains(&format!(
                "call of ask ended in JSON-RPC error -32603 (\"no unit system chosen\") after scout answered {answer}"
            )),
            "{id}: {}",
            f.detail
        );
        let f = crate::phase_fixtures::expect(&is_error, id, None, Status::Pass);
        assert!(
            f.detail.contains("completed after scout answered"),
            "{id}: {}",
            f.detail
        );
    }
}
