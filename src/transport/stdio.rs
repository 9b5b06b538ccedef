//! The stdio wire: newline-delimited JSON-RPC on a child's stdin/stdout.
//!
//! One reader task per process reads stdout line by line (each line capped at the body
//! cap), records every line, and routes it: a response goes to the pending request with its
//! id; a notification or server request goes to the request it names (`progressToken`,
//! `requestId`), else to the only request in flight, else to the general inbox. A line
//! that is not one JSON-RPC message is recorded with `not_jsonrpc` and kept for
//! `stdio.stdout_clean`; the reader resynchronises on the next line.
//!
//! Bounded against a flooding server: a response to a waiting request is always recorded;
//! every other line is only offered to the recorder ([`Recorder::offer`]) and, once its caps
//! are reached, counted and dropped — not recorded, not routed. The inbox keeps the newest
//! [`INBOX_KEPT`] messages, and each stray line is kept (for quoting) only up to
//! [`VIOLATION_KEPT`] bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{oneshot, watch};

use crate::report::exchange::{Direction, ExchangeKind, Seq, StdioMessage};
use crate::report::finding::Era;
use crate::telemetry::Recorder;
use crate::transport::answer::{AskLog, Asked, Persona, is_server_request};
use crate::transport::process::{Ending, ManagedProcess};
use crate::transport::{Outcome, Reply};

/// At most this many unattributed messages wait in the inbox (the oldest go first).
pub const INBOX_KEPT: usize = 1_000;
/// Bytes of a stray stdout line kept for quoting (the recorder keeps the line itself).
pub const VIOLATION_KEPT: usize = 1_024;
/// Answers to the server's requests waiting to be written; past this many (a server
/// flooding requests faster than its stdin drains) a request is left unanswered.
pub const ANSWERS_QUEUED: usize = 256;

/// A stdout line that was not one JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub seq: Seq,
    /// The line, cut to [`VIOLATION_KEPT`] bytes.
    pub line: String,
}

#[derive(Debug, Default)]
struct PendingEntry {
    done: Option<oneshot::Sender<()>>,
    response: Option<Value>,
    evidence: Vec<Seq>,
    notifications: Vec<Value>,
    server_requests: Vec<Value>,
    progress_token: Option<Value>,
    /// The tool a `tools/call` names (per-tool elicitation answers).
    tool: Option<String>,
    truncated: bool,
    /// A sentinel's entry: a request scout sent only to learn that the server has read
    /// what came before it. It is the request in flight only when no other waits, and
    /// only when it collects (a [`StdioWire::settle`] sentinel leaves everything to the
    /// inbox).
    sentinel: bool,
    collects: bool,
    /// The exchange ends once this many messages were attributed to it (0: only its
    /// response ends it; a 2026-07-28 `subscriptions/listen` is answered only when the
    /// subscription ends).
    wanted: usize,
    /// Told when the first message was attributed to it.
    first_seen: Option<std::sync::Arc<tokio::sync::Notify>>,
}

#[derive(Debug, Default)]
struct Router {
    pending: HashMap<String, PendingEntry>,
    inbox: std::collections::VecDeque<(Seq, Value)>,
    /// Stray lines the recorder kept.
    violations: Vec<Violation>,
    /// Every stray line, kept or not.
    violation_count: usize,
    late: Vec<Seq>,
    /// A reply with a `null` id came when nothing was waiting for one (its sequence number):
    /// the server answered a message after the sentinel behind it, so on this wire only a
    /// quiet window can tell that no answer is coming.
    out_of_order: Option<Seq>,
    /// What scout answers the server's requests with.
    persona: Persona,
    /// Where answers go to be written to stdin (none in unit tests of the router).
    answers: Option<tokio::sync::mpsc::Sender<String>>,
    /// What the server asked and what scout answered.
    asked: Arc<AskLog>,
}

impl Router {
    /// The key of the one request still waiting that a line without an id of its own
    /// belongs to: the one request in flight, a sentinel only when nothing else waits.
    fn sole_open(&self, open: impl Fn(&PendingEntry) -> bool) -> Option<String> {
        let waiting: Vec<(&String, &PendingEntry)> = self
            .pending
            .iter()
            .filter(|(_, e)| open(e) && (!e.sentinel || e.collects))
            .collect();
        let real: Vec<&String> = waiting
            .iter()
            .filter(|(_, e)| !e.sentinel)
            .map(|(k, _)| *k)
            .collect();
        match (real.as_slice(), waiting.as_slice()) {
            ([one], _) => Some((*one).clone()),
            ([], [(k, _)]) => Some((*k).clone()),
            _ => None,
        }
    }
}

/// A line scout writes to the server: a message, or a padded one written in pieces.
#[derive(Debug, Clone)]
pub enum StdioLine {
    Text(String),
    Padded(crate::transport::padding::Padded),
}

impl From<String> for StdioLine {
    fn from(text: String) -> Self {
        StdioLine::Text(text)
    }
}

/// What every sentinel's id starts with (`scout-sentinel-N`).
pub const SENTINEL_PREFIX: &str = "scout-sentinel-";

/// True for a message that is a sentinel or its answer: scout's own question, never what a
/// probe provoked.
pub fn is_sentinel(message: &Value) -> bool {
    message
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.starts_with(SENTINEL_PREFIX))
}

/// The canonical key of a JSON-RPC id (`1` and `"1"` differ).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// One stdio connection to one child process.
#[derive(Debug)]
pub struct StdioWire {
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    /// Writes the answers to the server's requests (see [`Persona`]).
    answerer: Mutex<Option<tokio::task::JoinHandle<()>>>,
    router: Arc<Mutex<Router>>,
    /// The child (shared with the session, which shuts it down).
    pub process: Arc<ManagedProcess>,
    eof: watch::Receiver<bool>,
    recorder: Recorder,
    era: Arc<Mutex<Option<Era>>>,
    reader: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// What the process's end tells about its cause (see [`StdioWire::exited_after`]).
    end: Arc<EndWatch>,
    /// Sentinels sent so far (each gets the id `scout-sentinel-N`).
    sentinels: std::sync::atomic::AtomicU64,
    /// The `params` of a sentinel `ping` (a 2026-07-28 wire requires the `_meta` envelope on
    /// every request; the client layer sets it once the era is known).
    sentinel_params: Mutex<Option<Value>>,
    /// The first sentinel that went unanswered (the sequence number of its line): from then
    /// on only a quiet window can tell.
    sentinel_unanswered: Mutex<Option<Seq>>,
    /// The first sentinel sent, and how many were answered.
    first_sentinel: Mutex<Option<Seq>>,
    sentinels_answered: std::sync::atomic::AtomicU64,
    /// How many waits used the bounded quiet window instead of a sentinel.
    quiet_windows: std::sync::atomic::AtomicU64,
}

/// How this wire learnt that a message got no answer: what `stdio.ordering` reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireOrder {
    /// Sentinels sent, and answered.
    pub sentinels: u64,
    pub answered: u64,
    /// The first sentinel's line.
    pub first_sentinel: Option<Seq>,
    /// A `null`-id reply that came after the sentinel behind its message.
    pub out_of_order: Option<Seq>,
    /// The first sentinel left unanswered.
    pub unanswered: Option<Seq>,
    /// Waits that used the bounded quiet window.
    pub quiet_windows: u64,
}

/// What the reader knows when stdout ends: the last line scout had written whole before
/// that, and whether scout itself had begun the shutdown.
#[derive(Debug, Default)]
struct EndWatch {
    /// The sequence number of the last line written whole (0 = none yet).
    last_written: std::sync::atomic::AtomicU64,
    /// Set by [`StdioWire::close`] before it closes stdin: an end that follows is scout's.
    closing: std::sync::atomic::AtomicBool,
    /// Set at stdout's end when scout had not begun the shutdown: the last line written
    /// before it (0 = the process ended before scout wrote anything).
    exited_after: Mutex<Option<Seq>>,
}

/// How a sentinel ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SentinelEnd {
    /// Its answer came: what it was sent behind has been read and answered (or not).
    Answered,
    /// stdout closed first.
    Closed,
    /// No answer within the timeout.
    Unanswered,
}

/// What a sentinel saw: how it ended, its lines (sent and answer) and every line that came
/// before its answer naming no request of its own, and the messages among them.
struct Sentinel {
    end: SentinelEnd,
    evidence: Vec<Seq>,
    notifications: Vec<Value>,
    server_requests: Vec<Value>,
}

/// What [`StdioWire::close`] observed.
#[derive(Debug, Clone, PartialEq)]
pub struct Shutdown {
    pub ending: Ending,
    /// stdout was still open (held by a grandchild) after the process exited.
    pub stdout_held_open: bool,
    pub elapsed: Duration,
}

impl StdioWire {
    /// Wraps a spawned child and starts its reader.
    pub fn new(
        process: Arc<ManagedProcess>,
        stdin: ChildStdin,
        stdout: ChildStdout,
        recorder: Recorder,
        max_line: usize,
    ) -> Arc<Self> {
        let (answers, queued) = tokio::sync::mpsc::channel(ANSWERS_QUEUED);
        let router = Arc::new(Mutex::new(Router {
            answers: Some(answers),
            ..Router::default()
        }));
        let stdin = Arc::new(tokio::sync::Mutex::new(Some(stdin)));
        let answerer = tokio::spawn(write_answers(queued, stdin.clone()));
        let era = Arc::new(Mutex::new(None));
        let (tx, rx) = watch::channel(false);
        let end = Arc::new(EndWatch::default());
        let handle = tokio::spawn(read_loop(
            stdout,
            router.clone(),
            recorder.clone(),
            era.clone(),
            max_line,
            tx,
            end.clone(),
        ));
        Arc::new(StdioWire {
            stdin,
            answerer: Mutex::new(Some(answerer)),
            router,
            process,
            eof: rx,
            recorder,
            era,
            reader: Mutex::new(Some(handle)),
            end,
            sentinels: std::sync::atomic::AtomicU64::new(0),
            sentinel_params: Mutex::new(None),
            sentinel_unanswered: Mutex::new(None),
            first_sentinel: Mutex::new(None),
            sentinels_answered: std::sync::atomic::AtomicU64::new(0),
            quiet_windows: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// When the process ended on its own (stdout closed before scout began the shutdown):
    /// the sequence number of the last line scout had written whole before that, the message
    /// the process most likely died of (0 when it ended before scout wrote anything).
    pub fn exited_after(&self) -> Option<Seq> {
        *self
            .end
            .exited_after
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The exit status of a process that ended on its own (its stdout closed before scout
    /// began the shutdown), waiting up to `within` for the exit that follows; `None` while
    /// it runs.
    pub async fn ended_on_its_own(&self, within: Duration) -> Option<String> {
        match self.process.try_exit().await {
            Some(status) => Some(status),
            None if self.exited_after().is_some() => self.process.exit_within(within).await,
            None => None,
        }
    }

    /// The client scout plays on this wire from now on: what it answers the server's
    /// requests with (set before `initialize`, which declares its capabilities).
    pub fn set_persona(&self, persona: Persona) {
        self.lock().persona = persona;
    }

    /// What the server asked on this wire so far, with scout's answers.
    pub fn asked(&self) -> Vec<Asked> {
        self.lock().asked.all()
    }

    /// Tags exchanges recorded from now on with `era`.
    pub fn set_era(&self, era: Option<Era>) {
        *self.era.lock().unwrap_or_else(|e| e.into_inner()) = era;
    }

    /// The `params` every sentinel `ping` carries from now on (`None`: none).
    pub fn set_sentinel_params(&self, params: Option<Value>) {
        *self
            .sentinel_params
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = params;
    }

    /// stdout lines that were not JSON-RPC and that the recorder kept, so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.lock().violations.clone()
    }

    /// How many stdout lines were not JSON-RPC, kept or not (past the recorder's caps this is
    /// more than `violations().len()`).
    pub fn violation_count(&self) -> usize {
        self.lock().violation_count
    }

    /// Replies that arrived after their request was abandoned.
    pub fn late_replies(&self) -> Vec<Seq> {
        self.lock().late.clone()
    }

    /// Unattributed messages (seq, message) received so far (the newest [`INBOX_KEPT`]).
    pub fn inbox(&self) -> Vec<(Seq, Value)> {
        self.lock().inbox.iter().cloned().collect()
    }

    /// True once stdout reached end of file.
    pub fn stdout_closed(&self) -> bool {
        *self.eof.borrow()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Router> {
        self.router.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True when scout learnt on this wire that a sentinel cannot tell that no answer is
    /// coming: the server answered a message after the sentinel behind it, or left a
    /// sentinel unanswered. Messages that may get no answer then wait a quiet window.
    pub fn needs_quiet_window(&self) -> bool {
        self.lock().out_of_order.is_some()
            || self
                .sentinel_unanswered
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some()
    }

    /// What the wire learnt about its order so far (see [`WireOrder`]).
    pub fn order(&self) -> WireOrder {
        use std::sync::atomic::Ordering::SeqCst;
        WireOrder {
            sentinels: self.sentinels.load(SeqCst),
            answered: self.sentinels_answered.load(SeqCst),
            first_sentinel: *self
                .first_sentinel
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
            out_of_order: self.lock().out_of_order,
            unanswered: *self
                .sentinel_unanswered
                .lock()
                .unwrap_or_else(|e| e.into_inner()),
            quiet_windows: self.quiet_windows.load(SeqCst),
        }
    }

    /// Writes `line` and, when `id` is given, waits for the response with that id (up to
    /// `timeout`).
    ///
    /// A line that may get no answer (`id == None`: a notification, or a line that is not
    /// JSON-RPC, which may get an error with a `null` id) is followed by a sentinel: a
    /// `ping` with an id of its own, which the server must answer. stdio is one ordered
    /// stream, so once the sentinel's answer is in, whatever the line provoked has come
    /// (and is in the reply, with the sentinel's two lines as evidence). A server shown to
    /// answer out of order, or that left a sentinel unanswered, gets the bounded `quiet`
    /// window instead ([`StdioWire::needs_quiet_window`]).
    pub async fn exchange(
        &self,
        line: impl Into<StdioLine>,
        method: Option<String>,
        id: Option<Value>,
        progress_token: Option<Value>,
        timing: (Duration, Duration),
        until: Until,
    ) -> Reply {
        let (timeout, quiet) = timing;
        let started = Instant::now();
        let era = *self.era.lock().unwrap_or_else(|e| e.into_inner());
        let line = line.into();
        // A padded line is a request scout built (an object); only its start is recorded.
        let (not_jsonrpc, recorded, tool) = match &line {
            StdioLine::Text(t) => {
                let parsed = serde_json::from_str::<Value>(t).ok();
                let tool = parsed
                    .as_ref()
                    .filter(|v| v.get("method").and_then(Value::as_str) == Some("tools/call"))
                    .and_then(|v| v.get("params")?.get("name")?.as_str().map(str::to_string));
                (
                    parsed.as_ref().is_none_or(|v| !v.is_object()),
                    t.clone(),
                    tool,
                )
            }
            StdioLine::Padded(p) => (false, p.kept(), None),
        };
        // The key under which replies are awaited: a request id, or `null` for a raw probe
        // that may provoke an id-less error (parse errors are answered with id null).
        let key = id.as_ref().map(id_key).unwrap_or_else(|| "null".into());
        let (tx, rx) = oneshot::channel();
        let waits_for_response = id.is_some() || not_jsonrpc;
        if waits_for_response {
            self.lock().pending.insert(
                key.clone(),
                PendingEntry {
                    done: Some(tx),
                    progress_token,
                    tool,
                    wanted: until.wanted,
                    first_seen: until.first,
                    ..PendingEntry::default()
                },
            );
        }
        let sent_seq = self.recorder.record_now(
            era,
            ExchangeKind::Stdio(StdioMessage {
                direction: Direction::Sent,
                method,
                line: recorded,
                not_jsonrpc,
            }),
        );
        let write = async {
            let mut guard = self.stdin.lock().await;
            let Some(stdin) = guard.as_mut() else {
                return Err("stdin is closed".to_string());
            };
            match line {
                StdioLine::Text(t) => {
                    let mut bytes = t.into_bytes();
                    bytes.push(b'\n');
                    stdin.write_all(&bytes).await.map_err(|e| e.to_string())?;
                }
                // Written piece by piece (under the one stdin lock, so no other line
                // interleaves): the whole line is never built in memory.
                StdioLine::Padded(p) => {
                    for chunk in p.chunks() {
                        stdin.write_all(chunk).await.map_err(|e| e.to_string())?;
                    }
                    stdin.write_all(b"\n").await.map_err(|e| e.to_string())?;
                }
            }
            stdin.flush().await.map_err(|e| e.to_string())?;
            // Only a line the process could read can be what it died of.
            self.end
                .last_written
                .fetch_max(sent_seq, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        };
        let write_result = tokio::time::timeout(timeout, write)
            .await
            .unwrap_or_else(|_| Err("writing to stdin timed out".into()));
        let mut outcome = match write_result {
            Err(e) => Some(Outcome::TransportError(format!(
                "cannot write to the server's stdin: {e}"
            ))),
            Ok(()) => None,
        };
        let mut behind = None;
        if outcome.is_none() && id.is_none() && !self.needs_quiet_window() {
            let seen = self.sentinel(era, timeout, true).await;
            match seen.end {
                SentinelEnd::Answered => outcome = Some(Outcome::NoResponse),
                SentinelEnd::Closed => {
                    outcome = Some(Outcome::TransportError(
                        "the server closed stdout (process exited?)".into(),
                    ));
                }
                // Unanswered for the whole timeout: no answer to the line is coming either
                // (stdio is one ordered stream), and waiting longer would tell no more.
                SentinelEnd::Unanswered => outcome = Some(Outcome::NoResponse),
            }
            behind = Some(seen);
        }
        if outcome.is_none() && id.is_none() {
            self.quiet_windows
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        if outcome.is_none() && !waits_for_response {
            // Only on a wire shown to answer out of order or to leave a sentinel unanswered
            // (`needs_quiet_window`): there no question can tell that no answer is coming,
            // and a bounded window is the one way left; `stdio.ordering` says it was used.
            tokio::time::sleep(quiet).await;
            outcome = Some(Outcome::NoResponse);
        }
        if outcome.is_none() {
            let wait = if id.is_some() { timeout } else { quiet };
            let mut eof = self.eof.clone();
            tokio::select! {
                r = tokio::time::timeout(wait, rx) => {
                    outcome = Some(match r {
                        Ok(Ok(())) => Outcome::Answered,
                        Ok(Err(_)) => Outcome::TransportError("reader stopped".into()),
                        Err(_) if id.is_some() => Outcome::TimedOut,
                        Err(_) => Outcome::NoResponse,
                    });
                }
                _ = eof.wait_for(|closed| *closed) => {
                    outcome = Some(Outcome::TransportError(
                        "the server closed stdout (process exited?)".into(),
                    ));
                }
            }
        }
        let entry = if waits_for_response {
            self.lock().pending.remove(&key).unwrap_or_default()
        } else {
            PendingEntry::default()
        };
        let mut outcome = outcome.unwrap_or(Outcome::NoResponse);
        if entry.truncated {
            outcome = Outcome::Truncated;
        } else if entry.response.is_some() {
            outcome = Outcome::Answered;
        }
        let mut evidence = vec![sent_seq];
        evidence.extend(entry.evidence);
        let (mut notifications, mut server_requests) = (entry.notifications, entry.server_requests);
        if let Some(seen) = behind {
            evidence.extend(seen.evidence);
            notifications.extend(seen.notifications);
            server_requests.extend(seen.server_requests);
        }
        Reply {
            evidence,
            outcome,
            response: entry.response,
            notifications,
            server_requests,
            http: None,
            elapsed: started.elapsed(),
            refused: false,
        }
    }

    /// Waits until the server has read and answered everything scout wrote so far: a
    /// sentinel's answer, or (on a wire where a sentinel cannot tell) the `quiet` window.
    /// What arrives meanwhile stays where it would go (the inbox, or its own request).
    pub async fn settle(&self, timeout: Duration, quiet: Duration) {
        if self.needs_quiet_window() {
            // No question can tell on this wire (see `needs_quiet_window`): the bounded
            // window is the one way left, and `stdio.ordering` says it was used.
            self.quiet_windows
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::time::sleep(quiet).await;
            return;
        }
        let era = *self.era.lock().unwrap_or_else(|e| e.into_inner());
        // An unanswered sentinel has already waited the whole timeout: nothing more to wait.
        let _ = self.sentinel(era, timeout, false).await;
    }

    /// Sends a sentinel `ping` and waits (up to `timeout`) for its answer. Everything
    /// that arrives before the answer and names no request of its own is the sentinel's
    /// (the line before it provoked it); its evidence is returned with the sentinel's lines.
    async fn sentinel(&self, era: Option<Era>, timeout: Duration, collects: bool) -> Sentinel {
        use std::sync::atomic::Ordering;
        let n = self.sentinels.fetch_add(1, Ordering::SeqCst) + 1;
        let id = Value::String(format!("{SENTINEL_PREFIX}{n}"));
        let key = id_key(&id);
        let (tx, rx) = oneshot::channel();
        self.lock().pending.insert(
            key.clone(),
            PendingEntry {
                done: Some(tx),
                sentinel: true,
                collects,
                ..PendingEntry::default()
            },
        );
        let mut ping = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        if let Some(params) = self
            .sentinel_params
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        {
            ping["params"] = params;
        }
        let line = ping.to_string();
        let seq = self.recorder.record_now(
            era,
            ExchangeKind::Stdio(StdioMessage {
                direction: Direction::Sent,
                method: Some("ping".into()),
                line: line.clone(),
                not_jsonrpc: false,
            }),
        );
        self.first_sentinel
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(seq);
        let write = async {
            let mut guard = self.stdin.lock().await;
            let stdin = guard.as_mut().ok_or(())?;
            let mut bytes = line.into_bytes();
            bytes.push(b'\n');
            stdin.write_all(&bytes).await.map_err(|_| ())?;
            stdin.flush().await.map_err(|_| ())
        };
        let written = matches!(tokio::time::timeout(timeout, write).await, Ok(Ok(())));
        let mut eof = self.eof.clone();
        let answered = written
            && tokio::select! {
                r = tokio::time::timeout(timeout, rx) => matches!(r, Ok(Ok(()))),
                _ = eof.wait_for(|closed| *closed) => false,
            };
        let entry = self.lock().pending.remove(&key).unwrap_or_default();
        let mut evidence = vec![seq];
        evidence.extend(entry.evidence);
        let end = if answered {
            self.sentinels_answered.fetch_add(1, Ordering::SeqCst);
            SentinelEnd::Answered
        } else if self.stdout_closed() {
            SentinelEnd::Closed
        } else {
            self.sentinel_unanswered
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(seq);
            SentinelEnd::Unanswered
        };
        Sentinel {
            end,
            evidence,
            notifications: entry.notifications,
            server_requests: entry.server_requests,
        }
    }

    /// Closes stdin, shuts the process down (SIGTERM/SIGKILL after `grace` each) and stops
    /// waiting for stdout EOF `grace` after the process exited (a grandchild may hold it).
    pub async fn close(&self, grace: Duration) -> Shutdown {
        let started = Instant::now();
        self.end
            .closing
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.stdin.lock().await.take(); // dropping closes the pipe
        if let Some(h) = self
            .answerer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            h.abort();
        }
        let ending = self.process.shutdown(grace).await;
        let mut eof = self.eof.clone();
        let held = tokio::time::timeout(grace, eof.wait_for(|c| *c))
            .await
            .is_err();
        if held {
            // Whatever still holds stdout is in the group: end it, and stop reading.
            self.process.kill_group();
            if let Some(h) = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take() {
                h.abort();
            }
        }
        Shutdown {
            ending,
            stdout_held_open: held,
            elapsed: started.elapsed(),
        }
    }
}

impl Drop for StdioWire {
    fn drop(&mut self) {
        if let Some(h) = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take() {
            h.abort();
        }
        if let Some(h) = self
            .answerer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            h.abort();
        }
    }
}

/// Writes each queued answer as one line, under the stdin lock every other line takes (so
/// no two lines interleave), until the queue or stdin closes.
async fn write_answers(
    mut queued: tokio::sync::mpsc::Receiver<String>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
) {
    while let Some(line) = queued.recv().await {
        let mut guard = stdin.lock().await;
        let Some(pipe) = guard.as_mut() else {
            return;
        };
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if pipe.write_all(&bytes).await.is_err() || pipe.flush().await.is_err() {
            return;
        }
    }
}

/// Reads stdout to EOF, one capped line at a time.
async fn read_loop(
    mut stdout: ChildStdout,
    router: Arc<Mutex<Router>>,
    recorder: Recorder,
    era: Arc<Mutex<Option<Era>>>,
    max_line: usize,
    eof: watch::Sender<bool>,
    end: Arc<EndWatch>,
) {
    let mut buf = [0u8; 16 * 1024];
    let mut lines = LineSplitter::new(max_line);
    let mut handle = |line: &[u8], cut: bool| {
        let text = String::from_utf8_lossy(line).into_owned();
        handle_line(&router, &recorder, &era, text, cut);
    };
    loop {
        let n = match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        lines.feed(&buf[..n], &mut handle);
    }
    lines.finish(&mut handle);
    use std::sync::atomic::Ordering::SeqCst;
    if !end.closing.load(SeqCst) {
        *end.exited_after.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(end.last_written.load(SeqCst));
    }
    let _ = eof.send(true);
}

/// Splits a byte stream into newline-terminated lines of at most `max` bytes. A longer line
/// is handed on cut to `max` bytes and flagged; the rest of it, up to its newline, is
/// discarded. Holds at most `max` bytes between calls, however the stream is chunked.
#[derive(Debug)]
pub struct LineSplitter {
    max: usize,
    line: Vec<u8>,
    overflow: bool,
}

impl LineSplitter {
    /// A splitter for lines of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        LineSplitter {
            max,
            line: Vec::new(),
            overflow: false,
        }
    }

    /// Feeds bytes; `emit(line, cut)` is called for each line they complete (without its
    /// `\n`; a `\r` before it is left to the caller).
    pub fn feed(&mut self, mut bytes: &[u8], emit: &mut impl FnMut(&[u8], bool)) {
        while let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            let part = &bytes[..i];
            if self.line.is_empty() && !self.overflow {
                // The whole line is in this chunk: no copy.
                let take = part.len().min(self.max);
                emit(&part[..take], take < part.len());
            } else {
                self.push(part);
                emit(&self.line, self.overflow);
                self.line.clear();
                self.overflow = false;
            }
            bytes = &bytes[i + 1..];
        }
        self.push(bytes);
    }

    /// The stream ended: a last line without a newline is handed on too.
    pub fn finish(&mut self, emit: &mut impl FnMut(&[u8], bool)) {
        if !self.line.is_empty() {
            emit(&self.line, self.overflow);
        }
        self.line.clear();
        self.overflow = false;
    }

    fn push(&mut self, part: &[u8]) {
        let room = self.max.saturating_sub(self.line.len());
        let take = room.min(part.len());
        self.line.extend_from_slice(&part[..take]);
        if take < part.len() {
            self.overflow = true; // keep discarding until the next newline
        }
    }
}

/// True when a line is a JSON array of JSON-RPC messages: a batch answer (2025-03-26
/// batching), protocol traffic judged by `protocol.batch`, not stray output.
fn is_batch(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| {
        v.as_array().is_some_and(|items| {
            !items.is_empty()
                && items
                    .iter()
                    .all(|i| i.is_object() && i.get("jsonrpc").is_some())
        })
    })
}

fn handle_line(
    router: &Arc<Mutex<Router>>,
    recorder: &Recorder,
    era: &Arc<Mutex<Option<Era>>>,
    text: String,
    truncated: bool,
) {
    let text = text.strip_suffix('\r').map(str::to_string).unwrap_or(text);
    if text.trim().is_empty() && !truncated {
        return;
    }
    let parsed = (!truncated)
        .then(|| serde_json::from_str::<Value>(&text).ok())
        .flatten()
        .filter(|v| v.is_object() && v.get("jsonrpc").is_some());
    let method = parsed
        .as_ref()
        .and_then(|v| v.get("method"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let era = *era.lock().unwrap_or_else(|e| e.into_inner());
    let not_jsonrpc = parsed.is_none() && !truncated && !is_batch(&text);
    let message = |line: String| {
        ExchangeKind::Stdio(StdioMessage {
            direction: Direction::Received,
            method: method.clone(),
            line,
            not_jsonrpc,
        })
    };
    // Routed under the lock, so that what is recorded and what is delivered agree.
    let mut r = router.lock().unwrap_or_else(|e| e.into_inner());
    let Some(msg) = parsed else {
        if truncated {
            // A line over the cap: it belongs to the only request in flight, if any, and
            // answers it (always recorded then); otherwise it is a stray line.
            let stored = format!("{text}[… cut at the size cap]");
            // Only the first such line answers the request (and is always kept): a flood of
            // long lines while one request waits is stray output like any other.
            if let Some(key) = r.sole_open(|_| true)
                && let Some(entry) = r.pending.get_mut(&key)
                && !entry.truncated
                && entry.response.is_none()
            {
                let seq = recorder.record_now(era, message(stored));
                entry.evidence.push(seq);
                entry.truncated = true;
                if let Some(done) = entry.done.take() {
                    let _ = done.send(());
                }
            } else {
                let _ = recorder.offer(era, message(stored));
            }
            return;
        }
        if !not_jsonrpc {
            // A batch answer: the batch probe reads it back from the recorder. Offered within
            // the recorder's caps, like stray output (a flood of them must not grow it).
            let _ = recorder.offer(era, message(text));
            return;
        }
        r.violation_count += 1;
        let Some(seq) = recorder.offer(era, message(text.clone())) else {
            return;
        };
        r.violations.push(Violation {
            seq,
            line: cut_at(text, VIOLATION_KEPT),
        });
        if let Some(key) = r.sole_open(|_| true)
            && let Some(entry) = r.pending.get_mut(&key)
        {
            entry.evidence.push(seq);
        }
        return;
    };
    let is_response =
        method.is_none() && (msg.get("result").is_some() || msg.get("error").is_some());
    if is_response {
        let key = msg.get("id").map(id_key).unwrap_or_else(|| "null".into());
        match r.pending.get_mut(&key) {
            // A request already answered by a line over the cap is over, like one that has
            // its response: what comes for it now is late.
            Some(entry) if entry.response.is_none() && !entry.truncated => {
                let seq = recorder.record_now(era, message(text));
                entry.evidence.push(seq);
                entry.response = Some(msg);
                if let Some(done) = entry.done.take() {
                    let _ = done.send(());
                }
            }
            _ => {
                let Some(seq) = recorder.offer(era, message(text)) else {
                    return;
                };
                tracing::debug!(seq, "late or unmatched reply dropped (id {key})");
                if key == "null" {
                    // Before a sentinel's answer it is what the line before the sentinel
                    // provoked (cited with it); with no sentinel open it came after one,
                    // so on this wire a sentinel cannot tell that no answer is coming.
                    match r
                        .pending
                        .values_mut()
                        .find(|e| e.sentinel && e.collects && e.response.is_none())
                    {
                        Some(window) => window.evidence.push(seq),
                        None => {
                            r.out_of_order.get_or_insert(seq);
                        }
                    }
                }
                r.late.push(seq);
                push_inbox(&mut r, seq, msg);
            }
        }
        return;
    }
    // A notification or a server→client request: attribute it to a request still waiting
    // for its response. One whose response already arrived is over: anything for it now
    // came after the result and goes to the inbox (where `execution.progress` looks).
    let seq = recorder.offer(era, message(text));
    let params = msg.get("params");
    let token = params.and_then(|p| p.get("progressToken")).cloned();
    let request_id = params.and_then(|p| p.get("requestId")).map(id_key);
    // 2026-07-28 subscriptions: every message of a subscription carries the id of the
    // subscriptions/listen request that opened it.
    let subscription = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        .map(id_key);
    let sole = r.sole_open(|e| e.response.is_none());
    let target = r
        .pending
        .iter()
        .filter(|(_, e)| e.response.is_none())
        .find(|(k, e)| {
            request_id.as_deref() == Some(k.as_str())
                || subscription.as_deref() == Some(k.as_str())
                || (token.is_some() && e.progress_token == token)
        })
        .map(|(k, _)| k.clone())
        .or(sole);
    // A request of the server's is answered at once, recorded or not (past the recorder's
    // caps too): the request of scout's it came during waits for it.
    let answered = if is_server_request(&msg) {
        answer(&mut r, recorder, era, &msg, target.as_deref(), seq)
    } else {
        None
    };
    let Some(seq) = seq else {
        return;
    };
    match target.and_then(|k| r.pending.get_mut(&k)) {
        Some(entry) => {
            entry.evidence.push(seq);
            entry.evidence.extend(answered);
            if msg.get("id").is_some() {
                entry.server_requests.push(msg);
            } else {
                entry.notifications.push(msg);
            }
            let seen = entry.notifications.len() + entry.server_requests.len();
            if seen == 1
                && let Some(first) = &entry.first_seen
            {
                first.notify_one();
            }
            if entry.wanted > 0
                && seen >= entry.wanted
                && let Some(done) = entry.done.take()
            {
                let _ = done.send(());
            }
        }
        None => push_inbox(&mut r, seq, msg),
    }
}

/// Queues the persona's answer to the server's `request` (the request of scout's it came
/// during is `target`) and records it; the answer's sequence number when it was kept.
fn answer(
    r: &mut Router,
    recorder: &Recorder,
    era: Option<Era>,
    request: &Value,
    target: Option<&str>,
    request_seq: Option<Seq>,
) -> Option<Seq> {
    let tool = target
        .and_then(|k| r.pending.get(k))
        .and_then(|e| e.tool.clone());
    let response = r.persona.answer(request, tool.as_deref());
    let line = response.to_string();
    let queue = r.answers.as_ref()?;
    if queue.try_send(line.clone()).is_err() {
        tracing::debug!("answer to a server request dropped: the queue is full");
        return None;
    }
    let seq = recorder.offer(
        era,
        ExchangeKind::Stdio(StdioMessage {
            direction: Direction::Sent,
            method: None,
            line,
            not_jsonrpc: false,
        }),
    );
    r.asked.push(Asked {
        request: request.clone(),
        answer: response,
        tool,
        evidence: request_seq.into_iter().chain(seq).collect(),
    });
    seq
}

/// When an exchange ends before its response (see [`StdioWire::exchange`]).
#[derive(Debug, Clone, Default)]
pub struct Until {
    /// After this many messages attributed to the request (0: at its response only).
    pub wanted: usize,
    /// Told when the first such message came.
    pub first: Option<std::sync::Arc<tokio::sync::Notify>>,
}

/// The key of a subscription's id in the `_meta` of its messages (2026-07-28).
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Adds to the inbox, letting the oldest message go past [`INBOX_KEPT`].
fn push_inbox(r: &mut Router, seq: Seq, msg: Value) {
    if r.inbox.len() >= INBOX_KEPT {
        r.inbox.pop_front();
    }
    r.inbox.push_back((seq, msg));
}

/// `text` cut to at most `max` bytes (on a character boundary).
fn cut_at(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

#[cfg(test)]
mod prop_tests {
    //! The router reads whatever a server writes on stdout: any line, in any order, with or
    //! without requests waiting, past the recorder's caps. It never panics, cites only what
    //! the recorder kept, and keeps its own lists bounded. (Public parsers have their
    //! property tests in tests/integration/props.rs.)

    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(32)
    }

    fn id() -> impl Strategy<Value = Value> {
        prop_oneof![
            (0i64..4).prop_map(Value::from),
            "[0-3]".prop_map(Value::from),
            Just(Value::Null),
        ]
    }

    /// What a hostile server writes: JSON-RPC shapes with clashing ids and tokens, garbage,
    /// NULs, CRs, long lines.
    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            id().prop_map(|i| json!({"jsonrpc": "2.0", "id": i, "result": {}}).to_string()),
            id().prop_map(
                |i| json!({"jsonrpc": "2.0", "id": i, "error": {"code": -1}}).to_string()
            ),
            id().prop_map(
                |i| json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": i, "progress": 1}})
                .to_string()
            ),
            id().prop_map(|i| {
                json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage",
                "params": {"requestId": i}})
                .to_string()
            }),
            Just("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]".to_string()),
            Just("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r".to_string()),
            "[^\n]{0,30}",
            Just("\0\0\0".to_string()),
            (0usize..5000).prop_map(|n| "y".repeat(n)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: cases(),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn router_cites_only_what_was_kept(
            lines in proptest::collection::vec((line(), any::<bool>()), 0..120),
            waiting in proptest::collection::vec(id(), 0..3),
            max_exchanges in 1usize..60,
            max_bytes in 300usize..20_000,
        ) {
            let router = Arc::new(Mutex::new(Router::default()));
            for (n, i) in waiting.iter().enumerate() {
                router.lock().unwrap_or_else(|e| e.into_inner()).pending.insert(
                    id_key(i),
                    PendingEntry {
                        progress_token: (n % 2 == 0).then(|| i.clone()),
                        ..PendingEntry::default()
                    },
                );
            }
            let recorder = Recorder::with_limits(1, max_exchanges, max_bytes);
            let era = Arc::new(Mutex::new(None));
            let strays = lines.iter().filter(|(l, t)| !*t && !l.trim().is_empty()
                && serde_json::from_str::<Value>(l.strip_suffix('\r').unwrap_or(l))
                    .ok()
                    .is_none_or(|v| !v.is_object() || v.get("jsonrpc").is_none())
                && !is_batch(l.strip_suffix('\r').unwrap_or(l)))
                .count();
            for (l, truncated) in lines {
                handle_line(&router, &recorder, &era, l, truncated);
            }
            let r = router.lock().unwrap_or_else(|e| e.into_inner());
            let cited = r.violations.iter().map(|v| v.seq)
                .chain(r.inbox.iter().map(|(s, _)| *s))
                .chain(r.late.iter().copied())
                .chain(r.pending.values().flat_map(|e| e.evidence.iter().copied()));
            for seq in cited {
                prop_assert!(recorder.contains(seq), "req#{} cited but not kept", seq);
            }
            prop_assert!(r.inbox.len() <= INBOX_KEPT);
            prop_assert!(r.violations.iter().all(|v| v.line.len() <= VIOLATION_KEPT));
            prop_assert_eq!(r.violation_count, strays);
            // Only responses to waiting requests pass the count cap (one each at most).
            prop_assert!(recorder.len() <= max_exchanges + waiting.len());
        }
    }

    /// Regression (found by `router_cites_only_what_was_kept`): every line over the size
    /// cap was recorded as the answer of the one waiting request, past the recorder's caps,
    /// so a server writing long lines while a request waited grew the recorder without
    /// bound. Only the first answers it now; the rest are stray output, offered like any.
    #[test]
    fn overlong_lines_while_one_request_waits_are_capped() {
        let router = Arc::new(Mutex::new(Router::default()));
        router
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pending
            .insert(id_key(&json!(1)), PendingEntry::default());
        let recorder = Recorder::with_limits(1, 10, 1 << 20);
        let era = Arc::new(Mutex::new(None));
        for _ in 0..100 {
            handle_line(&router, &recorder, &era, "y".repeat(100), true);
        }
        // Its real response after that is late, not a second answer kept past the cap.
        let late = json!({"jsonrpc": "2.0", "id": 1, "result": {}}).to_string();
        handle_line(&router, &recorder, &era, late, false);
        assert_eq!(recorder.len(), 10);
        assert_eq!(recorder.overflow().dropped, 91);
        let r = router.lock().unwrap_or_else(|e| e.into_inner());
        let entry = r.pending.values().next().expect("still waiting");
        assert!(entry.truncated);
        assert_eq!(entry.evidence.len(), 1);
    }
}
