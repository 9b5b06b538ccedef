//! Snapshots (`scout check --snapshots DIR`): the server's catalogue and the results of the
//! read-only tool calls this run made, written one file per item and compared on later runs,
//! as insta does for a test's output (docs/expectations.md, "Snapshots").
//!
//! Layout: `DIR/<server>/<kind>/<name>.json` with kind `tools`, `prompts`, `resources`,
//! `resource_templates` or `calls`. A catalogue entry is written in `scout pin`'s canonical
//! form (`pin::agent_view` then `pin::json_text`), so a snapshot and the lock never disagree
//! on what the server offered. A call file holds the arguments sent and the result.
//!
//! Before comparing, values that change from run to run are masked: the config's JSONPath
//! patterns (replaced by `"[ignored]"`) and, inside every string, UUIDs (`[uuid]`) and
//! ISO-8601 / RFC 3339 date-times (`[timestamp]`). A missing snapshot is written as a pending
//! `<name>.json.new` and is not a failure; a different one is a fail with a unified diff and a
//! `.new` beside it; `--update-snapshots` writes every file and removes the `.new` ones.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use crate::pin::{self, EntryKind};
use crate::probe::session::Session;
use crate::report::exchange::{Seq, jsonrpc_messages};
use crate::report::finding::SkipReason;
use crate::spec::SnapshotSpec;

crate::checks! { phase: Expectations;
    SNAPSHOT = "expect.snapshot", Major, "The server answers as its snapshots say", "",
        "With --snapshots DIR, the catalogue (tools, prompts, resources, resource templates) and the result of every read-only tool call of the run are written one file per item and compared with the files of an earlier run, after masking the config's ignore patterns, UUIDs and ISO-8601 date-times. A difference is a fail with a unified diff; a missing snapshot is written as a pending .new file. See docs/expectations.md.",
        "Review the diff: fix the server, or accept the new state with --update-snapshots (or scout snapshots accept).";
}

/// The suffix of a pending snapshot (insta's habit).
pub const PENDING: &str = ".new";

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
        .expect("a valid pattern")
});
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
        .expect("a valid pattern")
});

/// The built-in masks, applied to every string of `v`.
fn mask_builtin(v: &mut Value) {
    match v {
        Value::String(s) => {
            let t = TIMESTAMP.replace_all(s, "[timestamp]");
            let u = UUID.replace_all(&t, "[uuid]").into_owned();
            *s = u;
        }
        Value::Array(a) => a.iter_mut().for_each(mask_builtin),
        Value::Object(o) => o.values_mut().for_each(mask_builtin),
        _ => {}
    }
}

/// `v` with the config's patterns and the built-in rules masked.
pub fn masked(mut v: Value, ignore: &[String]) -> Value {
    for p in ignore {
        // Patterns were validated when the settings were read.
        let Ok(path) = serde_json_path::JsonPath::parse(p) else {
            continue;
        };
        let pointers: Vec<String> = path
            .query_located(&v)
            .locations()
            .map(|l| l.to_json_pointer())
            .collect();
        for ptr in pointers {
            if let Some(slot) = v.pointer_mut(&ptr) {
                *slot = Value::String("[ignored]".into());
            }
        }
    }
    mask_builtin(&mut v);
    v
}

/// The bytes of one snapshot file: canonical, pretty JSON (pin's form) and a newline.
pub fn text_of(v: &Value) -> String {
    format!("{}\n", pin::json_text(v, true))
}

/// A file name for an item: every character outside `[A-Za-z0-9._-]` becomes `_`, and a
/// name that is empty or only dots becomes `_`.
pub fn file_name(name: &str) -> String {
    crate::report::file::safe_file_name(name, "_")
}

/// One item to snapshot: its path under the server's folder and its unmasked value.
struct Item {
    rel: PathBuf,
    value: Value,
}

/// The catalogue entries of one list, in pin's canonical view.
fn listed(kind: &str, pinned: Option<EntryKind>, entries: &[Value]) -> Vec<Item> {
    entries
        .iter()
        .map(|e| {
            // A resource is known by its URI; names may repeat.
            let key = if kind == "resources" { "uri" } else { "name" };
            let name = e
                .get(key)
                .or_else(|| e.get("name"))
                .or_else(|| e.get("uriTemplate"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let value = match pinned {
                Some(k) => pin::agent_view(k, e),
                None => e.clone(),
            };
            Item {
                rel: Path::new(kind).join(format!("{}.json", file_name(name))),
                value,
            }
        })
        .collect()
}

/// The answered `tools/call` of each read-only tool that was sent first on the first wire
/// (the two eras' wires may answer alike calls differently, e.g. `resultType`, and their
/// request ids overlap), with the exchanges showing it.
fn calls(s: &Session, read_only: &[&str]) -> (Vec<Item>, Vec<Seq>) {
    let era = s.wires.first().map(|w| w.era());
    let exchanges = s.recorder.shared();
    let mut sent: Vec<(Value, String, Value, Seq)> = Vec::new();
    let mut answered: Vec<(Seq, Seq, String, Value, Value)> = Vec::new();
    for e in exchanges.iter().filter(|e| e.era.is_none() || e.era == era) {
        for m in jsonrpc_messages(e) {
            if m.get("method").and_then(Value::as_str) == Some("tools/call") {
                let (Some(tool), Some(id)) = (
                    m.pointer("/params/name").and_then(Value::as_str),
                    m.get("id"),
                ) else {
                    continue;
                };
                let args = m
                    .pointer("/params/arguments")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                sent.push((id.clone(), tool.to_string(), args, e.seq));
            } else if let (Some(id), Some(result)) = (m.get("id"), m.get("result"))
                && let Some(i) = sent.iter().position(|(sid, ..)| sid == id)
            {
                let (_, tool, arguments, at) = sent.remove(i);
                if read_only.contains(&tool.as_str()) {
                    answered.push((at, e.seq, tool, arguments, result.clone()));
                }
            }
        }
    }
    answered.sort_by_key(|(at, ..)| *at);
    let mut items: Vec<Item> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut evidence = Vec::new();
    for (at, back, tool, arguments, result) in answered {
        if seen.contains(&tool) {
            continue;
        }
        evidence.extend([at, back]);
        items.push(Item {
            rel: Path::new("calls").join(format!("{}.json", file_name(&tool))),
            value: json!({"tool": tool, "arguments": arguments, "result": result}),
        });
        seen.push(tool);
    }
    evidence.sort_unstable();
    evidence.dedup();
    (items, evidence)
}

/// What became of one item.
enum Outcome {
    Same,
    Pending,
    Written,
    Changed(String),
}

/// Compares (or writes) one snapshot file.
fn settle(path: &Path, text: &str, update: bool) -> Result<Outcome, String> {
    let pending = pending_of(path);
    let old = std::fs::read_to_string(path).ok();
    let io = |e: std::io::Error, p: &Path| format!("could not write {}: {e}", p.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
    }
    if old.as_deref() == Some(text) {
        let _ = std::fs::remove_file(&pending);
        return Ok(Outcome::Same);
    }
    if update {
        crate::report::file::write_atomic(path, text.as_bytes()).map_err(|e| io(e, path))?;
        let _ = std::fs::remove_file(&pending);
        return Ok(Outcome::Written);
    }
    crate::report::file::write_atomic(&pending, text.as_bytes()).map_err(|e| io(e, &pending))?;
    Ok(match old {
        None => Outcome::Pending,
        Some(old) => Outcome::Changed(unified(&old, text, path)),
    })
}

/// `path` with the pending suffix.
pub fn pending_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(PENDING);
    PathBuf::from(s)
}

/// A unified diff of the stored snapshot and what this run received.
pub fn unified(old: &str, new: &str, path: &Path) -> String {
    let name = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{name} (snapshot)"), &format!("{name} (this run)"))
        .to_string()
}

/// Writes and compares the server's snapshots; one finding for them all.
pub fn run(s: &mut Session) {
    let Some(spec) = s.spec.snapshots.clone() else {
        return;
    };
    let era = s.wires.first().map(|w| w.era());
    let Some(catalog) = s
        .catalogs
        .iter()
        .find(|c| c.era == era)
        .or(s.catalogs.first())
        .cloned()
    else {
        s.add(SNAPSHOT.skip(
            SkipReason::NotAssessed,
            "the server's catalogue was not listed",
        ));
        return;
    };
    let read_only: Vec<&str> = catalog
        .tools
        .iter()
        .filter(|t| t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true)))
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let (call_items, mut evidence) = calls(s, &read_only);
    let mut items = listed("tools", Some(EntryKind::Tool), &catalog.tools);
    items.extend(listed("prompts", Some(EntryKind::Prompt), &catalog.prompts));
    items.extend(listed("resources", None, &catalog.resources));
    items.extend(listed(
        "resource_templates",
        Some(EntryKind::ResourceTemplate),
        &catalog.resource_templates,
    ));
    items.extend(call_items);
    evidence.extend(catalog.evidence.iter().copied());
    let f = settle_all(&spec, &file_name(&s.spec.name), items);
    s.add(f.evidence(evidence));
}

fn settle_all(
    spec: &SnapshotSpec,
    server: &str,
    items: Vec<Item>,
) -> crate::report::finding::FindingBuilder {
    let base = spec.dir.join(server);
    let (mut same, mut pending, mut written) = (0, Vec::new(), 0);
    let mut changed = Vec::new();
    let mut errors = Vec::new();
    for item in items {
        let path = base.join(&item.rel);
        let text = text_of(&masked(item.value, &spec.ignore));
        match settle(&path, &text, spec.update) {
            Ok(Outcome::Same) => same += 1,
            Ok(Outcome::Written) => written += 1,
            Ok(Outcome::Pending) => pending.push(item.rel.display().to_string()),
            Ok(Outcome::Changed(diff)) => changed.push((item.rel.display().to_string(), diff)),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return SNAPSHOT.skip(SkipReason::NotAssessed, errors.join("; "));
    }
    if !changed.is_empty() {
        let names: Vec<&str> = changed.iter().map(|(n, _)| n.as_str()).collect();
        let diffs: Vec<&str> = changed.iter().map(|(_, d)| d.as_str()).collect();
        return SNAPSHOT.fail(format!(
            "{} snapshot(s) differ: {}; review with `scout snapshots review`, accept with --update-snapshots\n{}",
            changed.len(),
            names.join(", "),
            diffs.join("\n")
        ));
    }
    if !pending.is_empty() {
        return SNAPSHOT.info(format!(
            "{} new snapshot(s) written as pending .new files ({} matched): {}; accept them with --update-snapshots or `scout snapshots accept`",
            pending.len(),
            same,
            pending.join(", ")
        ));
    }
    if written > 0 {
        return SNAPSHOT.pass(format!(
            "{written} snapshot(s) written (--update-snapshots), {same} unchanged"
        ));
    }
    SNAPSHOT.pass(format!("all {same} snapshots match"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_timestamps_and_ignored_paths_are_masked() {
        let v = json!({"id": "3f2b8c1e-9a4d-4e2f-8b1a-0c9d8e7f6a5b", "at": "at 2026-12-04T00:38:19.5Z now", "_meta": {"x": 1}, "n": {"_meta": 2, "k": 3}});
        let m = masked(v, &["$.._meta".to_string()]);
        assert_eq!(
            m,
            json!({"id": "[uuid]", "at": "at [timestamp] now", "_meta": "[ignored]", "n": {"_meta": "[ignored]", "k": 3}})
        );
    }

    #[test]
    fn file_names_stay_inside_their_folder() {
        assert_eq!(file_name("../etc/passwd"), ".._etc_passwd");
        assert_eq!(file_name(".."), "_");
        assert_eq!(file_name("notes://{id}"), "notes____id_");
    }

    #[test]
    fn catalogue_snapshot_is_the_pin_canonical_form() {
        let tool = json!({"name": "echo", "description": "Echo.", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}});
        let items = listed("tools", Some(EntryKind::Tool), std::slice::from_ref(&tool));
        let snap = text_of(&masked(items[0].value.clone(), &[]));
        let pinned = pin::PinnedEntry::from_listed(EntryKind::Tool, &tool);
        let from_lock = pinned.agent_view(EntryKind::Tool).expect("parses");
        assert_eq!(snap, text_of(&from_lock));
        assert_eq!(pin::hash(&from_lock), pinned.hash);
    }
}
