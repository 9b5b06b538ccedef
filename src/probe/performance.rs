//! Performance: how quickly the server answers what an agent does most. The latency probe
//! repeats one cheap read-only request (`server/discover` on 2026-07-28 wires, `tools/list`
//! otherwise) and reports percentiles; [`observed`] judges `cold_start` and `payload_size`
//! from the exchanges already recorded. (`throughput` is later work and not registered yet.)

mod observed;

pub use observed::{COLD_START_WARN, PAYLOAD_WARN_BYTES};

use std::time::Duration;

use serde_json::json;

use crate::probe::Session;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::transport::{Outcome, Reply};

crate::checks! { phase: Performance;
    LATENCY = "performance.latency", Minor, "Requests are answered quickly", "",
        "scout repeats one cheap read-only request (server/discover on 2026-07-28 wires, tools/list otherwise) and reports p50, p95 and p99. A p95 above 1 s is a warning: agents call these on every turn.",
        "Profile the method named in the detail; list and discover results should come from memory.";
    COLD_START = "performance.cold_start", Minor, "The server answers soon after it starts", "",
        "Read from what the run recorded, no new traffic. stdio: the time from the first request, written as soon as the process was spawned, to its answer; HTTP: how long the first POST took. Above 5 s it is a warning (scout's default request timeout is 10 s); otherwise it is reported.",
        "Defer expensive start-up work (loading models, indexing, remote calls) until a request needs it, and answer the first request as soon as the transport is ready.";
    PAYLOAD_SIZE = "performance.payload_size", Minor, "Results fit in an agent's context", "",
        "Read from what the run recorded before this phase, no new traffic: the largest JSON-RPC result body (list results, tool results, resources) and the request it answered. Above 256 KiB (about 64k tokens) it is a warning; otherwise it is reported.",
        "Paginate lists, keep tool results short, and return large data as resource links instead of inline.";
}

/// Requests per wire.
const SAMPLES: usize = 10;
/// p95 above this is a warning.
const WARN_P95: Duration = Duration::from_secs(1);

/// The `q`-quantile (0..=1) of sorted durations, nearest-rank.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Judges the samples of one wire.
pub fn judge(method: &str, era: Option<Era>, replies: &[Reply]) -> FindingBuilder {
    let evidence: Vec<_> = replies
        .iter()
        .flat_map(|r| r.evidence.iter().copied())
        .collect();
    let ok: Vec<&Reply> = replies
        .iter()
        .filter(|r| r.outcome == Outcome::Answered && r.result().is_some())
        .collect();
    let mut f = if ok.len() < replies.len() / 2 + 1 {
        LATENCY.skip(
            SkipReason::NotAssessed,
            format!("Only {} of {} {method} requests were answered with a result; no latency to measure.", ok.len(), replies.len()),
        )
    } else {
        let mut d: Vec<Duration> = ok.iter().map(|r| r.elapsed).collect();
        d.sort();
        let (p50, p95, p99) = (quantile(&d, 0.5), quantile(&d, 0.95), quantile(&d, 0.99));
        let detail = format!(
            "{method} over {} requests: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms.",
            d.len(),
            p50.as_secs_f64() * 1000.0,
            p95.as_secs_f64() * 1000.0,
            p99.as_secs_f64() * 1000.0
        );
        if p95 > WARN_P95 {
            LATENCY.warn(detail)
        } else {
            LATENCY.info(detail)
        }
        .subject(method)
        .evidence(evidence)
    };
    if let Some(e) = era {
        f = f.era(e);
    }
    f
}

/// Runs this phase's probes against the session.
pub async fn run(s: &mut Session) {
    judge_observed(s);
    sample(s).await;
}

/// The judgements read from what the run recorded (`cold_start`, `payload_size`). The run
/// plan calls this after the catalog and execution traffic they read.
pub fn judge_observed(s: &mut Session) {
    let recorded = s.recorder.shared();
    s.add(observed::cold_start(&recorded));
    s.add(observed::payload_size(&recorded));
}

/// The latency samples (`latency`). They need only the handshake's wires, so the run plan
/// takes them beside the catalog and execution phases.
pub async fn sample(s: &mut Session) {
    let wires = s.wires.clone();
    if wires.is_empty() {
        s.add(LATENCY.skip(
            SkipReason::NotAssessed,
            "No connection was open to measure.",
        ));
        return;
    }
    let dual = wires.len() > 1;
    // Sequential within a wire on purpose (latency, not throughput); the wires of a
    // dual-era server are independent connections and are sampled at the same time.
    let sampled = futures_util::future::join_all(wires.iter().map(|w| async move {
        let method = if w.era() == Era::Modern {
            "server/discover"
        } else {
            "tools/list"
        };
        let mut replies = Vec::with_capacity(SAMPLES);
        for _ in 0..SAMPLES {
            replies.push(w.request(method, json!({})).await);
        }
        judge(method, dual.then_some(w.era()), &replies)
    }))
    .await;
    s.add_all(sampled);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let d: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        assert_eq!(quantile(&d, 0.5), Duration::from_millis(5));
        assert_eq!(quantile(&d, 0.95), Duration::from_millis(10));
        assert_eq!(quantile(&d[..1], 0.99), Duration::from_millis(1));
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
    }
}
