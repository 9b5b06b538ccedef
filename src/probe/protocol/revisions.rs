//! The revision matrix: a handshake-era server is asked, on a fresh wire per revision,
//! whether it accepts each handshake revision other than the one the run's own wire
//! negotiated (2024-11-05 … 2025-11-25, or those the config's `revisions` names). At each
//! revision it accepts, scout completes the handshake and lists the catalogue, and judges
//! what came back by that revision's rules: `protocol.wire_schema` against the revision's
//! official schema, and, where the revision's batching rule differs from the run's own wire's
//! (2025-03-26 requires batches, 2025-06-18 removed them), the batch probe by that rule. Those findings carry the revision; a defect
//! found at several revisions costs once, like one found on both eras (scoring keeps the
//! worst per check and subject).
//!
//! At most four extra handshakes. Over HTTP one at a time, each session ended before the
//! next opens (a server that caps its sessions never sees two of scout's at once), in the
//! final stage; over stdio each is a process of its own, so the matrix runs beside the
//! final stage, its handshakes and lists together, and only the batches (whose verdict
//! reads the lines between two probes of their own process) one at a time.
//!
//! The matrix has a time budget of its own (a quarter of `--deadline`, from when it starts,
//! never into the last tenth of the run's deadline, which the steps after it need), so
//! whether it runs does not depend on how long the phases before it took: a slow server is
//! asked the same questions as a fast one, unless the run as a whole is out of time.

use serde_json::{Value, json};

use super::Wire;
use super::judge::wire_schema;
use crate::client::{Connection, is_handshake_revision, lifecycle};
use crate::probe::Session;
use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::report::model::TransportKind;
use crate::transport::{Probe, Reply};

crate::checks! { phase: Protocol;
    REVISIONS = "protocol.revisions", Minor, "Which handshake revisions the server accepts", spec_url::L25,
        "A handshake-era server is asked, with one initialize per revision on a fresh wire, whether it accepts each handshake revision other than the one the run negotiated (every one from 2024-11-05 to 2025-11-25, or those named by `revisions` / `--revision`). A server accepts a revision when its initialize result echoes it. At each accepted revision scout completes the handshake and lists the catalogue, and judges the answers by that revision's rules: protocol.wire_schema against its official schema, and protocol.batch by its batching rule where that differs from the run's own wire's (a batch at 2025-03-26, which requires them, beside a 2025-06-18 or later wire, which removed them); those findings name the revision. This check reports which revisions were accepted (an observation: a server may support any set of revisions).",
        "Nothing to fix: this lists the revisions a client can negotiate with the server.";
}

/// What one extra handshake found.
struct Asked {
    revision: &'static str,
    /// The version the server answered, when it answered one.
    answered: Option<String>,
    evidence: Vec<Seq>,
    /// The findings judged at this revision (empty when it was not accepted).
    findings: Vec<FindingBuilder>,
    /// Every exchange of this handshake's wire, left out of the whole-run judgements.
    seqs: Vec<Seq>,
}

/// The revisions to ask about: the configured ones, else every handshake revision, less
/// the one the run's own wire speaks.
fn to_ask(configured: &[String], own: &str) -> Vec<&'static str> {
    crate::client::REVISIONS
        .iter()
        .copied()
        .filter(|r| is_handshake_revision(r) && *r != own)
        .filter(|r| configured.is_empty() || configured.iter().any(|c| c == r))
        .collect()
}

/// What the matrix found: its findings and the exchanges of its wires (left out of the
/// whole-run judgements, which judge the run's own wires at their own revision).
pub struct Matrix {
    findings: Vec<FindingBuilder>,
    seqs: Vec<Seq>,
}

impl Matrix {
    fn only(f: FindingBuilder) -> Matrix {
        Matrix {
            findings: vec![f],
            seqs: Vec::new(),
        }
    }

    /// A matrix stopped by the run's deadline or by Ctrl-C before it was done.
    pub fn cut_short() -> Matrix {
        Matrix::only(REVISIONS.skip(
            SkipReason::NotAssessed,
            "the revision matrix was cut short (the server's --deadline passed, or Ctrl-C)",
        ))
    }

    /// Records the findings and the matrix's exchanges in the session.
    pub fn record(self, s: &mut Session) {
        s.matrix_seqs.extend(self.seqs);
        s.add_all(self.findings);
    }
}

/// The handshake-era wire the matrix starts from, and the revisions it asks about; `None`
/// when the run has no such wire.
fn plan(s: &Session) -> Option<(Connection, Vec<&'static str>)> {
    let own = s.wires.iter().find(|c| c.era() == Era::Legacy).cloned()?;
    let revisions = to_ask(&s.spec.revisions, own.protocol_version());
    Some((own, revisions))
}

/// The revisions the matrix will ask about (none when the run has no handshake-era wire
/// or does not run the protocol phase).
pub fn planned(s: &Session) -> Vec<&'static str> {
    if !s.spec.runs(crate::report::finding::Phase::Protocol) {
        return Vec::new();
    }
    plan(s).map(|(_, r)| r).unwrap_or_default()
}

/// True when the matrix runs beside the final stage instead of in it: over stdio, where
/// each of its handshakes is a process of its own, so nothing it sends reaches the run's
/// own wire and none of its verdicts reads that wire's lines; its processes start while the
/// run's own wire mostly waits (the cancellation's window). Over HTTP it opens sessions on
/// the run's own server, and goes in the final stage, alone.
pub fn runs_beside(s: &Session) -> bool {
    plan(s).is_some_and(|(own, _)| own.transport() == TransportKind::Stdio)
}

/// Runs the matrix and records its findings.
pub async fn run(s: &mut Session) {
    matrix(s).await.record(s);
}

/// Runs the matrix: over HTTP in the protocol phase's final stage, before the unparsable
/// bodies; over stdio beside the final stage ([`runs_beside`]).
pub async fn matrix(s: &Session) -> Matrix {
    let Some((own, revisions)) = plan(s) else {
        return Matrix::only(REVISIONS.skip(
            SkipReason::NotApplicable,
            "the server speaks no handshake revision (2026-07-28 only)",
        ));
    };
    if let Some(d) = crate::probe::liveness::death(s) {
        return Matrix::only(REVISIONS.skip(
            SkipReason::NotAssessed,
            crate::probe::liveness::not_assessed(&d),
        ));
    }
    if revisions.is_empty() {
        return Matrix::only(REVISIONS.skip(
            SkipReason::NotApplicable,
            format!(
                "no revision to ask about beside the run's own {} (`revisions` names no other handshake revision)",
                own.protocol_version()
            ),
        ));
    }
    let (budget, until) = budget(s);
    match tokio::time::timeout_at(until, ask_all(s, &own, revisions)).await {
        Ok(m) => m,
        Err(_) if until == budget.own_end => Matrix::only(REVISIONS.skip(
            SkipReason::NotAssessed,
            format!(
                "the revision matrix's own requests took longer than its budget of {} ms (a quarter of the {} s --deadline), so it stopped before every revision was asked",
                budget.own.as_millis(),
                s.spec.deadline.as_secs()
            ),
        )),
        Err(_) if until < budget.run_deadline => Matrix::only(REVISIONS.skip(
            SkipReason::NotAssessed,
            format!(
                "the run came within {} ms of its {} s --deadline while the revision matrix was still asking, and the matrix stops there to leave the run's last steps their time (a longer --deadline runs it whole)",
                budget.reserve.as_millis(),
                s.spec.deadline.as_secs()
            ),
        )),
        Err(_) => Matrix::cut_short(),
    }
}

/// The matrix's own time: a quarter of `--deadline`, counted from when it starts, so that
/// how long the phases before it took cannot decide whether it runs (a server whose tools
/// are slow is asked the same questions as a fast one); and never into the last tenth of the
/// run's deadline, which the steps after the matrix need (the security judgements, ending
/// every session, the shutdown): a matrix that ran to the deadline itself would leave the
/// whole run interrupted.
struct Budget {
    own: std::time::Duration,
    own_end: tokio::time::Instant,
    reserve: std::time::Duration,
    run_deadline: tokio::time::Instant,
}

/// The matrix's [`Budget`], and the instant it ends (its own end, or the start of the run's
/// reserve when that comes first).
fn budget(s: &Session) -> (Budget, tokio::time::Instant) {
    let now = tokio::time::Instant::now();
    let own = s.spec.deadline / 4;
    let reserve = s.spec.deadline / 10;
    let run_deadline = s.deadline.unwrap_or(now + s.spec.deadline);
    let own_end = now + own;
    let until = own_end.min(run_deadline.checked_sub(reserve).unwrap_or(now));
    (
        Budget {
            own,
            own_end,
            reserve,
            run_deadline,
        },
        until,
    )
}

/// Asks every revision in `revisions`, from the run's handshake-era wire `own`, and judges
/// what came.
async fn ask_all(s: &Session, own: &Connection, revisions: Vec<&'static str>) -> Matrix {
    let own_version = own.protocol_version().to_string();
    let mut asked = Vec::new();
    if own.transport() == TransportKind::Stdio {
        // Each handshake on a process of its own: all at once; the batches one at a time.
        let opened = futures_util::future::join_all(revisions.iter().map(|r| open(own, r))).await;
        for o in opened {
            asked.push(finish(s, &own_version, o).await);
        }
    } else {
        for r in revisions {
            let o = open(own, r).await;
            asked.push(finish(s, &own_version, o).await);
        }
    }
    let mut seen: Vec<Seq> = Vec::new();
    for a in &asked {
        seen.extend(&a.evidence);
    }
    let mut out = Matrix::only(judge(own.protocol_version(), &asked).evidence(seen));
    for a in asked {
        out.seqs.extend(a.seqs);
        out.findings.extend(a.findings);
    }
    out
}

/// The matrix's own finding: which revisions were accepted.
fn judge(own: &str, asked: &[Asked]) -> FindingBuilder {
    let accepted: Vec<&str> = asked
        .iter()
        .filter(|a| a.answered.as_deref() == Some(a.revision))
        .map(|a| a.revision)
        .collect();
    let others: Vec<String> = asked
        .iter()
        .filter(|a| a.answered.as_deref() != Some(a.revision))
        .map(|a| match &a.answered {
            Some(v) => format!("{} (answered {v})", a.revision),
            None => format!("{} (no initialize result)", a.revision),
        })
        .collect();
    let mut detail = format!("the run's own wire negotiated {own}");
    if !accepted.is_empty() {
        detail.push_str(&format!(
            "; also accepted: {} (each judged at its revision)",
            accepted.join(", ")
        ));
    }
    if !others.is_empty() {
        detail.push_str(&format!("; not accepted: {}", others.join(", ")));
    }
    REVISIONS.info(detail)
}

/// One extra handshake at `revision`, and what is judged on it when the server accepts.
/// A revision's handshake, and the wire when the server accepted it.
struct Opened {
    asked: Asked,
    conn: Option<Connection>,
    /// The answers of the handshake and the catalogue lists, for the schema.
    replies: Vec<Reply>,
}

/// The batching rule a revision holds a server to: undefined (2024-11-05), required
/// (2025-03-26), removed (2025-06-18 on).
fn batching(revision: &str) -> std::cmp::Ordering {
    revision.cmp("2025-03-26")
}

/// True when the batch probe at `revision` can tell more than the run's own wire at `own`
/// did: the rule differs, and is one that can fail or warn (2024-11-05 does not define
/// batches, so a batch there is at most an observation).
fn batch_tells(revision: &str, own: &str) -> bool {
    batching(revision) != batching(own) && batching(revision) != std::cmp::Ordering::Less
}

/// One extra handshake at `revision`, then (when the server accepts it) the catalogue lists,
/// all at once on the new wire.
async fn open(own: &Connection, revision: &'static str) -> Opened {
    let mut out = Opened {
        asked: Asked {
            revision,
            answered: None,
            evidence: Vec::new(),
            findings: Vec::new(),
            seqs: Vec::new(),
        },
        conn: None,
        replies: Vec::new(),
    };
    let Ok(fresh) = own.fresh().await else {
        return out;
    };
    let init = lifecycle::initialize(&fresh, revision).await;
    out.asked.evidence.extend(&init.evidence);
    out.asked.answered = init
        .result()
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let accepted = out.asked.answered.as_deref() == Some(revision);
    let established = lifecycle::legacy_from(&fresh, &init)
        .filter(|c| accepted && c.protocol_version() == revision);
    out.replies.push(init);
    let Some(conn) = established else {
        if let Some(r) = fresh.close().await {
            out.asked.seqs.extend(&r.evidence);
        }
        return out;
    };
    out.replies
        .push(conn.notify("notifications/initialized", None).await);
    let caps = conn.capabilities().clone();
    let lists = [
        ("tools", "tools/list"),
        ("prompts", "prompts/list"),
        ("resources", "resources/list"),
        ("resources", "resources/templates/list"),
    ];
    let sent = lists
        .iter()
        .filter(|(cap, _)| caps.get(*cap).is_some())
        .map(|(_, method)| conn.send(Probe::request(method, json!({}))));
    out.replies
        .extend(futures_util::future::join_all(sent).await);
    out.conn = Some(conn);
    out
}

/// The rest of one revision's turn: the batch probe when its rule tells something new
/// (alone: over stdio its verdict reads the lines that came between two probes), the schema
/// over what the wire answered, and the wire's end.
async fn finish(s: &Session, own: &str, o: Opened) -> Asked {
    let Opened {
        mut asked,
        conn,
        replies,
    } = o;
    let revision = asked.revision;
    let mut seqs: Vec<Seq> = replies.iter().flat_map(|r| r.evidence.clone()).collect();
    seqs.sort_unstable();
    seqs.dedup();
    asked.seqs.extend(&seqs);
    let Some(conn) = conn else {
        return asked;
    };
    let w = Wire::new(Era::Legacy, conn.transport(), revision);
    if batch_tells(revision, own) {
        let (batch, batch_seqs) = super::send::batch_at(s, &conn, &w).await;
        asked
            .findings
            .push(batch.era(Era::Legacy).revision(revision));
        asked.seqs.extend(batch_seqs);
    }
    let exchanges: Vec<_> = seqs.iter().filter_map(|q| s.recorder.get(*q)).collect();
    let messages = wire_schema::server_messages(exchanges.iter().map(|e| e.as_ref()));
    let msgs: Vec<_> = messages.iter().collect();
    asked.findings.extend(
        wire_schema::wire_schema(&w, &msgs)
            .into_iter()
            .map(|f| f.era(Era::Legacy).revision(revision)),
    );
    if let Some(r) = conn.close().await {
        asked.seqs.extend(&r.evidence);
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_revisions_less_the_runs_own_are_asked() {
        assert_eq!(
            to_ask(&[], "2025-11-25"),
            ["2024-11-05", "2025-03-26", "2025-06-18"]
        );
        let configured = ["2025-06-18".to_string(), "2026-07-28".to_string()];
        assert_eq!(to_ask(&configured, "2025-11-25"), ["2025-06-18"]);
        assert!(to_ask(&["2025-11-25".to_string()], "2025-11-25").is_empty());
    }

    #[test]
    fn a_batch_is_sent_only_where_its_rule_differs_from_the_runs_own() {
        assert!(batch_tells("2025-03-26", "2025-11-25"));
        assert!(!batch_tells("2025-06-18", "2025-11-25"));
        assert!(!batch_tells("2024-11-05", "2025-11-25"));
        assert!(batch_tells("2025-06-18", "2025-03-26"));
        assert!(!batch_tells("2025-03-26", "2025-03-26"));
    }

    #[test]
    fn the_verdict_names_what_was_accepted_and_what_was_answered_instead() {
        let asked = [
            Asked {
                revision: "2025-03-26",
                answered: Some("2025-03-26".into()),
                evidence: vec![1],
                findings: vec![],
                seqs: vec![],
            },
            Asked {
                revision: "2024-11-05",
                answered: Some("2025-11-25".into()),
                evidence: vec![2],
                findings: vec![],
                seqs: vec![],
            },
        ];
        let f = judge("2025-11-25", &asked).evidence([1, 2]);
        let built = f.build(|_| true).expect("valid");
        assert_eq!(built.status, crate::report::finding::Status::Info);
        assert!(
            built.detail.contains("also accepted: 2025-03-26"),
            "{}",
            built.detail
        );
        assert!(
            built.detail.contains("2024-11-05 (answered 2025-11-25)"),
            "{}",
            built.detail
        );
    }
}
