//! Paged lists: following `nextCursor` to the end with a page cap and loop detection, and
//! the `catalog.pagination` verdict (plus two helpers the other catalog and execution
//! families share: [`describe`] and [`declared`]).

use std::collections::HashSet;

use serde_json::{Value, json};

use super::PAGINATION;
use crate::client::Connection;
use crate::report::exchange::Seq;
use crate::report::finding::FindingBuilder;
use crate::transport::limiter::RateLimiter;
use crate::transport::{Outcome, Reply};

/// The most pages scout follows on one list before calling it a loop.
pub const MAX_PAGES: usize = 100;

/// Everything a paged list produced.
#[derive(Debug, Default)]
pub struct Paged {
    /// Items of every page, in order.
    pub items: Vec<Value>,
    /// Evidence of every page request.
    pub evidence: Vec<Seq>,
    /// Number of pages fetched.
    pub pages: usize,
    /// How many items each page that answered with its array brought, in order, with the
    /// exchanges of that page (what a host that reads only some pages would see).
    pub page_items: Vec<(usize, Vec<Seq>)>,
    /// Why paging stopped early (a loop, a repeated page, the page cap).
    pub problem: Option<String>,
    /// The first page did not answer with a result: the reply, to judge.
    pub failed: Option<Reply>,
    /// A page answered with a result that lacks the list's array (`tools`, `prompts` …):
    /// what was wrong. Paging stops there; no items are invented for it.
    pub malformed: Option<String>,
}

impl Paged {
    /// Whether every page answered with its list, so the items are all the server offers.
    pub fn read_whole(&self) -> bool {
        self.failed.is_none() && self.malformed.is_none() && self.problem.is_none()
    }
}

/// The most characters of a server-chosen cursor quoted in a finding.
const CURSOR_QUOTE: usize = 80;

/// What to do after a page (see [`Pager::feed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Ask for the next page with this cursor.
    Next(String),
    /// The list is complete.
    Done,
    /// Paging stopped early: a loop, a repeated page or the page cap (goes to `problem`).
    Problem(String),
    /// The page's result has no array under the list's key (goes to `malformed`).
    Malformed(String),
}

/// The paging rules as a pure state machine: fed each page's `result`, it collects the items
/// and says whether to ask for another page. Everything a hostile server controls is bounded:
/// cursors and pages are remembered as hashes (a server can send a 16 MiB cursor a hundred
/// times), quoted cursors are cut, and no more than [`MAX_PAGES`] pages are followed.
#[derive(Debug)]
pub struct Pager {
    method: String,
    key: String,
    /// Pages fed so far.
    pub pages: usize,
    /// Items of every page, in order.
    pub items: Vec<Value>,
    cursors: HashSet<[u8; 32]>,
    seen_pages: HashSet<[u8; 32]>,
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

impl Pager {
    /// A pager for `method`, whose results carry their items under `key`.
    pub fn new(method: &str, key: &str) -> Self {
        Pager {
            method: method.to_string(),
            key: key.to_string(),
            pages: 0,
            items: Vec::new(),
            cursors: HashSet::new(),
            seen_pages: HashSet::new(),
        }
    }

    /// True when the page cap is reached: no further page may be requested.
    pub fn at_cap(&self) -> bool {
        self.pages >= MAX_PAGES
    }

    /// Feeds the result of the next page.
    pub fn feed(&mut self, result: &Value) -> Step {
        self.pages += 1;
        let (method, key, n) = (&self.method, &self.key, self.pages);
        // The array is required by every revision's schema: a result without it is not an
        // empty list.
        let Some(page) = result.get(key.as_str()).and_then(Value::as_array) else {
            return Step::Malformed(format!(
                "{method} page {n} answered with a result that has no `{key}` array ({})",
                match result.get(key.as_str()) {
                    None => "the member is missing".to_string(),
                    Some(v) => format!("`{key}` is {}", crate::policy::schema::kind(v)),
                }
            ));
        };
        let fingerprint = digest(serde_json::to_string(page).unwrap_or_default().as_bytes());
        if !page.is_empty() && !self.seen_pages.insert(fingerprint) {
            return Step::Problem(format!(
                "{method} page {n} repeats an earlier page: the cursor loops"
            ));
        }
        self.items.extend(page.iter().cloned());
        let Some(Value::String(next)) = result.get("nextCursor") else {
            return Step::Done;
        };
        if !self.cursors.insert(digest(next.as_bytes())) {
            let quoted: String = next.chars().take(CURSOR_QUOTE).collect();
            let more = if next.chars().count() > CURSOR_QUOTE {
                "…"
            } else {
                ""
            };
            return Step::Problem(format!(
                "{method} returned the cursor \"{quoted}{more}\" twice: a loop that would never end"
            ));
        }
        if self.at_cap() {
            return Step::Problem(format!(
                "{method} still returned a nextCursor after {MAX_PAGES} pages; scout stopped"
            ));
        }
        Step::Next(next.clone())
    }
}

/// Fetches every page of a list method (`key` = the result's array field), with a hard page
/// cap and loop detection on cursors and page contents ([`Pager`]).
pub async fn list_all(wire: &Connection, limiter: &RateLimiter, method: &str, key: &str) -> Paged {
    let mut out = Paged::default();
    let mut pager = Pager::new(method, key);
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        limiter.wait().await;
        let reply = wire.request(method, params).await;
        out.evidence.extend(reply.evidence.iter().copied());
        out.pages += 1;
        let page_evidence = reply.evidence.clone();
        let Some(result) = reply.result() else {
            if out.pages == 1 {
                out.failed = Some(reply);
            } else {
                out.problem = Some(format!(
                    "{method} page {} did not answer with a result ({})",
                    out.pages,
                    describe(&reply)
                ));
            }
            break;
        };
        let before = pager.items.len();
        let step = pager.feed(result);
        if pager.items.len() > before || matches!(step, Step::Next(_) | Step::Done) {
            out.page_items
                .push((pager.items.len() - before, page_evidence));
        }
        match step {
            Step::Next(next) => cursor = Some(next),
            Step::Done => break,
            Step::Problem(p) => {
                out.problem = Some(p);
                break;
            }
            Step::Malformed(m) => {
                out.malformed = Some(m);
                break;
            }
        }
    }
    out.items = pager.items;
    out
}

/// One line on what a reply was, for details.
pub fn describe(reply: &Reply) -> String {
    if let Some(code) = reply.error_code() {
        return format!(
            "JSON-RPC error {code} {:?}",
            reply.error_message().unwrap_or_default()
        );
    }
    match &reply.outcome {
        Outcome::Answered => "a response without a result".into(),
        Outcome::NoResponse => match reply.status() {
            Some(st) => format!("HTTP {st} without a JSON-RPC response"),
            None => "no JSON-RPC response".into(),
        },
        Outcome::TimedOut => "no answer within the timeout".into(),
        Outcome::Truncated => "a response cut at the size cap".into(),
        Outcome::TransportError(e) => format!("a transport error ({e})"),
    }
}

/// True when the capability object `caps[name]` is declared (present and not null/false).
pub fn declared(caps: &Value, name: &str) -> bool {
    matches!(caps.get(name), Some(v) if !v.is_null() && v != &Value::Bool(false))
}

/// `catalog.pagination`: the pages ended without a loop, and a garbage cursor was refused.
pub fn pagination(method: &str, paged: &Paged, garbage: &Reply) -> FindingBuilder {
    if let Some(problem) = &paged.problem {
        return PAGINATION
            .fail(problem.clone())
            .subject(method)
            .evidence(paged.evidence.iter().copied());
    }
    let ev = garbage.evidence.iter().copied();
    match garbage.error_code() {
        Some(-32602) => PAGINATION
            .pass(format!(
                "{method} ended after {} page(s); a cursor it never issued got -32602",
                paged.pages
            ))
            .subject(method)
            .evidence(paged.evidence.iter().copied().chain(ev)),
        Some(code) => PAGINATION
            .warn(format!(
                "{method} ended after {} page(s), but a cursor it never issued got error {code} instead of -32602 (Invalid params)",
                paged.pages
            ))
            .subject(method)
            .evidence(ev),
        None => PAGINATION
            .warn(format!(
                "{method} accepted a cursor it never issued ({}); it should answer -32602",
                if garbage.result().is_some() {
                    "it answered with a result".to_string()
                } else {
                    describe(garbage)
                }
            ))
            .subject(method)
            .evidence(ev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::catalog::tests::{built, err, ok, paged};
    use crate::report::finding::Status;
    use serde_json::json;

    #[test]
    fn pagination_judgement() {
        let f = built(pagination("tools/list", &paged(vec![]), &err(2, -32602)));
        assert_eq!((f.status, f.evidence), (Status::Pass, vec![1, 2]));
        let f = built(pagination(
            "tools/list",
            &paged(vec![]),
            &ok(2, json!({"tools": []})),
        ));
        assert_eq!((f.status, f.evidence), (Status::Warn, vec![2]));
        let mut looping = paged(vec![]);
        looping.problem = Some("loops".into());
        assert_eq!(
            built(pagination("tools/list", &looping, &err(2, -32602))).status,
            Status::Fail
        );
    }

    #[test]
    fn capability_declaration() {
        assert!(declared(&json!({"tools": {}}), "tools"));
        assert!(!declared(&json!({"tools": null}), "tools"));
        assert!(!declared(&json!({}), "prompts"));
    }
}
