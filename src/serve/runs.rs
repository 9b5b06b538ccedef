//! The runs the page starts: what a request may ask for (and what is refused), the bounded
//! store of recent runs, the limit on runs at the same time, and each run's live events.
//!
//! A run is planned exactly as `scout check URL` plans one (`config::load` with the target as
//! a command-line server, so `./scout.toml` or `--config`, profiles and `SCOUT_*` apply the
//! same way), then the safety policy is pinned to the defaults: only read-only tools, no
//! load burst, whatever the config says.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinHandle;

use crate::config::{self, LoadOptions, ServerEntry, layer::Layer};
use crate::report::Report;
use crate::runner::{self, RunOptions};
use crate::telemetry::events::{Observer, RunEvent};

/// What the page asks for: a URL (with headers and a token variable) or, only when allowed,
/// a command, a registry server.json or an MCPB bundle (each starts programs: a manifest's
/// packages, a bundle's server).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The Streamable HTTP endpoint to check.
    #[serde(default)]
    pub url: Option<String>,
    /// Fixed request headers, `NAME → value` (`env:VAR` reads a variable, not with --public).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The name of an environment variable of scout's that holds a bearer token.
    #[serde(default)]
    pub token_env: Option<String>,
    /// A stdio server: program and arguments, one per entry (no shell, no splitting).
    #[serde(default)]
    pub command: Vec<String>,
    /// A registry server.json on this machine (relative to where scout serve runs).
    #[serde(default)]
    pub server_json: Option<String>,
    /// An MCPB bundle on this machine: a .mcpb file or a folder with manifest.json.
    #[serde(default)]
    pub mcpb: Option<String>,
}

/// Why a run was not started: an HTTP status and one line for the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }
}

/// How `scout serve` was started: what the page may do.
#[derive(Debug, Clone)]
pub struct Limits {
    /// `--allow-stdio` (never in effect with `--public`).
    pub allow_stdio: bool,
    /// `--public`.
    pub public: bool,
    /// Runs at the same time (`--max-runs`).
    pub max_runs: usize,
    /// Runs kept for the page's list (the oldest finished one goes first).
    pub keep_runs: usize,
    /// `--config` / `--profile`, as `scout check` takes them.
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
}

impl Limits {
    /// True when a request may start a stdio server.
    pub fn stdio_allowed(&self) -> bool {
        self.allow_stdio && !self.public
    }
}

/// Where a run is.
#[derive(Debug, Clone)]
pub enum State {
    Running,
    Finished(Arc<Report>),
}

/// One run of the page.
#[derive(Debug)]
pub struct Run {
    /// A short id for the run's URLs (not a secret: every request needs the page token).
    pub id: String,
    /// The target as the page shows it (a URL, or the command's words).
    pub target: String,
    pub started_at: OffsetDateTime,
    state: Mutex<State>,
    /// Every event so far, as the JSON the page reads; the SSE stream replays them.
    events: Mutex<Vec<Value>>,
    /// Bumped on each new event and at the end, for the streams waiting on it.
    changed: watch::Sender<usize>,
    /// Flipped to stop the run (the page's Stop, or Ctrl-C).
    cancel: watch::Sender<bool>,
}

impl Run {
    /// The current state.
    pub fn state(&self) -> State {
        self.state
            .lock()
            .map(|s| s.clone())
            .unwrap_or(State::Running)
    }

    /// Events from `from` on (the last one of a finished run is `{"type": "done"}`).
    pub fn events_since(&self, from: usize) -> Vec<Value> {
        self.events
            .lock()
            .map(|e| e.get(from..).map(|s| s.to_vec()).unwrap_or_default())
            .unwrap_or_default()
    }

    /// A receiver that wakes on every new event and at the end.
    pub fn subscribe(&self) -> watch::Receiver<usize> {
        self.changed.subscribe()
    }

    /// Asks the run to stop at its next phase.
    pub fn stop(&self) {
        let _ = self.cancel.send(true);
    }

    fn push(&self, event: Value) {
        let n = match self.events.lock() {
            Ok(mut e) => {
                e.push(event);
                e.len()
            }
            Err(_) => return,
        };
        let _ = self.changed.send(n);
    }

    fn finish(&self, report: Report) {
        let score = report.servers.first().and_then(|s| s.score);
        let passed = report.gate.passed;
        if let Ok(mut s) = self.state.lock() {
            *s = State::Finished(Arc::new(report));
        }
        self.push(json!({"type": "done", "score": score, "passed": passed}));
    }

    /// The run as the page's list shows it: its state is `running`, or how it ended
    /// (`unreachable`, `blocked`, `stopped`, `finished`: [`crate::serve::ending`]).
    pub fn summary(&self) -> Value {
        let (state, score) = match self.state() {
            State::Running => ("running", None),
            State::Finished(r) => (
                crate::serve::ending::of_report(&r).as_str(),
                r.servers.first().and_then(|s| s.score),
            ),
        };
        json!({
            "id": self.id,
            "target": self.target,
            "started_at": self
                .started_at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            "state": state,
            "score": score,
        })
    }
}

/// The recent runs and the limit on concurrent ones.
#[derive(Debug)]
pub struct Runs {
    pub limits: Limits,
    permits: Arc<Semaphore>,
    recent: Mutex<VecDeque<Arc<Run>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Runs {
    /// An empty store.
    pub fn new(mut limits: Limits) -> Runs {
        limits.max_runs = limits.max_runs.max(1);
        // Every running run stays listed: never keep fewer than may run.
        limits.keep_runs = limits.keep_runs.max(limits.max_runs);
        Runs {
            permits: Arc::new(Semaphore::new(limits.max_runs)),
            limits,
            recent: Mutex::new(VecDeque::new()),
            tasks: Mutex::new(Vec::new()),
        }
    }

    /// The recent runs, newest first.
    pub fn list(&self) -> Vec<Arc<Run>> {
        self.recent
            .lock()
            .map(|r| r.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    /// The run with this id, if it is still kept.
    pub fn get(&self, id: &str) -> Option<Arc<Run>> {
        self.recent
            .lock()
            .ok()
            .and_then(|r| r.iter().find(|x| x.id == id).cloned())
    }

    /// Runs in progress.
    pub fn running(&self) -> usize {
        self.limits.max_runs - self.permits.available_permits()
    }

    /// Checks `request`, plans it and starts it; refuses what the flags do not allow, what
    /// the config cannot plan, and any run past `--max-runs`.
    pub fn start(&self, request: RunRequest) -> Result<Arc<Run>, Refusal> {
        let (entry, target) = self.entry(&request)?;
        let permit = self.permits.clone().try_acquire_owned().map_err(|_| {
            Refusal::new(
                429,
                format!(
                    "{} run(s) are already in progress, the most this scout serve allows (--max-runs {}); wait for one to finish or stop it",
                    self.limits.max_runs, self.limits.max_runs
                ),
            )
        })?;
        let (plan, ignore) = self.plan(entry)?;
        let (cancel, cancel_rx) = watch::channel(false);
        let run = Arc::new(Run {
            id: uuid::Uuid::new_v4().simple().to_string(),
            target,
            started_at: OffsetDateTime::now_utc(),
            state: Mutex::new(State::Running),
            events: Mutex::new(Vec::new()),
            changed: watch::channel(0).0,
            cancel,
        });
        self.keep(run.clone());
        let task = tokio::spawn(execute(run.clone(), plan, ignore, cancel_rx, permit));
        if let Ok(mut t) = self.tasks.lock() {
            t.retain(|h| !h.is_finished());
            t.push(task);
        }
        Ok(run)
    }

    /// Adds `run`, dropping the oldest finished runs past `keep_runs`.
    fn keep(&self, run: Arc<Run>) {
        let Ok(mut recent) = self.recent.lock() else {
            return;
        };
        recent.push_back(run);
        while recent.len() > self.limits.keep_runs {
            match recent
                .iter()
                .position(|r| matches!(r.state(), State::Finished(_)))
            {
                Some(i) => {
                    recent.remove(i);
                }
                None => break,
            }
        }
    }

    /// The server entry a request names, and how the page shows it.
    fn entry(&self, r: &RunRequest) -> Result<(ServerEntry, String), Refusal> {
        let url = r.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
        let given = |p: &Option<String>| {
            p.as_deref()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_string)
        };
        let (server_json, mcpb) = (given(&r.server_json), given(&r.mcpb));
        if server_json.is_some() || mcpb.is_some() {
            return self.manifest_entry(r, url.is_some(), server_json, mcpb);
        }
        if !r.command.is_empty() {
            if !self.limits.stdio_allowed() {
                return Err(Refusal::new(403, stdio_refusal(self.limits.public)));
            }
            if url.is_some() || !r.headers.is_empty() || r.token_env.is_some() {
                return Err(Refusal::new(
                    400,
                    "give either a URL (with headers and a token variable) or a command, not both",
                ));
            }
            if r.command.iter().any(|a| a.contains('\0')) || r.command[0].trim().is_empty() {
                return Err(Refusal::new(
                    400,
                    "the command's first word must name a program",
                ));
            }
            return Ok((
                ServerEntry {
                    name: config::servers::name_from_target(None, &r.command),
                    command: Some(r.command.clone()),
                    ..ServerEntry::default()
                },
                r.command.join(" "),
            ));
        }
        let Some(url) = url else {
            return Err(Refusal::new(
                400,
                "give the URL of an MCP server (http:// or https://)",
            ));
        };
        match url::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
            Ok(_) | Err(_) if !url.contains("://") && url.contains(' ') => {
                // Words, not a URL: the page was handed a command.
                return Err(Refusal::new(
                    403,
                    format!(
                        "{url:?} is a command, not a URL; {}",
                        stdio_refusal(self.limits.public)
                    ),
                ));
            }
            _ => {
                return Err(Refusal::new(
                    400,
                    format!("{url:?} is not an http:// or https:// URL of an MCP server"),
                ));
            }
        }
        for (name, value) in &r.headers {
            if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err()
                || axum::http::HeaderValue::from_str(value).is_err()
            {
                return Err(Refusal::new(
                    400,
                    format!("header {name:?} is not a valid HTTP header name and value"),
                ));
            }
        }
        let reads_env = r.token_env.is_some() || r.headers.values().any(|v| v.starts_with("env:"));
        if reads_env && self.limits.public {
            return Err(Refusal::new(
                403,
                "with --public the page cannot read scout's environment variables (token variable, env: headers): anyone with the page could send them to a URL of their choosing",
            ));
        }
        if let Some(var) = &r.token_env
            && (var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return Err(Refusal::new(
                400,
                "the token variable must be the name of an environment variable (letters, digits, _)",
            ));
        }
        Ok((
            ServerEntry {
                name: config::servers::name_from_target(Some(url), &[]),
                url: Some(url.to_string()),
                headers: (!r.headers.is_empty()).then(|| r.headers.clone()),
                token_env: r.token_env.clone(),
                ..ServerEntry::default()
            },
            url.to_string(),
        ))
    }

    /// The entry of a server.json or bundle path: a manifest starts programs (its packages,
    /// the bundle's server), so it is allowed exactly when a command is.
    fn manifest_entry(
        &self,
        r: &RunRequest,
        has_url: bool,
        server_json: Option<String>,
        mcpb: Option<String>,
    ) -> Result<(ServerEntry, String), Refusal> {
        if !self.limits.stdio_allowed() {
            return Err(Refusal::new(403, manifest_refusal(self.limits.public)));
        }
        if has_url || !r.command.is_empty() || !r.headers.is_empty() || r.token_env.is_some() {
            return Err(Refusal::new(
                400,
                "give one of a URL, a command, a server.json or an MCPB bundle, not several",
            ));
        }
        let (path, kind) = match (server_json, mcpb) {
            (Some(p), None) => (p, "server.json"),
            (None, Some(p)) => (p, "MCPB bundle"),
            _ => {
                return Err(Refusal::new(
                    400,
                    "give a server.json or an MCPB bundle, not both",
                ));
            }
        };
        if path.contains('\0') {
            return Err(Refusal::new(400, format!("the {kind} path is not a path")));
        }
        // Relative to where scout serve runs, as `scout check --server-json` takes it.
        let abs = std::path::absolute(&path)
            .map_err(|e| Refusal::new(400, format!("the {kind} path {path:?}: {e}")))?;
        let name = abs
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "server".into());
        let entry = if kind == "server.json" {
            ServerEntry {
                name,
                server_json: Some(abs),
                ..ServerEntry::default()
            }
        } else {
            ServerEntry {
                name,
                mcpb: Some(abs),
                ..ServerEntry::default()
            }
        };
        Ok((entry, format!("{kind} {path}")))
    }

    /// Plans `entry` as `scout check` would, with the default safety policy pinned.
    fn plan(&self, entry: ServerEntry) -> Result<(Vec<runner::Planned>, Ignores), Refusal> {
        let loaded = config::load(LoadOptions {
            config: self.limits.config.clone(),
            profile: self.limits.profile.clone(),
            flags: safety_layer(),
            target: Some(entry),
        })
        .map_err(|e| Refusal::new(400, e.0))?;
        config::check_secrets(&loaded.servers).map_err(|e| Refusal::new(400, e.0))?;
        let mut plan = loaded.servers;
        for p in &mut plan {
            p.spec.policy = p.spec.policy.default_permissions();
        }
        Ok((plan, loaded.settings.ignore))
    }

    /// Stops every run and waits (at most `grace`) for them to shut their servers down.
    pub async fn stop_all(&self, grace: Duration) {
        for r in self.list() {
            r.stop();
        }
        let tasks: Vec<JoinHandle<()>> = self
            .tasks
            .lock()
            .map(|mut t| t.drain(..).collect())
            .unwrap_or_default();
        let all = futures_util::future::join_all(tasks);
        if tokio::time::timeout(grace, all).await.is_err() {
            tracing::warn!(
                "runs did not stop within {}s; killing their servers",
                grace.as_secs()
            );
        }
        // Whatever is left (nothing, normally) is killed with its process group.
        crate::transport::process::kill_all_groups();
    }
}

/// `[checks] ignore` of the config: (check id, reason).
type Ignores = Vec<(String, String)>;

/// The flags layer every page run uses: the default safety policy, whatever the config says.
fn safety_layer() -> Layer {
    config::layer::default_permissions()
}

/// Why a command is refused.
fn stdio_refusal(public: bool) -> String {
    if public {
        "this scout serve runs with --public, which never starts a program (stdio server) from the page, whatever the other flags say; check it with `scout check --stdio -- CMD` instead".into()
    } else {
        "this scout serve was started without --allow-stdio, so the page may not start a program (stdio server) on this machine; restart it with --allow-stdio, or use `scout check --stdio -- CMD`".into()
    }
}

/// Why a server.json or bundle is refused.
fn manifest_refusal(public: bool) -> String {
    if public {
        "this scout serve runs with --public, which never starts a program from the page: a server.json's packages and an MCPB bundle's server are programs; check it with `scout check --server-json FILE` or `scout check --mcpb BUNDLE` instead".into()
    } else {
        "this scout serve was started without --allow-stdio, so the page may not start a program on this machine, as a server.json's packages and an MCPB bundle's server are; restart it with --allow-stdio, or use `scout check --server-json FILE` or `scout check --mcpb BUNDLE`".into()
    }
}

/// Runs the plan, turning run events into the page's events, and finishes the run.
async fn execute(
    run: Arc<Run>,
    plan: Vec<runner::Planned>,
    ignore: Vec<(String, String)>,
    cancel: watch::Receiver<bool>,
    permit: OwnedSemaphorePermit,
) {
    let (observer, mut rx) = Observer::channel();
    let forward = {
        let run = run.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                run.push(event_json(&event));
            }
        })
    };
    let options = RunOptions {
        jobs: 1,
        shard: None,
        ignore,
        progress: false,
        baseline: None,
        observer: Some(observer),
    };
    let report = runner::run(plan, options, cancel).await;
    // Every sender is gone with the run; the forwarder drains what is left and ends. A
    // sender kept somewhere by mistake must not keep the run open.
    let _ = tokio::time::timeout(Duration::from_secs(5), forward).await;
    run.finish(report);
    drop(permit);
}

/// A run event as the page reads it.
fn event_json(e: &RunEvent) -> Value {
    match e {
        RunEvent::ServerStarted { server } => json!({"type": "server_started", "server": server}),
        RunEvent::PhaseStarted { server, phase } => {
            json!({"type": "phase_started", "server": server, "phase": phase.as_str()})
        }
        RunEvent::Finding {
            server,
            phase,
            id,
            status,
            subject,
        } => json!({
            "type": "finding", "server": server, "phase": phase.as_str(), "id": id,
            "status": status.as_str(), "subject": subject,
        }),
        RunEvent::PhaseFinished { server, phase } => {
            json!({"type": "phase_finished", "server": server, "phase": phase.as_str()})
        }
        RunEvent::ServerFinished { server, score } => {
            json!({"type": "server_finished", "server": server, "score": score})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(allow_stdio: bool, public: bool) -> Runs {
        Runs::new(Limits {
            allow_stdio,
            public,
            max_runs: 2,
            keep_runs: 20,
            config: None,
            profile: None,
        })
    }

    fn command() -> RunRequest {
        RunRequest {
            command: vec!["python3".into(), "server.py".into()],
            ..RunRequest::default()
        }
    }

    #[test]
    fn commands_need_allow_stdio_and_never_run_with_public() {
        let e = runs(false, false).entry(&command()).expect_err("refused");
        assert_eq!(e.status, 403);
        assert!(e.message.contains("--allow-stdio"), "{}", e.message);
        let e = runs(true, true).entry(&command()).expect_err("refused");
        assert_eq!(e.status, 403);
        assert!(e.message.contains("--public"), "{}", e.message);
        let (entry, target) = runs(true, false).entry(&command()).expect("allowed");
        assert_eq!(entry.command.as_deref(), Some(&command().command[..]));
        assert_eq!(target, "python3 server.py");
    }

    #[test]
    fn manifests_need_allow_stdio_never_run_with_public_and_come_alone() {
        let sj = RunRequest {
            server_json: Some("dist/server.json".into()),
            ..RunRequest::default()
        };
        let bundle = RunRequest {
            mcpb: Some(" notes.mcpb ".into()),
            ..RunRequest::default()
        };
        for r in [&sj, &bundle] {
            let e = runs(false, false).entry(r).expect_err("refused");
            assert_eq!(e.status, 403);
            assert!(e.message.contains("--allow-stdio"), "{}", e.message);
            let e = runs(true, true).entry(r).expect_err("refused");
            assert_eq!(e.status, 403);
            assert!(e.message.contains("--public"), "{}", e.message);
        }
        let (entry, target) = runs(true, false).entry(&sj).expect("allowed");
        let path = entry.server_json.expect("a server.json entry");
        assert!(
            path.is_absolute() && path.ends_with("dist/server.json"),
            "{path:?}"
        );
        assert_eq!(
            (entry.name.as_str(), target.as_str()),
            ("server", "server.json dist/server.json")
        );
        let (entry, _) = runs(true, false).entry(&bundle).expect("allowed");
        assert!(entry.mcpb.is_some_and(|p| p.ends_with("notes.mcpb")));
        assert_eq!(entry.name, "notes");
        for mixed in [
            RunRequest {
                url: Some("http://127.0.0.1:1/mcp".into()),
                ..sj.clone()
            },
            RunRequest {
                command: vec!["node".into()],
                ..bundle.clone()
            },
            RunRequest {
                mcpb: Some("b.mcpb".into()),
                ..sj.clone()
            },
        ] {
            let e = runs(true, false).entry(&mixed).expect_err("one target");
            assert_eq!(e.status, 400, "{}", e.message);
        }
    }

    #[test]
    fn a_command_typed_as_the_url_is_refused_as_a_command() {
        let r = RunRequest {
            url: Some("npx -y some-server".into()),
            ..RunRequest::default()
        };
        let e = runs(false, false).entry(&r).expect_err("refused");
        assert_eq!(e.status, 403);
        assert!(e.message.contains("is a command"), "{}", e.message);
        let r = RunRequest {
            url: Some("ftp://x/".into()),
            ..RunRequest::default()
        };
        assert_eq!(runs(false, false).entry(&r).expect_err("bad").status, 400);
    }

    #[test]
    fn public_pages_read_no_environment_variables() {
        let r = RunRequest {
            url: Some("http://127.0.0.1:1/mcp".into()),
            token_env: Some("HOME".into()),
            ..RunRequest::default()
        };
        assert_eq!(
            runs(false, true).entry(&r).expect_err("refused").status,
            403
        );
        assert!(runs(false, false).entry(&r).is_ok());
        let mut h = BTreeMap::new();
        h.insert("X-Key".to_string(), "env:HOME".to_string());
        let r = RunRequest {
            url: Some("http://127.0.0.1:1/mcp".into()),
            headers: h,
            ..RunRequest::default()
        };
        assert_eq!(
            runs(false, true).entry(&r).expect_err("refused").status,
            403
        );
    }

    #[test]
    fn the_safety_policy_is_the_default_whatever_the_config_says() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cfg = dir.path().join("scout.toml");
        std::fs::write(
            &cfg,
            "[default]\nallow_destructive = true\nallow_mutations = true\nallow_load = true\n",
        )
        .expect("write");
        let mut r = runs(false, false);
        r.limits.config = Some(cfg);
        let (entry, _) = r
            .entry(&RunRequest {
                url: Some("http://127.0.0.1:1/mcp".into()),
                ..RunRequest::default()
            })
            .expect("entry");
        let (plan, _) = r.plan(entry).expect("plan");
        let spec = &plan[0].spec;
        assert!(
            !spec.policy.allow_destructive
                && !spec.policy.allow_mutations
                && !spec.policy.allow_load
        );
    }
}
