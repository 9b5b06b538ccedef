//! `scout serve`: flags → a bound server → the printed URL → serve until Ctrl-C.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use clap::Args;

use crate::cli::CliError;
use crate::cli::args::ConfigSourceArgs;
use crate::serve::{Limits, Server};

/// `scout serve`.
#[derive(Debug, Args)]
#[command(
    after_help = "The page checks URLs; it starts a program (a stdio server) only with --allow-stdio, and never with --public.\nEvery request needs the token in the printed URL (traded for a cookie on first load).\n\nExamples:\n  scout serve\n  scout serve --port 8377 --open\n  scout serve --allow-stdio --max-runs 1"
)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (default: a free one)
    #[arg(long, value_name = "N", conflicts_with = "listen")]
    pub port: Option<u16>,
    /// Address to listen on, IP or IP:PORT (a non-loopback one needs --public)
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Let the page start a program as a stdio server on this machine (refused with --public)
    #[arg(long)]
    pub allow_stdio: bool,
    /// Listen on every interface (0.0.0.0, or --listen); the page never starts programs then
    #[arg(long)]
    pub public: bool,
    /// A host name the page may be opened under besides IP addresses (with --public)
    #[arg(long, value_name = "NAME", requires = "public")]
    pub allow_host: Vec<String>,
    /// Open the page in the default browser
    #[arg(long)]
    pub open: bool,
    /// Runs at the same time; more are refused (429) until one finishes
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=16))]
    pub max_runs: u16,
    /// Finished runs kept for the page (the oldest goes first)
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u16).range(1..=200))]
    pub keep_runs: u16,
    #[command(flatten)]
    pub source: ConfigSourceArgs,
}

/// Where to listen.
fn address(a: &ServeArgs) -> Result<SocketAddr, CliError> {
    let addr = match &a.listen {
        None => SocketAddr::new(
            if a.public {
                IpAddr::V4(Ipv4Addr::UNSPECIFIED)
            } else {
                IpAddr::V4(Ipv4Addr::LOCALHOST)
            },
            a.port.unwrap_or(0),
        ),
        Some(text) => text
            .parse::<SocketAddr>()
            .or_else(|_| text.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 0)))
            .map_err(|_| {
                CliError::Usage(format!(
                    "--listen {text:?} is not an IP address or IP:PORT (e.g. 127.0.0.1:8377)"
                ))
            })?,
    };
    if !addr.ip().is_loopback() && !a.public {
        return Err(CliError::Usage(format!(
            "--listen {} is not a loopback address; add --public to let other machines reach the page",
            addr.ip()
        )));
    }
    Ok(addr)
}

/// `scout serve`.
pub fn run(args: ServeArgs) -> Result<u8, CliError> {
    let addr = address(&args)?;
    // A config that cannot be loaded is an error now, not on the page's first run.
    crate::config::load(crate::config::LoadOptions {
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
        ..Default::default()
    })?;
    let limits = Limits {
        allow_stdio: args.allow_stdio,
        public: args.public,
        max_runs: usize::from(args.max_runs),
        keep_runs: usize::from(args.keep_runs),
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(format!("could not start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let server = Server::bind(addr, args.public, args.allow_host.clone(), limits)
            .await
            .map_err(CliError::Usage)?;
        let url = server.url();
        let bound = server.guard.bound;
        if args.public {
            crate::say!(
                "scout: WARNING: --public: listening on {bound}; anyone who can reach this machine and has the URL can run checks from it (commands are refused)"
            );
        }
        let stdio = match (args.allow_stdio, args.public) {
            (_, true) => "commands refused (--public)",
            (true, false) => "commands allowed (--allow-stdio)",
            (false, false) => "commands refused (no --allow-stdio)",
        };
        crate::say!(
            "scout serve: listening on {bound}; {stdio}; at most {} run(s) at a time; read-only tools only; Ctrl-C stops",
            args.max_runs
        );
        {
            // The URL is the command's output: stdout, one line, flushed now.
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{url}");
            let _ = out.flush();
        }
        if args.open {
            open_browser(&url);
        }
        let shutdown = async {
            if tokio::signal::ctrl_c().await.is_ok() {
                crate::say!("scout serve: stopping the running checks (Ctrl-C again quits at once)");
                tokio::spawn(async {
                    if tokio::signal::ctrl_c().await.is_ok() {
                        crate::transport::process::kill_all_groups();
                        #[allow(clippy::exit, reason = "a second Ctrl-C means stop now (exit 130, the shell convention)")]
                        std::process::exit(130);
                    }
                });
            } else {
                // Signals cannot be listened for: serve until killed.
                std::future::pending::<()>().await;
            }
        };
        server.run(shutdown).await.map_err(CliError::Internal)?;
        Ok(crate::exit::PASSED)
    })
}

/// Opens `url` with the desktop's opener; failing to is only a note (the URL is printed).
fn open_browser(url: &str) {
    let (program, args): (&str, Vec<&str>) = if cfg!(target_os = "macos") {
        ("open", vec![url])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", url])
    } else {
        ("xdg-open", vec![url])
    };
    let spawned = std::process::Command::new(program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reaped in the background so no zombie is left.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => crate::say!(
            "scout serve: could not open a browser ({program}: {e}); open the URL above"
        ),
    }
}
