//! Performance: latencies of what an agent does most. The probes of this phase belong to a
//! later issue; until then the category is reported as not assessed.

crate::checks! { phase: Performance;
    LATENCY = "performance.latency", Minor, "Requests are answered quickly", "",
        "p50/p95/p99 of the read-only requests made during the run.",
        "Profile the slow methods named in the detail.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
