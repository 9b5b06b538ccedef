//! The outputs of `scout report diff`: the JSON diff (`"schema": "scout/diff/v1"`) and the
//! human text printed on stdout. The Markdown for the pull-request comment is the PR
//! summary of the head run with the diff applied ([`crate::emit::markdown`]).
//!
//! A server without a score shows "not assessed" (JSON `null`) and never has a delta.

use serde_json::{Value, json};

use crate::emit::json::finding_value;
use crate::emit::markdown::delta_text;
use crate::report::diff::{Change, Presence, ReportDiff, delta};

/// The value of the `schema` field of the JSON diff.
pub const SCHEMA: &str = "scout/diff/v1";

fn change_value(c: &Change) -> Value {
    let mut v = finding_value(&c.finding);
    if let Some(o) = v.as_object_mut() {
        o.insert("base_status".into(), json!(c.base.map(|s| s.as_str())));
        o.insert("head_status".into(), json!(c.head.map(|s| s.as_str())));
    }
    v
}

/// Renders the JSON diff (pretty, trailing newline).
pub fn render_json(d: &ReportDiff) -> String {
    let servers: Vec<Value> = d
        .servers
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "presence": s.presence.as_str(),
                "paired_by": s.paired.map(|p| p.as_str()),
                "base_name": s.base_name,
                "base_score": s.base_score,
                "head_score": s.head_score,
                "score_delta": delta(s.base_score, s.head_score),
                "categories": s.categories.iter().map(|c| json!({
                    "phase": c.phase.as_str(),
                    "base": c.base,
                    "head": c.head,
                    "delta": delta(c.base, c.head),
                })).collect::<Vec<_>>(),
                "new": s.new.iter().map(change_value).collect::<Vec<_>>(),
                "fixed": s.fixed.iter().map(change_value).collect::<Vec<_>>(),
                "unverified": s.unverified.iter().map(change_value).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "schema": SCHEMA,
        "base_run_id": d.base_run_id,
        "head_run_id": d.head_run_id,
        "base_label": d.base_label,
        "head_label": d.head_label,
        "paired": !d.unpaired(),
        "new_fails": d.new_fails().len(),
        "gate": {
            "fail_on_new": d.fail_on_new,
            "passed": d.gate_passed(),
        },
        "servers": servers,
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

fn score(s: Option<u8>) -> String {
    s.map(|n| n.to_string())
        .unwrap_or_else(|| "not assessed".into())
}

fn line(kind: &str, c: &Change) -> String {
    let f = &c.finding;
    let status = match (f.status, f.severity) {
        (st, Some(sev)) => format!("{} {}", st.as_str().to_uppercase(), sev.as_str()),
        (st, None) => st.as_str().to_uppercase(),
    };
    let subject = f
        .subject_shown()
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default();
    let era = crate::emit::common::era_label(f)
        .map(|e| format!(" ({e})"))
        .unwrap_or_default();
    let was = match (kind, c.base, c.head) {
        ("new", Some(b), _) => format!(" (was {})", b.as_str()),
        ("fixed", _, Some(h)) => format!(" (now {})", h.as_str()),
        _ => String::new(),
    };
    let counted = if f.counts() { "" } else { " (not counted)" };
    format!(
        "    {kind:<11}{status:<15}{}{subject}{era}: {}{was}{counted}\n",
        f.id, f.title
    )
}

/// The human text printed on stdout.
pub fn render_text(d: &ReportDiff) -> String {
    let mut out = format!(
        "scout report diff: base {} → head {}\n",
        d.base_label, d.head_label
    );
    if d.unpaired() {
        out.push_str("WARNING: no server of the head run was paired with one of the base run (by name, then by target): nothing was compared, and no finding counts as new; give each server the same `name` in both runs\n");
    }
    let new = d.new_fails().len();
    out.push_str(&if !d.fail_on_new {
        "diff gate: none (--fail-on-new not given: new failures do not fail the job)\n\n".to_string()
    } else if new == 0 {
        "diff gate (--fail-on-new): passed, no new failing check on a server of both runs\n\n"
            .to_string()
    } else {
        format!(
            "diff gate (--fail-on-new): FAILED, {new} new failing check(s) on servers of both runs\n\n"
        )
    });
    for s in &d.servers {
        let head = match s.presence {
            Presence::Added => format!("score {} (new server)", score(s.head_score)),
            Presence::Removed => format!("only in the base run (score {})", score(s.base_score)),
            Presence::Both => {
                let dl = delta_text(s.base_score, s.head_score);
                format!(
                    "score {} → {}{}",
                    score(s.base_score),
                    score(s.head_score),
                    if dl.is_empty() {
                        String::new()
                    } else {
                        format!(" ({dl})")
                    }
                )
            }
        };
        out.push_str(&format!("{}  {head}\n", s.name));
        if let (Some(how), Some(base_name)) = (s.paired, &s.base_name) {
            out.push_str(&format!(
                "  compared with {base_name} of the base run ({})\n",
                how.describe()
            ));
        }
        for c in &s.categories {
            if c.base != c.head {
                let dl = delta_text(c.base, c.head);
                out.push_str(&format!(
                    "  {:<13}{} → {}{}\n",
                    c.phase.as_str(),
                    score(c.base),
                    score(c.head),
                    if dl.is_empty() {
                        String::new()
                    } else {
                        format!(" ({dl})")
                    }
                ));
            }
        }
        for c in &s.new {
            out.push_str(&line("new", c));
        }
        for c in &s.fixed {
            out.push_str(&line("fixed", c));
        }
        for c in &s.unverified {
            out.push_str(&line("unverified", c));
        }
        if s.new.is_empty() && s.fixed.is_empty() && s.unverified.is_empty() {
            out.push_str("    no new or fixed problems\n");
        }
        out.push('\n');
    }
    let n = d.new_fails().len();
    out.push_str(&format!("{n} new failing check(s)\n"));
    out
}
