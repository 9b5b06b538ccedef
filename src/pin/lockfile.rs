//! `scout.lock` on disk: written by hand-rolled, deterministic TOML (so the same catalogue
//! always gives the same bytes, and hidden characters are written as visible `\uXXXX`
//! escapes a reviewer can see), read with the `toml` crate, and checked on load: every
//! entry's hash must match the fields written beside it.

use std::path::Path;

use super::{EntryKind, LOCK_VERSION, Lock, PinnedEntry, PinnedServer};

/// Why a lock file could not be used. Always a config problem (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a valid scout.lock: {why}")]
    Invalid { path: String, why: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Characters a reviewer could not see or that would break the file: control characters
/// (newline and tab aside, which the caller handles) and invisible or reordering ones.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

/// One character as a TOML escape.
fn escape_char(c: char, out: &mut String) {
    match c {
        '\u{8}' => out.push_str("\\b"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\u{C}' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", c as u32)),
        c => out.push_str(&format!("\\U{:08X}", c as u32)),
    }
}

/// `s` as a TOML string: a basic string on one line, or a multi-line basic string when it
/// has newlines, with backslashes, the quotes that need it and invisible characters escaped.
pub fn toml_string(s: &str) -> String {
    let multi = s.contains('\n');
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(if multi { "\"\"\"\n" } else { "\"" });
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if !multi => out.push_str("\\\""),
            // In a multi-line string a quote is literal unless it could run into `"""`.
            '"' if chars.get(i + 1).is_none_or(|n| *n == '"') => out.push_str("\\\""),
            '\n' if multi => out.push('\n'),
            '\t' if multi => out.push('\t'),
            c if c == '\t' || needs_escape(c) => escape_char(c, &mut out),
            c => out.push(c),
        }
    }
    out.push_str(if multi { "\"\"\"" } else { "\"" });
    out
}

/// JSON text as a TOML string: verbatim in a literal string (`'…'` or `'''…'''`) when it
/// has no single quote and nothing to escape, else as [`toml_string`].
pub fn toml_json(s: &str) -> String {
    let plain = !s.contains('\'') && !s.chars().any(|c| c != '\n' && needs_escape(c));
    match (plain, s.contains('\n')) {
        (true, false) => format!("'{s}'"),
        (true, true) => format!("'''\n{s}'''"),
        (false, _) => toml_string(s),
    }
}

fn entry(out: &mut String, table: &str, e: &PinnedEntry) {
    out.push_str(&format!("\n[[servers.{table}]]\n"));
    let mut field = |key: &str, v: &Option<String>, json: bool| {
        if let Some(v) = v {
            let value = if json { toml_json(v) } else { toml_string(v) };
            out.push_str(&format!("{key} = {value}\n"));
        }
    };
    field("name", &Some(e.name.clone()), false);
    field("hash", &Some(e.hash.clone()), false);
    field("title", &e.title, false);
    field("description", &e.description, false);
    field("uri_template", &e.uri_template, false);
    field("mime_type", &e.mime_type, false);
    field("annotations", &e.annotations, true);
    field("arguments", &e.arguments, true);
    field("input_schema", &e.input_schema, true);
    field("output_schema", &e.output_schema, true);
}

/// The lock as TOML text. Servers sorted by name, entries by name: the same lock always
/// renders to the same bytes.
pub fn render(lock: &Lock) -> String {
    let mut out = String::from(
        "# scout.lock: the MCP catalogues pinned by `scout pin`. An agent trusts what these\n\
         # servers describe; review every change to this file like code. `scout check` fails\n\
         # security.catalog_pinning when a server's catalogue differs, and\n\
         # `scout pin --update` shows the changes it accepts and rewrites this file.\n",
    );
    out.push_str(&format!("version = {}\n", lock.version));
    let mut servers: Vec<&PinnedServer> = lock.servers.iter().collect();
    servers.sort_by(|a, b| a.name.cmp(&b.name));
    for s in servers {
        out.push_str("\n[[servers]]\n");
        out.push_str(&format!("name = {}\n", toml_string(&s.name)));
        if let Some(i) = &s.instructions {
            out.push_str(&format!("instructions = {}\n", toml_string(i)));
        }
        for (table, list) in [
            ("tools", &s.tools),
            ("prompts", &s.prompts),
            ("resource_templates", &s.resource_templates),
        ] {
            let mut sorted: Vec<&PinnedEntry> = list.iter().collect();
            sorted.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.hash.cmp(&b.hash)));
            for e in sorted {
                entry(&mut out, table, e);
            }
        }
    }
    out
}

/// Parses and verifies lock text (`path` names it in errors).
pub fn parse(text: &str, path: &str) -> Result<Lock, LockError> {
    let invalid = |why: String| LockError::Invalid {
        path: path.to_string(),
        why,
    };
    let lock: Lock = toml::from_str(text).map_err(|e| invalid(e.message().to_string()))?;
    if lock.version != LOCK_VERSION {
        return Err(invalid(format!(
            "it has version {}, this scout reads version {LOCK_VERSION}; delete it and run `scout pin` again",
            lock.version
        )));
    }
    let mut names = std::collections::BTreeSet::new();
    for s in &lock.servers {
        if !names.insert(s.name.as_str()) {
            return Err(invalid(format!("server `{}` is listed twice", s.name)));
        }
        for kind in [
            EntryKind::Tool,
            EntryKind::Prompt,
            EntryKind::ResourceTemplate,
        ] {
            for e in s.entries(kind) {
                let view = e.agent_view(kind).map_err(|why| {
                    invalid(format!(
                        "{} {} of server `{}`: {why}",
                        kind.as_str(),
                        e.name,
                        s.name
                    ))
                })?;
                if super::hash(&view) != e.hash {
                    return Err(invalid(format!(
                        "the hash of {} {} of server `{}` does not match the fields written beside it (edited by hand?); restore the file from version control, or delete it and run `scout pin` again",
                        kind.as_str(),
                        e.name,
                        s.name
                    )));
                }
            }
        }
    }
    Ok(lock)
}

/// Reads the lock at `path`; `Ok(None)` when there is no such file.
pub fn read(path: &Path) -> Result<Option<Lock>, LockError> {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &shown).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(LockError::Read {
            path: shown,
            source,
        }),
    }
}

/// Writes `lock` to `path` atomically (a temporary file renamed into place).
pub fn write(path: &Path, lock: &Lock) -> Result<(), LockError> {
    let err = |source| LockError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    use std::io::Write;
    tmp.write_all(render(lock).as_bytes()).map_err(err)?;
    tmp.flush().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pin::Listed;
    use serde_json::json;

    fn sample() -> Lock {
        let listed = Listed {
            instructions: Some(
                "Use \"echo\" first.\nThen \"\"\"stop\"\"\" \\ here\u{200B}.".into(),
            ),
            tools: vec![
                json!({"name": "zeta", "description": "Last.", "inputSchema": {"type": "object"}}),
                json!({"name": "echo", "title": "Echo", "description": "Echo it 'back'.\r\nTab\there.", "inputSchema": {"type": "object", "properties": {"m": {"type": "string", "description": "x\u{202E}y"}}}, "annotations": {"readOnlyHint": true}}),
            ],
            prompts: vec![json!({"name": "greet", "arguments": [{"name": "who"}]})],
            resource_templates: vec![
                json!({"uriTemplate": "notes://{id}", "mimeType": "text/plain"}),
            ],
        };
        let mut lock = Lock::default();
        lock.put(PinnedServer::from_listed("b", &listed));
        lock.put(PinnedServer::from_listed("a", &Listed::default()));
        lock
    }

    #[test]
    fn renders_deterministically_and_reads_back_what_it_wrote() {
        let lock = sample();
        let text = render(&lock);
        assert_eq!(text, render(&lock.clone()));
        let back = parse(&text, "scout.lock").expect("parses");
        assert_eq!(back, lock);
        assert_eq!(render(&back), text, "byte-identical after a round trip");
        // Names and entries come out sorted.
        assert!(text.find("name = \"a\"") < text.find("name = \"b\""));
        assert!(text.find("name = \"echo\"") < text.find("name = \"zeta\""));
    }

    #[test]
    fn hidden_characters_are_visible_escapes() {
        let text = render(&sample());
        // In TOML strings (instructions) and in JSON texts (schemas) alike.
        assert!(text.contains("\\u200B"), "{text}");
        assert!(text.contains("\\u202e"), "{text}");
        assert!(!text.contains('\u{200B}') && !text.contains('\u{202E}'));
        assert!(!text.contains('\r'));
    }

    #[test]
    fn a_hand_edited_entry_is_refused() {
        let text = render(&sample()).replace("Last.", "Last, and more.");
        let err = parse(&text, "scout.lock").expect_err("hash no longer matches");
        assert!(err.to_string().contains("tool zeta of server `b`"), "{err}");
        let err = parse("version = 9\n", "scout.lock").expect_err("version");
        assert!(err.to_string().contains("version 9"), "{err}");
        let err = parse("version = 1\nbogus = 1\n", "scout.lock").expect_err("unknown key");
        assert!(err.to_string().contains("bogus"), "{err}");
    }

    #[test]
    fn toml_strings_survive_quotes_and_backslashes() {
        for s in [
            "plain",
            "say \"hi\"",
            "ends with a quote\"",
            "two\nlines \"\"\" and \\ and \"",
            "\"\nstarts and ends\n\"",
            "tab\tand bell\u{7}",
            "{\"a\": \"it's\"}",
            "{\n  \"a\": \"\\\" quoted\"\n}",
        ] {
            for doc in [
                format!("v = {}\n", toml_string(s)),
                format!("v = {}\n", toml_json(s)),
            ] {
                let parsed: toml::Table =
                    toml::from_str(&doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
                assert_eq!(parsed["v"].as_str(), Some(s), "{doc}");
            }
        }
    }
}
