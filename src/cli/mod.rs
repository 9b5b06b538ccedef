//! The command line (clap). SKELETON: the core issue builds the real command tree.

use std::process::ExitCode;

/// Entry point used by `main.rs`.
pub fn main() -> ExitCode {
    ExitCode::from(crate::exit::USAGE)
}
