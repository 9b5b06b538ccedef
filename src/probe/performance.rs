//! Performance: how quickly the server answers what an agent does most. [`latency`] reports
//! percentiles per method over the requests the run made anyway that were timed alone, plus
//! a fixed sample of the cheap request;
//! [`observed`] judges `cold_start` and `payload_size` from the exchanges already recorded;
//! [`throughput`] runs a bounded ramp of concurrent requests, only with `--allow-load`.

pub mod latency;
mod observed;
pub mod throughput;

pub use latency::quantile;
pub use observed::{COLD_START_WARN, PAYLOAD_WARN_BYTES};

use serde_json::json;

use crate::client::Connection;
use crate::probe::Session;
use crate::report::finding::{Era, SkipReason};

crate::checks! { phase: Performance;
    LATENCY = "performance.latency", Minor, "Requests are answered quickly", "",
        "Percentiles (p50, p95, p99) per method over the ordinary requests the run made and got a result for, counting only those timed alone: not a wire's first request (it also pays for start-up, which cold_start judges) and none sent while another of scout's requests was in flight on the same wire or, over HTTP, to the same server (it may have waited behind it; such requests are left out and counted). scout's deliberately malformed, oversized or abandoned probes are left out too. The cheap read-only request (server/discover on 2026-07-28 wires, tools/list otherwise) gets 20 dedicated samples per wire (fewer if they take over 3 s), one request at a time after the catalog and execution traffic. Budgets for p95: 1 s for list methods, server/discover, initialize and ping (agents call these on every turn or connection); 2 s for resources/read, prompts/get and completion/complete (they may fetch content); tools/call is reported, never judged (a tool's time depends on what it does, and the run calls each tool only once or twice). A method needs 3 timings to be judged; below 20 its p95 is its slowest answer, and the detail says so. Every judged method within its budget passes; a p95 over its budget is a warning, whose subject is the methods over budget and whose exchanges are cited.",
        "Profile the method named in the detail; list and discover results should come from memory.";
    COLD_START = "performance.cold_start", Minor, "The server answers soon after it starts", "",
        "Read from what the run recorded, no new traffic. stdio: the time from the first request, written as soon as the process was spawned, to its answer; HTTP: how long the first POST took. Above 5 s it is a warning (scout's default request timeout is 10 s); within 5 s it passes.",
        "Defer expensive start-up work (loading models, indexing, remote calls) until a request needs it, and answer the first request as soon as the transport is ready.";
    PAYLOAD_SIZE = "performance.payload_size", Minor, "Results fit in an agent's context", "",
        "Read from what the run recorded before this phase, no new traffic: the largest JSON-RPC result body (list results, tool results, resources) and the request it answered. Above 256 KiB (about 64k tokens) it is a warning; within it, a pass. An MCP Apps UI resource (resources/read of a ui:// URI) is not judged: the host renders it and the model never reads it; one over the budget is reported as information with its URI as subject.",
        "Paginate lists, keep tool results short, and return large data as resource links instead of inline.";
    THROUGHPUT = "performance.throughput", Minor, "The server handles concurrent requests", "",
        "Only with --allow-load (skipped otherwise). A ramp of concurrent read-only requests on one wire (tools/list, or server/discover / ping without tools): 1, 4, 8 and 16 in flight (the ramp sets its own concurrency, whatever --concurrency says), at most 100 requests and 0.75 s per stage (400 requests and about 3 s in all; each request gives up after 2 s). Reports requests per second, failures and p99 per stage. The server serialises requests when 8 in flight are answered less than 1.5× as fast as one request alone allows (the 8-in-flight rate times the fastest request of the whole ramp; N in flight answered in N× one request's time is 1×) while even that fastest request takes at least 20 ms (faster work is not judged: on a loopback machine shared with scout it may be CPU, not a lock): a warning. More than one failure in ten (timeouts, broken connections, errors, 5xx; 429 counts as a refusal, not a failure) is a warning too. Remote hosts: every request still waits for the --rps limiter and the ramp sends at most rps × 3 s requests, so serialisation is not judged there.",
        "Handle requests concurrently (async handlers, a worker pool) and keep locks out of the request path; put a rate limit in front (429) rather than queueing without bound.";
}

/// The early latency sample per wire: 5 sequential requests of the cheap read-only method
/// (they count when nothing else was in flight; [`latency::MIN_PERCENTILE`] dedicated ones
/// follow before the judgement).
pub const SAMPLES: usize = 5;

/// The dedicated samples of a wire send no new request after this long.
const TOP_UP_TIME: std::time::Duration = std::time::Duration::from_secs(3);

/// The cheap read-only request of a wire.
fn cheap(w: &Connection) -> &'static str {
    if w.era() == Era::Modern {
        "server/discover"
    } else {
        "tools/list"
    }
}

/// Runs this phase's probes against the session, in order (the run plan splits it in two:
/// [`sample`] beside the catalog and execution phases, [`judge_observed`] after them).
pub async fn run(s: &mut Session) {
    sample(s).await;
    judge_observed(s).await;
}

/// The fixed latency samples: they need only the handshake's wires, so the run plan takes
/// them beside the catalog and execution phases. Sequential within a wire on purpose
/// (latency, not throughput); the wires of a dual-era server are independent connections
/// and are sampled at the same time. Their times are noted by the connection
/// ([`crate::telemetry::Timing`]) and judged in [`judge_observed`] with the rest of the run.
pub async fn sample(s: &mut Session) {
    let wires = s.wires.clone();
    futures_util::future::join_all(wires.iter().map(|w| async move {
        for _ in 0..SAMPLES {
            w.request(cheap(w), json!({})).await;
        }
    }))
    .await;
}

/// Sends the cheap read-only request [`latency::MIN_PERCENTILE`] times on each wire, alone
/// (so each counts), so its p95 is a percentile and not the slowest answer. One request at
/// a time over all wires: they may share one server, and a sample must not wait behind
/// another. Always the same number (not "until 20 counted"): the run's requests, which
/// other checks count, must not depend on what the schedule put beside the early samples.
async fn dedicated_samples(wires: &[Connection]) {
    for w in wires {
        let until = std::time::Instant::now() + TOP_UP_TIME;
        for _ in 0..latency::MIN_PERCENTILE {
            // A slow server gets fewer samples rather than a run past its deadline (its p95
            // is then its slowest answer, and the detail says so).
            if std::time::Instant::now() >= until {
                break;
            }
            // A request without a result is not a sample: stop rather than wait out a
            // timeout per missing sample on a server that stopped answering.
            if w.request(cheap(w), json!({})).await.result().is_none() {
                break;
            }
        }
    }
}

/// The judgements over what the run recorded (`cold_start`, `payload_size`, `latency` over
/// every ordinary answered request), then the load ramp (`throughput`). The run plan calls
/// this after the catalog and execution traffic and before the final stage, so the ramp has
/// the server to itself: nothing else is in flight.
pub async fn judge_observed(s: &mut Session) {
    let recorded = s.recorder.shared();
    s.add(observed::cold_start(&recorded));
    for f in observed::payload_size(&recorded) {
        s.add(f);
    }
    let wires = s.wires.clone();
    if wires.is_empty() {
        s.add(LATENCY.skip(
            SkipReason::NotAssessed,
            "No connection was open to measure.",
        ));
        s.add(THROUGHPUT.skip(
            SkipReason::NotAssessed,
            "No connection was open to measure.",
        ));
        return;
    }
    let dual = wires.len() > 1;
    dedicated_samples(&wires).await;
    let timings = s.recorder.timings();
    for w in &wires {
        s.add(latency::latency(
            &timings,
            dual.then_some(w.era()),
            dual.then_some(w.era()),
        ));
    }
    s.add(throughput(s, &wires, dual).await);
}

/// `throughput` on one wire (the 2026-07-28 one on a dual-era server), when allowed.
async fn throughput(
    s: &Session,
    wires: &[Connection],
    dual: bool,
) -> crate::report::finding::FindingBuilder {
    if !s.spec.policy.allow_load {
        return THROUGHPUT.skip(
            SkipReason::Policy,
            "The load ramp runs only with --allow-load (config allow_load).",
        );
    }
    let Some(w) = wires
        .iter()
        .find(|w| w.era() == Era::Modern)
        .or(wires.first())
    else {
        return THROUGHPUT.skip(SkipReason::NotAssessed, "No connection was open.");
    };
    let method = if w.declares("tools") {
        "tools/list"
    } else if w.era() == Era::Modern {
        "server/discover"
    } else {
        "ping"
    };
    let limiter = crate::client::connect::limiter_for(&s.spec, s.ctx.limiter.as_ref());
    let (budget, paced) = match limiter.interval() {
        Some(every) if w.transport() != crate::report::model::TransportKind::Stdio => {
            let rps = 1.0 / every.as_secs_f64();
            let n = (rps * throughput::REMOTE_WINDOW.as_secs_f64()).ceil() as usize;
            (n.max(1), Some((rps * 100.0).round() / 100.0))
        }
        _ => (throughput::MAX_REQUESTS, None),
    };
    let ramp = throughput::probe(w, method, budget, paced).await;
    throughput::judge(&ramp, dual.then_some(w.era()))
}
