//! `latency`: percentiles per method over the requests the run made anyway (the client notes
//! how long each ordinary, answered request took: [`Timing`]) plus a small fixed sample of
//! the cheap read-only request, judged against a budget per kind of method.

use std::collections::BTreeMap;
use std::time::Duration;

use super::LATENCY;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::telemetry::{Seq, Timing};

/// The budget for list, discover, ping and initialize: an agent calls these on every turn or
/// connection, and they should come from memory.
pub const LIST_BUDGET: Duration = Duration::from_secs(1);
/// The budget for reading a resource, getting a prompt and completing an argument: they may
/// fetch content, but an agent still waits on them before it can go on.
pub const READ_BUDGET: Duration = Duration::from_secs(2);
/// A method needs this many answered samples before its p95 is judged against its budget
/// (fewer are listed, not judged: one slow answer is not a percentile).
pub const MIN_JUDGED: usize = 3;
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
    pub budget: Option<Duration>,
    pub evidence: Vec<Seq>,
}

impl MethodStats {
    /// True when the method has a budget and enough samples to judge it.
    pub fn judged(&self) -> bool {
        self.budget.is_some() && self.n >= MIN_JUDGED
    }

    /// True when it is judged and its p95 is over its budget.
    pub fn over(&self) -> bool {
        self.judged() && self.budget.is_some_and(|b| self.p95 > b)
    }

    fn line(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let judged = match self.budget {
            None => " (not judged)".to_string(),
            Some(_) if self.n < MIN_JUDGED => " (too few to judge)".to_string(),
            Some(b) if self.p95 > b => format!(" — over the {} s budget", b.as_secs_f64()),
            Some(_) => String::new(),
        };
        format!(
            "{} ×{}: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms{judged}",
            self.method,
            self.n,
            ms(self.p50),
            ms(self.p95),
            ms(self.p99)
        )
    }
}

/// Per-method percentiles of the timings of one era (`None`: every timing), most samples
/// first.
pub fn stats(timings: &[Timing], era: Option<Era>) -> Vec<MethodStats> {
    let mut by: BTreeMap<&str, Vec<&Timing>> = BTreeMap::new();
    for t in timings.iter().filter(|t| era.is_none() || era_of(t) == era) {
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
pub fn judge(timings: &[Timing], era: Option<Era>, wire_era: Option<Era>) -> FindingBuilder {
    let stats = stats(timings, wire_era);
    let tag = |f: FindingBuilder| match era {
        Some(e) => f.era(e),
        None => f,
    };
    let Some(w) = worst(&stats) else {
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
    let f = if slow.is_empty() {
        LATENCY.info(format!(
            "Over {} answered request(s): {table}.",
            stats.iter().map(|s| s.n).sum::<usize>()
        ))
    } else {
        LATENCY.warn(format!(
            "p95 above its budget for {}: {table}.",
            slow.iter()
                .map(|s| s.method.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    let f = match subject {
        Some(subject) => f.subject(subject),
        None => f,
    };
    tag(f.evidence(evidence))
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
        let f = judge(&ts, None, Some(Era::Legacy))
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
        let info = judge(&calls, None, Some(Era::Legacy))
            .build(|_| true)
            .expect("valid");
        assert_eq!(info.status, Status::Info);
        // An observation has no subject: which method was slowest is timing noise and must
        // not change a finding's identity between two runs.
        assert_eq!(info.subject, None);
        assert_eq!(judge(&[], None, None).status(), Status::Skip);
    }

    #[test]
    fn discover_counts_for_the_modern_wire_whatever_the_wire_said() {
        let mut d = t("server/discover", 2, 1);
        d.era = Some(Era::Legacy);
        let s = stats(&[d, t("tools/list", 2, 2)], Some(Era::Modern));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].method, "server/discover");
    }
}
