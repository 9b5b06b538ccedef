//! The NDJSON event log (`--events FILE`): one JSON object per line, in this order for
//! each server: a `server` event, its `exchange` events (by sequence number), its
//! `finding` events; then one `run` event with the gate result. Built from the finished,
//! redacted [`Report`], so it carries nothing the report does not.

use serde_json::{Value, json};

use crate::report::model::Report;

/// Renders the event log (each line ends with `\n`).
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let mut push = |v: Value| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    for s in &report.servers {
        push(json!({
            "event": "server",
            "run_id": report.run_id,
            "server": s.name,
            "target": s.target,
            "transport": s.transport,
            "era": s.era,
            "protocol_versions": s.protocol_versions,
            "score": s.score,
            "blocked": s.blocked,
            "interrupted": s.interrupted,
            "internal_errors": s.internal_errors,
        }));
        let mut ex: Vec<_> = s.exchanges.iter().collect();
        ex.sort_by_key(|e| e.seq);
        for e in ex {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("event".into(), json!("exchange"));
                o.insert("server".into(), json!(s.name));
            }
            push(v);
        }
        for f in &s.findings {
            let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
            if let Some(o) = v.as_object_mut() {
                o.insert("event".into(), json!("finding"));
                o.insert("server".into(), json!(s.name));
            }
            push(v);
        }
    }
    push(json!({
        "event": "run",
        "run_id": report.run_id,
        "scout_version": report.scout_version,
        "duration_ms": report.duration_ms,
        "gate": report.gate,
    }));
    out
}
