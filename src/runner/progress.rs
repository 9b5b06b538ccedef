//! The progress line on a TTY when the live phase list is off (`--no-tui`): which servers
//! are running and how many are done, redrawn on stderr by indicatif, shown only once a run
//! has taken more than a second (short runs stay quiet).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shared state the runner updates as servers start and finish.
#[derive(Debug, Default)]
struct State {
    running: Vec<String>,
    done: usize,
    total: usize,
}

/// A handle to the progress line; cheap to clone.
#[derive(Debug, Clone)]
pub struct Progress {
    state: Arc<Mutex<State>>,
    /// Hidden until the first redraw; `None` when progress is off.
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Progress for `total` servers; drawn only when `enabled` and stderr is a terminal.
    pub fn new(total: usize, enabled: bool) -> Progress {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::hidden();
            // `wide_msg` fits the line to the terminal's width (on character boundaries,
            // whatever the server names are made of).
            if let Ok(style) = ProgressStyle::with_template("scout: {wide_msg}") {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            state: Arc::new(Mutex::new(State {
                total,
                ..State::default()
            })),
            bar,
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
        let bar = self.bar.clone()?;
        let me = self.clone();
        Some(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            bar.set_draw_target(ProgressDrawTarget::stderr());
            loop {
                bar.set_message(me.line());
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }))
    }

    /// What the line says: how many servers are done and which are running.
    fn line(&self) -> String {
        let Ok(s) = self.state.lock() else {
            return String::new();
        };
        let running = if s.running.is_empty() {
            String::from("finishing")
        } else {
            format!("running {}", s.running.join(", "))
        };
        format!("{}/{} done · {running}", s.done, s.total)
    }

    /// Erases the line, if one was drawn.
    pub fn clear(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_and_names_the_running_servers() {
        let p = Progress::new(3, false);
        assert!(p.bar.is_none(), "off when not enabled");
        p.started("ünïcödé-server");
        p.started("b");
        p.finished("b");
        assert_eq!(p.line(), "1/3 done · running ünïcödé-server");
        p.finished("ünïcödé-server");
        assert_eq!(p.line(), "2/3 done · finishing");
    }
}
