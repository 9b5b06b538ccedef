//! Re-authorization in the middle of a conversation: a later request answered 401, or 403
//! with `error="insufficient_scope"`, carrying a Bearer challenge. The spec's scope challenge
//! handling asks the client to request the scopes it already had together with the ones the
//! challenge names (so a step-up never loses what earlier requests needed), and a client must
//! not loop against a server that keeps refusing: each new scope set is tried once, and the
//! number of re-authorizations in one run is capped.

use std::collections::BTreeSet;

/// How many times one run re-authorizes before it gives up with an error.
pub const MAX_REAUTHORIZATIONS: usize = 2;

/// The space-separated union of `had` and `challenged`, in first-seen order, without
/// duplicates. `None` when both are empty (then the server's defaults apply).
pub fn scope_union(had: Option<&str>, challenged: Option<&str>) -> Option<String> {
    let mut seen = BTreeSet::new();
    let mut out: Vec<&str> = Vec::new();
    for s in had
        .into_iter()
        .chain(challenged)
        .flat_map(str::split_ascii_whitespace)
    {
        if seen.insert(s) {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// What to do after a mid-session challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Re-authorize asking for this scope, then retry the request once.
    Reauthorize { scope: Option<String> },
    /// Stop: the one-line reason.
    GiveUp(String),
}

/// Counts re-authorizations of one run and remembers which scope sets were already tried.
#[derive(Debug, Default)]
pub struct StepUp {
    done: usize,
    tried: Vec<Option<String>>,
}

impl StepUp {
    /// Decides on a challenge with HTTP `status`: `had` is the scope last requested,
    /// `challenged` the challenge's `scope`. A 401 without a new scope (an expired token, a
    /// moved authorization server) re-authorizes with the same set; a 403 for a set already
    /// granted is not retried, since the same token would be refused again.
    pub fn decide(&mut self, had: Option<&str>, challenged: Option<&str>, status: u16) -> Decision {
        let scope = scope_union(had, challenged);
        if self.done >= MAX_REAUTHORIZATIONS {
            return Decision::GiveUp(format!(
                "the server still answers {status} after {} re-authorizations{}; giving up",
                self.done,
                scope
                    .as_deref()
                    .map(|s| format!(" (last scope asked: {s})"))
                    .unwrap_or_default()
            ));
        }
        if status == 403 && self.tried.contains(&scope) {
            return Decision::GiveUp(format!(
                "the server answers 403 insufficient_scope although a token with scope `{}` was just granted; giving up",
                scope.as_deref().unwrap_or("")
            ));
        }
        self.done += 1;
        self.tried.push(scope.clone());
        Decision::Reauthorize { scope }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_keeps_earlier_scopes_and_adds_the_challenged_ones_once() {
        assert_eq!(
            scope_union(Some("mcp:basic"), Some("mcp:write")).as_deref(),
            Some("mcp:basic mcp:write")
        );
        assert_eq!(
            scope_union(Some("a b"), Some("b  c a")).as_deref(),
            Some("a b c")
        );
        assert_eq!(scope_union(None, Some("x")).as_deref(), Some("x"));
        assert_eq!(scope_union(Some("x"), None).as_deref(), Some("x"));
        assert_eq!(scope_union(Some(" "), None), None);
    }

    #[test]
    fn a_server_that_keeps_refusing_is_given_up_on_after_the_cap() {
        let mut s = StepUp::default();
        assert!(matches!(
            s.decide(None, Some("mcp:basic"), 401),
            Decision::Reauthorize { scope: Some(ref x) } if x == "mcp:basic"
        ));
        assert!(matches!(
            s.decide(Some("mcp:basic"), Some("mcp:write"), 403),
            Decision::Reauthorize { scope: Some(ref x) } if x == "mcp:basic mcp:write"
        ));
        // Same 403 again: no third login, a one-line error instead.
        match s.decide(Some("mcp:basic mcp:write"), Some("mcp:write"), 403) {
            Decision::GiveUp(msg) => {
                assert!(!msg.contains('\n'));
                assert!(msg.contains("403"), "{msg}");
            }
            d => panic!("expected to give up, got {d:?}"),
        }
    }

    #[test]
    fn a_403_for_a_scope_set_already_granted_is_not_retried() {
        let mut s = StepUp::default();
        s.decide(Some("a"), Some("b"), 403);
        assert!(matches!(
            s.decide(Some("a b"), Some("b"), 403),
            Decision::GiveUp(_)
        ));
    }

    #[test]
    fn a_401_after_a_migration_reauthorizes_with_the_same_scope() {
        let mut s = StepUp::default();
        assert_eq!(
            s.decide(Some("mcp:basic"), None, 401),
            Decision::Reauthorize {
                scope: Some("mcp:basic".into())
            }
        );
    }
}
