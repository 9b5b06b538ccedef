//! Child processes scout starts: stdio servers and the `start` command of HTTP targets.
//!
//! A child runs without a shell, in its own process group, with only the fixed base
//! environment plus what the operator forwarded or set. Its stderr is read continuously
//! into a bounded buffer (a chatty server can neither block on a full pipe nor exhaust our
//! memory). Shutdown closes stdin, waits, then SIGTERMs the group, then SIGKILLs it; the
//! [`Drop`] impl kills the group if anything is left, so a panic or a dropped future never
//! leaks a process.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Notify, watch};

/// Variables every child gets when scout has them (docs/safety.md), POSIX and Windows names.
pub const BASE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "TMPDIR",
    "TEMP",
    "TMP",
    "LANG",
    "LC_ALL",
    "SYSTEMROOT",
    "SystemRoot",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "COMSPEC",
    "PATHEXT",
    "WINDIR",
];

/// How much stderr (and captured stdout of `start` commands) is kept.
pub const STDERR_CAP: usize = 64 * 1024;

/// How long the reader of an exited child's stderr may take to reach its end: it is there
/// at once unless a grandchild still holds the pipe.
pub const STDERR_END: Duration = Duration::from_secs(1);

/// What to start: a stdio server, or an HTTP server's `start` command.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProcessConfig {
    /// Program and arguments (no shell).
    pub command: Vec<String>,
    /// Names forwarded from scout's environment.
    pub env_forward: Vec<String>,
    /// Variables set to these values.
    pub env_set: Vec<(String, String)>,
    /// Working directory.
    pub dir: Option<PathBuf>,
}

/// Why a child could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("no command given")]
    Empty,
    #[error("cannot start {program:?}: {source}")]
    Io {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// The environment a child was handed (names only for forwarded values).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HandedEnv {
    /// Base variables passed through (names).
    pub base: Vec<String>,
    /// Forwarded variables that existed (names).
    pub forwarded: Vec<String>,
    /// Forwarded names that were not set in scout's environment.
    pub missing: Vec<String>,
    /// Variables set explicitly (name, value).
    pub set: Vec<(String, String)>,
}

/// A bounded text buffer: keeps the first `cap` bytes and counts what was dropped.
#[derive(Debug, Default)]
pub struct Bounded {
    pub text: Vec<u8>,
    pub dropped: usize,
    cap: usize,
}

impl Bounded {
    fn push(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.text.len());
        let take = room.min(bytes.len());
        self.text.extend_from_slice(&bytes[..take]);
        self.dropped += bytes.len() - take;
    }
    /// The kept text (lossy UTF-8), with a note when output was dropped.
    pub fn render(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.text).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!("\n[… {} more bytes not kept]", self.dropped));
        }
        s
    }
}

/// How the process ended at shutdown.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// It had already exited before shutdown began (status text).
    AlreadyExited(String),
    /// It exited after stdin was closed.
    ExitedOnStdinClose(String),
    /// It needed SIGTERM.
    NeededSigterm(String),
    /// It needed SIGKILL.
    NeededSigkill(String),
}

/// A started child. Dropping it kills its process group.
#[derive(Debug)]
pub struct ManagedProcess {
    child: tokio::sync::Mutex<Child>,
    pid: u32,
    stderr: Arc<Mutex<Bounded>>,
    /// True once its stderr reached its end (the reader has everything it wrote there).
    stderr_closed: watch::Receiver<bool>,
    /// Woken each time the child writes to a captured pipe.
    wrote: Arc<Notify>,
    /// Set once the child has been waited for.
    reaped: Mutex<Option<String>>,
    /// The environment handed over.
    pub env: HandedEnv,
    /// The command as started.
    pub command: Vec<String>,
}

/// A freshly spawned child and its pipes.
#[derive(Debug)]
pub struct Spawned {
    pub process: Arc<ManagedProcess>,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// Starts `cfg` with piped stdin/stdout and continuously captured stderr.
pub fn spawn(cfg: &ProcessConfig) -> Result<Spawned, SpawnError> {
    let (program, args) = cfg.command.split_first().ok_or(SpawnError::Empty)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        // A backstop only: Drop below kills the whole group, this kills the leader too.
        .kill_on_drop(true);
    let mut env = HandedEnv::default();
    for name in BASE_ENV {
        if let Ok(v) = std::env::var(name) {
            cmd.env(name, v);
            env.base.push((*name).to_string());
        }
    }
    for name in &cfg.env_forward {
        match std::env::var(name) {
            Ok(v) => {
                cmd.env(name, v);
                env.forwarded.push(name.clone());
            }
            Err(_) => env.missing.push(name.clone()),
        }
    }
    for (k, v) in &cfg.env_set {
        cmd.env(k, v);
        env.set.push((k.clone(), v.clone()));
    }
    if let Some(dir) = &cfg.dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|source| SpawnError::Io {
        program: program.clone(),
        source,
    })?;
    let pid = child.id().unwrap_or(0);
    register_group(pid);
    let stderr = Arc::new(Mutex::new(Bounded {
        cap: STDERR_CAP,
        ..Bounded::default()
    }));
    let wrote = Arc::new(Notify::new());
    let (closed, stderr_closed) = watch::channel(false);
    match child.stderr.take() {
        Some(err) => {
            let (into, wrote) = (stderr.clone(), wrote.clone());
            tokio::spawn(async move {
                drain(err, into, wrote).await;
                let _ = closed.send(true);
            });
        }
        None => {
            let _ = closed.send(true);
        }
    }
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(SpawnError::Io {
            program: program.clone(),
            source: std::io::Error::other("pipes were not created"),
        });
    };
    Ok(Spawned {
        process: Arc::new(ManagedProcess {
            child: tokio::sync::Mutex::new(child),
            pid,
            stderr,
            stderr_closed,
            wrote,
            reaped: Mutex::new(None),
            env,
            command: cfg.command.clone(),
        }),
        stdin,
        stdout,
    })
}

/// Reads a pipe to its end into a bounded buffer, waking `wrote` after each read.
pub async fn drain(
    mut r: impl tokio::io::AsyncRead + Unpin,
    into: Arc<Mutex<Bounded>>,
    wrote: Arc<Notify>,
) {
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                into.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(&buf[..n]);
                wrote.notify_one();
            }
        }
    }
}

impl ManagedProcess {
    /// The process id (also the process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// stderr kept so far.
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .render()
    }

    /// stderr up to its end, for a child that has exited: what it wrote just before exiting
    /// may still be in the pipe, so this waits for the reader to reach the end (at most
    /// `within`, which only a grandchild holding the pipe open costs).
    pub async fn stderr_to_end(&self, within: Duration) -> String {
        let mut closed = self.stderr_closed.clone();
        let _ = tokio::time::timeout(within, closed.wait_for(|c| *c)).await;
        self.stderr()
    }

    /// Captures `out` (a `start` command's stdout, which is not a wire) with stderr, bounded.
    pub fn capture(&self, out: impl tokio::io::AsyncRead + Unpin + Send + 'static) {
        tokio::spawn(drain(out, self.stderr.clone(), self.wrote.clone()));
    }

    /// Resolves when the child next writes to a captured pipe (at once if it wrote since the
    /// last call): a server starting up often says so when it is ready.
    pub async fn wrote(&self) {
        self.wrote.notified().await
    }

    /// `Some(status)` when the child has exited (reaping it), `None` while it runs.
    pub async fn try_exit(&self) -> Option<String> {
        if let Some(s) = self.reaped_status() {
            return Some(s);
        }
        let mut child = self.child.lock().await;
        match child.try_wait() {
            Ok(Some(st)) => Some(self.mark_reaped(st.to_string())),
            Ok(None) => None,
            Err(e) => Some(self.mark_reaped(format!("unknown ({e})"))),
        }
    }

    fn reaped_status(&self) -> Option<String> {
        self.reaped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn mark_reaped(&self, s: String) -> String {
        *self.reaped.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
        s
    }

    /// The exit status, waiting up to `d` for the process to exit (and no longer than it
    /// takes): for a process whose stdout has closed, which exits a moment later (a Python
    /// server closes its streams before its interpreter is done).
    pub async fn exit_within(&self, d: Duration) -> Option<String> {
        self.wait_for(d).await
    }

    async fn wait_for(&self, d: Duration) -> Option<String> {
        if let Some(s) = self.reaped_status() {
            return Some(s);
        }
        let mut child = self.child.lock().await;
        match tokio::time::timeout(d, child.wait()).await {
            Ok(Ok(st)) => Some(self.mark_reaped(st.to_string())),
            Ok(Err(e)) => Some(self.mark_reaped(format!("unknown ({e})"))),
            Err(_) => None,
        }
    }

    fn signal_group(&self, sig: Signal) {
        if self.pid == 0 {
            return;
        }
        if let Ok(pid) = i32::try_from(self.pid) {
            // ESRCH (group already gone) is the common, harmless case.
            let _ = killpg(Pid::from_raw(pid), sig);
        }
    }

    /// Shutdown after stdin has been closed by the caller: wait `grace`, SIGTERM the
    /// group, wait `grace`, SIGKILL the group. Always reaps the child.
    pub async fn shutdown(&self, grace: Duration) -> Ending {
        if let Some(s) = self.reaped_status() {
            return Ending::AlreadyExited(s);
        }
        if let Some(s) = self.wait_for(grace).await {
            return Ending::ExitedOnStdinClose(s);
        }
        self.terminate(grace).await
    }

    /// Shutdown of a server that is not asked to stop through its stdin (an HTTP server
    /// scout started): SIGTERM the group at once, wait `grace`, SIGKILL the group. Always
    /// reaps the child.
    pub async fn terminate(&self, grace: Duration) -> Ending {
        if let Some(s) = self.reaped_status() {
            return Ending::AlreadyExited(s);
        }
        self.signal_group(Signal::SIGTERM);
        if let Some(s) = self.wait_for(grace).await {
            return Ending::NeededSigterm(s);
        }
        self.signal_group(Signal::SIGKILL);
        let s = self
            .wait_for(Duration::from_secs(5))
            .await
            .unwrap_or_else(|| "did not exit even after SIGKILL".to_string());
        Ending::NeededSigkill(s)
    }

    /// Kills whatever is left in the process group (grandchildren holding pipes open).
    pub fn kill_group(&self) {
        self.signal_group(Signal::SIGKILL);
    }
}

impl Drop for ManagedProcess {
    fn drop(&mut self) {
        // Every path out (panic, dropped future, early return) ends the whole group. The
        // leader itself is reaped by tokio's orphan reaper (kill_on_drop).
        self.signal_group(Signal::SIGKILL);
        unregister_group(self.pid);
    }
}

/// Process groups of every child still alive, for the paths out that run no destructors
/// (the panic hook, a second Ctrl-C): `std::process::exit` skips `Drop`.
static LIVE_GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn register_group(pid: u32) {
    if pid != 0 {
        LIVE_GROUPS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(pid);
    }
}

fn unregister_group(pid: u32) {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| *p != pid);
}

/// SIGKILLs the process group of every child scout started and has not yet dropped. Call it
/// just before the process exits without unwinding.
pub fn kill_all_groups() {
    let groups: Vec<u32> = LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain(..)
        .collect();
    for pid in groups {
        if let Ok(pid) = i32::try_from(pid) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
