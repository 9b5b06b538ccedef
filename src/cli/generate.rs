//! `scout completions SHELL` and `scout man`: generated from the clap command tree, never
//! hand-written, so they cannot drift from the flags.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::CliError;
use crate::cli::args::Cli;

/// Prints the completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<u8, CliError> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "scout", &mut buf);
    emit(&buf)
}

/// Prints the man page (roff) on stdout.
pub fn man() -> Result<u8, CliError> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| CliError::Internal(format!("could not render the man page: {e}")))?;
    emit(&buf)
}

fn emit(bytes: &[u8]) -> Result<u8, CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(crate::exit::PASSED),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(crate::exit::PASSED),
        Err(e) => Err(CliError::Internal(format!(
            "could not write to stdout: {e}"
        ))),
    }
}
