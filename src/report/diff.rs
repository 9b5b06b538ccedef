//! `scout report diff`: what changed between two runs (the target branch's and this one),
//! a pure function of two reports.
//!
//! A finding's identity across runs is (server, check id, subject, era) — the same tuple
//! the SARIF fingerprint and the baseline entries use. A *problem* is a fail or a warn,
//! counted or not (a problem that was baselined in between is not "fixed").
//!
//! Per server:
//! - **new**: a problem of the head run whose identity was no problem in the base run, or
//!   a fail whose identity was only a warning there (a new failure).
//! - **fixed**: a problem of the base run that is no problem in the head run any more (or
//!   a fail that is now only a warning), provided the head run really checked it again:
//!   the head server ran to the end, the check reported something, and that identity was
//!   not skipped.
//! - **unverified**: a base problem the head run did not check again (blocked,
//!   interrupted, skipped, or the check no longer reports): never counted as fixed.
//! - scores and category scores of both runs; a delta only when both have a score.
//!
//! [`ReportDiff::new_fails`] is what `--fail-on-new` gates on: new *counted* fails of
//! servers that are in both runs. A server only in the head run has nothing to be new
//! against, so its problems are listed but never fail the diff's gate; when no server
//! paired at all, [`ReportDiff::unpaired`] says so, so that the outputs can say it loudly.

use std::collections::BTreeMap;

use crate::report::finding::{Era, Finding, Phase, Status};
use crate::report::model::{Report, ServerReport};

/// A finding's identity within one server.
type Key<'a> = (&'a str, Option<&'a str>, Option<Era>);

fn key(f: &Finding) -> Key<'_> {
    (f.id.as_str(), f.subject.as_deref(), f.era)
}

fn is_problem(f: &Finding) -> bool {
    matches!(f.status, Status::Fail | Status::Warn)
}

/// Whether a server is in both runs or only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Both,
    /// Only in the head run.
    Added,
    /// Only in the base run.
    Removed,
}

impl Presence {
    /// Name as in the JSON diff.
    pub fn as_str(self) -> &'static str {
        match self {
            Presence::Both => "both",
            Presence::Added => "added",
            Presence::Removed => "removed",
        }
    }
}

/// How a head server was paired with a base server. Names default to `host:port`, so the
/// same server on another port (every PR run on a random port) has another name: with one
/// server on each side they are paired whatever their names; otherwise by name, then by
/// target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// Both runs checked one server each.
    OnlyServer,
    /// The same name (the config's, or the default).
    Name,
    /// The same target (URL or command line) under another name.
    Target,
}

impl Pairing {
    /// Name as in the JSON diff.
    pub fn as_str(self) -> &'static str {
        match self {
            Pairing::OnlyServer => "only_server",
            Pairing::Name => "name",
            Pairing::Target => "target",
        }
    }

    /// How the text and Markdown say it.
    pub fn describe(self) -> &'static str {
        match self {
            Pairing::OnlyServer => "the only server of each run",
            Pairing::Name => "the same name",
            Pairing::Target => "the same target",
        }
    }
}

/// One finding that changed: the head finding for a new problem, the base finding for a
/// fixed or unverified one, with the worst status of its identity on each side (`None` =
/// not reported there).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub finding: Finding,
    pub base: Option<Status>,
    pub head: Option<Status>,
}

/// A category's score on both sides (`None` = not assessed, or the server was absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CategoryDelta {
    pub phase: Phase,
    pub base: Option<u8>,
    pub head: Option<u8>,
}

/// `head - base`, only when both are scores.
pub fn delta(base: Option<u8>, head: Option<u8>) -> Option<i16> {
    Some(i16::from(head?) - i16::from(base?))
}

/// What changed on one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDiff {
    pub name: String,
    pub presence: Presence,
    /// How the two sides were paired (`None` when the server is in one run only).
    pub paired: Option<Pairing>,
    /// The base run's name for the server, when it differs from `name`.
    pub base_name: Option<String>,
    pub base_score: Option<u8>,
    pub head_score: Option<u8>,
    pub categories: Vec<CategoryDelta>,
    pub new: Vec<Change>,
    pub fixed: Vec<Change>,
    pub unverified: Vec<Change>,
}

impl ServerDiff {
    /// True when `f` (a head finding) is one of the new problems.
    pub fn is_new(&self, f: &Finding) -> bool {
        self.new.iter().any(|c| key(&c.finding) == key(f))
    }
}

/// What changed between two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportDiff {
    pub base_run_id: String,
    pub head_run_id: String,
    /// What the outputs call the base and the head run (a branch, a commit, a file name;
    /// the run ids until the caller names them).
    pub base_label: String,
    pub head_label: String,
    /// Whether `--fail-on-new` gates on this diff (the outputs state the gate applied).
    pub fail_on_new: bool,
    /// Servers of the head run in its order, then those only in the base run.
    pub servers: Vec<ServerDiff>,
}

impl ReportDiff {
    /// The diff of the server called `name`.
    pub fn server(&self, name: &str) -> Option<&ServerDiff> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// New counted fails (what `--fail-on-new` gates on) of the servers in both runs, with
    /// their server.
    pub fn new_fails(&self) -> Vec<(&str, &Finding)> {
        self.servers
            .iter()
            .filter(|s| s.presence == Presence::Both)
            .flat_map(|s| s.new.iter().map(move |c| (s.name.as_str(), &c.finding)))
            .filter(|(_, f)| f.status == Status::Fail && f.counts())
            .collect()
    }

    /// True when both runs checked servers and not one of them paired: nothing was
    /// compared (the servers were renamed, or the reports are of different configs).
    pub fn unpaired(&self) -> bool {
        let any = |p: Presence| self.servers.iter().any(|s| s.presence == p);
        any(Presence::Added) && any(Presence::Removed) && !any(Presence::Both)
    }

    /// Whether the diff's gate passes: always without `--fail-on-new`, otherwise when no
    /// paired server has a new counted fail.
    pub fn gate_passed(&self) -> bool {
        !self.fail_on_new || self.new_fails().is_empty()
    }
}

/// The worst finding of every identity among `findings`.
fn worst_by_key(findings: &[Finding]) -> BTreeMap<Key<'_>, &Finding> {
    let mut map: BTreeMap<Key, &Finding> = BTreeMap::new();
    for f in findings {
        map.entry(key(f))
            .and_modify(|w| {
                if f.rank() > w.rank() {
                    *w = f;
                }
            })
            .or_insert(f);
    }
    map
}

/// Whether the head run checked `f`'s identity again.
fn rechecked(head: &ServerReport, f: &Finding) -> bool {
    head.completed()
        && head.findings.iter().any(|h| h.id == f.id)
        && !head
            .findings
            .iter()
            .any(|h| key(h) == key(f) && h.status == Status::Skip)
}

fn server_diff(name: &str, base: Option<&ServerReport>, head: Option<&ServerReport>) -> ServerDiff {
    let presence = match (base, head) {
        (Some(_), Some(_)) => Presence::Both,
        (None, _) => Presence::Added,
        (_, None) => Presence::Removed,
    };
    let empty: Vec<Finding> = Vec::new();
    let base_findings = base.map_or(&empty, |s| &s.findings);
    let head_findings = head.map_or(&empty, |s| &s.findings);
    let base_worst = worst_by_key(base_findings);
    let head_worst = worst_by_key(head_findings);

    let mut new = Vec::new();
    for (k, h) in &head_worst {
        if !is_problem(h) {
            continue;
        }
        let was = base_worst.get(k);
        let was_problem = was.is_some_and(|b| is_problem(b));
        let now_fails = h.status == Status::Fail && was.is_none_or(|b| b.status != Status::Fail);
        if !was_problem || now_fails {
            new.push(Change {
                finding: (*h).clone(),
                base: was.map(|b| b.status),
                head: Some(h.status),
            });
        }
    }
    let mut fixed = Vec::new();
    let mut unverified = Vec::new();
    for (k, b) in &base_worst {
        if !is_problem(b) {
            continue;
        }
        let now = head_worst.get(k);
        let still = now.is_some_and(|h| is_problem(h));
        let fail_gone = b.status == Status::Fail && now.is_some_and(|h| h.status == Status::Warn);
        if still && !fail_gone {
            continue;
        }
        let change = Change {
            finding: (*b).clone(),
            base: Some(b.status),
            head: now.map(|h| h.status),
        };
        match head {
            Some(h) if fail_gone || rechecked(h, b) => fixed.push(change),
            _ => unverified.push(change),
        }
    }
    let category = |s: Option<&ServerReport>, phase: Phase| {
        s.and_then(|s| s.categories.iter().find(|c| c.phase == phase))
            .and_then(|c| c.score)
    };
    let paired_names = base
        .zip(head)
        .map(|(b, h)| (b.name.as_str(), h.name.as_str()));
    ServerDiff {
        name: name.to_string(),
        presence,
        paired: None,
        base_name: paired_names
            .filter(|(b, h)| b != h)
            .map(|(b, _)| b.to_string()),
        base_score: base.and_then(|s| s.score),
        head_score: head.and_then(|s| s.score),
        categories: Phase::ALL
            .into_iter()
            .map(|phase| CategoryDelta {
                phase,
                base: category(base, phase),
                head: category(head, phase),
            })
            .collect(),
        new,
        fixed,
        unverified,
    }
}

/// Whether a base and a head server are the same by one pairing rule.
type SameServer = fn(&ServerReport, &ServerReport) -> bool;

/// Pairs every head server with at most one base server: with one server on each side,
/// those two; otherwise by name, then by target, each base server used once.
fn pair<'r>(base: &'r Report, head: &'r Report) -> Vec<Option<(&'r ServerReport, Pairing)>> {
    if base.servers.len() == 1 && head.servers.len() == 1 {
        let how = if base.servers[0].name == head.servers[0].name {
            Pairing::Name
        } else {
            Pairing::OnlyServer
        };
        return vec![Some((&base.servers[0], how))];
    }
    let mut used = vec![false; base.servers.len()];
    let mut pairs: Vec<Option<(&ServerReport, Pairing)>> = vec![None; head.servers.len()];
    let rules: [(Pairing, SameServer); 2] = [
        (Pairing::Name, |b, h| b.name == h.name),
        (Pairing::Target, |b, h| b.target == h.target),
    ];
    for (how, same) in rules {
        for (i, h) in head.servers.iter().enumerate() {
            if pairs[i].is_some() {
                continue;
            }
            if let Some(j) =
                (0..base.servers.len()).find(|&j| !used[j] && same(&base.servers[j], h))
            {
                used[j] = true;
                pairs[i] = Some((&base.servers[j], how));
            }
        }
    }
    pairs
}

/// Compares `head` with `base`.
pub fn diff(base: &Report, head: &Report) -> ReportDiff {
    let pairs = pair(base, head);
    let mut servers: Vec<ServerDiff> = head
        .servers
        .iter()
        .zip(&pairs)
        .map(|(h, p)| {
            let mut d = server_diff(&h.name, p.map(|(b, _)| b), Some(h));
            d.paired = p.map(|(_, how)| how);
            d
        })
        .collect();
    let paired_base: Vec<&ServerReport> = pairs.iter().flatten().map(|(b, _)| *b).collect();
    servers.extend(
        base.servers
            .iter()
            .filter(|b| !paired_base.iter().any(|p| std::ptr::eq(*p, *b)))
            .map(|b| server_diff(&b.name, Some(b), None)),
    );
    ReportDiff {
        base_run_id: base.run_id.clone(),
        head_run_id: head.run_id.clone(),
        base_label: base.run_id.clone(),
        head_label: head.run_id.clone(),
        fail_on_new: false,
        servers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::{Severity, SkipReason};
    use crate::report::gate::GateResult;
    use crate::report::model::{EraKind, TransportKind};
    use crate::report::score;

    fn f(id: &str, status: Status, era: Option<Era>) -> Finding {
        Finding {
            id: id.into(),
            phase: Phase::Catalog,
            title: "t".into(),
            status,
            severity: (status == Status::Fail).then_some(Severity::Major),
            detail: String::new(),
            advice: String::new(),
            spec: None,
            subject: None,
            era,
            revision: None,
            evidence: vec![1],
            skip_reason: (status == Status::Skip).then_some(SkipReason::Policy),
            suppressed: None,
        }
    }

    fn server(name: &str, findings: Vec<Finding>) -> ServerReport {
        let mut s = ServerReport {
            name: name.into(),
            transport: TransportKind::Stdio,
            target: "x".into(),
            era: EraKind::Dual,
            protocol_versions: vec![],
            server_info: None,
            score: None,
            categories: vec![],
            findings,
            exchanges: vec![],
            exchange_count: None,
            blocked: None,
            interrupted: false,
            anchor: None,
            duration_ms: 0,
            notes: Default::default(),
            internal_errors: vec![],
        };
        score::rescore(&mut s);
        s
    }

    fn report(servers: Vec<ServerReport>) -> Report {
        Report {
            run_id: "r".into(),
            scout_version: "0".into(),
            started_at: time::OffsetDateTime::UNIX_EPOCH,
            duration_ms: 0,
            servers,
            gate: GateResult {
                passed: true,
                reasons: vec![],
                thresholds: Vec::new(),
            },
        }
    }

    fn ids(changes: &[Change]) -> Vec<String> {
        changes
            .iter()
            .map(|c| {
                format!(
                    "{}{}",
                    c.finding.id,
                    c.finding
                        .era
                        .map(|e| format!("/{}", e.as_str()))
                        .unwrap_or_default()
                )
            })
            .collect()
    }

    fn at(name: &str, target: &str, findings: Vec<Finding>) -> ServerReport {
        let mut s = server(name, findings);
        s.target = target.into();
        s
    }

    #[test]
    fn one_server_on_another_port_is_the_same_server() {
        // Was "new server" plus "only in the base run": the name defaults to host:port.
        let base = report(vec![at(
            "127.0.0.1:4001",
            "http://127.0.0.1:4001/mcp",
            vec![f("catalog.x", Status::Pass, None)],
        )]);
        let head = report(vec![at(
            "127.0.0.1:4077",
            "http://127.0.0.1:4077/mcp",
            vec![f("catalog.x", Status::Fail, None)],
        )]);
        let d = diff(&base, &head);
        assert_eq!(d.servers.len(), 1, "{d:?}");
        let s = &d.servers[0];
        assert_eq!(s.presence, Presence::Both);
        assert_eq!(s.paired, Some(Pairing::OnlyServer));
        assert_eq!(s.base_name.as_deref(), Some("127.0.0.1:4001"));
        assert_eq!(ids(&s.new), ["catalog.x"]);
        assert_eq!(d.new_fails().len(), 1, "--fail-on-new can fire");
    }

    #[test]
    fn several_servers_pair_by_name_then_by_target() {
        let base = report(vec![
            at("alpha", "cmd-a", vec![]),
            at("old-name", "cmd-b", vec![]),
            at("gone", "cmd-c", vec![]),
        ]);
        let head = report(vec![
            at("alpha", "cmd-a2", vec![]),
            at("new-name", "cmd-b", vec![]),
            at("fresh", "cmd-d", vec![]),
        ]);
        let d = diff(&base, &head);
        let how = |n: &str| d.server(n).map(|s| (s.presence, s.paired));
        assert_eq!(how("alpha"), Some((Presence::Both, Some(Pairing::Name))));
        assert_eq!(
            how("new-name"),
            Some((Presence::Both, Some(Pairing::Target)))
        );
        assert_eq!(
            d.server("new-name").and_then(|s| s.base_name.as_deref()),
            Some("old-name")
        );
        assert_eq!(how("fresh"), Some((Presence::Added, None)));
        assert_eq!(how("gone"), Some((Presence::Removed, None)));
        assert!(
            d.server("old-name").is_none(),
            "a paired base server is not listed again"
        );
    }

    #[test]
    fn new_fixed_and_unchanged() {
        let base = report(vec![server(
            "a",
            vec![
                f("catalog.fixed", Status::Warn, None),
                f("catalog.same", Status::Fail, None),
                f("catalog.worse", Status::Warn, None),
                f("catalog.new", Status::Pass, None),
            ],
        )]);
        let head = report(vec![server(
            "a",
            vec![
                f("catalog.fixed", Status::Pass, None),
                f("catalog.same", Status::Fail, None),
                f("catalog.worse", Status::Fail, None),
                f("catalog.new", Status::Warn, None),
            ],
        )]);
        let d = diff(&base, &head);
        let s = d.server("a").expect("a");
        assert_eq!(ids(&s.new), ["catalog.new", "catalog.worse"]);
        assert_eq!(ids(&s.fixed), ["catalog.fixed"]);
        assert!(s.unverified.is_empty());
        assert_eq!(
            d.new_fails()
                .iter()
                .map(|(_, f)| f.id.as_str())
                .collect::<Vec<_>>(),
            ["catalog.worse"],
            "a warning that became a fail is a new fail; a new warning is not"
        );
        // base: fail 40 + two warns 10 → 50; head: two fails 80 + a warn 5 → 15.
        assert_eq!((s.base_score, s.head_score), (Some(50), Some(15)));
        assert_eq!(delta(s.base_score, s.head_score), Some(-35));
    }

    #[test]
    fn identity_includes_the_era() {
        let base = report(vec![server(
            "a",
            vec![f("catalog.x", Status::Fail, Some(Era::Legacy))],
        )]);
        let head = report(vec![server(
            "a",
            vec![
                f("catalog.x", Status::Pass, Some(Era::Legacy)),
                f("catalog.x", Status::Fail, Some(Era::Modern)),
            ],
        )]);
        let d = diff(&base, &head);
        let s = d.server("a").expect("a");
        assert_eq!(ids(&s.new), ["catalog.x/modern"]);
        assert_eq!(ids(&s.fixed), ["catalog.x/legacy"]);
    }

    #[test]
    fn a_blocked_or_skipped_head_fixes_nothing_and_has_no_delta() {
        let base = report(vec![server(
            "a",
            vec![
                f("catalog.x", Status::Fail, None),
                f("catalog.y", Status::Warn, None),
            ],
        )]);
        let mut blocked = server("a", vec![f("catalog.x", Status::Skip, None)]);
        blocked.blocked = Some("401".into());
        score::rescore(&mut blocked);
        let d = diff(&base, &report(vec![blocked]));
        let s = d.server("a").expect("a");
        assert!(s.fixed.is_empty());
        assert_eq!(ids(&s.unverified), ["catalog.x", "catalog.y"]);
        assert_eq!(s.head_score, None);
        assert_eq!(delta(s.base_score, s.head_score), None);

        // Completed, but the check was skipped (policy): not fixed either.
        let skipped = server(
            "a",
            vec![
                f("catalog.x", Status::Skip, None),
                f("catalog.z", Status::Pass, None),
            ],
        );
        let d = diff(&base, &report(vec![skipped]));
        assert_eq!(ids(&d.servers[0].unverified), ["catalog.x", "catalog.y"]);
    }

    #[test]
    fn added_and_removed_servers() {
        // Two servers a side (one on each side is always a pair): neither name nor target
        // matches, so one is added and one removed.
        let base = report(vec![
            at("kept", "cmd-k", vec![]),
            at("old", "cmd-old", vec![f("catalog.x", Status::Fail, None)]),
        ]);
        let head = report(vec![
            at("kept", "cmd-k", vec![]),
            at("new", "cmd-new", vec![f("catalog.x", Status::Fail, None)]),
        ]);
        let d = diff(&base, &head);
        assert_eq!(d.servers.len(), 3);
        let (added, removed) = (&d.servers[1], &d.servers[2]);
        assert_eq!(added.presence, Presence::Added);
        assert_eq!(ids(&added.new), ["catalog.x"]);
        assert_eq!(removed.presence, Presence::Removed);
        assert!(removed.fixed.is_empty(), "a removed server fixes nothing");
        assert_eq!(ids(&removed.unverified), ["catalog.x"]);
        // The added server's fail is listed, but a server with nothing to compare with
        // cannot have a *new* fail: the diff's gate does not fire on it.
        assert_eq!(d.new_fails().len(), 0);
        assert!(!d.unpaired(), "one server did pair");
    }

    #[test]
    fn when_no_server_pairs_the_diff_says_so_and_its_gate_cannot_fail() {
        let base = report(vec![at("a", "cmd-a", vec![]), at("b", "cmd-b", vec![])]);
        let head = report(vec![
            at("c", "cmd-c", vec![f("catalog.x", Status::Fail, None)]),
            at("d", "cmd-d", vec![f("catalog.x", Status::Fail, None)]),
        ]);
        let mut d = diff(&base, &head);
        assert!(d.unpaired());
        assert!(d.new_fails().is_empty());
        d.fail_on_new = true;
        assert!(d.gate_passed());
        // Paired, the same fail gates.
        let mut paired = diff(&report(vec![at("c", "cmd-c", vec![])]), &head);
        paired.fail_on_new = true;
        assert!(!paired.unpaired());
        assert!(!paired.gate_passed());
    }

    #[test]
    fn a_baselined_new_fail_does_not_gate() {
        let base = report(vec![server("a", vec![f("catalog.x", Status::Pass, None)])]);
        let mut fail = f("catalog.x", Status::Fail, None);
        fail.suppressed = Some(crate::report::Suppression::Baselined {
            reason: "known".into(),
        });
        let head = report(vec![server("a", vec![fail])]);
        let d = diff(&base, &head);
        assert_eq!(ids(&d.servers[0].new), ["catalog.x"]);
        assert!(d.new_fails().is_empty());
    }
}
