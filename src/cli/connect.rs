//! `scout connect`, and the one-server target resolution that `connect`, `tools` and `call`
//! share: a URL or `--stdio -- CMD` on the command line, or one server of the config
//! (`--server NAME`, or the only one).

use clap::Args;

use crate::cli::CliError;
use crate::cli::args::{ConfigSourceArgs, PolicyArgs, SettingsArgs, TargetArgs};
use crate::cli::check::{flags_layer, target_entry};
use crate::config::{self, LoadOptions};
use crate::spec::ServerSpec;

/// Picks one server from the command line or the config.
#[derive(Debug, Clone, Default, Args)]
pub struct OneServerArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub source: ConfigSourceArgs,
    /// The server of the config to use when it lists several
    #[arg(long, value_name = "NAME", help_heading = "Target")]
    pub server: Option<String>,
    /// Timeout of a single request, e.g. 10s or 500ms [default: 10s]
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::args::parse_duration_text, help_heading = "Run")]
    pub timeout: Option<String>,
    /// Go straight to the handshake (initialize) path, skipping era detection
    #[arg(long = "skip-era-check", help_heading = "Run")]
    pub skip_era_check: bool,
    /// When the server asks for authorization (or more scope) during the conversation and no
    /// configured credential can answer, log in in the browser as `scout auth login` does
    /// (asking for the scope already held plus the one asked for) and send the request
    /// again; not under CI=true
    #[arg(long, help_heading = "Authorization")]
    pub login: bool,
    /// With --login: only print the URL to open; do not start a browser
    #[arg(
        long = "no-browser",
        requires = "login",
        help_heading = "Authorization"
    )]
    pub no_browser: bool,
    /// With --login: how long to wait for the browser to come back, e.g. 5m
    #[arg(long = "login-wait", value_name = "DURATION", default_value = "5m", requires = "login", value_parser = crate::cli::args::parse_duration_text, help_heading = "Authorization")]
    pub login_wait: String,
}

impl OneServerArgs {
    /// What the command allows when a later request asks for (more) authorization: the
    /// configured grant always runs again; a login only with `--login`.
    pub fn reauth(&self) -> Result<crate::client::reauth::Reauth, CliError> {
        if !self.login {
            return Ok(crate::client::reauth::Reauth::default());
        }
        if crate::auth::login::under_ci() {
            return Err(CliError::Usage(
                "--login is for people at a desk and refuses to run under CI=true; in CI give scout credentials with --client-id/--client-secret-env, --refresh-token-env, --token-env or --token-file".into(),
            ));
        }
        let wait = crate::config::duration::parse(&self.login_wait)
            .map_err(|e| CliError::Usage(format!("invalid --login-wait: {e}")))?;
        Ok(crate::client::reauth::Reauth {
            login: Some(crate::client::reauth::Login {
                open_browser: !self.no_browser,
                wait,
            }),
        })
    }

    /// These flags as the highest config layer.
    fn settings(&self, policy: &PolicyArgs) -> SettingsArgs {
        SettingsArgs {
            timeout: self.timeout.clone(),
            skip_era_check: self.skip_era_check,
            policy: policy.clone(),
            ..SettingsArgs::default()
        }
    }
}

/// `scout connect`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout connect http://127.0.0.1:3001/mcp\n  scout connect --json --stdio -- python3 -m mcp_server_time"
)]
pub struct ConnectArgs {
    #[command(flatten)]
    pub one: OneServerArgs,
    /// Print the summary as JSON
    #[arg(long)]
    pub json: bool,
}

/// The one server these arguments name, as a spec (with the safety flags applied).
pub fn resolve(args: &OneServerArgs, policy: &PolicyArgs) -> Result<ServerSpec, CliError> {
    let target = target_entry(&args.target)?;
    if target.is_some() && args.server.is_some() {
        return Err(CliError::Usage(
            "--server picks a server of the config; it cannot be combined with a URL or --stdio"
                .into(),
        ));
    }
    let loaded = config::load(LoadOptions {
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
        flags: flags_layer(&args.settings(policy))?,
        target,
    })?;
    let mut servers = loaded.servers;
    let names = || {
        servers
            .iter()
            .map(|p| p.spec.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &args.server {
        Some(name) => {
            let list = names();
            servers
                .into_iter()
                .find(|p| &p.spec.name == name)
                .map(|p| p.spec)
                .ok_or_else(|| {
                    CliError::Usage(format!(
                        "no server named `{name}` in the config (it lists: {})",
                        if list.is_empty() { "none".into() } else { list }
                    ))
                })
        }
        None if servers.len() == 1 => Ok(servers.remove(0).spec),
        None if servers.is_empty() => Err(CliError::Usage(
            "no server to use: give a URL, `--stdio -- CMD ARGS…`, or a config with [[default.servers]]".into(),
        )),
        None => Err(CliError::Usage(format!(
            "the config lists several servers ({}); pick one with --server NAME",
            names()
        ))),
    }
}

/// A multi-threaded runtime for one command.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("could not start the async runtime: {e}")))
}

/// Prints to stdout, treating a closed pipe as success.
pub fn print(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Internal(format!(
            "could not write to stdout: {e}"
        ))),
        _ => Ok(()),
    }
}

/// `value` as pretty JSON with a final newline.
pub fn pretty_json(value: &impl serde::Serialize) -> Result<String, CliError> {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::Internal(format!("could not render JSON: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// Runs `scout connect`: exit 0 when a conversation could be opened, 1 when not.
pub fn run(args: ConnectArgs) -> Result<u8, CliError> {
    let spec = resolve(&args.one, &PolicyArgs::default())?;
    let reauth = args.one.reauth()?;
    let rt = runtime()?;
    match rt.block_on(crate::client::summary::summary(&spec, Some(reauth))) {
        Ok(summary) => {
            let text = if args.json {
                pretty_json(&summary)?
            } else {
                summary.render_human()
            };
            print(&text)?;
            Ok(crate::exit::PASSED)
        }
        Err(e) if e.is_config_error() => Err(CliError::Usage(e.to_string())),
        Err(e) => Err(CliError::Unreachable(format!(
            "could not connect to {}: {e}",
            spec.target_display()
        ))),
    }
}
