//! Handshake: which protocol generation the server speaks and whether opening a conversation
//! works as the spec says (`initialize` in the handshake revisions, `server/discover` in
//! 2026-07-28).

pub mod version_negotiation;

use crate::report::check::spec_url;

crate::checks! { phase: Handshake;
    PROTOCOL_ERA = "handshake.protocol_era", Critical, "The protocol generation is recognised", spec_url::V26,
        "scout first sends server/discover with a valid 2026-07-28 _meta envelope. A DiscoverResult or a recognised modern error means the stateless revision; anything else means a handshake-era server, which is then opened with initialize. A server that answers both is dual-era and is probed on both wires. The finding says how the era was decided.",
        "Implement server/discover (2026-07-28) or initialize (2025-11-25 and earlier) so that a client can open a conversation.";
    DISCOVER = "handshake.discover", Major, "`server/discover` returns a well-formed DiscoverResult", spec_url::D26,
        "2026-07-28 only. The DiscoverResult must carry resultType \"complete\", a non-empty supportedVersions array containing the version asked for, a capabilities object, ttlMs (integer >= 0) and cacheScope (public or private); serverInfo belongs in _meta[\"io.modelcontextprotocol/serverInfo\"].",
        "Return every required DiscoverResult field; SDKs that implement 2026-07-28 do this for you, so check the SDK version.";
    INITIALIZE = "handshake.initialize", Critical, "`initialize` returns a well-formed InitializeResult", spec_url::L25,
        "Handshake revisions only. initialize with the latest handshake version must return protocolVersion, a capabilities object and serverInfo with name and version (instructions, if present, a string).",
        "Return a complete InitializeResult; an agent cannot start a conversation without it.";
    VERSION_NEGOTIATION = "handshake.version_negotiation", Major, "Unknown protocol versions are negotiated, not fatal", spec_url::L25,
        "Handshake era: initialize with a supported version must be echoed, and initialize with an unknown version must be answered with a version the server supports (a counter-offer); either answer must name a published handshake revision (2025-11-25 or earlier: 2026-07-28 has no initialize, so an initialize answered with it fails, and scout builds no handshake session on that answer: a server that also speaks 2026-07-28 is probed on that wire alone, any other is not probed further). 2026-07-28: a request naming an unsupported version must get -32022 with data.supported and data.requested; a version listed there or in the DiscoverResult's supportedVersions that names no published revision is a warning.",
        "Echo a supported requested version, counter-offer your latest otherwise (handshake era); answer unknown versions with -32022 UnsupportedProtocolVersion listing data.supported (2026-07-28).";
    INITIALIZED = "handshake.initialized", Minor, "`notifications/initialized` gets no reply", spec_url::L25,
        "Handshake era: the initialized notification must not be answered; over HTTP the POST gets 202 Accepted with an empty body. A POST that never gets an HTTP status (a timeout, a reset) fails: no answer is not silence.",
        "Accept notifications silently: 202 with no body over HTTP, nothing at all over stdio.";
    SESSION = "handshake.session", Major, "Session ids are well formed and required", spec_url::T25C,
        "Handshake era over HTTP. If the server issues Mcp-Session-Id, its value must be visible ASCII (0x21-0x7E) and should be hard to guess; a request without it should get 400. Servers that issue no session are stateless and pass with a note.",
        "Issue session ids made of visible ASCII from a cryptographically secure source, and reject requests that lack the header with 400.";
    STATELESS = "handshake.stateless", Major, "The first request needs no setup", spec_url::B26,
        "2026-07-28: the very first request on a fresh connection is served without any prior handshake, and no Mcp-Session-Id is minted or echoed.",
        "Serve each 2026-07-28 request on its own, from what its _meta carries; never require or issue a session.";
    CAPABILITIES = "handshake.capabilities", Major, "Declared capabilities match what works", spec_url::B26,
        "A server that answers tools/list, resources/list, prompts/list or completion/complete with something to offer must have declared the matching capability; an empty list for an undeclared capability offers nothing and is only noted (info). A declared capability whose list method fails is also reported.",
        "Declare exactly the capabilities you implement; clients skip features that are not declared.";
    PING = "handshake.ping", Minor, "`ping` behaves as the revision says", spec_url::P25,
        "Handshake era: ping must promptly return an empty result {}. 2026-07-28 removed ping, so a modern server answering -32601 (HTTP 404) is correct.",
        "Answer ping with {} in the handshake revisions; treat it as an unknown method in 2026-07-28.";
    SERVER_INFO = "handshake.server_info", Minor, "The server names itself", spec_url::B26,
        "serverInfo (handshake era, required) or _meta[\"io.modelcontextprotocol/serverInfo\"] (2026-07-28, which servers should include: its absence is a warning) carries a name and a version, so operators can tell which build answered. An empty name or version is a string the schema accepts but names nothing: a warning.",
        "Set a name and a version in your server's Implementation info.";
}

use serde_json::{Value, json};

use crate::client::lifecycle::{self, DiscoverVerdict};
use crate::client::{Connection, LEGACY_VERSION, MODERN_VERSION};
use crate::probe::Session;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::{EraKind, TransportKind};
use crate::transport::{MetaMode, Outcome, Probe, Reply, SessionMode};

/// A version no server supports, for the negotiation probes.
pub const UNKNOWN_VERSION: &str = "2099-01-01";

/// Decides the era, opens one established connection per era spoken, and runs the
/// handshake checks on each.
pub async fn run(s: &mut Session) {
    let Some(connector) = s.connector.clone() else {
        return;
    };
    let first = match s.opened.take() {
        Some(c) => c,
        None => match connector.open().await {
            Ok(c) => c,
            Err(e) => {
                s.add(
                    PROTOCOL_ERA
                        .fail(format!("cannot open a wire: {e}"))
                        .without_exchange(),
                );
                s.block("no wire could be opened");
                return;
            }
        },
    };

    // Over stdio the version negotiation needs a process of its own, and so will the full
    // persona's connection: they start now, while this one answers the era probes (a
    // Node.js server takes a quarter of a second to start).
    connector.prespawn(1 + usize::from(crate::probe::execution::may_open_full_persona(&s.spec)));
    let mut how = Vec::new();
    let mut evidence = Vec::new();
    let (modern, discover_reply) = open_modern(s, &first, &mut how, &mut evidence).await;
    let legacy_base = if modern.is_some() {
        match first.fresh().await {
            Ok(c) => Some(c),
            Err(e) => {
                how.push(format!("no fresh wire for initialize: {e}"));
                None
            }
        }
    } else {
        Some(first.clone())
    };
    let Legacy {
        legacy: answered,
        init_reply,
        initialized_reply,
    } = match legacy_base {
        Some(base) => {
            open_legacy(&connector, &base, modern.is_none(), &mut how, &mut evidence).await
        }
        None => Legacy::default(),
    };
    let unbuilt = unbuilt(&answered, &init_reply, &mut how);
    let legacy = answered.clone().filter(|_| unbuilt.is_none());

    s.era = match (&modern, &legacy) {
        (Some(_), Some(_)) => EraKind::Dual,
        (Some(_), None) => EraKind::Modern,
        (None, Some(_)) => EraKind::Legacy,
        (None, None) => EraKind::Unknown,
    };
    let detail = format!(
        "era {}: {}",
        format!("{:?}", s.era).to_lowercase(),
        how.join("; ")
    );
    if s.era == EraKind::Unknown {
        // Every answer was 401: the server wants credentials scout was not given. That is
        // the operator's to supply, not a defect of the server: the run is blocked.
        if all_unauthorized(s, &evidence) {
            let why = crate::probe::auth::refused_message(s);
            s.add(
                PROTOCOL_ERA
                    .skip(SkipReason::Blocked, why.clone())
                    .evidence(evidence),
            );
            s.block(why);
            return;
        }
        // A stdio server that exited before it answered anything was not asked about its
        // protocol: the process check says it did not stay up, and the run is blocked.
        if let Some(why) = crate::probe::stdio::exited_before_answering(s, &first).await {
            s.add(
                PROTOCOL_ERA
                    .skip(SkipReason::Blocked, why.clone())
                    .evidence(evidence),
            );
            s.block("the stdio server exited before it answered its first request");
            return;
        }
        let why = no_era(s, &unbuilt, &answered, &init_reply).await;
        s.add(PROTOCOL_ERA.fail(detail).evidence(evidence));
        s.block(why);
        return;
    }
    s.add(PROTOCOL_ERA.pass(detail).evidence(evidence));
    let dual = s.era == EraKind::Dual;

    for c in modern.iter().chain(legacy.iter()) {
        s.wires.push(c.clone());
        if !s
            .protocol_versions
            .iter()
            .any(|v| v == c.protocol_version())
        {
            s.protocol_versions.push(c.protocol_version().to_string());
        }
        if s.server_info.is_none() {
            s.server_info = c.server_info().cloned();
        }
    }

    // Modern-only checks.
    match (&modern, &discover_reply) {
        (Some(m), Some(d)) => {
            discover(s, d, dual);
            stateless(s, d, dual);
            version_negotiation_modern(s, m, d, dual).await;
        }
        _ => {
            let why = "the server does not speak 2026-07-28";
            s.add(DISCOVER.skip(SkipReason::NotApplicable, why));
            s.add(STATELESS.skip(SkipReason::NotApplicable, why));
        }
    }
    s.initialize_refused = refused_initialize(modern.is_some(), &init_reply);
    // Legacy-only checks.
    match (&answered, &init_reply) {
        (Some(l), Some(init)) if unbuilt.is_some() => judge_unbuilt(s, l, init, dual).await,
        (Some(l), Some(init)) => {
            initialize(s, init, dual);
            if let Some(n) = &initialized_reply {
                check_initialized(s, n, dual, l.transport());
            }
            version_negotiation_legacy(s, l, init, dual).await;
            session(s, l, init, dual).await;
        }
        (None, Some(init)) if modern.is_none() => {
            s.add(
                INITIALIZE
                    .fail(format!("initialize failed: {}", describe(init)))
                    .evidence(init.evidence.clone()),
            );
        }
        _ => {
            let why = "the server speaks only 2026-07-28 (no initialize)";
            s.add(INITIALIZE.skip(SkipReason::NotApplicable, why));
            s.add(INITIALIZED.skip(SkipReason::NotApplicable, why));
            s.add(SESSION.skip(SkipReason::NotApplicable, why));
        }
    }
    let wires = s.wires.clone();
    for w in &wires {
        server_info(s, w, dual);
    }
    // ping and the capability lists are independent requests, and the wires of a dual-era
    // server independent connections: all of them go out together.
    let found = futures_util::future::join_all(wires.iter().map(|w| async move {
        let (ping, caps) = futures_util::join!(ping(w, dual), capabilities(w, dual));
        [ping, caps]
    }))
    .await;
    s.add_all(found.into_iter().flatten());
}

/// True when every request of the handshake (`evidence`; the auth phase's metadata fetches
/// are others) was answered 401.
fn all_unauthorized(s: &Session, evidence: &[Seq]) -> bool {
    !evidence.is_empty()
        && s.recorder
            .shared()
            .iter()
            .filter(|e| evidence.contains(&e.seq))
            .all(|e| match &e.kind {
                crate::report::exchange::ExchangeKind::Http(h) => h.status == Some(401),
                crate::report::exchange::ExchangeKind::Stdio(_) => false,
            })
}

/// Why a server with no era the run can use is blocked. An `initialize` answer nothing was
/// built on is judged first; the run stops all the same.
async fn no_era(
    s: &mut Session,
    unbuilt: &Option<String>,
    answered: &Option<Connection>,
    init: &Option<Reply>,
) -> String {
    match (unbuilt, answered, init) {
        (Some(v), Some(l), Some(init)) => {
            judge_unbuilt(s, l, init, false).await;
            format!(
                "initialize was answered with {v}, which has no handshake, and server/discover found no 2026-07-28 server"
            )
        }
        _ => "the server answered neither server/discover nor initialize".to_string(),
    }
}

/// The revision `initialize` was answered with when it has no handshake (2026-07-28):
/// `handshake.version_negotiation` fails the answer, and nothing is built on it (no wire of
/// the run speaks it); `how` says so.
fn unbuilt(
    answered: &Option<Connection>,
    init: &Option<Reply>,
    how: &mut Vec<String>,
) -> Option<String> {
    let v = init
        .as_ref()
        .and_then(version_negotiation::answered_without_handshake)
        .filter(|_| answered.is_some())?
        .to_string();
    how.push(format!(
        "initialize was answered with {v}, a revision without the handshake: no handshake session is built on it"
    ));
    Some(v)
}

/// The handshake checks of an `initialize` answer nothing is built on: the answer is judged,
/// its session ended, and what would have probed the session is not assessed.
async fn judge_unbuilt(s: &mut Session, l: &Connection, init: &Reply, dual: bool) {
    initialize(s, init, dual);
    version_negotiation_legacy(s, l, init, dual).await;
    l.close().await;
    let why = "no handshake session was built: initialize was answered with a revision that has no handshake";
    s.add(tagged(
        INITIALIZED.skip(SkipReason::NotAssessed, why),
        Era::Legacy,
        dual,
    ));
    s.add(tagged(
        SESSION.skip(SkipReason::NotAssessed, why),
        Era::Legacy,
        dual,
    ));
}

/// What a server that speaks only 2026-07-28 answered `initialize`, when it refused it (the
/// protocol phase judges whether the refusal names the versions it supports).
fn refused_initialize(modern: bool, init: &Option<Reply>) -> Option<Reply> {
    init.clone().filter(|r| modern && r.result().is_none())
}

/// Step 1: `server/discover`, unless told to go straight to initialize. The modern wire
/// when the server speaks 2026-07-28, and the discover reply.
async fn open_modern(
    s: &Session,
    first: &Connection,
    how: &mut Vec<String>,
    evidence: &mut Vec<Seq>,
) -> (Option<Connection>, Option<Reply>) {
    if s.spec.skip_era_check {
        how.push("era check skipped (--skip-era-check): opened with initialize".to_string());
        return (None, None);
    }
    let d = lifecycle::discover(first).await;
    evidence.extend(d.evidence.iter().copied());
    let modern = match lifecycle::judge_discover(&d) {
        DiscoverVerdict::Result => {
            how.push("server/discover returned a DiscoverResult".into());
            Some(lifecycle::modern_from(first, &d))
        }
        DiscoverVerdict::ModernError(code) => {
            how.push(format!(
                "server/discover was answered with the 2026-07-28 error {code}"
            ));
            Some(lifecycle::modern_from(first, &d))
        }
        DiscoverVerdict::NotModern(why) => {
            how.push(format!(
                "server/discover got {why}: not a 2026-07-28 server"
            ));
            None
        }
    };
    (modern, Some(d))
}

/// What step 2, `initialize`, opened.
#[derive(Default)]
struct Legacy {
    legacy: Option<Connection>,
    init_reply: Option<Reply>,
    initialized_reply: Option<Reply>,
}

/// Step 2: `initialize`, on the same wire for a legacy server, on a fresh one (a second
/// process on stdio, a new session on HTTP) when discover worked; and, when Streamable
/// HTTP is refused by a server that is not modern, the old HTTP+SSE transport.
async fn open_legacy(
    connector: &crate::client::connect::Connector,
    base: &Connection,
    not_modern: bool,
    how: &mut Vec<String>,
    evidence: &mut Vec<Seq>,
) -> Legacy {
    let (c, init, note) = lifecycle::open_legacy(base).await;
    evidence.extend(init.evidence.iter().copied());
    if c.is_some() {
        how.push("initialize succeeded".into());
    } else {
        how.push(format!("initialize failed ({})", describe(&init)));
    }
    // Streamable HTTP refused: maybe an old HTTP+SSE server (2024-11-05), whose POST
    // answers 4xx without a JSON-RPC body.
    if c.is_none() && not_modern && lifecycle::looks_like_old_sse(base, &init) {
        if let Some((c2, init2, note2)) = lifecycle::try_legacy_sse(connector).await {
            evidence.extend(init2.evidence.iter().copied());
            how.push(
                "the URL is an HTTP+SSE (2024-11-05) stream: connected through its endpoint event"
                    .into(),
            );
            return Legacy {
                legacy: c2,
                init_reply: Some(init2),
                initialized_reply: note2,
            };
        }
        return Legacy {
            init_reply: Some(init),
            ..Legacy::default()
        };
    }
    Legacy {
        legacy: c,
        init_reply: Some(init),
        initialized_reply: note,
    }
}

/// Tags a finding with `era` when the server is dual-era.
fn tagged(
    b: crate::report::finding::FindingBuilder,
    era: Era,
    dual: bool,
) -> crate::report::finding::FindingBuilder {
    if dual { b.era(era) } else { b }
}

/// One line saying what a reply was.
pub fn describe(r: &Reply) -> String {
    r.describe()
}

fn discover(s: &mut Session, d: &Reply, dual: bool) {
    let ev = d.evidence.clone();
    let Some(r) = d.result() else {
        s.add(tagged(
            DISCOVER
                .fail(format!(
                    "server/discover did not return a result: {}",
                    describe(d)
                ))
                .evidence(ev),
            Era::Modern,
            dual,
        ));
        return;
    };
    let mut problems = Vec::new();
    if r.get("resultType").and_then(Value::as_str) != Some("complete") {
        problems.push("resultType is not \"complete\"".to_string());
    }
    match r.get("supportedVersions").and_then(Value::as_array) {
        Some(v) if v.iter().any(|x| x == MODERN_VERSION) => {}
        Some(_) => problems.push(format!(
            "supportedVersions does not contain {MODERN_VERSION}"
        )),
        None => problems.push("supportedVersions is missing".into()),
    }
    if !r.get("capabilities").is_some_and(Value::is_object) {
        problems.push("capabilities is not an object".into());
    }
    if !r
        .get("ttlMs")
        .is_some_and(crate::report::integer::is_non_negative_integer)
    {
        problems.push("ttlMs is not an integer >= 0".into());
    }
    if !matches!(
        r.get("cacheScope").and_then(Value::as_str),
        Some("public" | "private")
    ) {
        problems.push("cacheScope is not \"public\" or \"private\"".into());
    }
    let b = if problems.is_empty() {
        DISCOVER.pass("the DiscoverResult carries every required field")
    } else {
        DISCOVER.fail(format!(
            "the DiscoverResult is malformed: {}",
            problems.join("; ")
        ))
    };
    s.add(tagged(b.evidence(ev), Era::Modern, dual));
}

fn stateless(s: &mut Session, d: &Reply, dual: bool) {
    let ev = d.evidence.clone();
    let minted = d.http.as_ref().and_then(|h| h.header("mcp-session-id"));
    let b = match (d.result(), minted) {
        (_, Some(sid)) => STATELESS.fail(format!(
            "the 2026-07-28 response minted a session id ({sid})"
        )),
        (Some(_), None) => {
            STATELESS.pass("the first request on a fresh connection was served without any setup")
        }
        (None, None) => STATELESS.warn(format!(
            "the first modern request was not served: {}",
            describe(d)
        )),
    };
    s.add(tagged(b.evidence(ev), Era::Modern, dual));
}

async fn version_negotiation_modern(s: &mut Session, m: &Connection, d: &Reply, dual: bool) {
    let mut meta = crate::client::message::envelope(UNKNOWN_VERSION);
    if let Some(o) = meta.as_object_mut() {
        o.remove("io.modelcontextprotocol/clientInfo");
        o.insert(
            "io.modelcontextprotocol/clientInfo".into(),
            crate::client::message::client_info(),
        );
    }
    let r = m
        .send(Probe {
            meta: MetaMode::Custom(meta),
            ..Probe::request("server/discover", json!({}))
        })
        .await;
    let b = version_negotiation::judge_modern(Some(d), &r);
    s.add(tagged(b, Era::Modern, dual));
}

fn initialize(s: &mut Session, init: &Reply, dual: bool) {
    let ev = init.evidence.clone();
    let Some(r) = init.result() else { return };
    let mut problems = Vec::new();
    if !r.get("protocolVersion").is_some_and(Value::is_string) {
        problems.push("protocolVersion is missing");
    }
    if !r.get("capabilities").is_some_and(Value::is_object) {
        problems.push("capabilities is not an object");
    }
    let info = r.get("serverInfo");
    if !info
        .and_then(|i| i.get("name"))
        .is_some_and(Value::is_string)
        || !info
            .and_then(|i| i.get("version"))
            .is_some_and(Value::is_string)
    {
        problems.push("serverInfo lacks name or version");
    }
    if r.get("instructions").is_some_and(|i| !i.is_string()) {
        problems.push("instructions is not a string");
    }
    let b = if problems.is_empty() {
        INITIALIZE.pass(format!(
            "InitializeResult complete (protocolVersion {})",
            r.get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("?")
        ))
    } else {
        INITIALIZE.fail(format!(
            "the InitializeResult is incomplete: {}",
            problems.join("; ")
        ))
    };
    s.add(tagged(b.evidence(ev), Era::Legacy, dual));
}

fn check_initialized(s: &mut Session, n: &Reply, dual: bool, transport: TransportKind) {
    s.add(tagged(initialized(n, transport), Era::Legacy, dual));
}

/// `handshake.initialized`: no JSON-RPC reply; over Streamable HTTP 202 with an empty body.
/// A POST that never got an HTTP status (a timeout, a reset) is no answer, never a pass.
pub fn initialized(n: &Reply, transport: TransportKind) -> FindingBuilder {
    let ev = n.evidence.clone();
    let old_sse = transport == TransportKind::LegacySse;
    let b = match (n.http.as_ref(), &n.response) {
        (_, Some(resp)) => INITIALIZED.fail(format!("the notification was answered: {resp}")),
        // HTTP+SSE (2024-11-05) leaves the POST's status and body unspecified.
        (Some(h), None) if old_sse && (200..300).contains(&h.status) => INITIALIZED.pass(format!(
            "HTTP {} and no JSON-RPC reply on the stream",
            h.status
        )),
        (Some(h), None) if h.status == 202 && h.body.trim().is_empty() => {
            INITIALIZED.pass("202 Accepted with an empty body")
        }
        (Some(h), None) if (200..300).contains(&h.status) => {
            INITIALIZED.warn(format!("HTTP {} instead of 202 Accepted", h.status))
        }
        (Some(h), None) => INITIALIZED.fail(format!(
            "the notification was rejected with HTTP {}",
            h.status
        )),
        (None, None) => match &n.outcome {
            Outcome::TransportError(e) if transport != TransportKind::Stdio => {
                INITIALIZED.fail(format!(
                    "the notification POST got no HTTP status (transport error: {e}); the transport requires 202 Accepted"
                ))
            }
            Outcome::TransportError(e) => INITIALIZED.fail(format!("transport error: {e}")),
            _ if transport != TransportKind::Stdio => INITIALIZED.fail(format!(
                "the notification POST got no HTTP status ({}); the transport requires 202 Accepted",
                describe(n)
            )),
            _ => INITIALIZED.pass("no reply, as a notification requires"),
        },
    };
    b.evidence(ev)
}

/// Judges the `initialize` that opened the session (`init`, which asked for
/// [`LEGACY_VERSION`]) together with one on a fresh wire asking for [`UNKNOWN_VERSION`].
async fn version_negotiation_legacy(s: &mut Session, l: &Connection, init: &Reply, dual: bool) {
    let fresh = match l.fresh().await {
        Ok(c) => c,
        Err(e) => {
            s.add(tagged(
                VERSION_NEGOTIATION.skip(SkipReason::NotAssessed, format!("no fresh wire: {e}")),
                Era::Legacy,
                dual,
            ));
            return;
        }
    };
    let r = lifecycle::initialize(&fresh, UNKNOWN_VERSION).await;
    let b = version_negotiation::judge_legacy(LEGACY_VERSION, init, &r);
    s.add(tagged(b, Era::Legacy, dual));
    fresh.close().await;
}

async fn session(s: &mut Session, l: &Connection, init: &Reply, dual: bool) {
    if l.transport() != TransportKind::Http {
        s.add(tagged(
            SESSION.skip(
                SkipReason::NotApplicable,
                "sessions exist only on Streamable HTTP",
            ),
            Era::Legacy,
            dual,
        ));
        return;
    }
    let Some(sid) = l.session_id() else {
        s.add(tagged(
            SESSION
                .pass("the server issued no Mcp-Session-Id: it is stateless")
                .evidence(init.evidence.clone()),
            Era::Legacy,
            dual,
        ));
        return;
    };
    if !sid.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
        s.add(tagged(
            SESSION
                .fail("the Mcp-Session-Id contains characters outside visible ASCII")
                .evidence(init.evidence.clone()),
            Era::Legacy,
            dual,
        ));
        return;
    }
    let r = l
        .send(Probe {
            session: SessionMode::None,
            ..Probe::request("tools/list", json!({}))
        })
        .await;
    let mut ev = init.evidence.clone();
    ev.extend(r.evidence.iter().copied());
    let b = match r.status() {
        Some(400) => SESSION.pass(format!(
            "session id of {} visible-ASCII characters; a request without it got 400",
            sid.len()
        )),
        Some(st) if sid.len() < 16 => SESSION.warn(format!(
            "the session id is short ({} characters, easy to guess) and a request without it got HTTP {st}",
            sid.len()
        )),
        Some(st) => SESSION.warn(format!("a request without the session id got HTTP {st}, not 400")),
        None => SESSION.warn(format!("a request without the session id got {}", describe(&r))),
    };
    s.add(tagged(b.evidence(ev), Era::Legacy, dual));
}

/// `handshake.server_info` for one wire. The InitializeResult requires `serverInfo`; the
/// DiscoverResult's `_meta["io.modelcontextprotocol/serverInfo"]` is a SHOULD ("Servers
/// **SHOULD** include this field", server/discover), so its absence is a warning. A value
/// that is there must be a whole Implementation (a name and a version).
pub fn judge_server_info(era: Era, info: Option<&Value>) -> FindingBuilder {
    let name = info.and_then(|i| i.get("name")).and_then(Value::as_str);
    let version = info.and_then(|i| i.get("version")).and_then(Value::as_str);
    let where_ = if era == Era::Modern {
        "_meta[\"io.modelcontextprotocol/serverInfo\"] of the DiscoverResult"
    } else {
        "serverInfo of the InitializeResult"
    };
    match (name, version) {
        // The schema's `Implementation` requires `name` and `version` strings; an empty one
        // satisfies the type yet names no build, which is what the field is for.
        (Some(n), Some(v)) if n.trim().is_empty() || v.trim().is_empty() => {
            let empty = match (n.trim().is_empty(), v.trim().is_empty()) {
                (true, true) => "an empty name and an empty version",
                (true, false) => "an empty name",
                _ => "an empty version",
            };
            SERVER_INFO.warn(format!(
                "{where_} has {empty} ({}): the schema's Implementation requires both as strings, and an empty one does not tell operators which build answered",
                info.map(Value::to_string).unwrap_or_default()
            ))
        }
        (Some(n), Some(v)) => SERVER_INFO.pass(format!("{where_}: {n} {v}")),
        (Some(n), None) => SERVER_INFO.fail(format!("{where_} names {n} but has no version")),
        _ if era == Era::Modern && info.is_none() => SERVER_INFO.warn(format!(
            "{where_} is missing; 2026-07-28 says servers should include it so operators can tell which build answered"
        )),
        _ => SERVER_INFO.fail(format!("{where_} is missing or has no name")),
    }
}

fn server_info(s: &mut Session, w: &Connection, dual: bool) {
    // The evidence is the handshake exchange that carried it.
    let ev: Vec<_> = s
        .findings
        .iter()
        .filter(|f| (f.id == PROTOCOL_ERA.id) || (f.id == DISCOVER.id && w.era() == Era::Modern))
        .flat_map(|f| f.evidence.clone())
        .collect();
    let b = judge_server_info(w.era(), w.server_info());
    let b = if ev.is_empty() {
        b.without_exchange()
    } else {
        b.evidence(ev)
    };
    s.add(tagged(b, w.era(), dual));
}

async fn ping(w: &Connection, dual: bool) -> crate::report::finding::FindingBuilder {
    if w.era() == Era::Modern {
        let r = w.send(Probe::request("ping", json!({}))).await;
        let b = match (r.error_code(), r.status()) {
            (Some(-32601), Some(404) | None) => {
                PING.pass("ping (removed in 2026-07-28) is an unknown method: -32601")
            }
            (Some(-32601), Some(st)) => PING.warn(format!("-32601 came with HTTP {st}, not 404")),
            _ if r.result().is_some() => PING.warn(
                "ping on a request carrying the 2026-07-28 _meta was answered with a result; the revision removed ping, so it should get -32601 (the server served it as a handshake-era ping)",
            ),
            _ => PING.warn(format!(
                "ping on a 2026-07-28 request got {} (expected -32601)",
                describe(&r)
            )),
        };
        return tagged(b.evidence(r.evidence.clone()), Era::Modern, dual);
    }
    let r = w
        .send(Probe {
            params: None,
            ..Probe::request("ping", json!({}))
        })
        .await;
    let b = match r.result() {
        Some(v)
            if v.as_object()
                .is_some_and(|o| o.keys().all(|k| k == "_meta")) =>
        {
            PING.pass(format!(
                "ping returned {{}} in {} ms",
                r.elapsed.as_millis()
            ))
        }
        Some(v) => PING.warn(format!("ping returned a non-empty result {v}")),
        None => PING.fail(format!("ping got {}", describe(&r))),
    };
    tagged(b.evidence(r.evidence.clone()), Era::Legacy, dual)
}

async fn capabilities(w: &Connection, dual: bool) -> crate::report::finding::FindingBuilder {
    // Only the "declared but failing" half: "works but undeclared" belongs to the
    // catalog phase, which lists every feature anyway.
    let mut ev = Vec::new();
    let mut failing = Vec::new();
    let mut ok = Vec::new();
    let declared: Vec<&str> = [
        ("tools", "tools/list"),
        ("resources", "resources/list"),
        ("prompts", "prompts/list"),
    ]
    .into_iter()
    .filter(|(cap, _)| w.declares(cap))
    .map(|(_, method)| method)
    .collect();
    let replies =
        futures_util::future::join_all(declared.iter().map(|method| w.request(method, json!({}))))
            .await;
    for (method, r) in declared.into_iter().zip(replies) {
        ev.extend(r.evidence.iter().copied());
        if r.result().is_some() {
            ok.push(method);
        } else {
            failing.push(format!("{method}: {}", describe(&r)));
        }
    }
    let b = if ok.is_empty() && failing.is_empty() {
        CAPABILITIES.skip(
            SkipReason::NotApplicable,
            "the server declares none of tools, resources, prompts",
        )
    } else if failing.is_empty() {
        CAPABILITIES
            .pass(format!("declared features answer: {}", ok.join(", ")))
            .evidence(ev)
    } else {
        CAPABILITIES
            .fail(format!("declared but failing: {}", failing.join("; ")))
            .evidence(ev)
    };
    tagged(b, w.era(), dual)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::finding::Status;

    fn http(status: u16, body: &str) -> Reply {
        Reply {
            evidence: vec![1],
            outcome: Outcome::NoResponse,
            response: None,
            notifications: vec![],
            server_requests: vec![],
            http: Some(crate::transport::HttpInfo {
                status,
                body: body.into(),
                ..Default::default()
            }),
            elapsed: std::time::Duration::ZERO,
            refused: false,
        }
    }

    #[test]
    fn initialized_needs_an_answer_over_http() {
        assert_eq!(
            initialized(&http(202, ""), TransportKind::Http).status(),
            Status::Pass
        );
        assert_eq!(
            initialized(&http(200, ""), TransportKind::Http).status(),
            Status::Warn
        );
        // A POST that timed out before any status is no answer, so no pass.
        let hung = Reply {
            http: None,
            outcome: Outcome::TimedOut,
            ..http(0, "")
        };
        assert_eq!(
            initialized(&hung, TransportKind::Http).status(),
            Status::Fail
        );
        assert_eq!(
            initialized(&hung, TransportKind::LegacySse).status(),
            Status::Fail
        );
        // stdio: nothing written back within the quiet period is the correct silence.
        let quiet = Reply {
            outcome: Outcome::NoResponse,
            ..hung
        };
        assert_eq!(
            initialized(&quiet, TransportKind::Stdio).status(),
            Status::Pass
        );
    }

    #[test]
    fn server_info_is_required_in_initialize_and_a_should_in_discover() {
        let whole = json!({"name": "x", "version": "1"});
        assert_eq!(
            judge_server_info(Era::Modern, Some(&whole)).status(),
            Status::Pass
        );
        assert_eq!(judge_server_info(Era::Modern, None).status(), Status::Warn);
        assert_eq!(judge_server_info(Era::Legacy, None).status(), Status::Fail);
        // Schema-valid strings that name nothing: a warning (it used to pass).
        let empty = json!({"name": "x", "version": ""});
        assert_eq!(
            judge_server_info(Era::Legacy, Some(&empty)).status(),
            Status::Warn
        );
        let blank = json!({"name": " ", "version": "1"});
        assert_eq!(
            judge_server_info(Era::Modern, Some(&blank)).status(),
            Status::Warn
        );
        let half = json!({"name": "x"});
        assert_eq!(
            judge_server_info(Era::Modern, Some(&half)).status(),
            Status::Fail
        );
    }
}
