//! Every registered check is shown to work: a set of fixture scenarios runs every phase, and
//! each check id in `scout::probe::registry::all()` must get a judged finding (pass, warn or
//! fail) in the scenario this file names for it. A check that only ever observes (its
//! findings are `info` by design) is listed as such, with the reason, and must be observed.
//!
//! A new check fails `every_registered_check_is_covered` until it is added to [`COVERED`]
//! with a scenario that judges it; the failure message says how.

use std::collections::BTreeMap;

use scout::auth::{AuthSpec, SecretSource};
use scout::report::finding::{Phase, Status};
use scout::report::model::ServerReport;
use scout::spec::{PinSpec, ServerSpec, TargetSpec};

use crate::oauth::{FIXTURE_CLIENT, FIXTURE_SECRET};
use crate::phase_fixtures::{fixture, fixture_http, only, run, url_spec};
use crate::security::security_only;

/// The fixture runs the coverage is taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Scenario {
    /// `minimal_server.py` over stdio (both eras), every phase, with the claims of a
    /// manifest that says what the server does.
    StdioMinimal,
    /// `minimal_server.py` over Streamable HTTP (both eras, sessions), every phase.
    HttpMinimal,
    /// `param_header_enforced.py` over HTTP: a tool with `x-mcp-header`.
    HttpParamHeaders,
    /// `sse_clean.py` over HTTP: every answer is an SSE response stream.
    HttpSse,
    /// `progress_backwards.py` with PROGRESS_OK=1: increasing progress notifications.
    StdioProgress,
    /// `slow_tool_cancellable.py`: a slow tool that honours notifications/cancelled.
    StdioCancel,
    /// `slow_every_fifth.py` with a context threshold of 10 tokens: a slow p95 and a
    /// catalogue above the threshold.
    StdioSlow,
    /// `stalls_abandoned_request.py`: never answers the request scout abandons, serves the
    /// rest.
    StdioStall,
    /// `slow_start.py` with a 10 s timeout: 5.5 s before the first answer.
    StdioSlowStart,
    /// `large_tool_list.py`: a tools/list result above the payload budget.
    StdioLargeList,
    /// `http://mcp.invalid/mcp`, discovery only: plain http to a host that is not loopback.
    PlainHttp,
    /// `oauth_server.py` (a correct protected server with its own authorization server),
    /// discovery and auth, with client credentials, scope `mcp` and the limited scope `other`.
    HttpOAuth,
    /// The same with a client secret the authorization server refuses.
    HttpOAuthRefused,
    /// `destructive_tools.py` over HTTP with `treat_as_remote`: an open "remote" server over
    /// plain http whose tools are not read-only.
    HttpRemoteDestructive,
    /// `minimal_server.py` over stdio, checked against a `scout.lock` pinned from it just before.
    StdioPinned,
    /// `stdout_flood.py` with FLOOD_LINES=25000: more stray stdout lines than the recorder keeps.
    StdioFlood,
    /// `serialises_requests.py` over HTTP with `allow_load`: one global lock, 60 ms a request.
    HttpSerialises,
    /// `icon_schemes.py`: https: and data: icons on tools, a resource and a prompt.
    StdioIcons,
    /// `asks_back.py`: a read-only tool during whose call the server asks a client that
    /// declared them for elicitation, sampling and roots (the full persona's connection).
    StdioAsksBack,
    /// `utilities.py`: logging and resources.subscribe declared on the handshake wire, the
    /// removed methods unknown on the 2026-07-28 wire.
    StdioUtilities,
    /// `input_required.py`: two read-only tools that take several round trips on the
    /// 2026-07-28 wire (a requestState count, a form for the full persona).
    StdioInputRequired,
    /// `resource_templates.py`: two templates, one read as contents, one as not found.
    StdioTemplates,
    /// `tasks.py`: the 2025-11-25 tasks utility, a read-only tool that requires a task.
    StdioTasks,
}

/// How a check is shown to work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cover {
    /// A pass, warn or fail in the scenario.
    Judged(Scenario),
    /// The check only observes (always `info`, by design): an info finding in the scenario.
    Observed(Scenario, &'static str),
}

use Cover::{Judged, Observed};
use Scenario::*;

/// Every registered check and the scenario that shows it. Keep in registry order.
const COVERED: &[(&str, Cover)] = &[
    ("discovery.reachable", Judged(StdioMinimal)),
    ("discovery.tls", Judged(PlainHttp)),
    ("discovery.protected_resource", Judged(HttpOAuth)),
    ("discovery.authorization_server", Judged(HttpOAuth)),
    ("discovery.pkce", Judged(HttpOAuth)),
    (
        "discovery.registration",
        Observed(
            HttpOAuth,
            "says which registration paths the authorization server offers, with its metadata as evidence; never graded",
        ),
    ),
    ("auth.challenge", Judged(HttpOAuth)),
    ("auth.garbage_token", Judged(HttpOAuth)),
    ("auth.query_token", Judged(HttpOAuth)),
    ("auth.audience", Judged(HttpOAuth)),
    // Not info by design: an observation when the token works (the correct fixture gives an
    // info), a fail when the grant is refused or the token gets 401. The refusal is judged.
    ("auth.token_acquired", Judged(HttpOAuthRefused)),
    ("auth.scope_challenge", Judged(HttpOAuth)),
    (
        "auth.open",
        // Info on an open loopback server; a warning when a remote one serves tools that are
        // not read-only without credentials (the treat_as_remote scenario).
        Judged(HttpRemoteDestructive),
    ),
    ("handshake.protocol_era", Judged(StdioMinimal)),
    ("handshake.discover", Judged(StdioMinimal)),
    ("handshake.initialize", Judged(StdioMinimal)),
    ("handshake.version_negotiation", Judged(StdioMinimal)),
    ("handshake.initialized", Judged(StdioMinimal)),
    ("handshake.session", Judged(HttpMinimal)),
    ("handshake.stateless", Judged(StdioMinimal)),
    ("handshake.capabilities", Judged(StdioMinimal)),
    ("handshake.ping", Judged(StdioMinimal)),
    ("handshake.server_info", Judged(StdioMinimal)),
    ("protocol.jsonrpc_ids", Judged(StdioMinimal)),
    ("protocol.parse_error", Judged(StdioMinimal)),
    ("protocol.invalid_request", Judged(StdioMinimal)),
    ("protocol.unknown_method", Judged(StdioMinimal)),
    ("protocol.notification", Judged(StdioMinimal)),
    ("protocol.null_id", Judged(StdioMinimal)),
    ("protocol.batch", Judged(StdioMinimal)),
    ("protocol.accept_header", Judged(HttpMinimal)),
    ("protocol.content_type", Judged(HttpMinimal)),
    ("protocol.get_stream", Judged(HttpMinimal)),
    ("protocol.delete", Judged(HttpMinimal)),
    ("protocol.bogus_session", Judged(HttpMinimal)),
    ("protocol.version_header", Judged(HttpMinimal)),
    ("protocol.routing_headers", Judged(HttpMinimal)),
    ("protocol.header_encoding", Judged(HttpMinimal)),
    ("protocol.param_headers", Judged(HttpParamHeaders)),
    ("protocol.meta_required", Judged(StdioMinimal)),
    ("protocol.result_type", Judged(StdioMinimal)),
    ("protocol.input_required_shape", Judged(StdioInputRequired)),
    ("protocol.cache_hints", Judged(StdioMinimal)),
    ("protocol.error_codes", Judged(StdioMinimal)),
    ("protocol.sse", Judged(HttpSse)),
    ("protocol.wire_schema", Judged(StdioMinimal)),
    ("protocol.capability_use", Judged(StdioMinimal)),
    ("protocol.removed_methods", Judged(StdioMinimal)),
    ("protocol.logging", Judged(StdioUtilities)),
    ("protocol.resource_subscribe", Judged(StdioUtilities)),
    ("protocol.subscriptions", Judged(HttpMinimal)),
    (
        "protocol.revisions",
        Observed(
            StdioMinimal,
            "lists the handshake revisions the server accepts; its findings at each are the other checks'",
        ),
    ),
    ("stdio.process", Judged(StdioMinimal)),
    (
        "stdio.environment",
        Observed(
            StdioMinimal,
            "states what the child was handed; never graded",
        ),
    ),
    ("stdio.stdout_clean", Judged(StdioMinimal)),
    (
        "stdio.stderr",
        Observed(
            StdioMinimal,
            "keeps what the server logged; logging to stderr is correct",
        ),
    ),
    ("stdio.alive", Judged(StdioMinimal)),
    ("stdio.shutdown", Judged(StdioMinimal)),
    (
        "stdio.ordering",
        Observed(
            StdioMinimal,
            "says how scout knew a message got no answer (a ping behind it, or a quiet window)",
        ),
    ),
    ("catalog.tools_list", Judged(StdioMinimal)),
    ("catalog.pagination", Judged(StdioMinimal)),
    ("catalog.tool_schema", Judged(StdioMinimal)),
    ("catalog.output_schema", Judged(StdioMinimal)),
    ("catalog.tool_names", Judged(StdioMinimal)),
    ("catalog.annotations", Judged(StdioMinimal)),
    ("catalog.x_mcp_header", Judged(HttpParamHeaders)),
    ("catalog.descriptions", Judged(StdioMinimal)),
    ("catalog.resources", Judged(StdioMinimal)),
    ("catalog.prompts", Judged(StdioMinimal)),
    ("catalog.completions", Judged(StdioMinimal)),
    ("catalog.context_size", Judged(StdioSlow)),
    ("execution.tool_call", Judged(StdioMinimal)),
    ("expect.expectation", Judged(HttpMinimal)),
    ("expect.snapshot", Judged(HttpMinimal)),
    ("execution.structured_output", Judged(StdioMinimal)),
    ("execution.content_blocks", Judged(StdioMinimal)),
    ("execution.unknown_tool", Judged(StdioMinimal)),
    ("execution.invalid_arguments", Judged(StdioMinimal)),
    ("execution.error_reporting", Judged(StdioMinimal)),
    ("execution.progress", Judged(StdioProgress)),
    ("execution.cancellation", Judged(StdioCancel)),
    ("execution.resource_read", Judged(StdioMinimal)),
    ("execution.prompt_get", Judged(StdioMinimal)),
    (
        "execution.policy",
        Observed(
            StdioMinimal,
            "says which tools the policy allowed; never graded",
        ),
    ),
    ("execution.resource_templates", Judged(StdioTemplates)),
    ("execution.tasks", Judged(StdioTasks)),
    ("execution.elicitation", Judged(StdioAsksBack)),
    ("execution.sampling", Judged(StdioAsksBack)),
    ("execution.roots", Judged(StdioAsksBack)),
    ("execution.input_required", Judged(StdioInputRequired)),
    (
        "execution.coverage",
        Observed(
            StdioMinimal,
            "says which listed items the run exercised; never graded",
        ),
    ),
    ("performance.latency", Judged(StdioSlow)),
    ("performance.cold_start", Judged(StdioSlowStart)),
    ("performance.payload_size", Judged(StdioLargeList)),
    ("performance.throughput", Judged(HttpSerialises)),
    ("resilience.malformed_survival", Judged(StdioMinimal)),
    ("resilience.timeout_recovery", Judged(StdioStall)),
    ("resilience.oversized_request", Judged(StdioMinimal)),
    ("resilience.stateless", Judged(StdioMinimal)),
    ("resilience.session_recovery", Judged(HttpMinimal)),
    ("resilience.concurrent_sessions", Judged(HttpMinimal)),
    ("resilience.output_volume", Judged(StdioFlood)),
    ("resilience.stays_up", Judged(StdioMinimal)),
    ("security.origin", Judged(HttpMinimal)),
    ("security.session_entropy", Judged(HttpMinimal)),
    (
        "security.unauthenticated_destructive",
        Judged(HttpRemoteDestructive),
    ),
    ("security.transport", Judged(HttpRemoteDestructive)),
    ("security.hidden_characters", Judged(StdioMinimal)),
    ("security.tool_poisoning", Judged(StdioMinimal)),
    ("catalog.icons", Judged(StdioIcons)),
    ("catalog.deprecated", Judged(StdioMinimal)),
    (
        "catalog.identity",
        Observed(
            StdioMinimal,
            "a statement of which optional display fields are present",
        ),
    ),
    ("compat.anthropic", Judged(StdioMinimal)),
    ("compat.openai", Judged(StdioMinimal)),
    ("compat.openai_strict", Judged(StdioMinimal)),
    ("compat.gemini", Judged(StdioMinimal)),
    ("compat.first_page", Judged(StdioMinimal)),
    ("manifest.schema", Judged(StdioMinimal)),
    ("manifest.version", Judged(StdioMinimal)),
    ("manifest.transport", Judged(StdioMinimal)),
    ("manifest.env", Judged(StdioMinimal)),
    ("manifest.tools", Judged(StdioMinimal)),
    ("manifest.prompts", Judged(StdioMinimal)),
    (
        "manifest.user_config",
        Observed(
            StdioMinimal,
            "names the required settings started with a placeholder; never graded",
        ),
    ),
    (
        "manifest.compatibility",
        Observed(
            StdioMinimal,
            "compares the host with the requirements an MCPB manifest states; the format states requirements, not obligations",
        ),
    ),
    ("security.secrets_in_output", Judged(StdioMinimal)),
    ("security.error_leakage", Judged(StdioMinimal)),
    ("security.catalog_pinning", Judged(StdioPinned)),
];

/// `spec` with every phase selected.
fn every_phase(mut spec: ServerSpec) -> ServerSpec {
    spec.only = Vec::new();
    spec
}

async fn scenario(which: Scenario) -> ServerReport {
    let spec = match which {
        StdioMinimal => {
            let mut spec = every_phase(fixture("minimal_server.py", &[]));
            spec.manifest = Some(crate::manifest::faithful_claims());
            // Every host profile, the opt-in one too.
            spec.compat = scout::report::host::HostProfile::ALL.to_vec();
            spec
        }
        HttpMinimal => {
            let mut spec = every_phase(fixture_http("minimal_server.py"));
            spec.expect = vec![scout::spec::Expectation {
                name: "echo echoes".into(),
                id: "expect.echo_echoes".into(),
                target: scout::spec::ExpectTarget::Call("echo".into()),
                arguments: serde_json::json!({"message": "coverage"}),
                is_error: false,
                contains: vec!["Echo: coverage".into()],
                json: Vec::new(),
                schema: None,
                max_ms: None,
                trials: 1,
                allow: scout::spec::ExpectAllow::ReadOnly,
                setup: Vec::new(),
            }];
            // Written afresh (accepted) on every run: a pass without an earlier run.
            spec.snapshots = Some(scout::spec::SnapshotSpec {
                dir: std::env::temp_dir().join(format!("scout-coverage-{}", std::process::id())),
                update: true,
                ignore: Vec::new(),
            });
            spec
        }
        HttpParamHeaders => every_phase(fixture_http("param_header_enforced.py")),
        HttpSse => every_phase(fixture_http("sse_clean.py")),
        StdioProgress => every_phase(fixture(
            "progress_backwards.py",
            &[("PROGRESS_OK", "1".into())],
        )),
        StdioCancel => every_phase(fixture("slow_tool_cancellable.py", &[])),
        StdioSlow => {
            let mut spec = every_phase(fixture("slow_every_fifth.py", &[]));
            spec.context_warn_tokens = 10;
            spec
        }
        StdioStall => every_phase(fixture("stalls_abandoned_request.py", &[])),
        StdioSlowStart => {
            let mut spec = every_phase(fixture("slow_start.py", &[]));
            spec.timeout = std::time::Duration::from_secs(10);
            spec
        }
        StdioLargeList => every_phase(fixture("large_tool_list.py", &[])),
        StdioIcons => every_phase(fixture("icon_schemes.py", &[])),
        StdioAsksBack => every_phase(fixture("asks_back.py", &[])),
        StdioUtilities => every_phase(fixture("utilities.py", &[])),
        StdioInputRequired => every_phase(fixture("input_required.py", &[])),
        StdioTemplates => every_phase(fixture("resource_templates.py", &[])),
        StdioTasks => every_phase(fixture("tasks.py", &[])),
        PlainHttp => only(
            url_spec("plain-http", "http://mcp.invalid/mcp"),
            &[Phase::Discovery],
        ),
        HttpOAuth => return oauth(FIXTURE_SECRET).await,
        HttpOAuthRefused => return oauth("not-the-fixture-secret").await,
        HttpRemoteDestructive => {
            let mut spec = security_only(fixture_http("destructive_tools.py"));
            spec.treat_as_remote = true;
            // Remote hosts get 2 requests a second by default; this one is on loopback.
            spec.rps = Some(50.0);
            spec
        }
        StdioPinned => return pinned().await,
        StdioFlood => {
            let mut spec = fixture("stdout_flood.py", &[("FLOOD_LINES", "25000".into())]);
            spec.only = vec![Phase::Discovery, Phase::Handshake, Phase::Resilience];
            spec
        }
        HttpSerialises => {
            let mut spec = only(
                fixture_http("serialises_requests.py"),
                &[Phase::Discovery, Phase::Handshake, Phase::Performance],
            );
            spec.policy.allow_load = true;
            spec
        }
    };
    run(spec).await
}

/// `oauth_server.py` with client credentials whose secret (in a file) is `secret`.
async fn oauth(secret: &str) -> ServerReport {
    let dir = tempfile::tempdir().expect("tempdir");
    let secret_file = dir.path().join("client-secret");
    std::fs::write(&secret_file, format!("{secret}\n")).expect("write the secret");
    let mut spec = fixture_http("oauth_server.py");
    spec.only = vec![Phase::Discovery, Phase::Auth];
    if let TargetSpec::Http { auth, .. } = &mut spec.target {
        *auth = AuthSpec {
            client_id: Some(FIXTURE_CLIENT.into()),
            client_secret: Some(SecretSource::File(secret_file)),
            scope: Some("mcp".into()),
            limited_scope: Some("other".into()),
            ..AuthSpec::default()
        };
    }
    run(spec).await
}

/// `minimal_server.py` over stdio against a lock written from its own catalogue, the way
/// `scout pin` and then `scout check` do it.
async fn pinned() -> ServerReport {
    let mut spec = security_only(fixture("minimal_server.py", &[]));
    let listed = scout::client::catalogue::catalogue(&spec)
        .await
        .expect("the fixture's catalogue");
    let mut lock = scout::pin::Lock::default();
    lock.put(scout::pin::PinnedServer::from_listed(&spec.name, &listed));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(scout::pin::LOCK_FILE);
    scout::pin::lockfile::write(&path, &lock).expect("write the lock");
    let lock = scout::pin::lockfile::read(&path)
        .expect("read the lock")
        .expect("the lock exists");
    let server = lock.server(&spec.name).expect("pinned").clone();
    spec.pin = PinSpec::Pinned { lock: path, server };
    run(spec).await
}

fn scenario_of(c: Cover) -> Scenario {
    match c {
        Judged(s) | Observed(s, _) => s,
    }
}

#[test]
fn every_registered_check_is_covered() {
    let registered: Vec<&str> = scout::probe::registry::all().map(|c| c.id).collect();
    let listed: Vec<&str> = COVERED.iter().map(|(id, _)| *id).collect();
    let missing: Vec<String> = registered
        .iter()
        .filter(|id| !listed.contains(id))
        .map(|id| {
            format!(
                "check `{id}` is registered (scout::probe::registry::all()) but tests/integration/coverage.rs does not cover it: \
                 add (\"{id}\", Judged(<scenario>)) to COVERED, where <scenario> is a fixture run in `scenario()` that gives `{id}` a pass, \
                 warn or fail (add a fixture under tests/fixtures/, named after the behaviour it shows, and a Scenario for it if none does). \
                 A check whose findings are info by design goes in as Observed(<scenario>, \"why it is never graded\")."
            )
        })
        .collect();
    assert!(missing.is_empty(), "\n{}", missing.join("\n"));
    let stale: Vec<&&str> = listed
        .iter()
        .filter(|id| !registered.contains(id))
        .collect();
    assert!(
        stale.is_empty(),
        "COVERED lists ids that are no longer registered: {stale:?}; remove them"
    );
    let mut seen = std::collections::HashSet::new();
    let dup: Vec<&&str> = listed.iter().filter(|id| !seen.insert(**id)).collect();
    assert!(dup.is_empty(), "COVERED lists ids twice: {dup:?}");
}

/// `scenario(which)`, boxed in a frame of its own: built in the caller's frame, each run
/// future would take its whole size there before it is moved into its box, and a debug
/// build keeps every one of those temporaries.
fn boxed(which: Scenario) -> std::pin::Pin<Box<dyn std::future::Future<Output = ServerReport>>> {
    Box::pin(scenario(which))
}

#[tokio::test]
async fn every_covered_check_is_judged_in_its_scenario() {
    // Every scenario at once: each spends most of its time waiting on its fixture. Each is
    // boxed where it is made (see `boxed`): twenty run futures side by side overflow the
    // test thread's stack.
    let (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, q, t, u, v, w, x, y, z) = tokio::join!(
        boxed(StdioMinimal),
        boxed(HttpMinimal),
        boxed(HttpParamHeaders),
        boxed(HttpSse),
        boxed(StdioProgress),
        boxed(StdioCancel),
        boxed(StdioSlow),
        boxed(PlainHttp),
        boxed(HttpOAuth),
        boxed(HttpOAuthRefused),
        boxed(HttpRemoteDestructive),
        boxed(StdioPinned),
        boxed(StdioFlood),
        boxed(StdioStall),
        boxed(StdioSlowStart),
        boxed(StdioLargeList),
        boxed(HttpSerialises),
        boxed(StdioIcons),
        boxed(StdioAsksBack),
        boxed(StdioUtilities),
        boxed(StdioInputRequired),
        boxed(StdioTemplates),
        boxed(StdioTasks),
    );
    let reports: BTreeMap<Scenario, ServerReport> = [
        (StdioMinimal, a),
        (HttpMinimal, b),
        (HttpParamHeaders, c),
        (HttpSse, d),
        (StdioProgress, e),
        (StdioCancel, f),
        (StdioSlow, g),
        (PlainHttp, h),
        (HttpOAuth, i),
        (HttpOAuthRefused, j),
        (HttpRemoteDestructive, k),
        (StdioPinned, l),
        (StdioFlood, m),
        (StdioStall, n),
        (StdioSlowStart, o),
        (StdioLargeList, q),
        (HttpSerialises, t),
        (StdioIcons, u),
        (StdioAsksBack, v),
        (StdioUtilities, w),
        (StdioInputRequired, x),
        (StdioTemplates, y),
        (StdioTasks, z),
    ]
    .into_iter()
    .collect();
    let mut problems = Vec::new();
    for (id, cover) in COVERED {
        let which = scenario_of(*cover);
        let r = &reports[&which];
        // Every expectation is a finding of its own id, judged by `expect.expectation`.
        let found: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.id == *id || (*id == "expect.expectation" && f.id.starts_with("expect.")))
            .collect();
        let wanted = |s: Status| match cover {
            Judged(_) => matches!(s, Status::Pass | Status::Warn | Status::Fail),
            Observed(..) => s == Status::Info,
        };
        let Some(hit) = found.iter().find(|f| wanted(f.status)) else {
            let got: Vec<String> = found
                .iter()
                .map(|f| format!("{:?} {:?}: {}", f.status, f.era, f.detail))
                .collect();
            problems.push(format!(
                "{id}: no {} finding in {which:?} (got {got:?})",
                match cover {
                    Judged(_) => "pass, warn or fail",
                    Observed(..) => "info",
                }
            ));
            continue;
        };
        let seqs: Vec<u64> = r.exchanges.iter().map(|e| e.seq).collect();
        if let Some(seq) = hit.evidence.iter().find(|s| !seqs.contains(s)) {
            problems.push(format!(
                "{id} in {which:?} cites req#{seq}, which is not in the report"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
