//! Catalogue pinning: what an agent reads of a server (its tools, prompts and resource
//! templates, and its instructions) written down in `scout.lock`, so that a change between
//! two releases — a "rug pull" — is caught in CI instead of after users approved the tool.
//!
//! Each entry keeps the fields an agent reads in readable form plus a canonical hash of them
//! (SHA-256 of their JSON with sorted keys). [`lockfile`] reads and writes the TOML file
//! (deterministic, byte-identical for the same catalogue), [`diff`] turns two versions into
//! reviewable changes (descriptions as [`words`] diffs), [`fetch`] lists a live server's catalogue for `scout pin`.
//! Nothing here knows about the command line.

pub mod diff;
pub mod lockfile;
pub mod words;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The lock file's name, beside the config file (or in the working directory).
pub const LOCK_FILE: &str = "scout.lock";
/// The lock format version this scout writes and reads.
pub const LOCK_VERSION: u32 = 1;

/// What kind of catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    Tool,
    Prompt,
    ResourceTemplate,
}

impl EntryKind {
    /// As a person says it ("tool", "resource template").
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Tool => "tool",
            EntryKind::Prompt => "prompt",
            EntryKind::ResourceTemplate => "resource template",
        }
    }

    /// The MCP fields an agent reads, besides `name`: (field, kept as JSON text).
    fn fields(self) -> &'static [(&'static str, bool)] {
        match self {
            EntryKind::Tool => &[
                ("title", false),
                ("description", false),
                ("inputSchema", true),
                ("outputSchema", true),
                ("annotations", true),
            ],
            EntryKind::Prompt => &[
                ("title", false),
                ("description", false),
                ("arguments", true),
            ],
            EntryKind::ResourceTemplate => &[
                ("title", false),
                ("description", false),
                ("uriTemplate", false),
                ("mimeType", false),
            ],
        }
    }
}

/// One pinned tool, prompt or resource template: the readable fields and their hash.
/// Structured fields (schemas, annotations, prompt arguments) are kept as canonical JSON text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedEntry {
    pub name: String,
    /// `sha256:<hex>` of the canonical JSON of the fields below.
    pub hash: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri_template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// One server's pinned catalogue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedServer {
    /// The server's name in the config (its identity in the lock).
    pub name: String,
    /// The server's `instructions`, which the model reads like a description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<PinnedEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PinnedEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<PinnedEntry>,
}

/// The whole lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub version: u32,
    #[serde(default)]
    pub servers: Vec<PinnedServer>,
}

impl Default for Lock {
    fn default() -> Self {
        Lock {
            version: LOCK_VERSION,
            servers: Vec::new(),
        }
    }
}

impl Lock {
    /// The entry of server `name`.
    pub fn server(&self, name: &str) -> Option<&PinnedServer> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Adds or replaces `server`, keeping servers sorted by name.
    pub fn put(&mut self, server: PinnedServer) {
        self.servers.retain(|s| s.name != server.name);
        self.servers.push(server);
        self.servers.sort_by(|a, b| a.name.cmp(&b.name));
    }
}

/// `v` with every object's keys sorted, recursively.
pub fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&o[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// `sha256:<hex>` of the compact canonical JSON of `v`.
pub fn hash(v: &Value) -> String {
    let text = serde_json::to_string(&canonical(v)).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// JSON text a reviewer can read: canonical, pretty for schemas (`pretty`), one line for
/// small objects. Invisible and control characters inside strings are written as `\uXXXX`
/// escapes so they show in a diff.
pub fn json_text(v: &Value, pretty: bool) -> String {
    let c = canonical(v);
    let text = if pretty {
        serde_json::to_string_pretty(&c)
    } else {
        serde_json::to_string(&c)
    }
    .unwrap_or_default();
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if lockfile::needs_escape(ch) && ch != '\n' {
            let mut buf = [0u16; 2];
            for unit in ch.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(ch);
        }
    }
    out
}

/// The name an entry is pinned under: its `name`, else (a template) its `uriTemplate`.
fn pinned_name(entry: &Value) -> String {
    entry
        .get("name")
        .and_then(Value::as_str)
        .or_else(|| entry.get("uriTemplate").and_then(Value::as_str))
        .unwrap_or_default()
        .to_string()
}

/// Starts the hashed object: the name, except for a template pinned under its uriTemplate
/// (which is hashed as the uriTemplate field itself).
fn view_with_name(kind: EntryKind, name: &str, uri_template: Option<&str>) -> Map<String, Value> {
    let mut out = Map::new();
    if !(kind == EntryKind::ResourceTemplate && uri_template == Some(name)) {
        out.insert("name".into(), Value::String(name.to_string()));
    }
    out
}

/// The fields of `entry` an agent reads, as one object (the hashed form).
pub fn agent_view(kind: EntryKind, entry: &Value) -> Value {
    let name = pinned_name(entry);
    let mut out = view_with_name(
        kind,
        &name,
        entry.get("uriTemplate").and_then(Value::as_str),
    );
    for (field, _) in kind.fields() {
        if let Some(v) = entry.get(*field).filter(|v| !v.is_null()) {
            out.insert((*field).to_string(), v.clone());
        }
    }
    Value::Object(out)
}

impl PinnedEntry {
    /// Pins one entry as the server listed it.
    pub fn from_listed(kind: EntryKind, entry: &Value) -> PinnedEntry {
        let view = agent_view(kind, entry);
        let text = |k: &str| view.get(k).and_then(Value::as_str).map(str::to_string);
        let json = |k: &str, pretty: bool| view.get(k).map(|v| json_text(v, pretty));
        PinnedEntry {
            name: pinned_name(entry),
            hash: hash(&view),
            title: text("title"),
            description: text("description"),
            uri_template: text("uriTemplate"),
            mime_type: text("mimeType"),
            annotations: json("annotations", false),
            input_schema: json("inputSchema", true),
            output_schema: json("outputSchema", true),
            arguments: json("arguments", true),
        }
    }

    /// The hashed object again, rebuilt from the readable fields (what the lock says the
    /// agent read). Errors name the field whose JSON text does not parse.
    pub fn agent_view(&self, kind: EntryKind) -> Result<Value, String> {
        let mut out = view_with_name(kind, &self.name, self.uri_template.as_deref());
        for (field, is_json) in kind.fields() {
            let stored = match *field {
                "title" => &self.title,
                "description" => &self.description,
                "uriTemplate" => &self.uri_template,
                "mimeType" => &self.mime_type,
                "annotations" => &self.annotations,
                "inputSchema" => &self.input_schema,
                "outputSchema" => &self.output_schema,
                "arguments" => &self.arguments,
                _ => &None,
            };
            let Some(s) = stored else { continue };
            let v = if *is_json {
                serde_json::from_str(s).map_err(|e| format!("{field} is not JSON ({e})"))?
            } else {
                Value::String(s.clone())
            };
            out.insert((*field).to_string(), v);
        }
        Ok(Value::Object(out))
    }
}

/// Sorted, pinned entries of one list.
fn pin_list(kind: EntryKind, items: &[Value]) -> Vec<PinnedEntry> {
    let mut out: Vec<PinnedEntry> = items
        .iter()
        .map(|e| PinnedEntry::from_listed(kind, e))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.hash.cmp(&b.hash)));
    out
}

/// What the server listed, before pinning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed {
    pub instructions: Option<String>,
    pub tools: Vec<Value>,
    pub prompts: Vec<Value>,
    pub resource_templates: Vec<Value>,
}

impl Listed {
    /// The same lists with every value scout holds as a secret masked wherever it appears
    /// (by value, never by key), so the lock a team commits holds none of them while every
    /// other byte the server sent is pinned and hashed. `scout pin` and `scout check` both
    /// pin through this, so that they hash the same thing.
    pub fn masked(mut self, redactor: &crate::telemetry::redact::Redactor) -> Listed {
        for v in self
            .tools
            .iter_mut()
            .chain(self.prompts.iter_mut())
            .chain(self.resource_templates.iter_mut())
        {
            redactor.values(v);
        }
        self.instructions = self.instructions.map(|i| redactor.text(&i));
        self
    }
}

impl PinnedServer {
    /// Pins what server `name` listed.
    pub fn from_listed(name: &str, listed: &Listed) -> PinnedServer {
        PinnedServer {
            name: name.to_string(),
            instructions: listed.instructions.clone(),
            tools: pin_list(EntryKind::Tool, &listed.tools),
            prompts: pin_list(EntryKind::Prompt, &listed.prompts),
            resource_templates: pin_list(EntryKind::ResourceTemplate, &listed.resource_templates),
        }
    }

    /// The entries of one kind.
    pub fn entries(&self, kind: EntryKind) -> &[PinnedEntry] {
        match kind {
            EntryKind::Tool => &self.tools,
            EntryKind::Prompt => &self.prompts,
            EntryKind::ResourceTemplate => &self.resource_templates,
        }
    }

    /// "3 tools, 1 prompt, 0 resource templates".
    pub fn summary(&self) -> String {
        let n = |count: usize, what: &str| {
            format!("{count} {what}{}", if count == 1 { "" } else { "s" })
        };
        format!(
            "{}, {}, {}",
            n(self.tools.len(), "tool"),
            n(self.prompts.len(), "prompt"),
            n(self.resource_templates.len(), "resource template")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_hash_ignores_key_order_and_fields_an_agent_does_not_read() {
        let a = json!({"name": "echo", "description": "Echo.", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}, "icons": [1]});
        let b = json!({"inputSchema": {"properties": {"m": {"type": "string"}}, "type": "object"}, "description": "Echo.", "name": "echo", "_meta": {"x": 1}});
        let pa = PinnedEntry::from_listed(EntryKind::Tool, &a);
        let pb = PinnedEntry::from_listed(EntryKind::Tool, &b);
        assert_eq!(pa, pb);
        assert!(pa.hash.starts_with("sha256:") && pa.hash.len() == 7 + 64);
        let c = json!({"name": "echo", "description": "Echo!", "inputSchema": {"type": "object"}});
        assert_ne!(PinnedEntry::from_listed(EntryKind::Tool, &c).hash, pa.hash);
    }

    #[test]
    fn readable_fields_rebuild_the_hashed_object() {
        for (kind, entry) in [
            (
                EntryKind::Tool,
                json!({"name": "t", "title": "T", "description": "d\u{200B}", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}),
            ),
            (
                EntryKind::Prompt,
                json!({"name": "p", "description": "d", "arguments": [{"name": "x", "required": true}]}),
            ),
            (
                EntryKind::ResourceTemplate,
                json!({"uriTemplate": "notes://{id}", "description": "d", "mimeType": "text/plain"}),
            ),
        ] {
            let pinned = PinnedEntry::from_listed(kind, &entry);
            let view = pinned.agent_view(kind).expect("parses");
            assert_eq!(hash(&view), pinned.hash, "{kind:?}");
        }
    }

    #[test]
    fn hidden_characters_in_json_text_are_escaped() {
        let t = json_text(&json!({"description": "a\u{200B}b"}), false);
        assert_eq!(t, r#"{"description":"a\u200bb"}"#);
        let back: Value = serde_json::from_str(&t).expect("still JSON");
        assert_eq!(back["description"], "a\u{200B}b");
    }
}
