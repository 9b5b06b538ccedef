//! Snapshots (`scout check --snapshots DIR`): the server's catalogue and the results of the
//! read-only tool calls this run made, written one file per item and compared on later runs,
//! as insta does for a test's output (docs/expectations.md, "Snapshots").
//!
//! Layout: `DIR/<server>/<kind>/<name>.json` with kind `tools`, `prompts`, `resources`,
//! `resource_templates` or `calls`, one file per name ([`file_name`]). A catalogue entry is written in `scout pin`'s canonical
//! form (`pin::agent_view` then `pin::json_text`), so a snapshot and the lock never disagree
//! on what the server offered. A call file holds the arguments sent and the result.
//!
//! Before comparing, values that change from run to run are masked: the config's JSONPath
//! patterns (replaced by `"[ignored]"`) and, inside every string, UUIDs (`[uuid]`) and
//! ISO-8601 / RFC 3339 date-times (`[timestamp]`). A missing snapshot is written as a pending
//! `<name>.json.new` and is not a failure; a different one is a fail with a unified diff and a
//! `.new` beside it; `--update-snapshots` writes every file and removes the `.new` ones.
//!
//! What is gone counts as much as what changed: every stored file of the server's folder
//! that no item of this run maps to (a tool removed, a list now empty) is a difference, as
//! insta reports unreferenced snapshots. It is marked `<name>.json.gone` for review, and
//! removed by `--update-snapshots` or `scout snapshots accept`.

use std::collections::{BTreeMap, BTreeSet};
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
        "With --snapshots DIR, the catalogue (tools, prompts, resources, resource templates) and the result of every read-only tool call of the run are written one file per item and compared with the files of an earlier run, after masking the config's ignore patterns, UUIDs and ISO-8601 date-times. A difference is a fail with a unified diff, and so is a stored file that no item of this run maps to (marked .gone); a missing snapshot is written as a pending .new file. See docs/expectations.md.",
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

/// The suffix of a pending removal: a stored snapshot that no item of the run maps to gets
/// `<name>.json.gone` beside it, saying why; `scout snapshots accept` removes both.
pub const GONE: &str = ".gone";

/// The name an item was stored under before names were made one-to-one: every character
/// outside `[A-Za-z0-9._-]` replaced by `_` (a name that is empty or only dots: `_`).
fn replaced_name(name: &str) -> String {
    crate::report::file::safe_file_name(name, "_")
}

/// A file name for an item, one per name: the name itself when it is made only of ASCII
/// letters, digits, `.`, `_` and `-` (and is not only dots) and has at most 120 of them;
/// otherwise its first 120 characters with every other character replaced by `_`, then
/// `@` and the first 8 hexadecimal digits of the whole name's SHA-256. A name kept as it is has no `@`, so it never meets a replaced one, and
/// two replaced names that read alike (`x://item/1`, `x://item:1`) differ in their hash.
pub fn file_name(name: &str) -> String {
    use sha2::{Digest, Sha256};
    // Filesystems cap a file name near 255 bytes: a longer name (a long resource URI) kept
    // whole could not be written, and the whole folder would go unassessed. Its first
    // characters and the hash of all of it still give one file per name.
    const KEPT: usize = 120;
    let mut replaced = replaced_name(name);
    if replaced == name && replaced.len() <= KEPT {
        return replaced;
    }
    replaced.truncate(KEPT);
    let hash: String = Sha256::digest(name.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{replaced}@{hash}")
}

/// One item to snapshot: its path under the server's folder and its unmasked value.
struct Item {
    rel: PathBuf,
    /// The path the item had before names were one-to-one (`None`: the same as `rel`).
    legacy: Option<PathBuf>,
    value: Value,
}

impl Item {
    fn new(kind: &str, name: &str, value: Value) -> Self {
        let rel = Path::new(kind).join(format!("{}.json", file_name(name)));
        let legacy = Path::new(kind).join(format!("{}.json", replaced_name(name)));
        Item {
            legacy: (legacy != rel).then_some(legacy),
            rel,
            value,
        }
    }
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
            Item::new(kind, name, value)
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
        items.push(Item::new(
            "calls",
            &tool,
            json!({"tool": tool, "arguments": arguments, "result": result}),
        ));
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
    // The item is back: a removal pending from an earlier run no longer applies.
    let _ = std::fs::remove_file(suffixed(path, GONE));
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
    suffixed(path, PENDING)
}

/// `path` with `suffix` appended to its file name.
pub fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
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
    let scope = Enumerated::of(&catalog);
    let f = settle_all(&spec, &file_name(&s.spec.name), items, &scope);
    s.add(f.evidence(evidence));
}

/// What this run enumerated, so what a stored snapshot without an item may be judged
/// against: only a list read whole can say an item is gone. A narrowed run (`--only`,
/// `--skip`), a list that failed, or a read-only call that was not answered this run (not
/// sent, refused by the policy, an error) says nothing about the stored file, which is then
/// kept and reported as not compared.
struct Enumerated {
    /// Folders whose list could not be read whole, with the list method.
    unread: Vec<(&'static str, &'static str)>,
    /// The file names (under the current rule and the old one) of every listed tool.
    tool_files: BTreeSet<String>,
}

impl Enumerated {
    fn of(catalog: &crate::probe::Catalog) -> Self {
        let unread = [
            ("tools", "tools/list"),
            ("prompts", "prompts/list"),
            ("resources", "resources/list"),
            ("resource_templates", "resources/templates/list"),
        ]
        .into_iter()
        .filter(|(_, method)| !catalog.read_whole(method))
        .collect();
        let tool_files = catalog
            .tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .flat_map(|n| [file_name(n), replaced_name(n)])
            .map(|f| format!("{f}.json"))
            .collect();
        Enumerated { unread, tool_files }
    }

    /// `None` when this run can judge the stored file `rel` gone; else why it cannot.
    fn unjudged(&self, rel: &Path) -> Option<String> {
        let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
        let kind = parts.next().unwrap_or_default();
        let file = parts.next().unwrap_or_default();
        let folder = if kind == "calls" {
            "tools"
        } else {
            kind.as_ref()
        };
        if let Some((_, method)) = self.unread.iter().find(|(f, _)| *f == folder) {
            return Some(format!("{method} could not be read whole this run"));
        }
        (kind == "calls" && self.tool_files.contains(file.as_ref())).then(|| {
            "the tool is still listed, but this run has no answered call of it to compare (the execution phase did not run, the policy refused the call, or it got an error)".to_string()
        })
    }
}

fn settle_all(
    spec: &SnapshotSpec,
    server: &str,
    mut items: Vec<Item>,
    scope: &Enumerated,
) -> crate::report::finding::FindingBuilder {
    let base = spec.dir.join(server);
    adopt_legacy(&base, &mut items);
    let (mut same, mut pending, mut written) = (0, Vec::new(), 0);
    let mut changed = Vec::new();
    let mut errors = Vec::new();
    let mut referenced = BTreeSet::new();
    let legacy: Vec<PathBuf> = items.iter().filter_map(|i| i.legacy.clone()).collect();
    for item in items {
        let path = base.join(&item.rel);
        referenced.insert(item.rel.clone());
        let text = text_of(&masked(item.value, &spec.ignore));
        match settle(&path, &text, spec.update) {
            Ok(Outcome::Same) => same += 1,
            Ok(Outcome::Written) => written += 1,
            Ok(Outcome::Pending) => pending.push(item.rel.display().to_string()),
            Ok(Outcome::Changed(diff)) => changed.push((item.rel.display().to_string(), diff)),
            Err(e) => errors.push(e),
        }
    }
    let orphans = match unreferenced(&base, &referenced) {
        Ok(o) => o,
        Err(e) => {
            errors.push(e);
            Vec::new()
        }
    };
    let mut gone = Vec::new();
    let mut unjudged = Vec::new();
    for rel in orphans {
        if let Some(why) = scope.unjudged(&rel) {
            // A removal an earlier run marked is not confirmed by this one: accepting it
            // now would delete a snapshot this run never looked at.
            let _ = std::fs::remove_file(suffixed(&base.join(&rel), GONE));
            unjudged.push(format!("{} ({why})", rel.display()));
            continue;
        }
        let why = why_gone(&rel, &legacy);
        match settle_gone(&base.join(&rel), &why, spec.update) {
            Ok(()) => gone.push(format!("{} ({why})", rel.display())),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return SNAPSHOT.skip(SkipReason::NotAssessed, errors.join("; "));
    }
    let kept = if unjudged.is_empty() {
        String::new()
    } else {
        format!(
            "; {} stored snapshot(s) not compared (kept as they are): {}",
            unjudged.len(),
            unjudged.join(", ")
        )
    };
    if spec.update {
        let removed = if gone.is_empty() {
            String::new()
        } else {
            format!(
                ", {} removed (no item in this run): {}",
                gone.len(),
                gone.join(", ")
            )
        };
        if written > 0 || !gone.is_empty() {
            return SNAPSHOT.pass(format!(
                "{written} snapshot(s) written (--update-snapshots), {same} unchanged{removed}{kept}"
            ));
        }
    }
    if !changed.is_empty() || !gone.is_empty() {
        let mut parts = Vec::new();
        if !changed.is_empty() {
            let names: Vec<&str> = changed.iter().map(|(n, _)| n.as_str()).collect();
            parts.push(format!(
                "{} snapshot(s) differ: {}",
                changed.len(),
                names.join(", ")
            ));
        }
        if !gone.is_empty() {
            parts.push(format!(
                "{} stored snapshot(s) have no item in this run: {}",
                gone.len(),
                gone.join(", ")
            ));
        }
        let diffs: Vec<&str> = changed.iter().map(|(_, d)| d.as_str()).collect();
        return SNAPSHOT.fail(format!(
            "{}; review with `scout snapshots review`, accept with --update-snapshots{kept}{}",
            parts.join("; "),
            if diffs.is_empty() {
                String::new()
            } else {
                format!("\n{}", diffs.join("\n"))
            }
        ));
    }
    if !pending.is_empty() {
        return SNAPSHOT.info(format!(
            "{} new snapshot(s) written as pending .new files ({} matched): {}; accept them with --update-snapshots or `scout snapshots accept`{kept}",
            pending.len(),
            same,
            pending.join(", ")
        ));
    }
    SNAPSHOT.pass(format!("all {same} snapshots match{kept}"))
}

/// Folders written before file names were one-to-one keep their files: an item whose name
/// the old rule changed (a resource URI, a tool name with a space) uses the file stored under
/// that old name, when it has no file under its own yet, no item of the run is named that
/// old name, and no other item of the run had the same old name (then the stored file was
/// one of theirs, overwritten in turn, and belongs to none of them: it is reported as gone).
fn adopt_legacy(base: &Path, items: &mut [Item]) {
    let own: BTreeSet<PathBuf> = items.iter().map(|i| i.rel.clone()).collect();
    let mut shared: BTreeMap<PathBuf, usize> = BTreeMap::new();
    for l in items.iter().filter_map(|i| i.legacy.as_ref()) {
        *shared.entry(l.clone()).or_default() += 1;
    }
    for item in items.iter_mut() {
        let Some(legacy) = &item.legacy else {
            continue;
        };
        if shared.get(legacy) == Some(&1)
            && !own.contains(legacy)
            && !base.join(&item.rel).exists()
            && base.join(legacy).is_file()
        {
            item.rel = legacy.clone();
        }
    }
}

/// Every stored snapshot (`*.json`) under `base` that no item of this run maps to, relative
/// to `base`, sorted. A folder that does not exist yet holds none.
fn unreferenced(base: &Path, referenced: &BTreeSet<PathBuf>) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                walk(&path, base, out)?;
            } else if path.extension().is_some_and(|e| e == "json")
                && let Ok(rel) = path.strip_prefix(base)
            {
                out.push(rel.to_path_buf());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if base.is_dir() {
        walk(base, base, &mut out)
            .map_err(|e| format!("could not read {}: {e}", base.display()))?;
    }
    out.retain(|rel| !referenced.contains(rel));
    out.sort();
    Ok(out)
}

/// Why a stored snapshot has no item in this run, for the finding and the `.gone` file.
fn why_gone(rel: &Path, legacy: &[PathBuf]) -> String {
    let sharing = legacy.iter().filter(|l| l.as_path() == rel).count();
    if sharing > 1 {
        return format!(
            "{sharing} items of this run had this one file name, so it held only the last written; each now has a file of its own"
        );
    }
    let kind = rel
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .unwrap_or_default();
    match kind {
        "tools" => "no such tool in this run",
        "prompts" => "no such prompt in this run",
        "resources" => "no such resource in this run",
        "resource_templates" => "no such resource template in this run",
        "calls" => "no answered call of this read-only tool in this run",
        _ => "no item of this run maps to it",
    }
    .to_string()
}

/// A stored snapshot without an item: removed with `--update-snapshots` (its pending files
/// too), else marked as a pending removal (`.gone`, holding why) for review and accept.
fn settle_gone(path: &Path, why: &str, update: bool) -> Result<(), String> {
    let marker = suffixed(path, GONE);
    if update {
        for p in [path.to_path_buf(), pending_of(path), marker] {
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("could not remove {}: {e}", p.display())),
            }
        }
        return Ok(());
    }
    crate::report::file::write_atomic(&marker, format!("{why}\n").as_bytes())
        .map_err(|e| format!("could not write {}: {e}", marker.display()))
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
        for (name, replaced) in [
            ("../etc/passwd", ".._etc_passwd@"),
            ("..", "_@"),
            ("notes://{id}", "notes____id_@"),
        ] {
            let f = file_name(name);
            assert!(
                f.starts_with(replaced) && f.len() == replaced.len() + 8,
                "{name}: {f}"
            );
            assert!(!f.contains('/') && f != ".." && f != ".", "{f}");
        }
    }

    #[test]
    fn file_names_are_one_per_name_and_plain_names_keep_theirs() {
        for plain in ["echo", "get_weather", "a-b.c", "_"] {
            assert_eq!(file_name(plain), plain);
        }
        let names = ["x://item/1", "x://item:1", "a b", "a_b", "a@b", "", "."];
        let files: BTreeSet<String> = names.iter().map(|n| file_name(n)).collect();
        assert_eq!(files.len(), names.len(), "{files:?}");
        let (long_a, long_b) = ("l".repeat(300), format!("{}m", "l".repeat(299)));
        let (a, b) = (file_name(&long_a), file_name(&long_b));
        assert!(a != b && a.len() < 200 && file_name(&format!("x://{long_a}")).len() < 200);
        assert_eq!(file_name("x://item/1"), file_name("x://item/1"), "stable");
    }

    #[test]
    fn only_what_this_run_enumerated_can_be_judged_gone() {
        let catalog = crate::probe::Catalog {
            tools: vec![json!({"name": "lookup"}), json!({"name": "a b"})],
            unread: vec!["prompts/list"],
            ..Default::default()
        };
        let scope = Enumerated::of(&catalog);
        // A listed tool without an answered call, under either naming rule: not judged.
        for kept in ["calls/lookup.json", "calls/a_b.json", "prompts/greet.json"] {
            assert!(scope.unjudged(Path::new(kept)).is_some(), "{kept}");
        }
        let spaced = format!("calls/{}.json", file_name("a b"));
        assert!(scope.unjudged(Path::new(&spaced)).is_some());
        // A tool no longer listed, from a list read whole: gone, its call too.
        for gone in [
            "calls/removed.json",
            "tools/removed.json",
            "resources/x.json",
        ] {
            assert_eq!(scope.unjudged(Path::new(gone)), None, "{gone}");
        }
        let blind = Enumerated::of(&crate::probe::Catalog {
            unread: vec!["tools/list"],
            ..Default::default()
        });
        assert!(blind.unjudged(Path::new("calls/removed.json")).is_some());
    }

    #[test]
    fn a_stored_file_under_the_old_name_is_kept_unless_two_items_shared_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path();
        std::fs::create_dir_all(base.join("resources")).expect("mkdir");
        for old in ["demo___readme.json", "x___item_1.json"] {
            std::fs::write(base.join("resources").join(old), "{}\n").expect("write");
        }
        let mut items: Vec<Item> = ["demo://readme", "x://item/1", "x://item:1"]
            .into_iter()
            .map(|uri| Item::new("resources", uri, json!({"uri": uri})))
            .collect();
        adopt_legacy(base, &mut items);
        assert_eq!(items[0].rel, Path::new("resources/demo___readme.json"));
        assert_ne!(items[1].rel, items[2].rel);
        assert!(items[1].rel.to_string_lossy().contains('@'));
        let referenced: BTreeSet<PathBuf> = items.iter().map(|i| i.rel.clone()).collect();
        let legacy: Vec<PathBuf> = items.iter().filter_map(|i| i.legacy.clone()).collect();
        let orphans = unreferenced(base, &referenced).expect("readable");
        assert_eq!(orphans, vec![PathBuf::from("resources/x___item_1.json")]);
        assert!(why_gone(&orphans[0], &legacy).starts_with("2 items of this run"));
        assert_eq!(
            why_gone(Path::new("tools/lookup.json"), &legacy),
            "no such tool in this run"
        );
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
