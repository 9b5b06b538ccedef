//! The recorder: one per server run. Every HTTP request/response and every stdio message
//! gets a sequence number here, in the order they happen; findings cite these numbers and the
//! HAR file carries them as `_seq`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A run-wide sequence number (`req#12`).
pub type Seq = u64;

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub seq: Seq,
    /// When it started (RFC 3339 in serialised form).
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// How long it took until the response was complete (or abandoned).
    pub duration_ms: f64,
    /// Which wire this was on, when the server is probed on two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<crate::report::finding::Era>,
    pub kind: ExchangeKind,
}

/// What was exchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExchangeKind {
    Http(HttpExchange),
    Stdio(StdioMessage),
}

/// An HTTP request and what came back.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HttpExchange {
    pub method: String,
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Option<String>,
    /// None when no response arrived (connection error, timeout).
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    /// The body as received (SSE bodies verbatim), up to the size cap.
    pub response_body: Option<String>,
    /// The body was cut at the size cap or at the timeout.
    pub truncated: bool,
    /// Transport error, timeout, or other reason there is no complete response.
    pub error: Option<String>,
}

/// Which way a stdio message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// scout → server (stdin).
    Sent,
    /// server → scout (stdout).
    Received,
}

/// One line on a stdio wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StdioMessage {
    pub direction: Direction,
    /// The JSON-RPC method, when the line is a request or notification.
    pub method: Option<String>,
    /// The line as written or read (without the newline).
    pub line: String,
    /// The line did not parse as one JSON-RPC message.
    pub not_jsonrpc: bool,
}

#[derive(Debug, Default)]
struct Inner {
    exchanges: Vec<Exchange>,
}

/// Shared, cheap to clone. Sequence numbers are allocated when an exchange starts, so the
/// numbers follow the order requests were made even when responses complete out of order.
#[derive(Debug, Clone)]
pub struct Recorder {
    inner: Arc<Mutex<Inner>>,
    /// The recorder owns the redactor (DESIGN §6): exchanges are stored already masked.
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
        Recorder {
            inner: Arc::new(Mutex::new(Inner::default())),
            redactor: crate::telemetry::redact::Redactor::new(),
            next: Arc::new(std::sync::atomic::AtomicU64::new(first)),
            epoch: Instant::now(),
        }
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

    /// Stores a finished exchange.
    pub fn finish(
        &self,
        pending: Pending,
        era: Option<crate::report::finding::Era>,
        mut kind: ExchangeKind,
    ) -> Seq {
        self.redactor.exchange(&mut kind);
        let ex = Exchange {
            seq: pending.seq,
            started_at: pending.started_at,
            duration_ms: pending.started.elapsed().as_secs_f64() * 1000.0,
            era,
            kind,
        };
        let seq = ex.seq;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.exchanges.push(ex);
        seq
    }

    /// Records something that happened at one instant (a stdio line).
    pub fn record_now(&self, era: Option<crate::report::finding::Era>, kind: ExchangeKind) -> Seq {
        let p = self.begin();
        self.finish(p, era, kind)
    }

    /// The run's redactor (register secrets here before the first request).
    pub fn redactor(&self) -> &crate::telemetry::redact::Redactor {
        &self.redactor
    }

    /// True when `seq` was recorded.
    pub fn contains(&self, seq: Seq) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.exchanges.iter().any(|e| e.seq == seq)
    }

    /// A copy of every exchange so far, in sequence order.
    pub fn snapshot(&self) -> Vec<Exchange> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut v = inner.exchanges.clone();
        v.sort_by_key(|e| e.seq);
        v
    }

    /// How many exchanges were recorded.
    pub fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .exchanges
            .len()
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
