//! The terminal views: the live phase list of `scout check` ([`run_view`], indicatif, drawn on
//! stderr) and the interactive `scout tools` selector ([`selector`], ratatui + crossterm, on
//! the alternate screen). Both are extras for a person at a terminal: whenever one is off,
//! scout prints exactly what it prints without them, byte for byte.
//!
//! They are off with `--no-tui` (or `SCOUT_NO_TUI`), in CI (`CI` set and not `false`/`0`),
//! with `TERM=dumb`, and whenever stdout or stderr is not a terminal (the selector also needs
//! stdin). Which of these hold is read once, here, so the rule is the same for every command.

pub mod run_view;
pub mod selector;

use std::io::IsTerminal;
use std::sync::Mutex;

/// What decides whether a terminal view may be drawn, read from the process's environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    /// `--no-tui` or `SCOUT_NO_TUI`.
    pub no_tui: bool,
    /// `CI` is set to something other than empty, `false` or `0`.
    pub ci: bool,
    /// `TERM=dumb`: a terminal that cannot move the cursor.
    pub dumb: bool,
    /// stdin, stdout and stderr are terminals.
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
}

impl Terminal {
    /// The terminal scout runs in.
    pub fn detect(no_tui: bool) -> Terminal {
        Terminal {
            no_tui,
            ci: std::env::var("CI").is_ok_and(|v| is_set(&v)),
            dumb: std::env::var("TERM").is_ok_and(|t| t == "dumb"),
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
            stderr: std::io::stderr().is_terminal(),
        }
    }

    /// The live phase list of `scout check` may be drawn (on stderr; stdout keeps the report).
    pub fn live_view(&self) -> bool {
        !self.no_tui && !self.ci && !self.dumb && self.stdout && self.stderr
    }

    /// The interactive `scout tools` selector may take over the terminal (it reads keys).
    pub fn selector(&self) -> bool {
        self.live_view() && self.stdin
    }
}

/// A CI-style boolean variable: set unless empty, `false` or `0`.
fn is_set(v: &str) -> bool {
    let v = v.trim();
    !(v.is_empty() || v.eq_ignore_ascii_case("false") || v == "0")
}

/// The live view being drawn, if any: diagnostics written meanwhile go above it instead of
/// through it.
static ACTIVE: Mutex<Option<indicatif::MultiProgress>> = Mutex::new(None);

/// Runs `write` (something that prints on stderr) with the live view, if one is drawn, lifted
/// out of the way: the view is erased, `write` runs, the view is drawn again below.
pub fn above_view<R>(write: impl FnOnce() -> R) -> R {
    let active = ACTIVE.lock().ok().and_then(|a| a.clone());
    match active {
        Some(multi) => multi.suspend(write),
        None => write(),
    }
}

fn set_active(multi: Option<indicatif::MultiProgress>) {
    if let Ok(mut a) = ACTIVE.lock() {
        *a = multi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tty() -> Terminal {
        Terminal {
            no_tui: false,
            ci: false,
            dumb: false,
            stdin: true,
            stdout: true,
            stderr: true,
        }
    }

    #[test]
    fn every_reason_to_stay_plain_turns_the_views_off() {
        assert!(tty().live_view() && tty().selector());
        for off in [
            Terminal {
                no_tui: true,
                ..tty()
            },
            Terminal { ci: true, ..tty() },
            Terminal {
                dumb: true,
                ..tty()
            },
            Terminal {
                stdout: false,
                ..tty()
            },
            Terminal {
                stderr: false,
                ..tty()
            },
        ] {
            assert!(!off.live_view(), "{off:?}");
            assert!(!off.selector(), "{off:?}");
        }
        // Keys come from stdin: without it there is no selector, but the run view needs none.
        let no_stdin = Terminal {
            stdin: false,
            ..tty()
        };
        assert!(no_stdin.live_view() && !no_stdin.selector());
    }

    #[test]
    fn ci_variable_values() {
        for on in ["true", "1", "yes", "TRUE"] {
            assert!(is_set(on), "{on}");
        }
        for off in ["", "false", "False", "0", " "] {
            assert!(!is_set(off), "{off:?}");
        }
    }
}
