//! OAuth for protected MCP servers (the spec's authorization pages, 2025-11-25 and
//! 2026-07-28): finding the authorization server (RFC 9728 Protected Resource Metadata,
//! RFC 8414 / OpenID Connect discovery), reading `WWW-Authenticate` challenges, getting a
//! token (client credentials, refresh token, authorization code with PKCE), and the tokens
//! `scout auth login` stores.
//!
//! Below `probe` and above `transport`/`telemetry`: the auth phase and the CLI call in here;
//! nothing here imports `probe`, `client` or `cli`. Every request is recorded through
//! [`http::AuthHttp`] and every secret is registered with the run's redactor the moment it
//! exists.

pub mod binding;
pub mod challenge;
pub mod http;
pub mod login;
pub mod metadata;
pub mod obtain;
pub mod reach;
pub mod spec;
pub mod stepup;
pub mod store;
pub mod token;

pub use spec::{AuthSpec, Grant, Resolved, SecretError, SecretSource};
