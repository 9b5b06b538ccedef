//! `scout pin [TARGET…] [--config FILE] [--update]`: lists what each server offers an agent
//! and pins it in `scout.lock`, for `security.catalog_pinning` to compare later runs with.
//!
//! New servers are added. A server whose catalogue changed since it was pinned is shown as
//! a diff and left alone (exit 1) unless `--update` is given, which prints the diff it
//! accepts and rewrites the lock. Nothing is written when any server cannot be listed.

use clap::Args;

use crate::cli::CliError;
use crate::cli::args::{ConfigSourceArgs, parse_duration_text};
use crate::cli::connect::{print, runtime};
use crate::client::catalogue::{self, FetchError};
use crate::config::layer::{DurationText, Layer, ServerEntry};
use crate::config::{self, LoadOptions, servers::name_from_target};
use crate::pin::{Lock, PinnedServer, diff, lockfile};
use crate::spec::ServerSpec;

/// `scout pin`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout pin                         pin every server of ./scout.toml in ./scout.lock\n  scout pin --config ci/scout.toml  the lock goes beside the config: ci/scout.lock\n  scout pin everything --update     accept the changes of server `everything`"
)]
pub struct PinArgs {
    /// Servers to pin: names of servers of the config, or http(s) URLs [default: every server of the config]
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub source: ConfigSourceArgs,
    /// Accept changes to servers already pinned: print the diff and rewrite the lock
    #[arg(long)]
    pub update: bool,
    /// Timeout of a single request, e.g. 10s or 500ms [default: 10s]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_text)]
    pub timeout: Option<String>,
}

fn load(args: &PinArgs, target: Option<ServerEntry>) -> Result<config::Loaded, CliError> {
    Ok(config::load(LoadOptions {
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
        flags: Layer {
            timeout: args.timeout.clone().map(DurationText::Text),
            ..Layer::default()
        },
        target,
    })?)
}

/// The servers the targets name, in the order given (every server of the config without
/// targets).
fn select(args: &PinArgs, loaded: &config::Loaded) -> Result<Vec<ServerSpec>, CliError> {
    let configured: Vec<&ServerSpec> = loaded.servers.iter().map(|p| &p.spec).collect();
    if args.targets.is_empty() {
        if configured.is_empty() {
            return Err(CliError::Usage(
                "nothing to pin: the config lists no servers; name a URL (`scout pin URL`) or add [[default.servers]] entries".into(),
            ));
        }
        return Ok(configured.into_iter().cloned().collect());
    }
    let mut out: Vec<ServerSpec> = Vec::new();
    for t in &args.targets {
        let spec = if let Some(s) = configured.iter().find(|s| s.name == *t) {
            (*s).clone()
        } else if t.starts_with("http://") || t.starts_with("https://") {
            let entry = ServerEntry {
                name: name_from_target(Some(t), &[]),
                url: Some(t.clone()),
                ..ServerEntry::default()
            };
            let mut one = load(args, Some(entry))?;
            one.servers.remove(0).spec
        } else {
            let names: Vec<&str> = configured.iter().map(|s| s.name.as_str()).collect();
            return Err(CliError::Usage(format!(
                "`{t}` is neither a server of the config ({}) nor an http(s) URL",
                if names.is_empty() {
                    "it lists none".to_string()
                } else {
                    format!("it lists {}", names.join(", "))
                }
            )));
        };
        if !out.iter().any(|s| s.name == spec.name) {
            out.push(spec);
        }
    }
    Ok(out)
}

/// Runs `scout pin`.
pub fn run(args: PinArgs) -> Result<u8, CliError> {
    let loaded = load(&args, None)?;
    let specs = select(&args, &loaded)?;
    let path = loaded.lock_path.clone();
    let before = std::fs::read_to_string(&path).ok();
    let mut lock: Lock = loaded.lock.clone().unwrap_or_default();

    let rt = runtime()?;
    let listed = rt.block_on(async {
        let mut out = Vec::new();
        for spec in &specs {
            out.push((spec.name.clone(), catalogue::catalogue(spec).await));
        }
        out
    });
    let mut failures = Vec::new();
    let mut config_error = false;
    let mut pinned: Vec<PinnedServer> = Vec::new();
    for (name, result) in listed {
        match result {
            Ok(l) => pinned.push(PinnedServer::from_listed(&name, &l)),
            Err(e) => {
                config_error |= matches!(e, FetchError::Connect { config: true, .. });
                failures.push(format!("server {name}: {e}"));
            }
        }
    }
    if !failures.is_empty() {
        let msg = format!(
            "{}; {} was not changed",
            failures.join("; "),
            path.display()
        );
        return Err(if config_error {
            CliError::Usage(msg)
        } else {
            CliError::Unreachable(msg)
        });
    }

    let mut text = String::new();
    let mut held_back = 0usize;
    for server in pinned {
        match lock.server(&server.name) {
            None => {
                text.push_str(&format!("pinned {}: {}\n", server.name, server.summary()));
                lock.put(server);
            }
            Some(old) => {
                let changes = diff::diff(old, &server);
                if changes.is_empty() {
                    text.push_str(&format!(
                        "{}: unchanged ({})\n",
                        server.name,
                        server.summary()
                    ));
                    lock.put(server);
                    continue;
                }
                let verb = if args.update {
                    "accepted"
                } else {
                    "not accepted"
                };
                text.push_str(&format!(
                    "{}: {} change(s) {verb}:\n",
                    server.name,
                    changes.len()
                ));
                for c in &changes {
                    text.push_str(&format!("  [{}] {}\n", c.severity.as_str(), c.line()));
                }
                if args.update {
                    lock.put(server);
                } else {
                    held_back += changes.len();
                }
            }
        }
    }
    if held_back > 0 {
        text.push_str(&format!(
            "{} was not changed: review the {held_back} change(s) above; if they are intended, run `scout pin --update`\n",
            path.display()
        ));
        print(&text)?;
        return Ok(crate::exit::GATE_FAILED);
    }
    let rendered = lockfile::render(&lock);
    if before.as_deref() == Some(rendered.as_str()) {
        text.push_str(&format!("{} is up to date\n", path.display()));
    } else {
        lockfile::write(&path, &lock).map_err(|e| CliError::Internal(e.to_string()))?;
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    print(&text)?;
    Ok(crate::exit::PASSED)
}
