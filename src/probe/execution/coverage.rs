//! `execution.coverage`: which listed tools, prompts and resources this run exercised (scout's
//! own probes or the config's expectations) and which it did not, each with the reason. Read
//! off the exchanges after the expectations ran, so both count; `--fail-under-coverage N`
//! gates on the percentage this finding's detail starts with ([`percent_of`]).

use serde_json::Value;

use crate::policy::{self, Decision};
use crate::probe::session::Session;
use crate::report::exchange::jsonrpc_messages;
use crate::report::finding::SkipReason;

crate::checks! { phase: Execution;
    COVERAGE = "execution.coverage", Minor, "Which listed items the run exercised", "",
        "Information: of the tools, prompts and resources the server listed, which were exercised (a tools/call, prompts/get or resources/read sent by scout's checks or by an expectation) and which were not, each with the reason: the safety policy (not read-only, deny_tools…), or not reached (scout generates arguments for every tool it may call; a tool or prompt it never reached, or a resource past the sample it reads, is listed as such). The detail starts with `N of M listed items exercised (P%)`, which --fail-under-coverage gates on.",
        "Add expectations for what scout did not exercise, or allow more with --allow-mutations against a server you can afford to change.";
}

/// The percentage a coverage detail starts with (`7 of 9 listed items exercised (77%)`).
pub fn percent_of(detail: &str) -> Option<u8> {
    let open = detail.find(" listed items exercised (")?;
    let rest = &detail[open + " listed items exercised (".len()..];
    rest.split_once("%)")?.0.parse().ok()
}

/// Records the coverage of the server's first catalogue.
pub fn run(s: &mut Session) {
    // Already recorded when the execution phase was skipped as a whole.
    if s.findings.iter().any(|f| f.id == COVERAGE.id) {
        return;
    }
    let Some(catalog) = s.catalogs.first().cloned() else {
        s.add(COVERAGE.skip(
            SkipReason::NotAssessed,
            "the server's catalogue was not listed",
        ));
        return;
    };
    let (mut tools, mut prompts, mut uris) = (Vec::new(), Vec::new(), Vec::new());
    let mut evidence = Vec::new();
    for e in s.recorder.shared() {
        for m in jsonrpc_messages(&e) {
            let param = |k: &str| m.pointer(k).and_then(Value::as_str).map(str::to_string);
            let hit = match m.get("method").and_then(Value::as_str) {
                Some("tools/call") => param("/params/name").map(|n| tools.push(n)),
                Some("prompts/get") => param("/params/name").map(|n| prompts.push(n)),
                Some("resources/read") => param("/params/uri").map(|n| uris.push(n)),
                _ => None,
            };
            if hit.is_some() {
                evidence.push(e.seq);
            }
        }
    }
    let name = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let (mut done, mut missed) = (Vec::new(), Vec::new());
    for t in &catalog.tools {
        let n = name(t, "name");
        if tools.contains(&n) {
            done.push(format!("tool {n}"));
        } else {
            let why = match policy::decide(t, &s.spec.policy) {
                Decision::Skip { reason, allow_with } => {
                    format!("policy: it {reason} ({allow_with})")
                }
                Decision::Call => "not reached".to_string(),
            };
            missed.push(format!("tool {n}: {why}"));
        }
    }
    for (list, kind, key, sent) in [
        (&catalog.prompts, "prompt", "name", &prompts),
        (&catalog.resources, "resource", "uri", &uris),
    ] {
        for p in list {
            let n = name(p, key);
            if sent.contains(&n) {
                done.push(format!("{kind} {n}"));
            } else {
                missed.push(format!("{kind} {n}: not reached"));
            }
        }
    }
    let total = done.len() + missed.len();
    if total == 0 {
        s.add(COVERAGE.skip(
            SkipReason::NotApplicable,
            "the server lists no tools, prompts or resources",
        ));
        return;
    }
    let percent = done.len() * 100 / total;
    let mut detail = format!(
        "{} of {total} listed items exercised ({percent}%)",
        done.len()
    );
    if !done.is_empty() {
        detail.push_str(&format!("; exercised: {}", done.join(", ")));
    }
    if !missed.is_empty() {
        detail.push_str(&format!("; not exercised: {}", missed.join("; ")));
    }
    evidence.sort_unstable();
    evidence.dedup();
    s.add(COVERAGE.info(detail).evidence(evidence));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_percentage_is_read_back_from_the_detail() {
        assert_eq!(
            percent_of("7 of 9 listed items exercised (77%); exercised: tool a"),
            Some(77)
        );
        assert_eq!(percent_of("something else"), None);
    }
}
