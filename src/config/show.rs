//! `scout config show`: the merged configuration with the source of every value. Secrets
//! never appear: `env:` references and token variables are shown by name (never resolved),
//! and literal values of secret-looking headers or child variables are masked.

use serde_json::{Map, Value, json};

use crate::config::layer::{self, KEYS, ServerEntry};
use crate::config::{Loaded, env_keys};

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Built into scout.
    Default,
    /// A profile table of the config file.
    File { path: String, profile: String },
    /// A `SCOUT_*` variable.
    Env(String),
    /// A command-line flag.
    Flag(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File { path, profile } => write!(f, "{path} [{profile}]"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// The layer that set `key` last (the one whose value won), if any did.
pub fn source_of(loaded: &Loaded, key: &str) -> Option<Source> {
    let flags = serde_json::to_value(&loaded.flags).unwrap_or(Value::Null);
    if flags.get(key).is_some() {
        return Some(Source::Flag(format!("--{}", key.replace('_', "-"))));
    }
    if env_keys().contains(&key) {
        let var = format!("SCOUT_{}", key.to_ascii_uppercase());
        if std::env::var_os(&var).is_some() {
            return Some(Source::Env(var));
        }
    }
    if let Some(f) = &loaded.file {
        for profile in [loaded.profile.as_str(), "default"] {
            if f.sets(profile, key) {
                return Some(Source::File {
                    path: f.display.clone(),
                    profile: profile.to_string(),
                });
            }
        }
    }
    let defaults = serde_json::to_value(layer::defaults()).unwrap_or(Value::Null);
    defaults.get(key).map(|_| Source::Default)
}

/// Every set key with its (secret-free) value and source, in `KEYS` order.
fn entries(loaded: &Loaded) -> Vec<(&'static str, Value, String)> {
    let merged = serde_json::to_value(&loaded.merged).unwrap_or(Value::Null);
    let mut out = Vec::new();
    for key in KEYS {
        if *key == "servers" {
            continue;
        }
        if let Some(v) = merged.get(*key) {
            let source = source_of(loaded, key)
                .map(|s| s.to_string())
                .unwrap_or_else(|| "default".into());
            out.push((*key, v.clone(), source));
        }
    }
    out
}

/// The servers that would be checked, with where each was declared.
fn servers(loaded: &Loaded) -> Vec<(Value, String)> {
    let list: Vec<ServerEntry> = loaded.merged.servers.clone().unwrap_or_default();
    let source = source_of(loaded, "servers");
    list.iter()
        .map(|e| {
            let line = loaded
                .servers
                .iter()
                .find(|p| p.spec.name == e.name)
                .and_then(|p| p.spec.anchor.as_ref())
                .filter(|a| loaded.file.as_ref().is_some_and(|f| f.display == a.path))
                .map(|a| format!(" line {}", a.line))
                .unwrap_or_default();
            let src = match &source {
                Some(s) => format!("{s}{line}"),
                None => "default".into(),
            };
            (safe_server(e), src)
        })
        .collect()
}

/// A server entry as JSON with every possible secret replaced by its name or a mask.
fn safe_server(e: &ServerEntry) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        for table in ["headers", "stdio_set"] {
            if let Some(Value::Object(m)) = obj.get_mut(table) {
                for (name, value) in m.iter_mut() {
                    let shown = match value.as_str() {
                        // `env:VAR` is shown as written: the variable's name, never its value.
                        Some(s) if s.starts_with("env:") => s.to_string(),
                        Some(_) if looks_secret(name) => "***".to_string(),
                        Some(s) => s.to_string(),
                        None => "***".to_string(),
                    };
                    *value = Value::String(shown);
                }
            }
        }
    }
    v
}

/// Header or variable names whose values are credentials (never printed).
pub fn looks_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "authorization",
        "cookie",
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "credential",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The text form: one `key = value  # source` line per value, then the servers.
pub fn render_text(loaded: &Loaded) -> String {
    let mut out = String::new();
    let file = loaded
        .file
        .as_ref()
        .map(|f| f.display.clone())
        .unwrap_or_else(|| "none".into());
    out.push_str(&format!(
        "# config file: {file}; profile: {}\n",
        loaded.profile
    ));
    let lines: Vec<(String, String)> = entries(loaded)
        .into_iter()
        .map(|(k, v, s)| (format!("{k} = {}", toml_like(&v)), s))
        .collect();
    let width = lines.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    for (line, source) in lines {
        out.push_str(&format!("{line:<width$}  # {source}\n"));
    }
    let servers = servers(loaded);
    if servers.is_empty() {
        out.push_str("\n# no servers configured: name one with `scout check URL` or `--stdio -- CMD`, or add [[default.servers]]\n");
    }
    for (server, source) in servers {
        out.push_str(&format!("\n[[servers]]  # {source}\n"));
        if let Some(obj) = server.as_object() {
            for (k, v) in obj {
                out.push_str(&format!("{k} = {}\n", toml_like(v)));
            }
        }
    }
    out
}

/// The JSON form: `{file, profile, values: {key: {value, source}}, servers: [{…, source}]}`.
pub fn render_json(loaded: &Loaded) -> String {
    let mut values = Map::new();
    for (k, v, s) in entries(loaded) {
        values.insert(k.to_string(), json!({ "value": v, "source": s }));
    }
    let servers: Vec<Value> = servers(loaded)
        .into_iter()
        .map(|(v, s)| json!({ "value": v, "source": s }))
        .collect();
    let doc = json!({
        "file": loaded.file.as_ref().map(|f| f.display.clone()),
        "profile": loaded.profile,
        "values": values,
        "servers": servers,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// A compact TOML-looking rendering of a JSON value (strings quoted, inline tables).
fn toml_like(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let inner: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{} = {}", quote_key(k), toml_like(v)))
                .collect();
            format!("{{ {} }}", inner.join(", "))
        }
        Value::Array(a) => {
            let inner: Vec<String> = a.iter().map(toml_like).collect();
            format!("[{}]", inner.join(", "))
        }
        other => other.to_string(),
    }
}

fn quote_key(k: &str) -> String {
    if k.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked_or_named() {
        let mut e = ServerEntry {
            name: "a".into(),
            url: Some("http://127.0.0.1:1/mcp".into()),
            ..ServerEntry::default()
        };
        e.headers = Some(
            [
                ("Authorization".to_string(), "Bearer hunter2".to_string()),
                ("X-Api-Key".to_string(), "env:API_KEY".to_string()),
                ("X-Tenant".to_string(), "ci".to_string()),
            ]
            .into_iter()
            .collect(),
        );
        let text = safe_server(&e).to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains("env:API_KEY"), "{text}");
        assert!(text.contains("\"ci\""), "{text}");
    }
}
