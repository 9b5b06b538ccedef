//! `scout check` and `scout config show`: flags → config layer → plan → run → reports → exit
//! code. The only place that turns the command line into [`LoadOptions`].

use std::io::IsTerminal;
use std::path::PathBuf;

use tokio::sync::watch;

use crate::cli::CliError;
use crate::cli::args::{
    CheckArgs, OutputArgs, SettingsArgs, ShowArgs, ShowFormat, TargetArgs, Verbosity,
};
use crate::config::layer::{Layer, List, ServerEntry};
use crate::config::{self, LoadOptions, servers::name_from_target};
use crate::emit::outputs::{Format, Outputs};
use crate::emit::text::{self, TextStyle};
use crate::report::Report;
use crate::runner::{self, RunOptions};

/// The folder the config's `formats` go to when no `out_dir` is set.
const DEFAULT_OUT_DIR: &str = "scout-report";

/// The flags that are config keys, as the highest layer (only what was given).
pub fn flags_layer(s: &SettingsArgs) -> Result<Layer, CliError> {
    config::layer::from_flags(s)
        .map_err(|e| CliError::Internal(format!("the flags do not fit the config keys: {e}")))
}

/// The server named on the command line, if any. Credentials with `--stdio` are refused, not
/// ignored (docs/safety.md).
pub fn target_entry(t: &TargetArgs) -> Result<Option<ServerEntry>, CliError> {
    if let Some(file) = &t.server_json {
        // Relative to where scout runs, not to a config file.
        let path = std::path::absolute(file)
            .map_err(|e| CliError::Usage(format!("--server-json {}: {e}", file.display())))?;
        let name = file
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "server".into());
        return Ok(Some(ServerEntry {
            name,
            server_json: Some(path),
            // Headers and credentials are for every remote the manifest names (its packages
            // are stdio): given, they are used, never silently dropped.
            ..http_credentials(t)
        }));
    }
    if let Some(bundle) = &t.mcpb {
        let path = std::path::absolute(bundle)
            .map_err(|e| CliError::Usage(format!("--mcpb {}: {e}", bundle.display())))?;
        // The absolute path's, so `--mcpb .` is named after the folder.
        let name = path
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "bundle".into());
        return Ok(Some(ServerEntry {
            name,
            mcpb: Some(path),
            ..ServerEntry::default()
        }));
    }
    if t.stdio {
        if let Some(flag) = t.credentials.given().first() {
            return Err(CliError::Usage(format!(
                "{flag} is a credential for HTTP servers and cannot be used with --stdio; pass what a stdio server needs with --stdio-env NAME or --stdio-set NAME=VALUE"
            )));
        }
        for (given, flag) in [
            (t.token_env.is_some(), "--token-env"),
            (!t.header.is_empty(), "--header"),
        ] {
            if given {
                return Err(CliError::Usage(format!(
                    "{flag} is a credential for HTTP servers and cannot be used with --stdio; pass what a stdio server needs with --stdio-env NAME or --stdio-set NAME=VALUE"
                )));
            }
        }
        if !t.start.is_empty() {
            return Err(CliError::Usage(
                "--start launches an HTTP server before checking its URL; with --stdio scout starts the command after `--` itself".into(),
            ));
        }
        if t.command.is_empty() {
            return Err(CliError::Usage(
                "--stdio needs the server command after `--`, e.g. scout check --stdio -- python3 server.py".into(),
            ));
        }
        return Ok(Some(ServerEntry {
            name: name_from_target(None, &t.command),
            command: Some(t.command.clone()),
            stdio_env: (!t.stdio_env.is_empty()).then(|| t.stdio_env.clone()),
            stdio_set: (!t.stdio_set.is_empty()).then(|| t.stdio_set.iter().cloned().collect()),
            stdio_dir: t.stdio_dir.clone(),
            ..ServerEntry::default()
        }));
    }
    let Some(url) = &t.url else {
        if let Some(flag) = t.credentials.given().first() {
            return Err(CliError::Usage(format!(
                "{flag} applies to a server given as a URL on the command line; for servers of the config file set it in their [[servers]] entry"
            )));
        }
        for (given, flag) in [
            (t.token_env.is_some(), "--token-env"),
            (!t.header.is_empty(), "--header"),
            (!t.start.is_empty(), "--start"),
        ] {
            if given {
                return Err(CliError::Usage(format!(
                    "{flag} applies to a server given as a URL on the command line; for servers of the config file set it in their [[servers]] entry"
                )));
            }
        }
        return Ok(None);
    };
    Ok(Some(ServerEntry {
        name: name_from_target(Some(url), &[]),
        url: Some(url.clone()),
        start: (!t.start.is_empty()).then(|| t.start.clone()),
        ..http_credentials(t)
    }))
}

/// The headers and credential flags of the command line, as a server entry's keys.
fn http_credentials(t: &TargetArgs) -> ServerEntry {
    let c = &t.credentials;
    ServerEntry {
        headers: (!t.header.is_empty()).then(|| t.header.iter().cloned().collect()),
        token_env: t.token_env.clone(),
        token_file: c.token_file.clone(),
        client_id: c.client_id.clone(),
        client_secret_env: c.client_secret_env.clone(),
        client_secret_file: c.client_secret_file.clone(),
        refresh_token_env: c.refresh_token_env.clone(),
        refresh_token_file: c.refresh_token_file.clone(),
        scope: c.scope.clone(),
        limited_scope: c.limited_scope.clone(),
        issuer: c.issuer.clone(),
        client_key_file: c.client_key_file.clone(),
        allow_refresh_rotation: c.allow_refresh_rotation.then_some(true),
        ..ServerEntry::default()
    }
}

/// The explicit report paths.
fn explicit_outputs(o: &OutputArgs) -> Vec<(Format, PathBuf)> {
    [
        (Format::Json, &o.json),
        (Format::Junit, &o.junit),
        (Format::Sarif, &o.sarif),
        (Format::Markdown, &o.markdown),
        (Format::Gitlab, &o.gitlab),
        (Format::Har, &o.har),
        (Format::Events, &o.events),
        (Format::Badge, &o.badge),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.clone().map(|p| (f, p)))
    .collect()
}

/// What a caller other than the command line adds to a check: config keys that have no
/// `check` flag (`scout action`'s `formats` input).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// The `formats` key, above the config file's.
    pub formats: Option<Vec<String>>,
    /// `scout expect init`: call read-only tools only, whatever the config allows, and write
    /// a starter expectations file here from the run.
    pub write_expectations: Option<PathBuf>,
}

/// `scout check`.
pub fn run(args: CheckArgs, verbosity: Verbosity) -> Result<u8, CliError> {
    run_with(args, verbosity, Extra::default())
}

/// `scout check` with [`Extra`] settings.
pub fn run_with(args: CheckArgs, verbosity: Verbosity, extra: Extra) -> Result<u8, CliError> {
    let target = target_entry(&args.target)?;
    let mut flags = flags_layer(&args.settings)?;
    flags.formats = extra.formats.map(List::Items);
    let mut loaded = config::load(LoadOptions {
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
        flags,
        target,
    })?;
    if extra.write_expectations.is_some() {
        // A starter file proposes only what is safe to run again and again.
        for p in &mut loaded.servers {
            p.spec.policy = p.spec.policy.default_permissions();
        }
    }
    let s = &loaded.settings;
    let baseline = preflight(&loaded, &args)?;
    config::check_secrets(&loaded.servers)?;
    let destructive: Vec<&str> = loaded
        .servers
        .iter()
        .filter(|p| p.spec.policy.allow_destructive)
        .map(|p| p.spec.name.as_str())
        .collect();
    if !destructive.is_empty() {
        crate::say!(
            "scout: WARNING: destructive tools may be called on {} (--allow-destructive): their data may be changed or deleted",
            destructive.join(", ")
        );
    }
    let out_dir = s
        .out_dir
        .clone()
        .or_else(|| (!s.formats.is_empty()).then(|| PathBuf::from(DEFAULT_OUT_DIR)));
    let outputs = Outputs::plan(
        explicit_outputs(&args.outputs),
        out_dir.as_deref(),
        &s.formats,
    );
    // On a terminal the live phase list replaces the one-line progress; everywhere else the
    // output stays exactly the plain one.
    let live = !verbosity.quiet && crate::cli::tui::Terminal::detect(verbosity.no_tui).live_view();
    let total = match args.run.shard {
        Some(shard) => loaded
            .servers
            .iter()
            .filter(|p| shard.contains(&p.spec.name))
            .count(),
        None => loaded.servers.len(),
    };
    let (observer, events) = match live {
        true => {
            let (o, rx) = crate::telemetry::events::Observer::channel();
            (Some(o), Some(rx))
        }
        false => (None, None),
    };
    let options = RunOptions {
        jobs: s.jobs,
        shard: args.run.shard,
        ignore: s.ignore.clone(),
        progress: !verbosity.quiet && !live,
        baseline,
        observer,
    };

    let (report, interrupted) = execute(loaded.servers, options, total, events)?;

    if !verbosity.quiet {
        let terminal = std::io::stdout().is_terminal();
        let color = terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        // On a terminal the report is wrapped at word boundaries to its width (the
        // terminal would otherwise break words anywhere); a pipe or a file gets whole lines.
        let width = terminal
            .then(|| ratatui::crossterm::terminal::size().ok())
            .flatten()
            .map(|(cols, _)| usize::from(cols))
            .filter(|w| *w >= 20);
        text::print(&report, TextStyle { color, width })
            .map_err(|e| CliError::Internal(format!("could not write to stdout: {e}")))?;
    }
    if args.run.conformance_summary {
        use std::io::Write;
        std::io::stdout()
            .lock()
            .write_all(crate::emit::conformance::render_text(&report).as_bytes())
            .map_err(|e| CliError::Internal(format!("could not write to stdout: {e}")))?;
    }
    publish(
        &report,
        &outputs,
        args.run.write_baseline.as_deref(),
        args.run.conformance_summary,
    )?;
    if let Some(path) = &extra.write_expectations {
        let text = crate::emit::expectations::starter(&report);
        crate::report::file::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::Internal(format!("could not write {}: {e}", path.display())))?;
        crate::say!(
            "scout: wrote starter expectations {}; edit them, then move them into scout.toml",
            path.display()
        );
    }
    // Read only when it is logged: a file read at the end of every check otherwise.
    if tracing::enabled!(tracing::Level::INFO)
        && let Some(kib) = crate::telemetry::memory::own_peak_kib()
    {
        tracing::info!(kib, "scout's own peak resident memory");
    }
    if interrupted {
        return Err(CliError::Internal(
            "the run was interrupted (Ctrl-C); the reports written are partial".into(),
        ));
    }
    crate::cli::internal_errors_exit(&report)?;
    if let Some(stop) = credential_stop(&report) {
        return Err(CliError::Usage(stop));
    }
    let code = crate::cli::gate_exit(&report);
    if let Some(min) = args.run.fail_under_coverage
        && let Some(under) = coverage_under(&report, min)
    {
        crate::say!("gate failed: {under}");
        return Ok(crate::exit::GATE_FAILED);
    }
    Ok(code)
}

/// The servers whose `execution.coverage` is under `min` percent (or was not measured), as
/// one line, or None when every server reaches it.
fn coverage_under(report: &crate::report::model::Report, min: u8) -> Option<String> {
    use crate::probe::execution::coverage::{COVERAGE, percent_of};
    let mut under = Vec::new();
    for server in &report.servers {
        let percent = server
            .findings
            .iter()
            .find(|f| f.id == COVERAGE.id)
            .and_then(|f| percent_of(&f.detail));
        match percent {
            Some(p) if p >= min => {}
            Some(p) => under.push(format!("{}: coverage {p}% < {min}%", server.name)),
            None => under.push(format!("{}: coverage was not measured", server.name)),
        }
    }
    (!under.is_empty()).then(|| under.join("; "))
}

/// Refuses settings that cannot run (a missing lock file, a stale-baseline flag without a
/// baseline, no servers) and loads the baseline.
fn preflight(
    loaded: &config::Loaded,
    args: &CheckArgs,
) -> Result<Option<(crate::report::baseline::Baseline, bool)>, CliError> {
    let s = &loaded.settings;
    if s.lock.is_some() && loaded.lock.is_none() {
        return Err(CliError::Usage(format!(
            "the lock file {} (`lock` in the config) does not exist; write it with `scout pin` or remove the setting",
            loaded.lock_path.display()
        )));
    }
    if args.run.allow_stale_baseline && s.baseline.is_none() {
        return Err(CliError::Usage(
            "--allow-stale-baseline needs a baseline: give --baseline FILE (or `baseline` in the config)".into(),
        ));
    }
    let baseline = match &s.baseline {
        Some(path) => Some((
            crate::report::baseline::load(path).map_err(|e| CliError::Usage(e.to_string()))?,
            args.run.allow_stale_baseline,
        )),
        None => None,
    };
    if loaded.servers.is_empty() {
        let file = loaded
            .file
            .as_ref()
            .map(|f| format!("{} [{}] lists no servers", f.display, loaded.profile))
            .unwrap_or_else(|| "no scout.toml was found".into());
        return Err(CliError::Usage(format!(
            "nothing to check: {file}; give a URL, `--stdio -- CMD ARGS…`, or add [[default.servers]] entries"
        )));
    }
    Ok(baseline)
}

/// The runtime for a run that checks up to `at_once` servers at a time. scout mostly waits
/// on servers: one server's run is a single conversation, and on one thread it costs less
/// than half the CPU time of a work-stealing pool, whose threads keep waking each other
/// (futex calls and task switches were most of a stdio check's CPU). Several servers at a
/// time get a worker per server, up to the machine's cores.
fn run_runtime(at_once: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if at_once <= 1 {
        return tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(at_once.min(cores))
        .enable_all()
        .build()
}

/// Runs the servers on a fresh runtime, with the live view when there is one and Ctrl-C
/// stopping the run; says whether the run was interrupted.
fn execute(
    servers: Vec<runner::Planned>,
    options: RunOptions,
    total: usize,
    events: Option<tokio::sync::mpsc::UnboundedReceiver<crate::telemetry::events::RunEvent>>,
) -> Result<(Report, bool), CliError> {
    let runtime = run_runtime(total.min(options.jobs.max(1)))
        .map_err(|e| CliError::Internal(format!("could not start the async runtime: {e}")))?;
    let (report, interrupted) = runtime.block_on(async move {
        let view = events.map(|rx| crate::cli::tui::run_view::RunView::start(total, rx));
        let (tx, rx) = watch::channel(false);
        let watcher = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                crate::cli::tui::above_view(|| crate::say!(
                    "scout: interrupted; stopping the running servers and writing a partial report (Ctrl-C again quits at once)"
                ));
                let _ = tx.send(true);
                if tokio::signal::ctrl_c().await.is_ok() {
                    crate::transport::process::kill_all_groups();
                    crate::cli::tui::restore_echo();
                    #[allow(clippy::exit, reason = "a second Ctrl-C means stop now (exit 130, the shell convention)")]
                    std::process::exit(130);
                }
            }
            // Keep the sender alive: a dropped sender would read as "cancelled" to the
            // servers still running (e.g. where signals cannot be listened for).
            std::future::pending::<()>().await;
            drop(tx);
        });
        let flag = rx.clone();
        let report = runner::run(servers, options, rx).await;
        if let Some(view) = view {
            view.finish(&report).await;
        }
        watcher.abort();
        let interrupted = *flag.borrow();
        (report, interrupted)
    });
    Ok((report, interrupted))
}

/// Writes every report, the baseline when asked for, and the CI integrations' files.
fn publish(
    report: &Report,
    outputs: &Outputs,
    write_baseline: Option<&std::path::Path>,
    conformance: bool,
) -> Result<(), CliError> {
    let markdown = crate::emit::markdown::Options {
        conformance,
        ..crate::emit::outputs::markdown_options(outputs)
    };
    let written = crate::emit::outputs::write_all_with(report, outputs, &markdown)
        .map_err(|e| CliError::Internal(e.to_string()))?;
    for (_, path) in &written {
        tracing::info!("wrote {}", path.display());
    }
    if let Some(path) = write_baseline {
        let reason = "accepted when this baseline was written; replace with why it is acceptable";
        crate::report::baseline::from_report(report, reason)
            .save(path)
            .map_err(|e| CliError::Internal(e.to_string()))?;
        crate::say!(
            "scout: wrote baseline {} ({} accepted finding(s)); edit each reason before committing it",
            path.display(),
            crate::report::baseline::from_report(report, reason)
                .accepted
                .len()
        );
    }
    // CI integrations: the step summary and, under GitHub Actions, annotations and outputs.
    crate::emit::markdown::append_step_summary(report, &markdown)
        .map_err(|e| CliError::Internal(format!("could not append to GITHUB_STEP_SUMMARY: {e}")))?;
    let mut named: Vec<(String, PathBuf)> = Vec::new();
    for (format, path) in &written {
        if *format == Format::Har {
            // One output for the folder, not one per server file.
            if let Some(dir) = path.parent()
                && !named.iter().any(|(n, _)| n == "har")
            {
                named.push(("har".into(), dir.to_path_buf()));
            }
        } else {
            named.push((format.as_str().to_string(), path.clone()));
        }
    }
    let pairs: Vec<(&str, &std::path::Path)> = named
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_path()))
        .collect();
    crate::emit::github::write_if_actions(report, &pairs)
        .map_err(|e| CliError::Internal(format!("could not write GitHub Actions outputs: {e}")))?;
    Ok(())
}

/// A run the operator's credential settings stopped before the grant (an `issuer` binding
/// the server's authorization server does not match, a refresh token from the environment
/// without `--allow-refresh-rotation`): `auth.token_acquired` skipped by policy. That is the
/// configuration's doing, not the server's, so the exit code is 2 with the line that says
/// why.
fn credential_stop(report: &crate::report::Report) -> Option<String> {
    report.servers.iter().find_map(|s| {
        s.findings
            .iter()
            .find(|f| {
                f.id == crate::probe::auth::TOKEN_ACQUIRED.id
                    && f.skip_reason == Some(crate::report::finding::SkipReason::Policy)
            })
            .map(|f| format!("server {}: {}", s.name, f.detail))
    })
}

/// `scout config show`.
pub fn show_config(args: ShowArgs) -> Result<u8, CliError> {
    let loaded = config::load(LoadOptions {
        config: args.source.config.clone(),
        profile: args.source.profile.clone(),
        flags: flags_layer(&args.settings)?,
        target: None,
    })?;
    let text = match args.format {
        ShowFormat::Text => config::show::render_text(&loaded),
        ShowFormat::Json => config::show::render_json(&loaded),
    };
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Internal(format!(
            "could not write to stdout: {e}"
        ))),
        _ => Ok(crate::exit::PASSED),
    }
}
