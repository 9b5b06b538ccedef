//! `latency`: percentiles per method over the requests the run made anyway (the client notes
//! how long each ordinary, answered request took: [`Timing`]) plus a small fixed sample of
//! the cheap read-only request, judged against a budget per kind of method.

use std::collections::BTreeMap;
use std::time::Duration;

use super::LATENCY;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::telemetry::Timing;

/// The budget for list, discover, ping and initialize: an agent calls these on every turn or
/// connection, and they should come from memory.
pub const LIST_BUDGET: Duration = Duration::from_secs(1);
/// The budget for reading a resource, getting a prompt and completing an argument: they may
/// fetch content, but an agent still waits on them before it can go on.
pub const READ_BUDGET: Duration = Duration::from_secs(2);
/// A method needs this many answered samples before its p95 is judged against its budget
/// (fewer are listed, not judged: one slow answer is not a percentile).
pub const MIN_JUDGED: usize = 3;
/// Below this many samples a nearest-rank p95 is simply the slowest answer; the detail says
/// so. The cheap request gets this many dedicated samples per wire.
pub const MIN_PERCENTILE: usize = 20;
/// At most this many exchanges of the worst method are cited.
const MAX_CITED: usize = 40;

/// The p95 budget of `method`; `None`: reported, never judged. `tools/call` has none: how
/// long a tool takes depends on what it does (a search, a build), not on the protocol, and
/// the run calls each tool once or twice with generated arguments.
pub fn budget(method: &str) -> Option<Duration> {
    match method {
        "tools/call" => None,
        "resources/read" | "prompts/get" | "completion/complete" => Some(READ_BUDGET),
        _ => Some(LIST_BUDGET),
    }
}

/// The era a timing belongs to: the request's own era where the method settles it (the
/// handshake's `server/discover` and `initialize` are sent before the wire's era is known).
fn era_of(t: &Timing) -> Option<Era> {
    match t.method.as_str() {
        "server/discover" => Some(Era::Modern),
        "initialize" | "ping" => Some(Era::Legacy),
        _ => t.era,
    }
}

/// The `q`-quantile (0..=1) of sorted durations, nearest-rank.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// One method's sample.
#[derive(Debug, Clone)]
pub struct MethodStats {
    pub method: String,
    pub n: usize,
    pub p50: Duration,
    pub p95: Duration,
    pub p99: Duration,
    /// The fastest answer: when even it is over the budget, two samples are enough to judge.
    pub fastest: Duration,
    pub budget: Option<Duration>,
    pub evidence: Vec<Seq>,
}

impl MethodStats {
    /// True when the method has a budget and enough samples to judge it: at least
    /// [`MIN_JUDGED`], or two that were both over the budget (a server slow on every answer,
    /// whose few dedicated samples filled the sampling time).
    pub fn judged(&self) -> bool {
        self.budget
            .is_some_and(|b| self.n >= MIN_JUDGED || (self.n >= 2 && self.fastest > b))
    }

    /// True when it is judged and its p95 is over its budget.
    pub fn over(&self) -> bool {
        self.judged() && self.budget.is_some_and(|b| self.p95 > b)
    }

    fn line(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let p95 = if self.n < MIN_PERCENTILE {
            format!(
                "p95 {:.1} ms (the slowest: fewer than {MIN_PERCENTILE} samples)",
                ms(self.p95)
            )
        } else {
            format!("p95 {:.1} ms", ms(self.p95))
        };
        let judged = match self.budget {
            None => " (not judged)".to_string(),
            Some(_) if !self.judged() => " (too few to judge)".to_string(),
            Some(b) if self.p95 > b => format!(" — over the {} s budget", b.as_secs_f64()),
            Some(_) => String::new(),
        };
        format!(
            "{} ×{}: p50 {:.1} ms, {p95}, p99 {:.1} ms{judged}",
            self.method,
            self.n,
            ms(self.p50),
            ms(self.p99)
        )
    }
}

/// True when a timing says how fast the server serves an agent: not the wire's first
/// request (start-up, judged by `cold_start`) and nothing else of scout's in flight beside
/// it (it may have waited behind that).
pub fn counts(t: &Timing) -> bool {
    !t.first && !t.overlapped
}

/// The timings of one era (`None`: every timing).
fn of_era(timings: &[Timing], era: Option<Era>) -> impl Iterator<Item = &Timing> {
    timings
        .iter()
        .filter(move |t| era.is_none() || era_of(t) == era)
}

/// Per-method percentiles of the timings of one era (`None`: every timing) that count
/// (see [`counts`]), most samples first.
pub fn stats(timings: &[Timing], era: Option<Era>) -> Vec<MethodStats> {
    let mut by: BTreeMap<&str, Vec<&Timing>> = BTreeMap::new();
    for t in of_era(timings, era).filter(|t| counts(t)) {
        by.entry(t.method.as_str()).or_default().push(t);
    }
    let mut out: Vec<MethodStats> = by
        .into_iter()
        .map(|(method, ts)| {
            let mut d: Vec<Duration> = ts.iter().map(|t| t.elapsed).collect();
            d.sort();
            MethodStats {
                method: method.to_string(),
                n: d.len(),
                p50: quantile(&d, 0.5),
                p95: quantile(&d, 0.95),
                p99: quantile(&d, 0.99),
                fastest: d.first().copied().unwrap_or_default(),
                budget: budget(method),
                evidence: ts.iter().flat_map(|t| t.evidence.iter().copied()).collect(),
            }
        })
        .collect();
    out.sort_by(|a, b| b.n.cmp(&a.n).then(a.method.cmp(&b.method)));
    out
}

/// The method a finding is about: the judged one furthest over (or nearest to) its budget;
/// without a judged one, the one with most samples.
fn worst(stats: &[MethodStats]) -> Option<&MethodStats> {
    let ratio = |s: &MethodStats| {
        s.budget
            .map_or(0.0, |b| s.p95.as_secs_f64() / b.as_secs_f64())
    };
    stats
        .iter()
        .filter(|s| s.judged())
        .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))
        .or_else(|| stats.first())
}

/// Judges the timings of one wire (`era` tags the finding on a dual-era server).
pub fn latency(timings: &[Timing], era: Option<Era>, wire_era: Option<Era>) -> FindingBuilder {
    let stats = stats(timings, wire_era);
    let tag = |f: FindingBuilder| match era {
        Some(e) => f.era(e),
        None => f,
    };
    let Some(w) = worst(&stats) else {
        if of_era(timings, wire_era).next().is_some() {
            return tag(LATENCY.skip(
                SkipReason::NotAssessed,
                format!(
                    "No answered request was timed alone.{}",
                    left_out(timings, wire_era)
                ),
            ));
        }
        return tag(LATENCY.skip(
            SkipReason::NotAssessed,
            "No request was answered with a result, so there is no latency to measure.",
        ));
    };
    let mut evidence = w.evidence.clone();
    evidence.truncate(MAX_CITED);
    let table = stats
        .iter()
        .map(MethodStats::line)
        .collect::<Vec<_>>()
        .join("; ");
    let slow: Vec<&MethodStats> = stats.iter().filter(|s| s.over()).collect();
    // The subject is part of a finding's identity (baselines, report diff, shard merge), so
    // it must not depend on timing noise: an observation has none, a warning names the
    // methods over budget in a fixed order.
    let subject = (!slow.is_empty()).then(|| {
        let mut names: Vec<&str> = slow.iter().map(|s| s.method.as_str()).collect();
        names.sort_unstable();
        names.join(", ")
    });
    let left_out = left_out(timings, wire_era);
    let n = stats.iter().map(|s| s.n).sum::<usize>();
    let f = if !slow.is_empty() {
        LATENCY.warn(format!(
            "p95 above its budget for {}: {table}.{left_out}",
            slow.iter()
                .map(|s| s.method.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else if stats.iter().any(MethodStats::judged) {
        LATENCY.pass(format!(
            "Every judged method's p95 is within its budget, over {n} answered request(s): {table}.{left_out}"
        ))
    } else {
        LATENCY.info(format!(
            "Over {n} answered request(s), none of a judged method with enough samples: {table}.{left_out}"
        ))
    };
    let f = match subject {
        Some(subject) => f.subject(subject),
        None => f,
    };
    tag(f.evidence(evidence))
}

/// The sentence saying which answered requests were left out of the percentiles, and why.
fn left_out(timings: &[Timing], era: Option<Era>) -> String {
    let first = of_era(timings, era).filter(|t| t.first).count();
    let overlapped = of_era(timings, era)
        .filter(|t| !t.first && t.overlapped)
        .count();
    let mut parts = Vec::new();
    if first > 0 {
        parts.push(
            "the wire's first request (it also paid for start-up; performance.cold_start judges that)"
                .to_string(),
        );
    }
    if overlapped > 0 {
        parts.push(format!(
            "{overlapped} request(s) sent while another request of the run was in flight (they may have waited behind it)"
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" Left out: {}.", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;

    fn t(method: &str, ms: u64, seq: Seq) -> Timing {
        Timing {
            method: method.into(),
            era: Some(Era::Legacy),
            elapsed: Duration::from_millis(ms),
            evidence: vec![seq],
            first: false,
            overlapped: false,
        }
    }

    #[test]
    fn nearest_rank_quantiles() {
        let d: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        assert_eq!(quantile(&d, 0.5), Duration::from_millis(5));
        assert_eq!(quantile(&d, 0.95), Duration::from_millis(10));
        assert_eq!(quantile(&d[..1], 0.99), Duration::from_millis(1));
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn a_slow_list_warns_and_slow_tool_calls_do_not() {
        let mut ts: Vec<Timing> = (0..5).map(|i| t("tools/list", 1500, i)).collect();
        ts.extend((10..20).map(|i| t("tools/call", 9000, i)));
        ts.push(t("prompts/list", 5000, 30));
        let f = latency(&ts, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert_eq!(f.subject.as_deref(), Some("tools/list"));
        assert_eq!(f.evidence, vec![0, 1, 2, 3, 4]);
        for word in ["p50", "p95", "p99", "tools/call", "not judged", "too few"] {
            assert!(f.detail.contains(word), "{word}: {}", f.detail);
        }
        // Tool calls alone are reported, never judged.
        let calls: Vec<Timing> = (0..10).map(|i| t("tools/call", 9000, i)).collect();
        let info = latency(&calls, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert_eq!(info.status, Status::Info);
        // An observation has no subject: which method was slowest is timing noise and must
        // not change a finding's identity between two runs.
        assert_eq!(info.subject, None);
        assert_eq!(latency(&[], None, None).status(), Status::Skip);
    }

    #[test]
    fn discover_counts_for_the_modern_wire_whatever_the_wire_said() {
        let mut d = t("server/discover", 2, 1);
        d.era = Some(Era::Legacy);
        let s = stats(&[d, t("tools/list", 2, 2)], Some(Era::Modern));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].method, "server/discover");
    }

    #[test]
    fn only_requests_timed_alone_count_and_a_healthy_server_passes() {
        // A 0.5 ms tools/list queued behind a 1.2 s tool call on a sequential server, and
        // the wire's first request (start-up): previously both counted and the p95 was over
        // budget (a warning); neither says how fast the server serves an agent.
        let mut ts: Vec<Timing> = (1..=20).map(|i| t("tools/list", 1, i)).collect();
        let mut queued = t("tools/list", 1200, 30);
        queued.overlapped = true;
        let mut first = t("initialize", 3000, 0);
        first.first = true;
        ts.push(queued);
        ts.push(first);
        let f = latency(&ts, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert!(f.detail.contains("tools/list ×20"), "{}", f.detail);
        assert!(
            f.detail.contains("1 request(s) sent while another"),
            "{}",
            f.detail
        );
        assert!(f.detail.contains("cold_start"), "{}", f.detail);
        assert!(!f.evidence.contains(&30), "{f:?}");
        assert_eq!(f.subject, None, "a pass has no timing-dependent subject");
        // With the old fixed sample of 5, the same queued answer counted would have warned.
        let mut few: Vec<Timing> = ts[..5].to_vec();
        few.push(ts[20].clone());
        assert_eq!(
            latency(&few, None, Some(Era::Legacy)).status(),
            Status::Pass
        );
        few[5].overlapped = false;
        assert_eq!(
            latency(&few, None, Some(Era::Legacy)).status(),
            Status::Warn
        );
    }

    #[test]
    fn fewer_than_twenty_samples_say_p95_is_the_slowest() {
        let ts: Vec<Timing> = (1..=6).map(|i| t("tools/list", i, i)).collect();
        let f = latency(&ts, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
        assert!(f.detail.contains("the slowest"), "{}", f.detail);
        let ts: Vec<Timing> = (1..=20).map(|i| t("tools/list", 1, i)).collect();
        let f = latency(&ts, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert!(!f.detail.contains("the slowest"), "{}", f.detail);
        // Only timings that do not count: not assessed, and said why.
        let mut only_first = t("tools/list", 1, 1);
        only_first.first = true;
        let f = latency(&[only_first], None, Some(Era::Legacy));
        assert_eq!(f.status(), Status::Skip);
    }
}
