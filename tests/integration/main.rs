//! The one integration-test binary; each area of scout's behaviour is a submodule, sharing the
//! helpers in `common`.

mod baseline;
mod cli;
mod common;
mod config;
mod docs;
mod emit;
mod real_servers;
mod runner;
mod sample;
mod secrets;
mod servers;
mod transport;
