//! Reading `scout.toml`: strict validation with the `toml` crate (so an unknown key is
//! reported with the file and line), and the line of every `[[<profile>.servers]]` entry for
//! report anchors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::ConfigError;
use crate::config::layer::Layer;

/// A config file that was found and validated.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The path as opened.
    pub path: PathBuf,
    /// The path as shown in messages and anchors: relative to the current directory when the
    /// file is below it.
    pub display: String,
    /// Every profile table, as written.
    pub tables: BTreeMap<String, toml::Table>,
    /// (profile, server name) → 1-based line of its `[[<profile>.servers]]` header.
    pub server_lines: BTreeMap<(String, String), u32>,
}

impl ConfigFile {
    /// True when `profile` sets `key` in this file.
    pub fn sets(&self, profile: &str, key: &str) -> bool {
        self.tables
            .get(profile)
            .is_some_and(|t| t.contains_key(key))
    }
}

/// Reads and validates `path`. `explicit` says whether it was named with `--config` (then a
/// missing file is an error; the implicit `./scout.toml` may be absent).
pub fn read(path: &Path, explicit: bool) -> Result<Option<ConfigFile>, ConfigError> {
    let display = display_path(path);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => return Ok(None),
        Err(e) => {
            return Err(ConfigError::new(format!(
                "cannot read config file {display}: {e}; check the --config path"
            )));
        }
    };
    let tables: BTreeMap<String, toml::Table> = match toml::from_str::<toml::Table>(&text) {
        Err(e) => return Err(ConfigError::new(describe(&display, &text, &e))),
        Ok(top) => profiles(&display, top)?,
    };
    // Strict pass: every profile table must be a valid layer (unknown keys refused).
    let strict: Result<BTreeMap<String, Layer>, toml::de::Error> = toml::from_str(&text);
    if let Err(e) = strict {
        return Err(ConfigError::new(describe(&display, &text, &e)));
    }
    Ok(Some(ConfigFile {
        path: path.to_path_buf(),
        server_lines: server_lines(&text),
        display,
        tables,
    }))
}

/// The top level must hold only profile tables; keys that belong inside a profile (a common
/// slip: `fail_under = 80` or `[checks]` at the top) get a pointed message.
fn profiles(display: &str, top: toml::Table) -> Result<BTreeMap<String, toml::Table>, ConfigError> {
    let mut out = BTreeMap::new();
    for (name, value) in top {
        let is_key = crate::config::layer::KEYS.contains(&name.as_str());
        // figment gives a `global` profile precedence over the selected one; a table of that
        // name would silently beat every profile, so it is refused.
        if name == "global" {
            return Err(ConfigError::new(format!(
                "invalid config {display}: `[global]` is a reserved name; put shared settings in [default]"
            )));
        }
        match value {
            toml::Value::Table(t) if !is_key => {
                out.insert(name, t);
            }
            _ => {
                return Err(ConfigError::new(format!(
                    "invalid config {display}: `{name}` is at the top level, but every setting belongs to a profile; write it under [default] (e.g. [default.{name}] or `{name} = …` below [default])"
                )));
            }
        }
    }
    Ok(out)
}

/// One line naming the file, the line and what was wrong.
fn describe(display: &str, text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim().replace('\n', " ");
    let line = e.span().map(|s| line_of(text, s.start));
    let hint = if message.contains("unknown field") {
        "; fix or remove the key (docs/configuration.md lists every key)"
    } else {
        ""
    };
    match line {
        Some(l) => format!("invalid config {display}:{l}: {message}{hint}"),
        None => format!("invalid config {display}: {message}{hint}"),
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> u32 {
    let end = offset.min(text.len());
    let newlines = text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count();
    u32::try_from(newlines + 1).unwrap_or(u32::MAX)
}

#[derive(Deserialize)]
struct SpannedProfile {
    #[serde(default)]
    servers: Vec<toml::Spanned<NameOnly>>,
}

#[derive(Deserialize)]
struct NameOnly {
    #[serde(default)]
    name: String,
}

/// The header line of each server entry. A span may start at the entry's first key, so we
/// walk back to the nearest `[[` header above it.
fn server_lines(text: &str) -> BTreeMap<(String, String), u32> {
    let mut lines = BTreeMap::new();
    let Ok(profiles) = toml::from_str::<BTreeMap<String, SpannedProfile>>(text) else {
        return lines;
    };
    let all: Vec<&str> = text.lines().collect();
    for (profile, p) in profiles {
        for entry in p.servers {
            let mut line = line_of(text, entry.span().start) as usize;
            while line > 1
                && !all
                    .get(line - 1)
                    .is_some_and(|l| l.trim_start().starts_with("[["))
            {
                line -= 1;
            }
            let line = u32::try_from(line).unwrap_or(1);
            lines.insert((profile.clone(), entry.into_inner().name), line);
        }
    }
    lines
}

/// The path relative to the current directory when it lies below it (anchors must be
/// repository-relative, never machine-specific).
pub fn display_path(path: &Path) -> String {
    let relative = if path.is_absolute() {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    let s = relative.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[default]\nfail_under = 80\n\n[[default.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:1/mcp\"\n\n[[default.servers]]\n# comment\nname = \"b\"\ncommand = [\"x\"]\n\n[ci]\n[[ci.servers]]\nname = \"a\"\nurl = \"http://127.0.0.1:2/mcp\"\n";

    #[test]
    fn finds_server_header_lines() {
        let lines = server_lines(TEXT);
        assert_eq!(lines.get(&("default".into(), "a".into())), Some(&4));
        assert_eq!(lines.get(&("default".into(), "b".into())), Some(&8));
        assert_eq!(lines.get(&("ci".into(), "a".into())), Some(&14));
    }

    #[test]
    fn unknown_key_names_key_file_and_line() {
        let text = "[default]\nfail_under = 80\nfail_undr = 3\n";
        let e = toml::from_str::<BTreeMap<String, Layer>>(text).expect_err("unknown key");
        let msg = describe("scout.toml", text, &e);
        assert!(msg.contains("scout.toml:3"), "{msg}");
        assert!(msg.contains("fail_undr"), "{msg}");
    }
}
