//! The one integration-test binary; each area of scout's behaviour is a submodule, sharing the
//! helpers in `common`.

mod action;
mod baseline;
mod catalog;
mod cli;
mod commands;
mod common;
mod config;
mod docs;
mod emit;
mod execution;
mod gating;
mod phase_fixtures;
mod protocol;
mod real_checks;
mod real_servers;
mod runner;
mod sample;
mod secrets;
mod servers;
mod tools_call;
mod transport;
