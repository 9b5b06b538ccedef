//! The one integration-test binary; each area of scout's behaviour is a submodule, sharing the
//! helpers in `common`.

mod baseline;
mod catalog;
mod cli;
mod commands;
mod common;
mod config;
mod coverage;
mod docs;
mod emit;
mod execution;
mod flood;
mod gating;
mod oauth;
mod oauth_sources;
mod phase_fixtures;
mod phases;
mod props;
mod protocol;
mod rate;
mod real_checks;
mod real_servers;
mod report_diff;
mod resilience;
mod runner;
mod sample;
mod scoring;
mod secrets;
mod security;
mod security_real;
mod servers;
mod tools_call;
mod transport;
mod verdicts;
mod version_negotiation;
mod wording;
