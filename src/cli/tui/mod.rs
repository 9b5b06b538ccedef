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

/// The terminal's modes before the live view turned echo off, to put back on every way out
/// (including those that run no destructor: a second Ctrl-C, a panic).
static SAVED_MODES: Mutex<Option<nix::sys::termios::Termios>> = Mutex::new(None);

/// While alive, keys typed at the terminal are not echoed. The live view leaves the cursor at
/// the end of its last line; an echoed key there (the `^C` of Ctrl-C, an Enter) would move
/// the cursor and the view would be redrawn a line off, leaving lines behind. Ctrl-C still
/// interrupts: only echo is off, signals are not.
pub struct NoEcho(());

impl NoEcho {
    /// Turns echo off on stdin's terminal, if stdin is one (else keys reach no terminal that
    /// scout draws on through stdin, and nothing is changed).
    pub fn start() -> NoEcho {
        use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
        let stdin = std::io::stdin();
        if stdin.is_terminal()
            && let Ok(modes) = tcgetattr(&stdin)
        {
            let mut quiet = modes.clone();
            quiet.local_flags.remove(LocalFlags::ECHO);
            if tcsetattr(&stdin, SetArg::TCSANOW, &quiet).is_ok()
                && let Ok(mut saved) = SAVED_MODES.lock()
            {
                *saved = Some(modes);
            }
        }
        NoEcho(())
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        restore_echo();
    }
}

/// Puts back the terminal modes [`NoEcho`] changed, if it changed any. Safe to call anywhere,
/// any number of times.
pub fn restore_echo() {
    use nix::sys::termios::{SetArg, tcsetattr};
    let saved = SAVED_MODES.lock().ok().and_then(|mut s| s.take());
    if let Some(modes) = saved {
        // Leaving the process with echo off would be worse, but there is no one to tell.
        let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, &modes);
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
