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
pub struct StatelessRun {
    pub fresh: Reply,
    pub first: Reply,
    pub between: Reply,
    pub second: Reply,
}

/// Sends the requests of [`StatelessRun`].
pub async fn probe(w: &Connection) -> Result<StatelessRun, String> {
    let other = w.fresh().await.map_err(|e| e.to_string())?;
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
pub fn judge(run: &StatelessRun) -> FindingBuilder {
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
    if a == b && b == c {
        STATELESS
            .pass(format!(
                "tools/list gave the same {} tool(s) on a fresh connection and twice on the run's own, with server/discover between.",
                names(a)
            ))
            .evidence(ev)
    } else {
        let which = if a != b {
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
                "The same tools/list gave different answers: {which}. A 2026-07-28 server must not make answers depend on earlier requests or on the connection."
            ))
            .evidence(ev)
    }
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
        let f = judge(&run).build(|_| true).expect("valid");
        assert_eq!(f.status, Status::Pass, "cursors may differ: {}", f.detail);
        assert_eq!(f.evidence, vec![1, 2, 3, 4]);
        run.second = list(4, json!([{"name": "echo"}, {"name": "extra"}]));
        assert_eq!(judge(&run).status(), Status::Fail);
        run.second = list(4, t);
        run.fresh = list(1, json!([]));
        let f = judge(&run);
        assert_eq!(f.status(), Status::Fail);
        run.first.response = None;
        assert_eq!(judge(&run).status(), Status::Skip);
    }
}
