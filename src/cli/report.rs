//! `scout report …`: work with the JSON reports of earlier runs.
//!
//! - `merge` combines the JSON reports of sharded runs (`--shard I/N`) into one report,
//!   writes every requested format and re-evaluates the gate with the given thresholds.
//! - `diff` compares the run of the target branch (BASE) with this one (HEAD): score
//!   deltas, new and fixed problems; human text on stdout, Markdown for the PR comment and
//!   a JSON diff on request; `--fail-on-new` exits 1 when there are new failing checks.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::cli::args::{GateArgs, OutputArgs};
use crate::emit::outputs::{Format, Outputs};
use crate::report::Report;
use crate::report::gate::GateConfig;

/// `scout report …`.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge the JSON reports of sharded runs into one report (every format) and re-gate it
    Merge(Box<MergeArgs>),
    /// Compare two runs (base branch vs. this one): score deltas, new and fixed problems
    #[command(
        after_help = "Prints a summary on stdout (the Markdown with `--markdown -`).\nExit codes: 0 compared · 1 --fail-on-new and a check fails that did not fail in BASE · 2 a report could not be read\n\nExample:\n  scout report diff base/scout.json scout-report/scout.json --markdown comment.md --fail-on-new"
    )]
    Diff(Box<DiffArgs>),
}

/// `scout report merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON reports (scout/report/v1) written by `scout check --json` in each shard
    #[arg(value_name = "FILES", required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub outputs: OutputArgs,
    /// Write every report format into this folder under fixed names
    #[arg(long = "out-dir", value_name = "DIR", help_heading = "Reports")]
    pub out_dir: Option<PathBuf>,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// `scout report diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The JSON report of the base run (e.g. the target branch)
    #[arg(value_name = "BASE.json")]
    pub base: PathBuf,
    /// The JSON report of this run
    #[arg(value_name = "HEAD.json")]
    pub head: PathBuf,
    /// Write the PR-comment Markdown here (`-` = stdout instead of the text summary)
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Write the diff as JSON (scout/diff/v1) here
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Exit 1 when a counted check fails in HEAD that did not fail in BASE (on a server of
    /// both runs)
    #[arg(long = "fail-on-new")]
    pub fail_on_new: bool,
    /// What the outputs call the base run [default: the pull request's target branch in
    /// GitHub Actions or GitLab CI, else the file name]
    #[arg(long = "base-label", value_name = "TEXT")]
    pub base_label: Option<String>,
    /// What the outputs call this run [default: the branch and commit in GitHub Actions or
    /// GitLab CI, else the file name]
    #[arg(long = "head-label", value_name = "TEXT")]
    pub head_label: Option<String>,
}

/// A variable of the CI environment, when set and not empty.
fn ci_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The file name of `path`, for a label.
fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// What the diff calls the base run: the flag, the target branch of the pull or merge
/// request, or the file name.
fn base_label(args: &DiffArgs) -> String {
    args.base_label
        .clone()
        .or_else(|| ci_var("GITHUB_BASE_REF"))
        .or_else(|| ci_var("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
        .unwrap_or_else(|| file_label(&args.base))
}

/// What the diff calls this run: the flag, the branch and commit CI names, or the file name.
fn head_label(args: &DiffArgs) -> String {
    if let Some(l) = &args.head_label {
        return l.clone();
    }
    let github = ci_var("GITHUB_HEAD_REF")
        .or_else(|| ci_var("GITHUB_REF_NAME"))
        .map(|branch| (branch, ci_var("GITHUB_SHA")));
    let gitlab = || {
        ci_var("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME")
            .or_else(|| ci_var("CI_COMMIT_REF_NAME"))
            .map(|branch| (branch, ci_var("CI_COMMIT_SHA")))
    };
    match github.or_else(gitlab) {
        Some((branch, Some(sha))) => {
            format!("{branch} @ {}", sha.chars().take(7).collect::<String>())
        }
        Some((branch, None)) => branch,
        None => file_label(&args.head),
    }
}

/// Reads a v1 JSON report, or says why not (exit 2).
fn read_report(path: &Path) -> Result<Report, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Usage(format!("could not read report {}: {e}", path.display())))?;
    crate::emit::json::parse(&text).map_err(|e| {
        CliError::Usage(format!(
            "{} is not a scout JSON report (scout/report/v1): {e}; pass the files written by `scout check --json`",
            path.display()
        ))
    })
}

/// Runs `scout report merge`; returns the exit code of the re-evaluated gate.
pub fn merge(args: MergeArgs) -> Result<u8, CliError> {
    let mut reports = Vec::new();
    for f in &args.files {
        reports.push(read_report(f)?);
    }
    let gate = GateConfig {
        fail_under: args.gate.fail_under,
        fail_under_category: args.gate.fail_under_category.clone(),
        fail_on: args.gate.fail_on,
    };
    let report = crate::runner::merge::merge(reports, &gate)
        .map_err(|e| CliError::Usage(format!("cannot merge: {e}")))?;
    let explicit: Vec<(Format, PathBuf)> = [
        (Format::Json, &args.outputs.json),
        (Format::Junit, &args.outputs.junit),
        (Format::Sarif, &args.outputs.sarif),
        (Format::Markdown, &args.outputs.markdown),
        (Format::Gitlab, &args.outputs.gitlab),
        (Format::Har, &args.outputs.har),
        (Format::Events, &args.outputs.events),
        (Format::Badge, &args.outputs.badge),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.clone().map(|p| (f, p)))
    .collect();
    let outputs = Outputs::plan(explicit, args.out_dir.as_deref(), &[]);
    let markdown = crate::emit::outputs::markdown_options(&outputs);
    crate::emit::outputs::write_all_with(&report, &outputs, &markdown)
        .map_err(|e| CliError::Internal(e.to_string()))?;
    let summary = format!(
        "scout: merged {} report(s), {} server(s); gate {}",
        args.files.len(),
        report.servers.len(),
        if report.gate.passed {
            "passed"
        } else {
            "failed"
        }
    );
    crate::say!("{summary}");
    crate::cli::internal_errors_exit(&report)?;
    Ok(crate::cli::gate_exit(&report))
}

/// Writes `text` to stdout; a closed pipe is not an error.
fn print(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Internal(format!(
            "could not write to stdout: {e}"
        ))),
        _ => Ok(()),
    }
}

/// Runs `scout report diff`: 0, or 1 with `--fail-on-new` when there are new fails.
/// `scout report diff`; `-q` leaves out the text summary (files and the exit code stay).
pub fn diff(args: DiffArgs, quiet: bool) -> Result<u8, CliError> {
    // Scores are recomputed from the findings with this scout's rules, so a base report
    // written by an older scout compares fairly (and a blocked server never has a score).
    let mut base = read_report(&args.base)?;
    let mut head = read_report(&args.head)?;
    for s in base.servers.iter_mut().chain(head.servers.iter_mut()) {
        crate::report::score::rescore(s);
    }
    let mut d = crate::report::diff::diff(&base, &head);
    d.base_label = base_label(&args);
    d.head_label = head_label(&args);
    d.fail_on_new = args.fail_on_new;
    if d.unpaired() {
        crate::say!(
            "scout: WARNING: no server of {} was paired with one of {} (by name, then by target): nothing was compared; give each server the same `name` in both runs",
            d.head_label,
            d.base_label
        );
    }
    let write = |path: &Path, what: &str, text: &str| {
        crate::emit::write_atomic(path, text.as_bytes()).map_err(|e| {
            CliError::Internal(format!(
                "could not write the {what} to {}: {e}; check that the folder is writable",
                path.display()
            ))
        })
    };
    let markdown_text = || {
        let opts = crate::emit::markdown::Options {
            diff: Some(&d),
            full_report: crate::emit::markdown::full_report_note(
                crate::emit::github::run_url().as_deref(),
                Some(&args.head.display().to_string()),
            ),
            max_bytes: 0,
            conformance: false,
        };
        crate::emit::markdown::render_with(&head, &opts)
    };
    let markdown_to_stdout = args.markdown.as_deref() == Some(Path::new("-"));
    match &args.markdown {
        Some(_) if markdown_to_stdout => print(&markdown_text())?,
        Some(path) => write(path, "Markdown diff", &markdown_text())?,
        None => {}
    }
    if let Some(path) = &args.json {
        write(path, "JSON diff", &crate::emit::diff::render_json(&d))?;
    }
    if !markdown_to_stdout && !quiet {
        print(&crate::emit::diff::render_text(&d))?;
    }
    let new_fails = d.new_fails();
    if args.fail_on_new && !new_fails.is_empty() {
        for (server, f) in &new_fails {
            let subject = f
                .subject
                .as_ref()
                .map(|s| format!("[{s}]"))
                .unwrap_or_default();
            let era = f
                .era
                .map(|e| format!(" ({})", e.as_str()))
                .unwrap_or_default();
            crate::say!("new failing check: {server}: {}{subject}{era}", f.id);
        }
        return Ok(crate::exit::GATE_FAILED);
    }
    Ok(crate::exit::PASSED)
}
