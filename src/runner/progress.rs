//! The progress line on a TTY: which servers are running and how many are done, redrawn on
//! stderr, shown only once a run has taken more than a second (short runs stay quiet).

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Shared state the runner updates as servers start and finish.
#[derive(Debug, Default)]
struct State {
    running: Vec<String>,
    done: usize,
    total: usize,
    drawn: bool,
}

/// A handle to the progress line; cheap to clone.
#[derive(Debug, Clone)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    enabled: bool,
}

impl Progress {
    /// Progress for `total` servers; drawn only when `enabled` and stderr is a terminal.
    pub fn new(total: usize, enabled: bool) -> Progress {
        Progress {
            state: Arc::new(Mutex::new(State {
                total,
                ..State::default()
            })),
            enabled: enabled && std::io::stderr().is_terminal(),
        }
    }

    /// A server started.
    pub fn started(&self, name: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.running.push(name.to_string());
        }
    }

    /// A server finished.
    pub fn finished(&self, name: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.running.retain(|n| n != name);
            s.done += 1;
        }
    }

    /// Redraws every 250 ms after the first second until the returned task is aborted.
    pub fn spawn(&self) -> Option<tokio::task::JoinHandle<()>> {
        if !self.enabled {
            return None;
        }
        let me = self.clone();
        Some(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            loop {
                me.draw();
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }))
    }

    fn draw(&self) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let running = if s.running.is_empty() {
            String::from("finishing")
        } else {
            format!("running {}", s.running.join(", "))
        };
        let mut line = format!("scout: {}/{} done · {running}", s.done, s.total);
        line.truncate(100);
        let mut err = std::io::stderr().lock();
        // Diagnostics only: a failed write to the terminal is not worth failing the run for.
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
        s.drawn = true;
    }

    /// Erases the line, if one was drawn.
    pub fn clear(&self) {
        if let Ok(s) = self.state.lock()
            && s.drawn
        {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
