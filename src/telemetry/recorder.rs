//! The recorder: one per server run. Every HTTP request/response and every stdio message
//! gets a sequence number here, in the order they happen; findings cite these numbers and the
//! HAR file carries them as `_seq`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::report::exchange::{Direction, Exchange, ExchangeKind, Seq};
use time::OffsetDateTime;

/// At most this many exchanges are kept per server run (server messages past it are counted,
/// not kept; scout's own requests and their responses are always kept).
pub const MAX_EXCHANGES: usize = 20_000;
/// At most this many bytes of bodies, lines and headers are kept per server run. Past it,
/// server messages are counted, not kept, and scout's own exchanges keep only the first
/// [`KEPT_PREFIX`] bytes of each body.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// What is kept of a body or line once [`MAX_BYTES`] is reached.
pub const KEPT_PREFIX: usize = 512;
/// scout's own request bodies (and stdin lines) above this size are kept as their first
/// [`OWN_KEPT`] bytes and a note of the size sent: only the resilience probe's oversized
/// request is that large, and keeping its padding would add megabytes to every report.
pub const OWN_BODY_CAP: usize = 1024 * 1024;
/// What is kept of such a body.
pub const OWN_KEPT: usize = 4096;
/// What an exchange costs beyond its text (the struct, the map entry), for the byte count.
const OVERHEAD: usize = 256;
/// Appended to a body or line cut at the byte cap (it also makes a cut JSON body invalid, so
/// no check mistakes the prefix for the message).
pub const CUT_MARK: &str = "[… cut: scout's recorder cap]";

/// What the caps held back over a run (all zero when nothing was).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overflow {
    /// Server messages neither kept nor handed to the phases.
    pub dropped: u64,
    /// Their size in bytes.
    pub dropped_bytes: u64,
    /// The last exchange kept before the first message was dropped.
    pub kept_before_drop: Option<Seq>,
    /// Exchanges kept with their bodies cut to [`KEPT_PREFIX`] bytes.
    pub cut: u64,
    /// The first of those.
    pub first_cut: Option<Seq>,
}

impl Overflow {
    /// True when a cap was reached.
    pub fn any(&self) -> bool {
        self.dropped > 0 || self.cut > 0
    }
}

#[derive(Debug)]
struct Inner {
    /// [`MAX_EXCHANGES`] and [`MAX_BYTES`] unless a test asked for less.
    max_exchanges: usize,
    max_bytes: usize,
    /// Indexed by sequence number; shared with readers instead of cloned.
    exchanges: BTreeMap<Seq, Arc<Exchange>>,
    /// What went over the wire, for the exchanges that redaction changed (see
    /// [`Recorder::unredacted`]); the others are the same in both views.
    raw: BTreeMap<Seq, Arc<Exchange>>,
    /// Bytes kept (see [`size_of`]).
    bytes: usize,
    overflow: Overflow,
    /// Ordinary answered requests, for `performance.latency` (at most [`MAX_TIMINGS`]).
    timings: Vec<Timing>,
}

/// At most this many [`Timing`]s are kept per server run (the first ones).
pub const MAX_TIMINGS: usize = 10_000;

/// How long one ordinary request of scout's took to be answered, noted by the client for
/// `performance.latency`: only requests scout sent as an agent would (not its deliberately
/// malformed or oversized probes, not the ones it abandoned) that got a JSON-RPC response.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// The JSON-RPC method.
    pub method: String,
    /// The wire's era.
    pub era: Option<crate::report::finding::Era>,
    /// From the request's start (after any rate-limit wait) to its complete answer.
    pub elapsed: Duration,
    /// The exchanges of the request and its answer.
    pub evidence: Vec<Seq>,
    /// The first request on its wire (over HTTP: to its server): it also paid for the
    /// server's start-up or a new connection, which `performance.cold_start` judges.
    pub first: bool,
    /// Another request of scout's was in flight on the same wire (over HTTP: to the same
    /// server) at some time while this one was, so it may have waited behind it.
    pub overlapped: bool,
}

/// Shared, cheap to clone. Sequence numbers are allocated when an exchange starts, so the
/// numbers follow the order requests were made even when responses complete out of order.
///
/// Bounded (a flooding server must not make a run unbounded in memory or quadratic
/// in time): see [`MAX_EXCHANGES`], [`MAX_BYTES`]. What scout sent and the response to it are
/// always kept ([`Recorder::finish`], [`Recorder::record_now`]); anything else the server
/// sends goes through [`Recorder::offer`], which refuses it once a cap is reached.
#[derive(Debug, Clone)]
pub struct Recorder {
    inner: Arc<Mutex<Inner>>,
    /// The recorder owns the redactor: exchanges are stored already masked, so no secret is kept.
    redactor: crate::telemetry::redact::Redactor,
    next: Arc<std::sync::atomic::AtomicU64>,
    epoch: Instant,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

/// A started exchange; finish it with [`Recorder::finish`].
#[derive(Debug)]
pub struct Pending {
    pub seq: Seq,
    started_at: OffsetDateTime,
    started: Instant,
}

impl Recorder {
    /// A recorder whose first sequence number is 1.
    pub fn new() -> Self {
        Self::starting_at(1)
    }

    /// A recorder whose first sequence number is `first` (several servers in one run keep
    /// their own recorders; numbers are unique per server report).
    pub fn starting_at(first: Seq) -> Self {
        Self::with_limits(first, MAX_EXCHANGES, MAX_BYTES)
    }

    /// A recorder with other caps than [`MAX_EXCHANGES`] and [`MAX_BYTES`] (tests that
    /// must reach them quickly).
    pub fn with_limits(first: Seq, max_exchanges: usize, max_bytes: usize) -> Self {
        Recorder {
            inner: Arc::new(Mutex::new(Inner {
                max_exchanges,
                max_bytes,
                exchanges: BTreeMap::new(),
                raw: BTreeMap::new(),
                bytes: 0,
                overflow: Overflow::default(),
                timings: Vec::new(),
            })),
            redactor: crate::telemetry::redact::Redactor::new(),
            next: Arc::new(std::sync::atomic::AtomicU64::new(first)),
            epoch: Instant::now(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates the next sequence number for an exchange that starts now.
    pub fn begin(&self) -> Pending {
        let seq = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Pending {
            seq,
            started_at: OffsetDateTime::now_utc(),
            started: Instant::now(),
        }
    }

    /// Stores a finished exchange scout started (always kept; past the byte cap its bodies
    /// are cut to [`KEPT_PREFIX`] bytes).
    pub fn finish(
        &self,
        pending: Pending,
        era: Option<crate::report::finding::Era>,
        mut kind: ExchangeKind,
    ) -> Seq {
        // Cut first: what is not kept needs no masking (only scout's own padding is cut).
        cut_own(&mut kind);
        let (mut kind, mut raw) = self.masked(kind);
        let seq = pending.seq;
        let mut inner = self.lock();
        let mut size = size_of(&kind) + raw.as_ref().map_or(0, size_of);
        if inner.bytes + size > inner.max_bytes {
            cut(&mut kind, inner.max_bytes);
            // Past the cap the cut, masked text is all that is kept.
            raw = None;
            size = size_of(&kind);
            inner.overflow.cut += 1;
            inner.overflow.first_cut.get_or_insert(seq);
        }
        inner.bytes += size;
        let started_at = pending.started_at;
        let duration_ms = pending.started.elapsed().as_secs_f64() * 1000.0;
        let make = |kind| {
            Arc::new(Exchange {
                seq,
                started_at,
                duration_ms,
                era,
                kind,
            })
        };
        if let Some(r) = raw {
            inner.raw.insert(seq, make(r));
        }
        inner.exchanges.insert(seq, make(kind));
        seq
    }

    /// `kind` masked by the redactor, and what it was before when masking changed it.
    fn masked(&self, kind: ExchangeKind) -> (ExchangeKind, Option<ExchangeKind>) {
        let mut masked = kind.clone();
        self.redactor.exchange(&mut masked);
        if masked == kind {
            (masked, None)
        } else {
            (masked, Some(kind))
        }
    }

    /// Records something scout sent, or the response to it, at one instant (a stdio line).
    /// Always kept, like [`Recorder::finish`].
    pub fn record_now(&self, era: Option<crate::report::finding::Era>, kind: ExchangeKind) -> Seq {
        let p = self.begin();
        self.finish(p, era, kind)
    }

    /// Records a message the server sent on its own (a notification, a stray line, an
    /// unmatched reply) when the caps leave room, and returns its sequence number. `None`:
    /// not kept (counted in [`Recorder::overflow`]); the caller must not cite it nor hand it
    /// to the phases.
    pub fn offer(
        &self,
        era: Option<crate::report::finding::Era>,
        kind: ExchangeKind,
    ) -> Option<Seq> {
        let size = size_of(&kind);
        let mut inner = self.lock();
        if inner.exchanges.len() >= inner.max_exchanges || inner.bytes + size > inner.max_bytes {
            if inner.overflow.dropped == 0 {
                inner.overflow.kept_before_drop = inner.exchanges.keys().next_back().copied();
            }
            inner.overflow.dropped += 1;
            inner.overflow.dropped_bytes += (size - OVERHEAD) as u64;
            return None;
        }
        // Masked under the lock so that the number follows the order messages arrived in.
        let (kind, raw) = self.masked(kind);
        let seq = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        inner.bytes += size + raw.as_ref().map_or(0, size_of);
        let started_at = OffsetDateTime::now_utc();
        let make = |kind| {
            Arc::new(Exchange {
                seq,
                started_at,
                duration_ms: 0.0,
                era,
                kind,
            })
        };
        if let Some(r) = raw {
            inner.raw.insert(seq, make(r));
        }
        inner.exchanges.insert(seq, make(kind));
        Some(seq)
    }

    /// The run's redactor (register secrets here before the first request).
    pub fn redactor(&self) -> &crate::telemetry::redact::Redactor {
        &self.redactor
    }

    /// True when `seq` was recorded (and kept).
    pub fn contains(&self, seq: Seq) -> bool {
        self.lock().exchanges.contains_key(&seq)
    }

    /// One exchange, shared.
    pub fn get(&self, seq: Seq) -> Option<Arc<Exchange>> {
        self.lock().exchanges.get(&seq).cloned()
    }

    /// The exchanges with `from < seq < to` (`to = None`: up to the latest), in sequence
    /// order, shared (no copy of their content).
    pub fn between(&self, from: Seq, to: Option<Seq>) -> Vec<Arc<Exchange>> {
        use std::ops::Bound::{Excluded, Unbounded};
        let upper = to.map_or(Unbounded, Excluded);
        if to.is_some_and(|t| t <= from.saturating_add(1)) {
            return Vec::new();
        }
        self.lock()
            .exchanges
            .range((Excluded(from), upper))
            .map(|(_, e)| e.clone())
            .collect()
    }

    /// Every exchange so far, in sequence order, shared (no copy of their content).
    pub fn shared(&self) -> Vec<Arc<Exchange>> {
        self.lock().exchanges.values().cloned().collect()
    }

    /// A copy of every exchange so far, in sequence order. Copies every body: for a whole-run
    /// judgement or the report, not once per probe (use [`Recorder::between`] there).
    pub fn snapshot(&self) -> Vec<Exchange> {
        self.lock()
            .exchanges
            .values()
            .map(|e| Exchange::clone(e))
            .collect()
    }

    /// Every exchange as it went over the wire, before redaction, in sequence order: for the
    /// judgements that must see what the server sent (a credential in a result, which the
    /// report then masks). Values scout registered as secrets are in there unmasked, so
    /// nothing read from this view may be written anywhere as it is.
    pub fn unredacted(&self) -> Vec<Arc<Exchange>> {
        let inner = self.lock();
        inner
            .exchanges
            .iter()
            .map(|(seq, e)| inner.raw.get(seq).unwrap_or(e).clone())
            .collect()
    }

    /// Moves every exchange out (for the report at the end of the run), copying only those
    /// still shared with someone. The recorder is empty afterwards.
    pub fn take(&self) -> Vec<Exchange> {
        let map = {
            let mut inner = self.lock();
            inner.bytes = 0;
            inner.raw.clear();
            std::mem::take(&mut inner.exchanges)
        };
        map.into_values()
            .map(|e| Arc::try_unwrap(e).unwrap_or_else(|shared| Exchange::clone(&shared)))
            .collect()
    }

    /// Notes how long an ordinary request took (see [`Timing`]); past [`MAX_TIMINGS`] the
    /// note is dropped, so the latency sample stays bounded.
    pub fn note_timing(&self, t: Timing) {
        let mut inner = self.lock();
        if inner.timings.len() < MAX_TIMINGS {
            inner.timings.push(t);
        }
    }

    /// The request timings noted so far, in the order the answers came.
    pub fn timings(&self) -> Vec<Timing> {
        self.lock().timings.clone()
    }

    /// What the caps held back so far.
    pub fn overflow(&self) -> Overflow {
        self.lock().overflow
    }

    /// Bytes kept so far (as the byte cap counts them).
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// How many exchanges were recorded (and kept).
    pub fn len(&self) -> usize {
        self.lock().exchanges.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Time since the recorder was made.
    pub fn elapsed(&self) -> Duration {
        self.epoch.elapsed()
    }
}

/// What an exchange costs against [`MAX_BYTES`]: its text plus a fixed overhead.
fn size_of(kind: &ExchangeKind) -> usize {
    OVERHEAD
        + match kind {
            ExchangeKind::Http(h) => {
                h.method.len()
                    + h.url.len()
                    + h.request_headers
                        .iter()
                        .chain(&h.response_headers)
                        .map(|(k, v)| k.len() + v.len())
                        .sum::<usize>()
                    + h.request_body.as_ref().map_or(0, String::len)
                    + h.response_body.as_ref().map_or(0, String::len)
                    + h.error.as_ref().map_or(0, String::len)
            }
            ExchangeKind::Stdio(m) => m.line.len() + m.method.as_ref().map_or(0, String::len),
        }
}

/// What the record keeps of a body scout sends: the body itself, or, over
/// [`OWN_BODY_CAP`], its first [`OWN_KEPT`] bytes and a note of the size sent.
pub fn own_body_kept(body: &str) -> String {
    if body.len() <= OWN_BODY_CAP {
        return body.to_string();
    }
    let mut end = OWN_KEPT;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}[… {} bytes were sent; the first {end} are kept]",
        &body[..end],
        body.len()
    )
}

/// Cuts what scout itself sent down to [`OWN_KEPT`] bytes when it is over [`OWN_BODY_CAP`],
/// with a note of the size that went out.
fn cut_own(kind: &mut ExchangeKind) {
    let text = match kind {
        ExchangeKind::Http(h) => h.request_body.as_mut(),
        ExchangeKind::Stdio(m) if m.direction == Direction::Sent => Some(&mut m.line),
        ExchangeKind::Stdio(_) => None,
    };
    let Some(t) = text else { return };
    if t.len() <= OWN_BODY_CAP {
        return;
    }
    let sent = t.len();
    let mut end = OWN_KEPT;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    t.truncate(end);
    t.push_str(&format!(
        "[… {sent} bytes were sent; the first {end} are kept]"
    ));
    // The cut text must not hold on to the megabytes it was cut from.
    t.shrink_to_fit();
}

/// Cuts the bodies of an exchange to [`KEPT_PREFIX`] bytes, marked.
fn cut(kind: &mut ExchangeKind, max_bytes: usize) {
    fn cut_text(t: &mut String) -> bool {
        if t.len() <= KEPT_PREFIX {
            return false;
        }
        let mut end = KEPT_PREFIX;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        t.truncate(end);
        t.push_str(CUT_MARK);
        true
    }
    match kind {
        ExchangeKind::Http(h) => {
            let mut any = false;
            for body in [&mut h.request_body, &mut h.response_body]
                .into_iter()
                .flatten()
            {
                any |= cut_text(body);
            }
            if any {
                h.truncated = true;
                h.error = Some(format!(
                    "bodies kept cut to {KEPT_PREFIX} bytes: scout's recorder cap ({} MiB) was reached",
                    max_bytes / (1024 * 1024)
                ));
            }
        }
        ExchangeKind::Stdio(m) => {
            cut_text(&mut m.line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::exchange::StdioMessage;

    #[test]
    fn scouts_own_huge_bodies_are_kept_short_with_their_size() {
        let r = Recorder::new();
        let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(OWN_BODY_CAP + 10));
        let seq = r.record_now(
            None,
            ExchangeKind::Stdio(StdioMessage {
                direction: Direction::Sent,
                method: Some("ping".into()),
                line: big.clone(),
                not_jsonrpc: false,
            }),
        );
        let kept = r.snapshot();
        let ExchangeKind::Stdio(m) = &kept.iter().find(|e| e.seq == seq).expect("kept").kind else {
            panic!("a stdio line")
        };
        assert!(m.line.len() < OWN_KEPT + 100, "{}", m.line.len());
        assert!(m.line.contains(&format!("{} bytes were sent", big.len())));
        // What the server sends is never cut by this rule.
        let seq = r.record_now(
            None,
            ExchangeKind::Stdio(StdioMessage {
                direction: Direction::Received,
                method: None,
                line: big.clone(),
                not_jsonrpc: false,
            }),
        );
        let kept = r.snapshot();
        let ExchangeKind::Stdio(m) = &kept.iter().find(|e| e.seq == seq).expect("kept").kind else {
            panic!("a stdio line")
        };
        assert_eq!(m.line.len(), big.len());
    }

    fn line(text: &str) -> ExchangeKind {
        ExchangeKind::Stdio(StdioMessage {
            direction: Direction::Received,
            method: None,
            line: text.to_string(),
            not_jsonrpc: true,
        })
    }

    #[test]
    fn offers_past_the_count_cap_are_counted_not_kept() {
        let r = Recorder::new();
        for i in 0..MAX_EXCHANGES {
            assert!(r.offer(None, line(&format!("junk {i}"))).is_some());
        }
        assert_eq!(r.offer(None, line("one too many")), None);
        assert_eq!(r.offer(None, line("two too many")), None);
        let o = r.overflow();
        assert_eq!(o.dropped, 2);
        assert_eq!(o.dropped_bytes, 24);
        assert_eq!(o.kept_before_drop, Some(MAX_EXCHANGES as Seq));
        assert_eq!(r.len(), MAX_EXCHANGES);
        // What scout itself sends is still kept, and numbered after what was kept.
        let seq = r.record_now(None, line("sent"));
        assert_eq!(seq, MAX_EXCHANGES as Seq + 1);
        assert!(r.contains(seq));
    }

    #[test]
    fn past_the_byte_cap_bodies_are_cut_and_offers_refused() {
        let r = Recorder::new();
        let big = "x".repeat(MAX_BYTES / 2);
        assert!(r.offer(None, line(&big)).is_some());
        assert_eq!(r.offer(None, line(&big)), None, "over the byte cap");
        let seq = r.record_now(None, line(&format!("{{\"é\":\"{big}\"}}")));
        let kept = r.get(seq).expect("kept");
        let ExchangeKind::Stdio(m) = &kept.kind else {
            panic!("stdio")
        };
        assert!(m.line.ends_with(CUT_MARK));
        assert!(m.line.len() <= KEPT_PREFIX + CUT_MARK.len());
        assert!(serde_json::from_str::<serde_json::Value>(&m.line).is_err());
        let o = r.overflow();
        assert_eq!((o.cut, o.first_cut, o.dropped), (1, Some(seq), 1));
        assert!(r.bytes() <= MAX_BYTES);
    }

    #[test]
    fn the_unredacted_view_keeps_what_the_wire_carried() {
        let r = Recorder::new();
        r.redactor().register("operator-secret-42");
        let echo = r.record_now(None, line("echo operator-secret-42"));
        let plain = r.record_now(None, line("nothing to mask"));
        let stored = r.get(echo).expect("kept");
        let ExchangeKind::Stdio(m) = &stored.kind else {
            panic!("stdio")
        };
        assert_eq!(m.line, "echo [REDACTED]");
        let raw = r.unredacted();
        assert_eq!(raw.len(), 2);
        let ExchangeKind::Stdio(m) = &raw[0].kind else {
            panic!("stdio")
        };
        assert_eq!(
            (raw[0].seq, m.line.as_str()),
            (echo, "echo operator-secret-42")
        );
        assert_eq!(raw[1].seq, plain);
        // The report takes the masked view; the raw copies go with it.
        assert_eq!(r.take().len(), 2);
        assert!(r.unredacted().is_empty());
    }

    #[test]
    fn between_and_take() {
        let r = Recorder::new();
        let seqs: Vec<Seq> = (0..5)
            .map(|i| r.record_now(None, line(&i.to_string())))
            .collect();
        let mid: Vec<Seq> = r
            .between(seqs[0], Some(seqs[4]))
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(mid, &seqs[1..4]);
        assert_eq!(r.between(seqs[3], None).len(), 1);
        assert!(r.between(seqs[2], Some(seqs[3])).is_empty());
        assert!(r.between(seqs[3], Some(seqs[1])).is_empty());
        let held = r.get(seqs[0]);
        let all = r.take();
        assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
        assert!(r.is_empty());
        drop(held);
    }
}
