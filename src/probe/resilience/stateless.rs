//! `stateless` (2026-07-28): the same read-only request gives the same answer on a fresh,
//! independent connection (a new stdio process, a new HTTP wire) as on the run's own wire,
//! before and after another request in between.

use serde_json::{Value, json};

use super::{STATELESS, cite};
use crate::client::Connection;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::transport::Reply;

/// What `stateless` sent: `tools/list` first on a fresh wire, then twice on the run's wire
/// with a `server/discover` between them.
pub(super) struct StatelessRun {
    pub fresh: Reply,
    pub first: Reply,
    pub between: Reply,
    pub second: Reply,
}

/// Sends the requests of [`StatelessRun`].
pub(super) async fn probe(w: &Connection) -> Result<StatelessRun, String> {
    let other = w.independent().await.map_err(|e| e.to_string())?;
    let fresh = other.request("tools/list", json!({})).await;
    let first = w.request("tools/list", json!({})).await;
    let between = w.request("server/discover", json!({})).await;
    let second = w.request("tools/list", json!({})).await;
    Ok(StatelessRun {
        fresh,
        first,
        between,
        second,
    })
}

/// The part of a `tools/list` result that must not depend on the connection: the tools.
/// (Cursors and `_meta` may legitimately differ per response.)
fn tools(r: &Reply) -> Option<&Value> {
    r.result().and_then(|v| v.get("tools"))
}

/// Judges [`StatelessRun`].
pub(super) fn stateless(run: &StatelessRun) -> FindingBuilder {
    let ev = cite([&run.fresh, &run.first, &run.between, &run.second]);
    let (Some(a), Some(b), Some(c)) = (tools(&run.fresh), tools(&run.first), tools(&run.second))
    else {
        return STATELESS
            .skip(
                SkipReason::NotAssessed,
                "tools/list did not return a tools array on every request, so the answers could not be compared.",
            )
            .evidence(ev);
    };
    let names = |v: &Value| v.as_array().map_or(0, Vec::len);
    let (same_a_b, same_b_c) = (same_set(a, b), same_set(b, c));
    if same_a_b && same_b_c && a == b && b == c {
        STATELESS
            .pass(format!(
                "tools/list gave the same {} tool(s) on {INDEPENDENT} and twice on the run's own, with server/discover between.",
                names(a)
            ))
            .evidence(ev)
    } else if same_a_b && same_b_c {
        // The 2026-07-28 revision requires the set of tools not to vary per connection or
        // with earlier requests, but only recommends (SHOULD) a deterministic order.
        STATELESS
            .warn(format!(
                "tools/list gave the same {} tool(s) on {INDEPENDENT} and twice on the run's own, but not in the same order: clients that cache or diff the list see a change where there is none (a deterministic order is recommended).",
                names(a)
            ))
            .evidence(ev)
    } else {
        let which = if !same_a_b {
            format!(
                "the fresh connection's answer ({} tools, req#{}) and the run's wire's ({} tools, req#{}) differ",
                names(a),
                run.fresh.evidence.first().copied().unwrap_or_default(),
                names(b),
                run.first.evidence.first().copied().unwrap_or_default()
            )
        } else {
            format!(
                "the run's wire answered differently after server/discover ({} tools, then {})",
                names(b),
                names(c)
            )
        };
        STATELESS
            .fail(format!(
                "The same tools/list gave different tools: {which} (the fresh one was sent on {INDEPENDENT}). A 2026-07-28 server must not make answers depend on earlier requests or on the connection."
            ))
            .evidence(ev)
    }
}

/// How the fresh connection was opened, for the finding's detail.
const INDEPENDENT: &str = "an independent connection (a new process over stdio; over HTTP a client of its own, which shares no TCP connection with the run's)";

/// True when two `tools` arrays hold the same tools, in any order (each tool compared
/// whole, duplicates counted).
fn same_set(a: &Value, b: &Value) -> bool {
    let sorted = |v: &Value| {
        let mut t: Vec<String> = v
            .as_array()
            .map(|a| a.iter().map(Value::to_string).collect())
            .unwrap_or_else(|| vec![v.to_string()]);
        t.sort_unstable();
        t
    };
    sorted(a) == sorted(b)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::report::finding::Status;
    use crate::transport::Outcome;

    fn list(seq: u64, tools: Value) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome: Outcome::Answered,
            response: Some(
                json!({"jsonrpc":"2.0","id":1,"result":{"tools": tools, "nextCursor": seq.to_string()}}),
            ),
            notifications: vec![],
            server_requests: vec![],
            http: None,
            elapsed: Duration::from_millis(1),
            refused: false,
        }
    }

    #[test]
    fn the_same_tools_pass_and_a_drift_fails() {
        let t = json!([{"name": "echo"}]);
        let mut run = StatelessRun {
            fresh: list(1, t.clone()),
            first: list(2, t.clone()),
            between: list(3, json!([])),
            second: list(4, t.clone()),
        };
        let f = stateless(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass, "cursors may differ: {}", f.detail);
        assert_eq!(f.evidence, vec![1, 2, 3, 4]);
        run.second = list(4, json!([{"name": "echo"}, {"name": "extra"}]));
        assert_eq!(stateless(&run).status(), Status::Fail);
        // The same tools in another order: previously a fail, now a warning (the set
        // must not vary; the order is only a SHOULD).
        run.second = list(4, json!([{"name": "extra"}, {"name": "echo"}]));
        run.first = list(2, json!([{"name": "echo"}, {"name": "extra"}]));
        run.fresh = list(1, json!([{"name": "echo"}, {"name": "extra"}]));
        let f = stateless(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Warn, "{}", f.detail);
        assert!(f.detail.contains("order"), "{}", f.detail);
        // A duplicate is not the same set.
        run.second = list(4, json!([{"name": "echo"}, {"name": "echo"}]));
        assert_eq!(stateless(&run).status(), Status::Fail);
        run.second = list(4, t.clone());
        run.first = list(2, t);
        run.fresh = list(1, json!([]));
        let f = stateless(&run);
        assert_eq!(f.status(), Status::Fail);
        run.first.response = None;
        assert_eq!(stateless(&run).status(), Status::Skip);
    }
}
