//! The one integration-test binary: every area is a module, sharing the runner in `common`.

mod cli;
mod common;
mod config;
mod docs;
mod runner;
