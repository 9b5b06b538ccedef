//! Our own Server-Sent Events parser (WHATWG "event stream interpretation"), fed chunk by
//! chunk as bytes arrive. It tolerates comments, `retry`, `id` and priming events with empty
//! data, and keeps note of irregularities so the phases can report them.
//!
//! Bounded: the parser holds at most one line and one event's data (the caller caps the
//! bytes it feeds), and keeps at most [`ANOMALIES_KEPT`] notes, each quoting at most
//! [`QUOTED`] characters of the stream.

/// At most this many irregularities are kept (a hostile stream can make one per line).
pub const ANOMALIES_KEPT: usize = 32;
/// At most this many characters of the stream are quoted in one note.
pub const QUOTED: usize = 64;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SseEvent {
    /// The `event:` field, when given (`message` is the default type).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The `id:` field, when given.
    pub id: Option<String>,
    /// At least one `data:` line was present (a priming event has an empty one).
    pub has_data: bool,
}

/// Incremental parser: call [`SseParser::feed`] with each chunk, then
/// [`SseParser::finish`] when the stream ends.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    /// The last byte fed was `\r`: a following `\n` belongs to the same line end.
    pending_cr: bool,
    /// Events dispatched so far.
    pub events: usize,
    /// The last `retry:` value, in milliseconds.
    pub retry_ms: Option<u64>,
    /// Irregularities seen (one sentence each), the first [`ANOMALIES_KEPT`]; add with
    /// [`SseParser::note`].
    pub anomalies: Vec<String>,
    /// Irregularities seen past [`ANOMALIES_KEPT`], counted only.
    pub anomalies_dropped: usize,
    /// Bytes fed so far (a byte-order mark is stripped only at the very start).
    fed: usize,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps note of an irregularity (counted only past [`ANOMALIES_KEPT`]).
    pub fn note(&mut self, what: impl Into<String>) {
        if self.anomalies.len() < ANOMALIES_KEPT {
            self.anomalies.push(what.into());
        } else {
            self.anomalies_dropped += 1;
        }
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in chunk {
            self.fed += 1;
            if self.pending_cr {
                self.pending_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.end_line(&mut out),
                b'\r' => {
                    self.pending_cr = true;
                    self.end_line(&mut out);
                }
                _ => self.buf.push(b),
            }
        }
        out
    }

    /// The stream ended: an event without its terminating blank line is discarded (as
    /// the spec says) and reported.
    pub fn finish(&mut self) {
        if !self.buf.is_empty() || self.current != SseEvent::default() {
            self.note("the stream ended in the middle of an event (no blank line after it)");
            self.buf.clear();
            self.current = SseEvent::default();
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        // A UTF-8 byte-order mark before the first field is not part of it (WHATWG).
        let bom = self.fed == self.buf.len() + 1 && self.buf.starts_with(b"\xEF\xBB\xBF");
        let bytes = if bom { &self.buf[3..] } else { &self.buf[..] };
        let line = String::from_utf8_lossy(bytes).into_owned();
        self.buf.clear();
        if line.is_empty() {
            let ev = std::mem::take(&mut self.current);
            if ev == SseEvent::default() {
                return;
            }
            if !ev.has_data && ev.event.is_some() {
                self.note(format!(
                    "event {:?} had no data line",
                    quote(ev.event.as_deref().unwrap_or("message"))
                ));
            }
            self.events += 1;
            out.push(ev);
            return;
        }
        if line.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f.to_string(), v.strip_prefix(' ').unwrap_or(v).to_string()),
            None => (line.clone(), String::new()),
        };
        match field.as_str() {
            "data" => {
                if self.current.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(&value);
                self.current.has_data = true;
            }
            "event" => self.current.event = Some(value),
            "id" => self.current.id = Some(value),
            "retry" => match value.parse::<u64>() {
                Ok(ms) => self.retry_ms = Some(ms),
                Err(_) => self.note(format!(
                    "retry field with a non-integer value {:?}",
                    quote(&value)
                )),
            },
            other => {
                let what = format!("unknown SSE field {:?} ignored", quote(other));
                self.note(what);
            }
        }
    }
}

/// At most [`QUOTED`] characters of `s`, marked when cut.
fn quote(s: &str) -> String {
    if s.chars().count() <= QUOTED {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(QUOTED).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_data_lines_and_ignores_comments() {
        let mut p = SseParser::new();
        let evs = p.feed(b": keep-alive\nevent: message\ndata: {\"a\":\ndata: 1}\nid: 7\n\n");
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].data, "{\"a\":\n1}");
        assert_eq!(evs[0].id.as_deref(), Some("7"));
        assert!(p.anomalies.is_empty());
    }

    #[test]
    fn split_chunks_and_crlf() {
        let mut p = SseParser::new();
        let mut evs = p.feed(b"data: x\r");
        evs.extend(p.feed(b"\n\r\ndata: y\n"));
        evs.extend(p.feed(b"\n"));
        assert_eq!(
            evs.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["x", "y"]
        );
    }

    #[test]
    fn priming_event_and_retry() {
        let mut p = SseParser::new();
        let evs = p.feed(b"id: 0\nretry: 500\ndata:\n\n");
        assert_eq!(evs.len(), 1);
        assert!(evs[0].has_data && evs[0].data.is_empty());
        assert_eq!(p.retry_ms, Some(500));
    }

    #[test]
    fn reports_event_without_data_and_unfinished_event() {
        let mut p = SseParser::new();
        p.feed(b"event: endpoint\n\ndata: half");
        p.finish();
        assert_eq!(p.anomalies.len(), 2, "{:?}", p.anomalies);
    }
}
