//! Builds the official MCP schema of each revision scout validates messages against.
//!
//! No package on crates.io, npm or PyPI ships the official `schema.json` files, but the
//! `rust-mcp-schema` crate (a build dependency) is generated from them and keeps every
//! definition verbatim, as a JSON block in the doc comment of the type generated for it. This
//! script reads those blocks out of the crate's sources and writes one JSON Schema document
//! per revision to `OUT_DIR`, which `src/probe/protocol/official.rs` compiles in.
//!
//! The blocks differ from the published files only in ways that do not change what validates
//! (an empty `properties: {}` left out, an `additionalProperties: {}` added) and in one that
//! does: the `const` of a few error codes is dropped (typify turns it into a Rust constant),
//! so an error response is held to the shape of an error, not to its exact code; scout's own
//! error-code checks judge the codes.
//!
//! Annotations (`description`, `title`, `$comment`) are left out: they validate nothing.
//!
//! The crate's sources are found, in order, at `SCOUT_MCP_SCHEMA_SRC` (a directory), through
//! the dep-info file cargo wrote when it compiled the build dependency, or by asking
//! `cargo metadata`. A build that finds none, or a crate that lost a definition another one
//! refers to, stops with a message that says so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The revisions scout validates, with the crate's folder for each.
const REVISIONS: &[(&str, &str)] = &[
    ("2024-11-05", "2024_11_05"),
    ("2025-03-26", "2025_03_26"),
    ("2025-06-18", "2025_06_18"),
    ("2025-11-25", "2025_11_25"),
    ("2026-07-28", "2026_07_28"),
];

const CRATE: &str = "rust-mcp-schema";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-env-changed=SCOUT_MCP_SCHEMA_SRC");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let root = match crate_root(&out) {
        Ok(r) => r,
        Err(e) => panic!("cannot find the sources of the {CRATE} crate: {e}"),
    };
    for (revision, folder) in REVISIONS {
        let file = root
            .join("src/generated_schema")
            .join(folder)
            .join("mcp_schema.rs");
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let doc = match schema_document(&text) {
            Ok(d) => d,
            Err(e) => panic!("the {CRATE} schema of {revision} is incomplete: {e}"),
        };
        let doc = without_annotations(doc);
        let target = out.join(format!("mcp-schema-{revision}.json"));
        std::fs::write(&target, serde_json::to_string(&doc).expect("a JSON value"))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
    }
}

/// The document without its annotations (`description`, `title` and `$comment` strings):
/// they validate nothing, and are most of its text, which the binary carries and every run
/// parses. Values that are data, not schemas (`const`, `enum`, `default`, `examples`), are
/// kept as they are.
fn without_annotations(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, x)| {
                    !(matches!(k.as_str(), "description" | "title" | "$comment") && x.is_string())
                })
                .map(|(k, x)| {
                    let x = if matches!(k.as_str(), "const" | "enum" | "default" | "examples") {
                        x
                    } else {
                        without_annotations(x)
                    };
                    (k, x)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_annotations).collect()),
        other => other,
    }
}

/// The directory of the `rust-mcp-schema` crate.
fn crate_root(out: &Path) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("SCOUT_MCP_SCHEMA_SRC") {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = from_dep_info(out) {
        return Ok(dir);
    }
    from_metadata()
}

/// Reads the crate's root file out of the dep-info (`.d`) file cargo wrote beside the
/// compiled build dependency, in a `deps` folder above `OUT_DIR`.
fn from_dep_info(out: &Path) -> Option<PathBuf> {
    let profile = std::env::var("PROFILE").unwrap_or_default();
    let mut folders = Vec::new();
    for a in out.ancestors().take(7) {
        folders.push(a.join("deps"));
        folders.push(a.join(&profile).join("deps"));
    }
    let root_file = "src/rust-mcp-schema.rs";
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !(name.starts_with("rust_mcp_schema-") && name.ends_with(".d")) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            // Paths are separated by spaces, a space inside one escaped as `\ `.
            let unescaped = text.replace("\\ ", "\u{0}");
            for token in unescaped.split_whitespace() {
                let path = token.trim_end_matches(':').replace('\u{0}', " ");
                if let Some(dir) = path.strip_suffix(root_file) {
                    let dir = PathBuf::from(dir);
                    if dir.join("src/generated_schema").is_dir() {
                        return Some(dir);
                    }
                }
            }
        }
    }
    None
}

/// Asks `cargo metadata` (offline: every package the build needs is already there).
fn from_metadata() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?;
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .arg("--manifest-path")
        .arg(Path::new(&manifest).join("Cargo.toml"))
        .output()
        .map_err(|e| format!("cargo metadata did not run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let meta: Value = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == CRATE)
        .and_then(|p| p["manifest_path"].as_str())
        .and_then(|m| Path::new(m).parent().map(Path::to_path_buf))
        .ok_or_else(|| format!("cargo metadata lists no {CRATE} package"))
}

/// Every `(type name, JSON block)` of a generated module, in file order.
fn blocks(text: &str) -> Result<Vec<(String, Value)>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "/// ```json" {
            i += 1;
            continue;
        }
        let mut json = String::new();
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim() != "/// ```" {
            json.push_str(lines[j].trim_start().trim_start_matches("///"));
            json.push('\n');
            j += 1;
        }
        let value: Value = serde_json::from_str(&json)
            .map_err(|e| format!("a schema block at line {} is not JSON: {e}", i + 1))?;
        let name = lines[j..]
            .iter()
            .find_map(|l| type_name(l))
            .ok_or_else(|| format!("no type follows the schema block at line {}", i + 1))?;
        out.push((name, value));
        i = j + 1;
    }
    Ok(out)
}

/// The name a line declares (`pub struct X`, `pub enum X`, `pub type X`).
fn type_name(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let rest = ["struct ", "enum ", "type "]
        .iter()
        .find_map(|k| rest.strip_prefix(k))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// A name without case or underscores: the schema's `JSONRPCRequest` and the generated
/// `JsonrpcRequest` are the same definition.
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every `$ref` target in a value: `(defs key, name)`.
fn refs(v: &Value, out: &mut BTreeSet<(String, String)>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                let mut parts = r.trim_start_matches("#/").splitn(2, '/');
                if let (Some(key), Some(name)) = (parts.next(), parts.next()) {
                    out.insert((key.to_string(), name.to_string()));
                }
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// One revision's document: `{"$schema": …, "$defs"|"definitions": {name: schema}}`, each
/// definition under the name the others refer to it by.
fn schema_document(text: &str) -> Result<Value, String> {
    let blocks = blocks(text)?;
    let mut wanted = BTreeSet::new();
    for (_, b) in &blocks {
        refs(b, &mut wanted);
    }
    let keys: BTreeSet<&str> = wanted.iter().map(|(k, _)| k.as_str()).collect();
    let key = match keys.into_iter().collect::<Vec<_>>().as_slice() {
        [one] => one.to_string(),
        other => return Err(format!("definitions under {other:?}, expected one key")),
    };
    let by_folded: BTreeMap<String, &str> = wanted
        .iter()
        .map(|(_, n)| (folded(n), n.as_str()))
        .collect();
    let mut defs = Map::new();
    for (rust_name, block) in &blocks {
        // typify renames a definition whose name is a Rust prelude type (`Error`).
        let name = by_folded
            .get(&folded(rust_name))
            .or_else(|| {
                rust_name
                    .strip_prefix("Rpc")
                    .and_then(|n| by_folded.get(&folded(n)))
            })
            .map_or(rust_name.as_str(), |n| n);
        defs.entry(name.to_string())
            .or_insert_with(|| block.clone());
    }
    let missing: Vec<&str> = wanted
        .iter()
        .map(|(_, n)| n.as_str())
        .filter(|n| !defs.contains_key(*n))
        .collect();
    if !missing.is_empty() {
        return Err(format!("no definition for {}", missing.join(", ")));
    }
    let dialect = if key == "definitions" {
        "http://json-schema.org/draft-07/schema#"
    } else {
        "https://json-schema.org/draft/2020-12/schema"
    };
    let mut doc = Map::new();
    doc.insert("$schema".into(), Value::String(dialect.into()));
    doc.insert(key, Value::Object(defs));
    Ok(Value::Object(doc))
}
