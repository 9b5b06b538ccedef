//! HAR 1.2 export, one file per server (`--har DIR/<server>.har`).
//!
//! Every recorded exchange becomes one entry, sorted by sequence number, each carrying
//! `_seq` equal to the recorder's number (the number findings cite as evidence).
//!
//! * HTTP exchanges map directly; SSE bodies are kept verbatim in
//!   `response.content.text`. An exchange without a response (connection error, timeout
//!   before headers) has `response.status` 0 and the reason in `_error`.
//! * stdio messages are pseudo-URL entries `stdio://<server>/<method>` (`<method>` is the
//!   JSON-RPC method of the line, `response` for responses, `non-jsonrpc` for lines that
//!   are not JSON-RPC). A line scout **sent** (stdin) is an entry with `request.method`
//!   `STDIN`, the line in `request.postData.text`, and an empty `response` (status 0). A
//!   line scout **received** (stdout) is an entry with `request.method` `STDOUT` and the
//!   line in `response.content.text` (status 200). `_direction` says which.
//!
//! The report is already redacted; nothing here adds data.

use serde::Serialize;
use serde_json::{Value, json};

use crate::report::exchange::{Direction, Exchange, ExchangeKind};
use crate::report::model::ServerReport;

/// Renders the HAR document for one server. Entries are built and written one at a time, so
/// a run with many exchanges does not hold a JSON tree of all of them at once.
pub fn render(report: &ServerReport) -> String {
    let mut exchanges: Vec<&Exchange> = report.exchanges.iter().collect();
    exchanges.sort_by_key(|e| e.seq);
    let har = Har {
        log: Log {
            version: "1.2",
            creator: json!({"name": "scout", "version": env!("CARGO_PKG_VERSION")}),
            pages: [],
            entries: Entries {
                server: &report.name,
                exchanges,
            },
            comment: format!("scout run against {} ({})", report.name, report.target),
        },
    };
    serde_json::to_string_pretty(&har).unwrap_or_else(|_| "{}".into())
}

/// The HAR entries of the exchanges numbered `seqs` (in sequence order; numbers the server
/// did not record are left out): exactly what the HAR file holds for them, for `scout
/// serve`'s evidence view.
pub fn entries_for(report: &ServerReport, seqs: &[crate::report::exchange::Seq]) -> Vec<Value> {
    let mut exchanges: Vec<&Exchange> = report
        .exchanges
        .iter()
        .filter(|e| seqs.contains(&e.seq))
        .collect();
    exchanges.sort_by_key(|e| e.seq);
    exchanges.iter().map(|e| entry(&report.name, e)).collect()
}

/// The HAR document, in the field order of HAR 1.2.
#[derive(Serialize)]
struct Har<'a> {
    log: Log<'a>,
}

#[derive(Serialize)]
struct Log<'a> {
    version: &'static str,
    creator: Value,
    pages: [Value; 0],
    entries: Entries<'a>,
    comment: String,
}

/// The entries, each turned into JSON only while it is written.
struct Entries<'a> {
    server: &'a str,
    exchanges: Vec<&'a Exchange>,
}

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.exchanges.iter().map(|e| entry(self.server, e)))
    }
}

fn headers(h: &[(String, String)]) -> Value {
    Value::Array(
        h.iter()
            .map(|(k, v)| json!({"name": k, "value": v}))
            .collect(),
    )
}

fn query(url: &str) -> Value {
    let pairs: Vec<Value> = url::Url::parse(url)
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| json!({"name": k, "value": v}))
                .collect()
        })
        .unwrap_or_default();
    Value::Array(pairs)
}

fn header_value<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn entry(server: &str, e: &Exchange) -> Value {
    let time = e.duration_ms.max(0.0);
    let started = e
        .started_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let mut v = match &e.kind {
        ExchangeKind::Http(h) => {
            let req_ct = header_value(&h.request_headers, "content-type")
                .unwrap_or("application/json")
                .to_string();
            let resp_ct = header_value(&h.response_headers, "content-type")
                .unwrap_or("")
                .to_string();
            let body = h.response_body.clone().unwrap_or_default();
            let mut entry = json!({
                "startedDateTime": started,
                "time": time,
                "request": {
                    "method": h.method,
                    "url": h.url,
                    "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    "headers": headers(&h.request_headers),
                    "queryString": query(&h.url),
                    "headersSize": -1,
                    "bodySize": h.request_body.as_ref().map(|b| b.len() as i64).unwrap_or(0),
                },
                "response": {
                    "status": h.status.unwrap_or(0),
                    "statusText": h.status.and_then(|s| reqwest::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason()).unwrap_or(""),
                    "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    "headers": headers(&h.response_headers),
                    "content": {"size": body.len(), "mimeType": resp_ct, "text": body},
                    "redirectURL": "",
                    "headersSize": -1,
                    "bodySize": h.response_body.as_ref().map(|b| b.len() as i64).unwrap_or(-1),
                },
                "cache": {},
                "timings": {"send": 0, "wait": time, "receive": 0},
            });
            if let Some(b) = &h.request_body {
                entry["request"]["postData"] = json!({"mimeType": req_ct, "text": b});
            }
            if h.truncated {
                entry["_truncated"] = json!(true);
            }
            if let Some(err) = &h.error {
                entry["_error"] = json!(err);
            }
            entry
        }
        ExchangeKind::Stdio(m) => {
            let kind = match (&m.method, m.not_jsonrpc) {
                (_, true) => "non-jsonrpc".to_string(),
                (Some(method), _) => method.clone(),
                (None, _) => "response".to_string(),
            };
            let url = format!("stdio://{server}/{kind}");
            let sent = m.direction == Direction::Sent;
            let mut entry = json!({
                "startedDateTime": started,
                "time": time,
                "request": {
                    "method": if sent { "STDIN" } else { "STDOUT" },
                    "url": url,
                    "httpVersion": "stdio",
                    "cookies": [],
                    "headers": [],
                    "queryString": [],
                    "headersSize": -1,
                    "bodySize": if sent { m.line.len() as i64 } else { 0 },
                },
                "response": {
                    "status": if sent { 0 } else { 200 },
                    "statusText": "",
                    "httpVersion": "stdio",
                    "cookies": [],
                    "headers": [],
                    "content": {
                        "size": if sent { 0 } else { m.line.len() },
                        "mimeType": "application/json",
                        "text": if sent { "" } else { m.line.as_str() },
                    },
                    "redirectURL": "",
                    "headersSize": -1,
                    "bodySize": if sent { -1 } else { m.line.len() as i64 },
                },
                "cache": {},
                "timings": {"send": 0, "wait": time, "receive": 0},
                "_direction": if sent { "sent" } else { "received" },
            });
            if sent {
                entry["request"]["postData"] =
                    json!({"mimeType": "application/json", "text": m.line});
            }
            if m.not_jsonrpc {
                entry["_notJsonrpc"] = json!(true);
            }
            entry
        }
    };
    v["_seq"] = json!(e.seq);
    if let Some(era) = e.era {
        v["_era"] = json!(era);
    }
    v
}
