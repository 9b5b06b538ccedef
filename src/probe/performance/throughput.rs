//! `throughput` (only with `--allow-load`): a bounded ramp of concurrent read-only requests
//! on one wire — 1, 4, 8 and then 16 in flight — reporting requests per second, errors and
//! p99, and whether the server serialises requests (8 in flight no faster than one).
//!
//! Bounds: at most [`MAX_REQUESTS`] requests in all and [`STAGE_TIME`] per stage (so about
//! 3 s of load plus the last requests' answers, each bounded by [`REQUEST_TIMEOUT`]).
//! Remote hosts: every request still waits for the host's `--rps` limiter, and the whole
//! ramp sends at most `rps` × [`REMOTE_WINDOW`] requests (the "burst": the probe's time
//! window at the configured rate), so the probe never goes above `--rps`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::THROUGHPUT;
use super::latency::quantile;
use crate::client::Connection;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder};
use crate::transport::{Outcome, Probe, Reply};

/// Requests in flight at each stage of the ramp.
pub const STAGES: [usize; 4] = [1, 4, 8, 16];
/// Requests in all, over every stage.
pub const MAX_REQUESTS: usize = 400;
/// Requests per stage.
pub const STAGE_REQUESTS: usize = MAX_REQUESTS / STAGES.len();
/// No request of a stage starts after this.
pub const STAGE_TIME: Duration = Duration::from_millis(750);
/// Each request of the ramp gives up after this (or the run's timeout, when shorter).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// On a remote host the ramp sends at most `rps` × this many requests.
pub const REMOTE_WINDOW: Duration = Duration::from_secs(3);
/// In-flight count whose speed-up over one request decides "serialises".
pub const SERIAL_AT: usize = 8;
/// A speed-up below this at [`SERIAL_AT`] in flight means the server serialises requests.
pub const SERIAL_SPEEDUP: f64 = 1.5;
/// ...but only when even the fastest request of the ramp took at least this long. Below it the
/// work is plausibly CPU on a loopback machine shared with scout (a one-thread server on a
/// busy 2-core machine cannot scale either), which is not the lock or queue this check is
/// about; a lock around real waiting (a database, an API) costs tens of milliseconds.
pub const SERIAL_MIN_LATENCY: Duration = Duration::from_millis(20);
/// At most this many failed requests are cited.
const MAX_CITED_ERRORS: usize = 5;

/// One stage of the ramp.
#[derive(Debug, Clone)]
pub struct Stage {
    pub in_flight: usize,
    pub replies: Vec<Reply>,
    /// From the first request's start to the last answer.
    pub wall: Duration,
}

/// A request that got a JSON-RPC result.
fn ok(r: &Reply) -> bool {
    r.outcome == Outcome::Answered && r.result().is_some()
}

/// A request the server refused as too many (HTTP 429): a rate limit, not a fault.
fn refused(r: &Reply) -> bool {
    r.status() == Some(429)
}

impl Stage {
    /// Answered requests per second.
    pub fn rate(&self) -> f64 {
        let n = self.replies.iter().filter(|r| ok(r)).count();
        if self.wall.is_zero() {
            0.0
        } else {
            n as f64 / self.wall.as_secs_f64()
        }
    }

    fn sorted_latencies(&self) -> Vec<Duration> {
        let mut d: Vec<Duration> = self
            .replies
            .iter()
            .filter(|r| ok(r))
            .map(|r| r.elapsed)
            .collect();
        d.sort();
        d
    }
}

/// What the ramp did.
#[derive(Debug, Clone)]
pub struct Ramp {
    pub method: String,
    pub stages: Vec<Stage>,
    /// Set when the requests were paced by a remote host's `--rps` limiter.
    pub paced: Option<f64>,
}

/// Runs the ramp on `w` with `method` (params `{}`), sending at most `budget` requests.
pub async fn probe(w: &Connection, method: &str, budget: usize, paced: Option<f64>) -> Ramp {
    let timeout = REQUEST_TIMEOUT.min(w.connector().timeout());
    let mut left = budget.min(MAX_REQUESTS);
    let mut stages = Vec::new();
    for in_flight in STAGES {
        if left == 0 {
            break;
        }
        let cap = left.min(STAGE_REQUESTS);
        let stage = run_stage(w, method, in_flight, cap, timeout).await;
        left -= stage.replies.len();
        stages.push(stage);
    }
    Ramp {
        method: method.to_string(),
        stages,
        paced,
    }
}

async fn run_stage(
    w: &Connection,
    method: &str,
    in_flight: usize,
    cap: usize,
    timeout: Duration,
) -> Stage {
    let started = Instant::now();
    let stop_at = started + STAGE_TIME;
    let sent = Arc::new(AtomicUsize::new(0));
    let workers = (0..in_flight).map(|_| {
        let sent = sent.clone();
        async move {
            let mut out = Vec::new();
            while Instant::now() < stop_at && sent.fetch_add(1, Ordering::SeqCst) < cap {
                out.push(
                    w.send(Probe {
                        timeout: Some(timeout),
                        // The ramp's stages are its own: `--concurrency 1` must not turn
                        // "16 in flight" into one at a time (and a false "serialises").
                        own_concurrency: true,
                        ..Probe::request(method, json!({}))
                    })
                    .await,
                );
            }
            out
        }
    });
    let replies: Vec<Reply> = futures_util::future::join_all(workers)
        .await
        .into_iter()
        .flatten()
        .collect();
    Stage {
        in_flight,
        replies,
        wall: started.elapsed(),
    }
}

/// Speed-up of the stage with [`SERIAL_AT`] in flight over one request alone: its rate times
/// the fastest request of the whole ramp (N in flight answered in N× one request's time is a
/// speed-up of 1). The fastest, not the median, and of every stage, not only the
/// one-at-a-time stage: a busy client machine slows some requests (a stage of a few slow
/// requests happens under load), never the server's own minimum service time; and on a
/// server that serialises, no request of a concurrent stage is served faster than that time.
pub fn speedup(ramp: &Ramp) -> Option<(f64, Duration)> {
    ramp.stages.iter().find(|s| s.in_flight == 1)?;
    let many = ramp.stages.iter().find(|s| s.in_flight == SERIAL_AT)?;
    let fastest = ramp
        .stages
        .iter()
        .filter_map(|s| s.sorted_latencies().first().copied())
        .min()?;
    if many.replies.len() < SERIAL_AT {
        return None;
    }
    Some((many.rate() * fastest.as_secs_f64(), fastest))
}

/// Judges the ramp (`era` tags the finding on a dual-era server).
pub fn judge(ramp: &Ramp, era: Option<Era>) -> FindingBuilder {
    let all: Vec<&Reply> = ramp.stages.iter().flat_map(|s| &s.replies).collect();
    let total = all.len();
    let answered = all.iter().filter(|r| ok(r)).count();
    let refusals = all.iter().filter(|r| refused(r)).count();
    let failed: Vec<&&Reply> = all.iter().filter(|r| !ok(r) && !refused(r)).collect();
    let mut lat: Vec<Duration> = all.iter().filter(|r| ok(r)).map(|r| r.elapsed).collect();
    lat.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let per_stage = ramp
        .stages
        .iter()
        .map(|s| {
            format!(
                "{} in flight: {:.0} req/s ({} requests, p99 {:.1} ms)",
                s.in_flight,
                s.rate(),
                s.replies.len(),
                ms(quantile(&s.sorted_latencies(), 0.99))
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let peak = ramp.stages.iter().map(Stage::rate).fold(0.0, f64::max);
    let mut detail = format!(
        "{total} {} requests in a ramp of {}: {answered} answered, {} failed{}, p99 {:.1} ms, peak {peak:.0} req/s. {per_stage}.",
        ramp.method,
        ramp.stages
            .iter()
            .map(|s| s.in_flight.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        failed.len(),
        if refusals > 0 {
            format!(", {refusals} refused with 429")
        } else {
            String::new()
        },
        ms(quantile(&lat, 0.99)),
    );
    // Cite the first and last request of every stage, and the first failures.
    let mut evidence: Vec<Seq> = Vec::new();
    for s in &ramp.stages {
        for r in s.replies.first().into_iter().chain(s.replies.last()) {
            evidence.extend(r.evidence.iter().copied());
        }
    }
    for r in failed.iter().take(MAX_CITED_ERRORS) {
        evidence.extend(r.evidence.iter().copied());
    }
    evidence.sort_unstable();
    evidence.dedup();
    let serial = match (ramp.paced, speedup(ramp)) {
        (Some(rps), _) => {
            detail.push_str(&format!(
                " The host is remote: every request waited for the {rps} req/s limit, so serialisation was not judged."
            ));
            None
        }
        (None, Some((x, one))) if one < SERIAL_MIN_LATENCY => {
            detail.push_str(&format!(
                " The fastest request took {:.1} ms, under {} ms, so serialisation was not judged: that is too little work to tell a lock from CPU shared with scout (speed-up at {SERIAL_AT} in flight {x:.2}×).",
                ms(one),
                SERIAL_MIN_LATENCY.as_millis()
            ));
            None
        }
        (None, Some((x, one))) => Some((x, one)),
        (None, None) => {
            detail.push_str(" Too few requests were answered to compare one in flight with many.");
            None
        }
    };
    let f = if total > 0 && failed.len() * 10 > total {
        THROUGHPUT.warn(format!(
            "More than one request in ten failed under load (timed out, broke the connection, or got an error or a 5xx). {detail}"
        ))
    } else {
        match serial {
            Some((x, one)) if x < SERIAL_SPEEDUP => THROUGHPUT.warn(format!(
                "The server serialises requests: {SERIAL_AT} in flight were answered only {x:.2}× as fast as one request alone ({:.1} ms at best) allows; concurrent agents wait on each other. {detail}",
                ms(one)
            )),
            Some((x, _)) => THROUGHPUT.info(format!(
                "{SERIAL_AT} in flight were answered {x:.2}× as fast as one request alone allows. {detail}"
            )),
            None => THROUGHPUT.info(detail),
        }
    };
    let f = f.subject(ramp.method.clone()).evidence(evidence);
    match era {
        Some(e) => f.era(e),
        None => f,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::report::finding::Status;

    fn reply(seq: Seq, ms: u64) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome: Outcome::Answered,
            response: Some(json!({"jsonrpc":"2.0","id":1,"result":{}})),
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(ms),
            refused: false,
        }
    }

    /// A stage of `n` requests of `ms` each over `wall_ms`.
    fn stage(in_flight: usize, n: u64, ms: u64, wall_ms: u64, first: Seq) -> Stage {
        Stage {
            in_flight,
            replies: (0..n).map(|i| reply(first + i, ms)).collect(),
            wall: Duration::from_millis(wall_ms),
        }
    }

    fn ramp(stages: Vec<Stage>) -> Ramp {
        Ramp {
            method: "tools/list".into(),
            stages,
            paced: None,
        }
    }

    #[test]
    fn no_speed_up_with_slow_requests_is_serialisation() {
        // 60 ms each, whatever the concurrency: about 17 req/s throughout.
        let r = ramp(vec![
            stage(1, 13, 60, 780, 1),
            stage(4, 13, 240, 780, 100),
            stage(8, 13, 480, 780, 200),
            stage(16, 13, 960, 780, 300),
        ]);
        let f = judge(&r, None).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert!(f.detail.contains("serialises"), "{}", f.detail);
        assert!(f.evidence.contains(&1) && f.evidence.contains(&312));
    }

    #[test]
    fn a_fast_server_or_a_scaling_one_is_reported() {
        // Sub-millisecond answers: too fast to tell.
        let fast = ramp(vec![stage(1, 100, 1, 100, 1), stage(8, 100, 1, 100, 200)]);
        let f = judge(&fast, None);
        assert_eq!(f.status(), Status::Info);
        // 60 ms each, and 8 in flight are 7× faster.
        let scales = ramp(vec![stage(1, 13, 60, 780, 1), stage(8, 100, 60, 860, 200)]);
        let f = judge(&scales, None).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Info, "{}", f.detail);
        assert!(f.detail.contains("6.98×"), "{}", f.detail);
        // 10 ms at best with no speed-up: CPU-bound work on a busy machine looks like this.
        let cpu = ramp(vec![stage(1, 75, 10, 750, 1), stage(8, 75, 80, 750, 200)]);
        let f = judge(&cpu, None).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Info, "{}", f.detail);
        assert!(f.detail.contains("not judged"), "{}", f.detail);
        let mut paced = ramp(vec![stage(1, 3, 20, 750, 1), stage(4, 3, 20, 750, 10)]);
        paced.paced = Some(2.0);
        assert_eq!(judge(&paced, None).status(), Status::Info);
    }

    #[test]
    fn a_slow_first_stage_on_a_busy_machine_does_not_hide_serialisation() {
        // Two single requests slowed to 700 ms by a busy machine, then a 60 ms lock: the
        // fastest request of the ramp, not of the first stage, is the service time.
        let mut first = stage(1, 2, 700, 1400, 1);
        first.replies[1].elapsed = Duration::from_millis(350);
        let mut eight = stage(8, 19, 480, 1150, 200);
        eight.replies[0].elapsed = Duration::from_millis(62);
        let r = ramp(vec![first, stage(4, 11, 240, 700, 100), eight]);
        let f = judge(&r, None).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert!(f.detail.contains("62.0 ms at best"), "{}", f.detail);
    }

    #[test]
    fn many_failures_warn() {
        let mut s = stage(1, 10, 1, 100, 1);
        for r in s.replies.iter_mut().take(3) {
            r.outcome = Outcome::TimedOut;
            r.response = None;
        }
        let f = judge(&ramp(vec![s]), None).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert!(f.detail.contains("3 failed"), "{}", f.detail);
    }
}
