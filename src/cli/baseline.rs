//! `scout baseline import expected-failures.yml`: an official conformance suite baseline
//! turned into a scout baseline, so a team that runs the suite today keeps its accepted
//! failures when it runs scout beside it or instead.
//!
//! The file is read as the suite's loader reads it (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12): a YAML mapping with an optional `server` and `client` list (an empty
//! document is an empty baseline); each entry is `scenario` (the whole scenario may fail) or
//! `scenario:check-id` (only that check may fail); a scenario listed both ways, an empty
//! entry, a mapping (`- scenario: check-id`, with a space) or an empty side of the colon is
//! refused. Each server entry becomes one scout entry per scout check that covers it
//! (`probe::conformance`), for every subject; an entry no scout check covers, and every
//! client entry (scout checks servers), is listed on stderr and counted, never dropped
//! silently.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::probe::conformance;
use crate::report::baseline::{Baseline, Entry, VERSION};

/// `scout baseline …`.
#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Turn the official conformance suite's expected-failures.yml into a scout baseline
    #[command(
        after_help = "Lists on stderr every official entry no scout check covers (client scenarios among them).\nExit codes: 0 written · 2 the file cannot be read or is not a valid expected-failures file\n\nExample:\n  scout baseline import expected-failures.yml --server everything -o scout-baseline.toml"
    )]
    Import(ImportArgs),
}

/// `scout baseline import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The official suite's baseline (`server:` and `client:` lists of scenario[:check-id])
    #[arg(value_name = "EXPECTED-FAILURES.yml")]
    pub file: PathBuf,
    /// The scout server name(s) the baseline is for, as in the config or report (repeatable)
    #[arg(long = "server", value_name = "NAME", required = true)]
    pub servers: Vec<String>,
    /// Where to write the scout baseline
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "scout-baseline.toml"
    )]
    pub output: PathBuf,
}

/// One entry of the official file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfficialEntry {
    pub scenario: String,
    pub check: Option<String>,
}

impl OfficialEntry {
    /// As the suite writes it: `scenario` or `scenario:check-id`.
    pub fn label(&self) -> String {
        match &self.check {
            Some(c) => format!("{}:{c}", self.scenario),
            None => self.scenario.clone(),
        }
    }
}

/// The parsed official file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Official {
    pub server: Vec<OfficialEntry>,
    pub client: Vec<OfficialEntry>,
}

/// Parses an expected-failures file as the suite does; the error is one line.
pub fn parse(text: &str) -> Result<Official, String> {
    use serde_yaml_ng::Value;
    let doc: Value = serde_yaml_ng::from_str(text)
        .map_err(|e| format!("not YAML: {}", e.to_string().replace('\n', " ")))?;
    let map = match doc {
        Value::Null => return Ok(Official::default()),
        Value::Mapping(m) => m,
        _ => return Err("expected a mapping with `server` and/or `client` keys".into()),
    };
    let mut out = Official::default();
    for (key, list) in [("server", &mut out.server), ("client", &mut out.client)] {
        let Some(v) = map.get(key) else { continue };
        let Value::Sequence(items) = v else {
            return Err(format!("`{key}` must be a list of scenario names"));
        };
        for item in items {
            let bad = |why: &str| {
                let shown = serde_yaml_ng::to_string(item)
                    .map(|s| s.trim().replace('\n', " "))
                    .unwrap_or_default();
                format!(
                    "`{key}` entry `{shown}` is not `<scenario>` or `<scenario>:<check-id>`: {why}"
                )
            };
            let text = match item {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null => return Err(bad("it is empty")),
                Value::Mapping(m) if m.len() == 1 => {
                    return Err(bad("a per-check entry takes no space after the colon"));
                }
                _ => return Err(bad("it is not a string")),
            };
            let entry = match text.split_once(':') {
                None => OfficialEntry {
                    scenario: text,
                    check: None,
                },
                Some((s, c)) if !s.is_empty() && !c.is_empty() => OfficialEntry {
                    scenario: s.to_string(),
                    check: Some(c.to_string()),
                },
                Some(_) => return Err(bad("both sides of the colon are required")),
            };
            list.push(entry);
        }
        let whole: Vec<&str> = list
            .iter()
            .filter(|e| e.check.is_none())
            .map(|e| e.scenario.as_str())
            .collect();
        if let Some(e) = list
            .iter()
            .find(|e| e.check.is_some() && whole.contains(&e.scenario.as_str()))
        {
            return Err(format!(
                "`{key}` lists `{}` as a whole scenario, so `{}` is redundant; remove one or the other",
                e.scenario,
                e.label()
            ));
        }
    }
    Ok(out)
}

/// An official entry scout could not turn into a scout entry, and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Unmapped {
    pub side: &'static str,
    pub entry: String,
    pub why: String,
}

/// The scout baseline of `official` for `servers`, and what could not be mapped.
pub fn import(official: &Official, servers: &[String], origin: &str) -> (Baseline, Vec<Unmapped>) {
    let mut accepted = Vec::new();
    let mut unmapped = Vec::new();
    for e in &official.server {
        let label = e.label();
        let checks = conformance::checks_for(&e.scenario, e.check.as_deref());
        if checks.is_empty() {
            let why = if conformance::SERVER_SCENARIOS.contains(&e.scenario.as_str()) {
                "no scout check covers it; see docs/conformance.md".to_string()
            } else {
                format!(
                    "not a server scenario of {} {}",
                    conformance::SUITE,
                    conformance::SUITE_VERSION
                )
            };
            unmapped.push(Unmapped {
                side: "server",
                entry: label,
                why,
            });
            continue;
        }
        for server in servers {
            for check in &checks {
                accepted.push(Entry {
                    check: check.to_string(),
                    server: server.clone(),
                    subject: None,
                    era: None,
                    reason: format!("expected failure `{label}` of the official suite's {origin}"),
                    any_subject: true,
                    official: Some(label.clone()),
                });
            }
        }
    }
    for e in &official.client {
        unmapped.push(Unmapped {
            side: "client",
            entry: e.label(),
            why: "a client scenario: scout checks servers".into(),
        });
    }
    accepted.sort();
    accepted.dedup();
    (
        Baseline {
            version: VERSION,
            accepted,
        },
        unmapped,
    )
}

/// Runs the command.
pub fn run(cmd: BaselineCommand) -> Result<u8, CliError> {
    let BaselineCommand::Import(a) = cmd;
    let shown = a.file.display().to_string();
    let text = std::fs::read_to_string(&a.file)
        .map_err(|e| CliError::Usage(format!("cannot read {shown}: {e}")))?;
    let official = parse(&text).map_err(|e| {
        CliError::Usage(format!(
            "{shown} is not a valid expected-failures file: {e}"
        ))
    })?;
    if let Some(s) = a.servers.iter().find(|s| s.trim().is_empty()) {
        return Err(CliError::Usage(format!("--server `{s}` is empty")));
    }
    // The reason names the file, not where it lies on this machine.
    let origin = a
        .file
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().to_string());
    let (baseline, unmapped) = import(&official, &a.servers, &origin);
    baseline
        .save(&a.output)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let mut err = String::new();
    let total = official.server.len() + official.client.len();
    err.push_str(&format!(
        "imported {} of {total} official entries into {} scout entries ({})\n",
        total - unmapped.len(),
        baseline.accepted.len(),
        a.output.display()
    ));
    if !unmapped.is_empty() {
        err.push_str(&format!(
            "{} official entries map to no scout check:\n",
            unmapped.len()
        ));
        for u in &unmapped {
            err.push_str(&format!("  {}: {} ({})\n", u.side, u.entry, u.why));
        }
    }
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(err.as_bytes());
    Ok(crate::exit::PASSED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_parse_as_the_suite_reads_them() {
        let o = parse(
            "server:\n  - tools-list\n  - server-stateless:sep-2575-server-implements-discover\nclient:\n  - sse-retry\n",
        )
        .expect("valid");
        assert_eq!(o.server.len(), 2);
        assert_eq!(o.server[0].check, None);
        assert_eq!(
            o.server[1].label(),
            "server-stateless:sep-2575-server-implements-discover"
        );
        assert_eq!(o.client[0].scenario, "sse-retry");
        assert_eq!(parse("").expect("empty"), Official::default());
        assert_eq!(parse("# nothing\n").expect("comment"), Official::default());
    }

    #[test]
    fn what_the_suite_refuses_is_refused_in_one_line() {
        for (text, says) in [
            ("- tools-list\n", "mapping"),
            ("server: tools-list\n", "must be a list"),
            ("server:\n  - tools-list: foo\n", "no space after the colon"),
            ("server:\n  -\n", "empty"),
            ("server:\n  - ':x'\n", "both sides"),
            (
                "server:\n  - caching\n  - caching:sep-2549-ttl-non-negative\n",
                "redundant",
            ),
            ("server: [unclosed\n", "not YAML"),
        ] {
            let err = parse(text).expect_err(text);
            assert!(err.contains(says), "{text}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn unmapped_entries_are_listed_not_dropped() {
        let o = parse(
            "server:\n  - tools-list:tools-name-format\n  - tools-call-sampling\n  - made-up\nclient:\n  - sse-retry\n",
        )
        .expect("valid");
        let (b, unmapped) = import(&o, &["a".into()], "expected-failures.yml");
        assert_eq!(b.accepted.len(), 1);
        let e = &b.accepted[0];
        assert_eq!(
            (e.check.as_str(), e.server.as_str(), e.any_subject),
            ("catalog.tool_names", "a", true)
        );
        assert_eq!(e.official.as_deref(), Some("tools-list:tools-name-format"));
        let listed: Vec<&str> = unmapped.iter().map(|u| u.entry.as_str()).collect();
        assert_eq!(listed, ["tools-call-sampling", "made-up", "sse-retry"]);
        assert!(unmapped[1].why.contains("not a server scenario"));
        // The baseline it writes reads back as a scout baseline.
        assert_eq!(Baseline::parse(&b.to_toml(), "x").expect("parses"), b);
    }
}
