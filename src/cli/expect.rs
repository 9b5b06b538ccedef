//! `scout expect init`: a check run (read-only tools only) that writes a starter expectations
//! file from what the server answered, as `--write-baseline` writes a baseline from findings.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::cli::args::{CheckArgs, Verbosity};
use crate::cli::check::{self, Extra};

/// `scout expect …`.
#[derive(Debug, Subcommand)]
pub enum ExpectCommand {
    /// Check the server(s) and write a starter expectations file: one per read-only tool scout called, with its arguments and a starter is_error/contains
    Init(Box<InitArgs>),
}

/// `scout expect init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the expectations (TOML)
    #[arg(
        long = "write",
        value_name = "FILE",
        default_value = "scout-expect.toml",
        help_heading = "Expectations"
    )]
    pub write: PathBuf,
    #[command(flatten)]
    pub check: CheckArgs,
}

/// Runs the check and writes the file; the exit code is the check's.
pub fn run(cmd: ExpectCommand, verbosity: Verbosity) -> Result<u8, CliError> {
    match cmd {
        ExpectCommand::Init(a) => {
            let a = *a;
            check::run_with(
                a.check,
                verbosity,
                Extra {
                    write_expectations: Some(a.write),
                    ..Extra::default()
                },
            )
        }
    }
}
