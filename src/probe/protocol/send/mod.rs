//! What the protocol phase sends. Every probe is read-only or a deliberate error: ping /
//! discover / list requests, malformed bodies, and `tools/call` only for a tool name that
//! does not exist (header probes) or a read-only tool (`Mcp-Param-*` probes, which a
//! conforming server rejects before running the tool). Independent groups run concurrently
//! on HTTP; on stdio they run one after the other because "no reply" is judged by looking
//! at the lines that arrived between two probes.

mod http;
mod jsonrpc;
mod modern;
mod utilities;

use std::time::Duration;

use base64::Engine as _;
use futures_util::future::{BoxFuture, FutureExt, join_all};
use serde_json::{Value, json};

use super::judge;
use super::{ACCEPT_HEADER, BOGUS_SESSION, CONTENT_TYPE};
use super::{
    DELETE, GET_STREAM, HEADER_ENCODING, META_REQUIRED, PARAM_HEADERS, ROUTING_HEADERS,
    VERSION_HEADER, Wire,
};
use crate::client::Connection;
use crate::probe::Session;
use crate::report::exchange::{Direction, ExchangeKind, Seq};
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::model::EraKind;
use crate::transport::{IdKind, MetaMode, Probe, Reply, SessionMode};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";
/// A tool name no server has; header probes call it so that nothing runs even when the
/// server ignores the headers.
const NO_TOOL: &str = "scout-no-such-tool";
/// The longest a GET stream is read before scout stops listening (a stream is expected to
/// stay open; the status and content type, all the verdict needs, arrive at once). The run
/// plan stops listening sooner when the rest of the concurrent stage is done, so the window
/// never holds up the run; the finding's evidence says how long the stream stayed open.
const GET_WINDOW: Duration = Duration::from_millis(300);

/// The full 2026-07-28 `_meta` envelope for `version`.
fn envelope(version: &str) -> Value {
    json!({
        META_VERSION: version,
        META_CAPS: {},
        META_CLIENT: {"name": "scout", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The envelope without `key`.
fn envelope_without(version: &str, key: &str) -> Value {
    let mut e = envelope(version);
    if let Some(o) = e.as_object_mut() {
        o.remove(key);
    }
    e
}

/// One request/reply pair, with the id that was sent (for `jsonrpc_ids`).
struct Sent {
    reply: Reply,
    id: Value,
}

/// The ordinary, harmless request of each era: `ping` (handshake) / `server/discover`.
fn plain(w: &Wire, id: IdKind) -> Probe {
    let (method, params) = if w.is_modern() {
        ("server/discover", Some(json!({})))
    } else {
        ("ping", None)
    };
    Probe {
        method: Some(method.to_string()),
        id,
        params,
        ..Probe::default()
    }
}

fn plain_method(w: &Wire) -> &'static str {
    if w.is_modern() {
        "server/discover"
    } else {
        "ping"
    }
}

/// A raw body; on a modern HTTP wire with the routing headers a valid request would carry.
fn raw(w: &Wire, body: String, method: &str) -> Probe {
    let mut p = Probe {
        raw_body: Some(body),
        ..Probe::default()
    };
    if w.is_modern() && w.is_http() {
        p.headers = vec![
            ("MCP-Protocol-Version".into(), Some(w.version.clone())),
            ("Mcp-Method".into(), Some(method.to_string())),
        ];
    }
    p
}

fn id_value(id: &IdKind) -> Value {
    match id {
        IdKind::Str(s) => json!(s),
        IdKind::Int(i) => json!(i),
        _ => Value::Null,
    }
}

/// Messages the server wrote to stdout in `(from, to)` (exclusive), for probes whose answer
/// the transport cannot match by id (raw lines, null ids, batches); answers to sentinels
/// are left out.
fn stdio_lines_between(s: &Session, from: Seq, to: Option<Seq>) -> Vec<(Seq, Value)> {
    s.recorder
        .between(from, to)
        .into_iter()
        .filter_map(|e| match &e.kind {
            // A batch answer is an array, which the reader may flag as "not one JSON-RPC
            // message"; any JSON object or array line counts here.
            ExchangeKind::Stdio(m) if m.direction == Direction::Received => {
                // A sentinel's answer is scout's own question answered, never the reply.
                serde_json::from_str::<Value>(&m.line)
                    .ok()
                    .filter(|v| {
                        (v.is_object() || v.is_array()) && !crate::transport::stdio::is_sentinel(v)
                    })
                    .map(|v| (e.seq, v))
            }
            _ => None,
        })
        .collect()
}

/// On stdio: when the transport matched no response to `r`, adopt the first line between it
/// and `next` whose id equals `id` (or any response when `id` is `None`).
fn adopt_stdio(s: &Session, w: &Wire, r: Reply, next: Option<&Reply>, id: Option<&Value>) -> Reply {
    adopt_stdio_where(s, w, r, next, |v| {
        id.is_none_or(|i| v.get("id").unwrap_or(&Value::Null) == i)
    })
}

/// `adopt_stdio` with any predicate on the candidate response.
fn adopt_stdio_where(
    s: &Session,
    w: &Wire,
    mut r: Reply,
    next: Option<&Reply>,
    accept: impl Fn(&Value) -> bool,
) -> Reply {
    if !w.is_stdio() || r.response.is_some() {
        return r;
    }
    let Some(from) = r.evidence.first().copied() else {
        return r;
    };
    let to = next.and_then(|n| n.evidence.first().copied());
    let found = stdio_lines_between(s, from, to)
        .into_iter()
        .find(|(_, v)| v.is_object() && v.get("method").is_none() && accept(v));
    if let Some((seq, v)) = found {
        r.evidence.push(seq);
        r.response = Some(v);
        r.outcome = crate::transport::Outcome::Answered;
    }
    r
}

/// Runs the groups: concurrently on HTTP, in order on stdio.
async fn run_groups<'a, T>(w: &Wire, groups: Vec<BoxFuture<'a, T>>) -> Vec<T> {
    if w.is_stdio() {
        let mut out = Vec::new();
        for g in groups {
            out.push(g.await);
        }
        out
    } else {
        join_all(groups).await
    }
}

/// Everything the groups produce: findings plus the replies the whole-phase judges read.
#[derive(Default)]
struct Out {
    findings: Vec<FindingBuilder>,
    replies: Vec<Sent>,
    /// The two requests sent with a string and an integer id for `jsonrpc_ids`.
    typed: Vec<Sent>,
    /// Replies that are not one request's response stream (GET streams, the batch answer
    /// with several responses): judged by their own checks and `content_type`, not by `sse`.
    gets: Vec<Reply>,
}

/// What the first half of one wire's probes produced, for the second half to judge with
/// its own (`jsonrpc_ids`, `content_type` and `sse` read the replies of both).
pub(in crate::probe) struct Early(Out);

/// The first half of one wire's probes: the ones that change nothing and cannot upset a
/// server, so they may run beside the catalog and execution phases. On HTTP that is the
/// GET stream window (which mostly waits) and an unknown notification. On stdio nothing
/// runs early: its "no reply" verdicts read the lines that arrived between two probes, so
/// every stdio probe runs in the final stage, alone on the wire.
pub(in crate::probe) async fn probe_wire_early(
    s: &Session,
    raw_conn: &Connection,
    stop: Option<tokio::sync::watch::Receiver<bool>>,
) -> Early {
    let conn = raw_conn;
    let w = wire_of(raw_conn);
    if w.is_stdio() {
        let mut out = self::http::get_group(s, conn, &w, stop).await;
        out.findings
            .push(crate::probe::protocol::subscriptions::listen(conn, &w).await);
        return Early(out);
    }
    let (mut out, n, listened) = futures_util::join!(
        self::http::get_group(s, conn, &w, stop),
        self::jsonrpc::notification_group(s, conn, &w),
        crate::probe::protocol::subscriptions::listen(conn, &w),
    );
    merge(&mut out, n);
    out.findings.push(listened);
    Early(out)
}

/// The batch probe alone on `conn`, judged as `w`'s revision (the revision matrix): its
/// finding and the exchanges it used.
pub(super) async fn batch_at(
    s: &Session,
    conn: &Connection,
    w: &Wire,
) -> (FindingBuilder, Vec<Seq>) {
    let mut out = self::jsonrpc::batch_group(s, conn, w).await;
    let seqs = out
        .gets
        .iter()
        .chain(out.replies.iter().map(|r| &r.reply))
        .flat_map(|r| r.evidence.iter().copied())
        .collect();
    let finding = out.findings.pop().unwrap_or_else(|| {
        super::BATCH.skip(
            SkipReason::NotAssessed,
            "the batch probe produced no verdict",
        )
    });
    (finding, seqs)
}

fn wire_of(raw_conn: &Connection) -> Wire {
    Wire::new(
        raw_conn.era(),
        raw_conn.transport(),
        raw_conn.protocol_version(),
    )
}

fn merge(into: &mut Out, o: Out) {
    into.findings.extend(o.findings);
    into.replies.extend(o.replies);
    into.typed.extend(o.typed);
    into.gets.extend(o.gets);
}

/// The second half of one wire's probes (deliberately broken input and ended sessions, run
/// in the final stage), except the unparsable body: [`probe_wire_garbage`] sends that.
pub(in crate::probe) async fn probe_wire_late(
    s: &Session,
    raw_conn: &Connection,
    early: Early,
) -> Late {
    let conn = raw_conn;
    let w = wire_of(raw_conn);
    let mut groups: Vec<BoxFuture<'_, Out>> = vec![
        self::jsonrpc::jsonrpc_group(s, conn, &w).boxed(),
        self::jsonrpc::batch_group(s, conn, &w).boxed(),
        self::http::http_group(s, conn, &w).boxed(),
        self::modern::modern_group(s, conn, &w).boxed(),
        self::utilities::utilities_group(s, conn, &w).boxed(),
    ];
    if w.is_stdio() {
        groups.insert(1, self::jsonrpc::notification_group(s, conn, &w).boxed());
    }
    let outs = run_groups(&w, groups).await;
    let mut all = early.0;
    for o in outs {
        merge(&mut all, o);
    }
    Late(all)
}

/// What [`probe_wire_late`] produced, for [`probe_wire_garbage`] to finish.
pub(in crate::probe) struct Late(Out);

/// The unparsable body, last and alone on every transport (the caller runs no other probe
/// beside it): a server that dies of it has answered every other probe of the phase by
/// then, whatever the schedule, so what its death leaves not assessed is the same in every
/// run. Then the judgements over the wire's whole phase; the findings are tagged with the
/// wire's era.
///
/// `sent_on`: the era of the wire that already sent it, on a remote target, where each
/// malformed message goes to a server once (an unparsable body means the same whatever
/// revision the wire speaks): this wire then records a policy skip naming that wire.
pub(in crate::probe) async fn probe_wire_garbage(
    s: &Session,
    raw_conn: &Connection,
    late: Late,
    sent_on: Option<crate::report::finding::Era>,
) -> Vec<FindingBuilder> {
    let conn = raw_conn;
    let w = wire_of(raw_conn);
    let mut all = late.0;
    match sent_on {
        None => merge(&mut all, self::jsonrpc::garbage_group(s, conn, &w).await),
        Some(era) => all
            .findings
            .push(crate::probe::classes::sent_once(&super::PARSE_ERROR, era)),
    }
    let Out {
        mut findings,
        replies,
        typed,
        gets,
    } = all;
    let typed_refs: Vec<(&Reply, Value)> = typed.iter().map(|x| (&x.reply, x.id.clone())).collect();
    let others: Vec<(&Reply, Value)> = replies
        .iter()
        .filter(|x| !x.id.is_null())
        .map(|x| (&x.reply, x.id.clone()))
        .collect();
    // One charge per exchange: an answer another check of this wire already failed or
    // warned about (an unknown session refused with 400 and an id-less error body) is named
    // by jsonrpc_ids as context, not charged a second time.
    let charged: std::collections::BTreeSet<Seq> = findings
        .iter()
        .filter(|f| {
            matches!(
                f.status(),
                crate::report::finding::Status::Fail | crate::report::finding::Status::Warn
            )
        })
        .flat_map(|f| f.cited().iter().copied())
        .collect();
    findings.push(judge::jsonrpc::jsonrpc_ids(
        &w,
        &typed_refs,
        &others,
        &charged,
    ));
    let posts: Vec<&Reply> = replies
        .iter()
        .chain(typed.iter())
        .map(|x| &x.reply)
        .collect();
    let all: Vec<&Reply> = posts.iter().copied().chain(gets.iter()).collect();
    if w.is_http() {
        findings.push(judge::http::content_type(&w, &all));
    } else {
        let why = if w.is_legacy_sse() {
            "HTTP+SSE (2024-11-05) answers on its event stream; the POST's own answer is unspecified"
        } else {
            "stdio has no content type"
        };
        findings.push(CONTENT_TYPE.skip(SkipReason::NotApplicable, why));
    }
    findings.push(judge::sse::sse(&w, &posts));
    findings.into_iter().map(|f| f.era(w.era)).collect()
}
