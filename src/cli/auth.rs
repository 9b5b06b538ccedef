//! `scout auth login` and `scout auth logout`: for people at a desk. Login runs the
//! authorization code flow with PKCE against a protected server's authorization server and
//! stores the token (0600) where `scout check` finds it for that server; it refuses to run in
//! CI, where credentials come from the environment instead.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::auth::http::AuthHttp;
use crate::auth::login::{self, LoginRequest};
use crate::auth::store;
use crate::cli::CliError;
use crate::telemetry::Recorder;

/// `scout auth …`.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Log in to a protected server in the browser and store its token for later checks
    Login(LoginArgs),
    /// Forget the token stored for a server
    Logout(LogoutArgs),
}

/// `scout auth login`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout auth login https://mcp.example.com/mcp\n  scout auth login https://mcp.example.com/mcp --client-id my-app --port 8976"
)]
pub struct LoginArgs {
    /// URL of the protected MCP endpoint
    #[arg(value_name = "URL")]
    pub url: String,
    /// A client registered with the authorization server (default: register one dynamically)
    #[arg(long = "client-id", value_name = "ID")]
    pub client_id: Option<String>,
    /// Read the secret of a confidential pre-registered client from this variable
    #[arg(long = "client-secret-env", value_name = "VAR", requires = "client_id")]
    pub client_secret_env: Option<String>,
    /// Scope to ask for (default: what the server's challenge or metadata names)
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
    /// Loopback port of the redirect URI http://127.0.0.1:PORT/callback (0: any free port)
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// How long to wait for the browser to come back, e.g. 5m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::cli::args::parse_duration_text)]
    pub wait: String,
    /// Only print the URL to open; do not start a browser
    #[arg(long = "no-browser")]
    pub no_browser: bool,
    /// Also trust the certificate authorities in this PEM file (a company's own CA), as the
    /// config key `ca_file` does for checks
    #[arg(long = "ca-file", value_name = "PEM", env = "SCOUT_CA_FILE")]
    pub ca_file: Option<PathBuf>,
}

/// `scout auth logout`.
#[derive(Debug, Args)]
pub struct LogoutArgs {
    /// URL of the MCP endpoint whose stored token is deleted
    #[arg(value_name = "URL")]
    pub url: String,
}

/// Runs `scout auth …`.
pub fn run(cmd: AuthCommand) -> Result<u8, CliError> {
    match cmd {
        AuthCommand::Login(a) => login(a),
        AuthCommand::Logout(a) => logout(a),
    }
}

fn token_dir() -> Result<PathBuf, CliError> {
    store::dir().ok_or_else(|| {
        CliError::Internal("this platform has no user config directory to store tokens in".into())
    })
}

fn login(a: LoginArgs) -> Result<u8, CliError> {
    if login::under_ci() {
        return Err(CliError::Usage(
            "scout auth login is for people at a desk and refuses to run under CI=true; in CI give scout credentials with --client-id/--client-secret-env, --refresh-token-env, --token-env or --token-file".into(),
        ));
    }
    let parsed = url::Url::parse(&a.url)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "`{}` is not an http:// or https:// URL; expected e.g. https://mcp.example.com/mcp",
                a.url
            ))
        })?;
    let client_secret = match &a.client_secret_env {
        Some(var) => Some(std::env::var(var).map_err(|_| {
            CliError::Usage(format!(
                "the client secret is read from the environment variable {var}, which is not set"
            ))
        })?),
        None => None,
    };
    let wait = crate::config::duration::parse(&a.wait)
        .map_err(|e| CliError::Usage(format!("invalid --wait: {e}")))?;
    if let Some(path) = &a.ca_file {
        let certs = crate::transport::tls::read_pem(path)
            .map_err(|e| CliError::Usage(format!("--ca-file: {e}")))?;
        crate::transport::tls::trust(certs);
    }
    let dir = token_dir()?;
    let recorder = Recorder::new();
    let http = AuthHttp::new(
        recorder,
        &uuid::Uuid::new_v4().to_string(),
        Duration::from_secs(30),
        parsed.as_str(),
        false,
    )
    .map_err(CliError::Internal)?;
    if let Some(s) = &client_secret {
        http.secret(s);
    }
    let req = LoginRequest {
        server_url: parsed.to_string(),
        client_id: a.client_id.clone(),
        client_secret,
        scope: a.scope.clone(),
        port: a.port,
        wait,
        seen: None,
    };
    let open_browser = !a.no_browser;
    let rt = crate::cli::connect::runtime()?;
    let token = rt
        .block_on(login::login(&http, &req, |url| {
            crate::say!("scout: open this URL in a browser to log in (waiting for the redirect):");
            crate::say!("{url}");
            if open_browser {
                login::open_browser(url);
            }
        }))
        .map_err(|e| CliError::Unreachable(format!("login failed: {e}")))?;
    let path = store::save(&dir, &token).map_err(|e| {
        CliError::Internal(format!(
            "could not store the token in {}: {e}",
            dir.display()
        ))
    })?;
    crate::say!(
        "scout: logged in to {} (issuer {}, client {}); token stored in {} (readable by you only); `scout check {}` uses it",
        token.server,
        token.issuer,
        token.client_id,
        path.display(),
        token.server
    );
    Ok(crate::exit::PASSED)
}

fn logout(a: LogoutArgs) -> Result<u8, CliError> {
    let dir = token_dir()?;
    let removed = store::remove(&dir, &a.url)
        .map_err(|e| CliError::Internal(format!("could not delete the stored token: {e}")))?;
    if removed {
        crate::say!("scout: deleted the token stored for {}", a.url);
    } else {
        crate::say!("scout: no token was stored for {}", a.url);
    }
    Ok(crate::exit::PASSED)
}
