//! Layered configuration (docs/configuration.md), merged with figment: built-in defaults < file
//! `[default]` < file `[<profile>]` (`--profile` / `SCOUT_PROFILE`) < `SCOUT_*` environment <
//! flags. The result is validated into [`Settings`] and turned into the per-server
//! [`ServerSpec`](crate::spec::ServerSpec)s the runner executes.

pub mod duration;
pub mod expect;
pub mod file;
pub mod layer;
pub mod mcpb;
pub mod server_json;
pub mod servers;
pub mod show;

use std::path::PathBuf;
use std::time::Duration;

use figment::Figment;
use figment::providers::{Env, Format as _, Serialized};

use crate::emit::outputs::Format;
use crate::report::finding::{Phase, Severity};
use crate::report::gate::GateConfig;
use crate::runner::Planned;
pub use file::ConfigFile;
pub use layer::{Layer, ServerEntry};

/// The implicit config file looked for in the current directory.
pub const DEFAULT_FILE: &str = "scout.toml";

/// Top-level keys that may come from `SCOUT_*` variables (tables and server lists may not:
/// they do not fit in one variable). Other `SCOUT_*` variables (`SCOUT_LOG`,
/// `SCOUT_PROFILE`) are not config keys and are left alone.
pub fn env_keys() -> Vec<&'static str> {
    const NOT_FROM_ENV: [&str; 4] = ["fail_under_category", "checks", "client", "servers"];
    layer::KEYS
        .iter()
        .copied()
        .filter(|k| !NOT_FROM_ENV.contains(k))
        .collect()
}

/// A usage or config error: one line saying what was expected, what came and what to do.
/// Always exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl ConfigError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ConfigError(message.into())
    }
}

/// What the command line contributes to loading.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--config FILE` (must exist); `None` = the implicit `./scout.toml`, if any.
    pub config: Option<PathBuf>,
    /// `--profile` / `SCOUT_PROFILE`.
    pub profile: Option<String>,
    /// The flags, as the highest layer (only what was given).
    pub flags: Layer,
    /// A server named on the command line (URL or `--stdio`); replaces the config's list.
    pub target: Option<ServerEntry>,
}

/// The merged, validated configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The run's thresholds (a server's own `fail_under` may replace the overall one).
    pub gate: GateConfig,
    /// Folder for the `formats` reports.
    pub out_dir: Option<PathBuf>,
    /// Reports written into `out_dir`.
    pub formats: Vec<Format>,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Whole-server deadline.
    pub deadline: Duration,
    /// Requests per second towards remote hosts.
    pub rps: f64,
    /// Servers checked at the same time.
    pub jobs: usize,
    /// Requests in flight at once per server.
    pub concurrency: usize,
    /// What scout may do to a server (mutations, destructive tools, the load ramp); a
    /// server's own allow and deny lists are added when its spec is built.
    pub policy: crate::spec::PolicySpec,
    /// Go straight to the handshake path.
    pub skip_era_check: bool,
    /// Treat loopback HTTP servers as remote (rate limit and other remote-host policy).
    pub treat_as_remote: bool,
    /// Response body cap in bytes.
    pub max_body: usize,
    /// Warn when the catalogue costs more tokens than this.
    pub context_warn_tokens: u64,
    /// The handshake revisions the revision matrix asks about (empty = every one).
    pub revisions: Vec<String>,
    /// Phases to run (empty = all).
    pub only: Vec<Phase>,
    /// Phases to skip.
    pub skip: Vec<Phase>,
    /// Host profiles the `compat` category judges (empty = all).
    pub compat: Vec<crate::report::host::HostProfile>,
    /// `[checks] ignore`: (check id, reason).
    pub ignore: Vec<(String, String)>,
    /// Baseline file (refused in this version).
    pub baseline: Option<PathBuf>,
    /// `snapshots`, `update_snapshots`, `snapshot_ignore`; the folder as written (a file's
    /// relative one is resolved against it by [`load`]).
    pub snapshots: Option<crate::spec::SnapshotSpec>,
    /// Top-level credential keys: defaults for HTTP servers that set none of their own.
    pub credentials: layer::CredentialKeys,
    /// `lock` as configured (the default is resolved against the config file by [`load`]).
    pub lock: Option<PathBuf>,
    /// `[client]`: the persona scout plays and its answers.
    pub client: crate::transport::answer::Persona,
    /// `[client] trigger`.
    pub list_trigger: Option<crate::spec::ListTrigger>,
}

/// Everything loading produced: the layers (for `config show`) and the validated result.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The config file, when one was read.
    pub file: Option<ConfigFile>,
    /// The selected profile (`default` when none was named).
    pub profile: String,
    /// The flags layer as given.
    pub flags: Layer,
    /// The merged layer, before validation.
    pub merged: Layer,
    /// The merged layer, validated.
    pub settings: Settings,
    /// The servers to check, in config order (or the one named on the command line).
    pub servers: Vec<Planned>,
    /// True when the servers came from the command line.
    pub target_from_cli: bool,
    /// Where the catalogue lock is (or would be written).
    pub lock_path: PathBuf,
    /// The lock, when that file exists.
    pub lock: Option<crate::pin::Lock>,
}

/// Loads and validates the configuration.
pub fn load(options: LoadOptions) -> Result<Loaded, ConfigError> {
    let (path, explicit) = match &options.config {
        Some(p) => (p.clone(), true),
        None => (PathBuf::from(DEFAULT_FILE), false),
    };
    let file = file::read(&path, explicit)?;
    let profile = select_profile(options.profile.as_deref(), file.as_ref())?;

    let mut figment = Figment::new().merge(Serialized::defaults(layer::defaults()));
    if let Some(f) = &file {
        figment = figment.merge(figment::providers::Toml::file(&f.path).nested());
    }
    let figment = figment
        .merge(Env::prefixed("SCOUT_").only(&env_keys()).global())
        .merge(Serialized::globals(&options.flags))
        .select(profile.as_str());
    let merged: Layer = figment
        .extract()
        .map_err(|e| figment_error(&e, file.as_ref()))?;

    // `schema` paths of expectations are relative to the config file.
    let base = file
        .as_ref()
        .and_then(|f| f.path.parent())
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    // A snapshot folder from the file is relative to it; one from a flag or
    // `SCOUT_SNAPSHOTS` to where scout runs. Figment knows which layer's value won.
    let mut merged = merged;
    if let Some(dir) = &mut merged.snapshots {
        let from_file = figment
            .find_metadata("snapshots")
            .is_some_and(|md| md.source.as_ref().and_then(|s| s.file_path()).is_some());
        if from_file && dir.is_relative() {
            *dir = base.join(&*dir);
        }
    }
    let settings = validate(&merged)?;
    if let Some(path) = &merged.ca_file {
        trust_ca(path)?;
    }
    let target_from_cli = options.target.is_some();
    let entries: Vec<(ServerEntry, Option<crate::report::Anchor>)> = match options.target {
        Some(t) => vec![(t, None)],
        None => merged
            .servers
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|e| {
                let anchor = file.as_ref().and_then(|f| anchor_of(f, &profile, &e.name));
                (e, anchor)
            })
            .collect(),
    };
    let mut servers = servers::plan(entries, &merged, &settings, &options.flags, &base)?;
    let lock_path = lock_path(&settings, file.as_ref());
    let lock =
        crate::pin::lockfile::read(&lock_path).map_err(|e| ConfigError::new(e.to_string()))?;
    attach_pins(&mut servers, &lock_path, lock.as_ref());
    Ok(Loaded {
        file,
        profile,
        flags: options.flags,
        merged,
        settings,
        servers,
        target_from_cli,
        lock_path,
        lock,
    })
}

/// Credentials named by environment variable or file must be readable before anything runs:
/// a missing one is a config error (exit 2), not a finding about the server. Nothing read
/// here is kept: the connector reads the secrets again and registers them for redaction.
pub fn check_secrets(servers: &[Planned]) -> Result<(), ConfigError> {
    use crate::spec::TargetSpec;
    for p in servers {
        let TargetSpec::Http { headers, auth, .. } = &p.spec.target else {
            continue;
        };
        let unreadable = |msg: String| {
            ConfigError(format!(
                "server {}: {msg}; export it (in CI, from a secret) or remove the setting",
                p.spec.name
            ))
        };
        for (name, v) in headers {
            for var in v.env_vars() {
                if std::env::var_os(var).is_none_or(|v| v.is_empty()) {
                    return Err(unreadable(format!(
                        "header {name} is read from the environment variable {var}, which is not set"
                    )));
                }
            }
        }
        for (source, what) in auth.sources() {
            if let Err(e) = source.read(what) {
                return Err(unreadable(e.to_string()));
            }
        }
    }
    Ok(())
}

/// The lock file: `lock` as configured, else `scout.lock` beside the config file, else in
/// the working directory.
pub fn lock_path(settings: &Settings, file: Option<&ConfigFile>) -> PathBuf {
    if let Some(p) = &settings.lock {
        return p.clone();
    }
    file.and_then(|f| f.path.parent())
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(crate::pin::LOCK_FILE))
        .unwrap_or_else(|| PathBuf::from(crate::pin::LOCK_FILE))
}

/// Tells each server what the lock says about it.
fn attach_pins(servers: &mut [Planned], path: &std::path::Path, lock: Option<&crate::pin::Lock>) {
    use crate::spec::PinSpec;
    for p in servers {
        p.spec.pin = match lock {
            None => PinSpec::NoLock,
            Some(l) => match l.server(&p.spec.name) {
                Some(server) => PinSpec::Pinned {
                    lock: path.to_path_buf(),
                    server: server.clone(),
                },
                None => PinSpec::Unpinned {
                    lock: path.to_path_buf(),
                },
            },
        };
    }
}

/// The selected profile: named ones must exist in the file.
fn select_profile(named: Option<&str>, file: Option<&ConfigFile>) -> Result<String, ConfigError> {
    let name = match named.map(str::trim) {
        None | Some("") => return Ok("default".to_string()),
        Some(n) => n,
    };
    if name == "default" {
        return Ok(name.to_string());
    }
    match file {
        Some(f) if f.tables.contains_key(name) => Ok(name.to_string()),
        Some(f) => Err(ConfigError::new(format!(
            "profile `{name}` is not defined in {}: it has {}; add a [{name}] table or pick one of those",
            f.display,
            f.tables
                .keys()
                .map(|k| format!("[{k}]"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        None => Err(ConfigError::new(format!(
            "profile `{name}` was selected (--profile or SCOUT_PROFILE) but there is no config file; create {DEFAULT_FILE} or pass --config FILE"
        ))),
    }
}

/// Where a config server was declared: its entry in the selected profile, else in `[default]`.
fn anchor_of(file: &ConfigFile, profile: &str, name: &str) -> Option<crate::report::Anchor> {
    let line = file
        .server_lines
        .get(&(profile.to_string(), name.to_string()))
        .or_else(|| {
            file.server_lines
                .get(&("default".to_string(), name.to_string()))
        })?;
    Some(crate::report::Anchor {
        path: file.display.clone(),
        line: *line,
    })
}

/// A figment error as one line naming the key and where the bad value came from.
fn figment_error(e: &figment::Error, file: Option<&ConfigFile>) -> ConfigError {
    let key = e
        .path
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(".");
    let origin = match &e.metadata {
        Some(m) => match &m.source {
            Some(figment::Source::File(p)) => file::display_path(p),
            // Name the exact variable, not figment's generic "`SCOUT_` environment".
            _ if m.name.contains("environment") && !key.is_empty() => {
                format!("environment variable SCOUT_{}", key.to_ascii_uppercase())
            }
            _ => m.name.to_string(),
        },
        None => file
            .map(|f| f.display.clone())
            .unwrap_or_else(|| "the configuration".to_string()),
    };
    let key = if key.is_empty() {
        String::new()
    } else {
        format!(" for key `{key}`")
    };
    ConfigError::new(format!("invalid config{key} in {origin}: {}", e.kind))
}

/// Turns a merged layer into typed settings, refusing bad values with the key's name. The
/// one step from text to types: run on the merged layers once, and again for each server
/// whose entry overrides some of them. Changes nothing outside (the `ca_file` is trusted
/// by [`load`]).
fn validate(m: &Layer) -> Result<Settings, ConfigError> {
    let duration = |key: &str, v: &Option<layer::DurationText>, fallback: u64| match v {
        Some(d) => duration::parse(&d.text())
            .map_err(|e| ConfigError::new(format!("invalid `{key}`: {e}"))),
        None => Ok(Duration::from_secs(fallback)),
    };
    let fail_on = match &m.fail_on {
        Some(s) => Some(Severity::parse(s).ok_or_else(|| {
            ConfigError::new(format!(
                "invalid `fail_on`: expected critical, major or minor, got `{s}`"
            ))
        })?),
        None => None,
    };
    if let Some(n) = m.fail_under
        && n > 100
    {
        return Err(ConfigError::new(format!(
            "invalid `fail_under`: expected 0–100, got {n}"
        )));
    }
    let mut fail_under_category = Vec::new();
    for (phase, n) in m.fail_under_category.clone().unwrap_or_default() {
        let p = parse_phase("fail_under_category", &phase)?;
        if n > 100 {
            return Err(ConfigError::new(format!(
                "invalid `fail_under_category.{phase}`: expected 0–100, got {n}"
            )));
        }
        fail_under_category.push((p, n));
    }
    let phases = |key: &str, l: &Option<layer::List>| -> Result<Vec<Phase>, ConfigError> {
        l.as_ref()
            .map(|l| l.items())
            .unwrap_or_default()
            .iter()
            .map(|s| parse_phase(key, s))
            .collect()
    };
    let formats = m
        .formats
        .as_ref()
        .map(|l| l.items())
        .unwrap_or_default()
        .iter()
        .map(|s| {
            Format::parse(s).ok_or_else(|| {
                ConfigError::new(format!(
                    "invalid `formats` entry `{s}`: expected one of {}",
                    Format::ALL
                        .iter()
                        .map(|f| f.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut ignore = Vec::new();
    for entry in m.checks.clone().unwrap_or_default().ignore {
        if crate::probe::registry::lookup(&entry.id).is_none() {
            return Err(ConfigError::new(format!(
                "`[checks] ignore` names `{}`, which is not a check id; see docs/checks.md for the ids",
                entry.id
            )));
        }
        if entry.reason.trim().is_empty() {
            return Err(ConfigError::new(format!(
                "`[checks] ignore` entry `{}` has an empty reason; say why it is ignored",
                entry.id
            )));
        }
        ignore.push((entry.id, entry.reason));
    }
    let jobs = m.jobs.unwrap_or(4);
    if jobs == 0 {
        return Err(ConfigError::new(
            "invalid `jobs`: expected at least 1, got 0",
        ));
    }
    let concurrency = m.concurrency.unwrap_or(crate::spec::DEFAULT_CONCURRENCY);
    if concurrency == 0 {
        return Err(ConfigError::new(
            "invalid `concurrency`: expected at least 1 request in flight, got 0",
        ));
    }
    let rps = m.rps.unwrap_or(2.0);
    if !(rps.is_finite() && rps > 0.0) {
        return Err(ConfigError::new(format!(
            "invalid `rps`: expected a number above 0, got {rps}"
        )));
    }
    Ok(Settings {
        gate: GateConfig {
            fail_under: m.fail_under,
            fail_under_category,
            fail_on,
        },
        out_dir: m.out_dir.clone(),
        formats,
        timeout: duration("timeout", &m.timeout, 10)?,
        deadline: duration("deadline", &m.deadline, 120)?,
        rps,
        jobs,
        concurrency,
        policy: crate::spec::PolicySpec {
            allow_mutations: m.allow_mutations.unwrap_or(false),
            allow_destructive: m.allow_destructive.unwrap_or(false),
            allow_load: m.allow_load.unwrap_or(false),
            ..crate::spec::PolicySpec::default()
        },
        skip_era_check: m.skip_era_check.unwrap_or(false),
        treat_as_remote: m.treat_as_remote.unwrap_or(false),
        max_body: usize::try_from(m.max_body.unwrap_or(16 * 1024 * 1024)).unwrap_or(usize::MAX),
        context_warn_tokens: m.context_warn_tokens.unwrap_or(20_000),
        revisions: revisions(&m.revisions)?,
        only: phases("only", &m.only)?,
        skip: phases("skip", &m.skip)?,
        compat: host_profiles(&m.compat)?,
        ignore,
        baseline: m.baseline.clone(),
        snapshots: snapshots(m)?,
        credentials: m.credentials(),
        lock: m.lock.clone(),
        client: client(m.client.as_ref())?,
        list_trigger: trigger(m.client.as_ref())?,
    })
}

/// `[client] trigger`, checked: a tool (with optional arguments, an object) or a command
/// (a program and its arguments), not both.
fn trigger(
    t: Option<&layer::ClientTable>,
) -> Result<Option<crate::spec::ListTrigger>, ConfigError> {
    use crate::spec::ListTrigger;
    let Some(e) = t.and_then(|t| t.trigger.as_ref()) else {
        return Ok(None);
    };
    match (&e.tool, &e.command) {
        (Some(name), None) => {
            let arguments = e.arguments.clone().unwrap_or_else(|| serde_json::json!({}));
            if !arguments.is_object() {
                return Err(ConfigError::new(
                    "invalid `[client] trigger`: `arguments` must be a table",
                ));
            }
            Ok(Some(ListTrigger::Tool {
                name: name.clone(),
                arguments,
            }))
        }
        (None, Some(cmd)) if !cmd.is_empty() && e.arguments.is_none() => {
            Ok(Some(ListTrigger::Command(cmd.clone())))
        }
        _ => Err(ConfigError::new(
            "invalid `[client] trigger`: give either `tool` (with optional `arguments`) or a non-empty `command`",
        )),
    }
}

/// `[client]`, checked: known persona and answer names, `file://` roots.
fn client(
    t: Option<&layer::ClientTable>,
) -> Result<crate::transport::answer::Persona, ConfigError> {
    use crate::transport::answer::{ElicitAnswer, Persona, PersonaKind, Root};
    let Some(t) = t else {
        return Ok(Persona::default());
    };
    let kind = match t.persona.as_deref() {
        None | Some("bare") => PersonaKind::Bare,
        Some("full") => PersonaKind::Full,
        Some(other) => {
            return Err(ConfigError::new(format!(
                "invalid `[client] persona`: expected bare or full, got `{other}`"
            )));
        }
    };
    let answer = |key: &str, v: &str| match v {
        "decline" => Ok(ElicitAnswer::Decline),
        "accept" => Ok(ElicitAnswer::Accept),
        "cancel" => Ok(ElicitAnswer::Cancel),
        other => Err(ConfigError::new(format!(
            "invalid `{key}`: expected decline, accept or cancel, got `{other}`"
        ))),
    };
    let elicitation = match t.elicitation.as_deref() {
        Some(v) => answer("[client] elicitation", v)?,
        None => ElicitAnswer::Decline,
    };
    let mut per_tool = std::collections::BTreeMap::new();
    for (tool, v) in t.tools.clone().unwrap_or_default() {
        per_tool.insert(tool.clone(), answer(&format!("[client.tools] {tool}"), &v)?);
    }
    let mut roots = Vec::new();
    for r in t.roots.clone().unwrap_or_default() {
        // client/roots: "`uri`: Unique identifier for the root. This MUST be a `file://` URI
        // in the current specification."
        if !r.uri.starts_with("file://") {
            return Err(ConfigError::new(format!(
                "invalid `[client] roots` entry `{}`: a root must be a file:// URI",
                r.uri
            )));
        }
        roots.push(Root {
            uri: r.uri,
            name: r.name,
        });
    }
    Ok(Persona {
        kind,
        elicitation,
        per_tool,
        roots,
        tasks: false,
    })
}

/// The snapshot keys, checked: every ignore pattern parses, and the other two need a folder.
fn snapshots(m: &Layer) -> Result<Option<crate::spec::SnapshotSpec>, ConfigError> {
    let ignore = m
        .snapshot_ignore
        .as_ref()
        .map(layer::List::items)
        .unwrap_or_default();
    for p in &ignore {
        serde_json_path::JsonPath::parse(p).map_err(|e| {
            ConfigError::new(format!(
                "invalid --snapshot-ignore (`snapshot_ignore`) `{p}`: {e}"
            ))
        })?;
    }
    let update = m.update_snapshots.unwrap_or(false);
    match &m.snapshots {
        Some(dir) => Ok(Some(crate::spec::SnapshotSpec {
            dir: dir.clone(),
            update,
            ignore,
        })),
        None if update || !ignore.is_empty() => Err(ConfigError::new(
            "`update_snapshots` and `snapshot_ignore` need a snapshot folder: set `snapshots` (--snapshots DIR)",
        )),
        None => Ok(None),
    }
}

/// Reads `ca_file` and trusts its certificates from now on; a file that cannot be read or
/// holds no certificate is a config error.
fn trust_ca(path: &std::path::Path) -> Result<(), ConfigError> {
    let certs =
        crate::transport::tls::read_pem(path).map_err(|e| ConfigError(format!("ca_file: {e}")))?;
    crate::transport::tls::trust(certs);
    Ok(())
}

/// The `compat` list: every name a known host profile.
/// One protocol revision as the config or `--revision` names it: a published one.
pub fn parse_revision(s: &str) -> Result<String, String> {
    if crate::client::is_revision(s) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}` is not a protocol revision; expected one of {}",
            crate::client::REVISIONS.join(", ")
        ))
    }
}

/// The `revisions` list, checked and without repeats. 2026-07-28 is accepted (every run
/// already speaks it when the server does) and asks for no extra handshake.
fn revisions(l: &Option<layer::List>) -> Result<Vec<String>, ConfigError> {
    let mut out: Vec<String> = Vec::new();
    for s in l.as_ref().map(|l| l.items()).unwrap_or_default() {
        let r = parse_revision(&s)
            .map_err(|e| ConfigError::new(format!("invalid `revisions`: {e}")))?;
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

fn host_profiles(
    l: &Option<layer::List>,
) -> Result<Vec<crate::report::host::HostProfile>, ConfigError> {
    use crate::report::host::HostProfile;
    let mut out = Vec::new();
    for s in l.as_ref().map(|l| l.items()).unwrap_or_default() {
        let p = HostProfile::parse(&s).ok_or_else(|| {
            ConfigError::new(format!(
                "invalid `compat`: `{s}` is not a host profile; expected one of {}",
                HostProfile::known()
            ))
        })?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// Parses a phase name, naming the key on error.
pub fn parse_phase(key: &str, s: &str) -> Result<Phase, ConfigError> {
    Phase::parse(s).ok_or_else(|| {
        ConfigError::new(format!(
            "invalid `{key}`: `{s}` is not a phase; expected one of {}",
            Phase::ALL.map(|p| p.as_str()).join(", ")
        ))
    })
}
