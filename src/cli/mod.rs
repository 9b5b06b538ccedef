//! The command line: parse (clap), set up diagnostics, dispatch, and map every outcome to an
//! exit code (0 gate passed · 1 gate failed · 2 usage/config error · 3 could not finish).
//! Errors are printed here as one line on stderr; nothing below prints errors itself.

pub mod action;
pub mod args;
pub mod auth;
pub mod baseline;
pub mod check;
pub mod connect;
pub mod expect;
pub mod generate;
pub mod logging;
pub mod pin;
pub mod report;
pub mod serve;
pub mod snapshots;
pub mod tools;
pub mod tui;

use std::process::ExitCode;

use clap::Parser;

pub use args::{Cli, Command, ConfigCommand, OutputArgs, TargetArgs};

/// Why a command could not complete normally.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad flags or config (exit 2).
    #[error("{0}")]
    Usage(String),
    /// scout could not finish (exit 3).
    #[error("{0}")]
    Internal(String),
    /// The server could not be reached or did not answer (exit 1: the server is at fault).
    #[error("{0}")]
    Unreachable(String),
    /// The safety policy refused what was asked (exit 1), naming the flag that would allow it.
    #[error("{0}")]
    Refused(String),
}

impl From<crate::config::ConfigError> for CliError {
    fn from(e: crate::config::ConfigError) -> Self {
        CliError::Usage(e.0)
    }
}

/// Entry point used by `main.rs`.
pub fn main() -> ExitCode {
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version are successes; every other clap error is a usage error.
            let code = if e.use_stderr() {
                crate::exit::USAGE
            } else {
                crate::exit::PASSED
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    logging::init(cli.verbosity);
    let result = match cli.command {
        Command::Check(a) => check::run(*a, cli.verbosity),
        Command::Action(a) => action::run(*a, cli.verbosity),
        Command::Config(ConfigCommand::Show(a)) => check::show_config(*a),
        Command::Completions { shell } => generate::completions(shell),
        Command::Man => generate::man(),
        Command::Connect(a) => connect::run(*a),
        Command::Tools(a) => tools::tools(*a, cli.verbosity),
        Command::Call(a) => tools::call(*a),
        Command::Report(report::ReportCommand::Merge(a)) => report::merge(*a),
        Command::Report(report::ReportCommand::Diff(a)) => report::diff(*a, cli.verbosity.quiet),
        Command::Auth(a) => auth::run(a),
        Command::Pin(a) => pin::run(*a),
        Command::Expect(c) => expect::run(c, cli.verbosity),
        Command::Baseline(c) => baseline::run(c),
        Command::Snapshots(c) => snapshots::run(c),
        Command::Serve(a) => serve::run(*a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(CliError::Usage(m)) => {
            crate::say!("error: {m}");
            ExitCode::from(crate::exit::USAGE)
        }
        Err(CliError::Internal(m)) => {
            crate::say!("error: {m}");
            ExitCode::from(crate::exit::INTERNAL)
        }
        Err(CliError::Unreachable(m) | CliError::Refused(m)) => {
            crate::say!("error: {m}");
            ExitCode::from(crate::exit::GATE_FAILED)
        }
    }
}

/// Prints one line on stderr like `eprintln!`, but a closed stderr (piped into `head`) is
/// ignored instead of panicking: what scout prints never decides whether it finishes.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The exit code of a finished report: 0 when the gate passed, else 1 with every reason on
/// stderr.
pub fn gate_exit(report: &crate::report::Report) -> u8 {
    if report.gate.passed {
        crate::exit::PASSED
    } else {
        for r in &report.gate.reasons {
            crate::say!("gate failed: {r}");
        }
        crate::exit::GATE_FAILED
    }
}

/// Exit 3 when a server of the report has internal errors (a finding scout could not
/// record, a crashed run): the reports are written, but scout cannot stand behind them.
pub fn internal_errors_exit(report: &crate::report::Report) -> Result<(), CliError> {
    let errors: Vec<String> = report
        .servers
        .iter()
        .flat_map(|s| {
            s.internal_errors
                .iter()
                .map(move |e| format!("{}: {e}", s.name))
        })
        .collect();
    match errors.first() {
        None => Ok(()),
        Some(first) => {
            for r in &report.gate.reasons {
                crate::say!("gate failed: {r}");
            }
            Err(CliError::Internal(format!(
                "scout hit {} internal error(s), so the reports may be missing findings (e.g. {first}); this is a bug, please report it with the command you ran",
                errors.len()
            )))
        }
    }
}

/// A panic is a scout bug: one line on stderr (no backtrace), exit 3.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // Children first: exit() below runs no destructors.
        crate::transport::process::kill_all_groups();
        crate::cli::tui::restore_echo();
        // A closed stderr (e.g. piped into `head`) must not panic again here.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "error: scout hit an internal error ({what}{at}); this is a bug, please report it with the command you ran"
        );
        #[allow(
            clippy::exit,
            reason = "a panic must end the process with the documented code 3"
        )]
        std::process::exit(i32::from(crate::exit::INTERNAL));
    }));
}
