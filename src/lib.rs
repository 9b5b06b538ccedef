//! scout: tells the people who run MCP servers, in their CI, whether their server really
//! works for an agent. See ARCHITECTURE.md for the architecture; `main.rs` only calls [`run`].

pub mod auth;
pub mod cli;
pub mod client;
pub mod config;
pub mod emit;
pub mod pin;
pub mod policy;
pub mod probe;
pub mod report;
pub mod runner;
pub mod serve;
pub mod spec;
pub mod telemetry;
pub mod transport;

use std::process::ExitCode;

/// Exit codes (public API, listed in the README).
pub mod exit {
    /// The gate passed.
    pub const PASSED: u8 = 0;
    /// The gate failed.
    pub const GATE_FAILED: u8 = 1;
    /// Usage or config error.
    pub const USAGE: u8 = 2;
    /// scout itself could not finish.
    pub const INTERNAL: u8 = 3;
}

/// Parses the command line and runs the command; returns the process exit code.
pub fn run() -> ExitCode {
    cli::main()
}
