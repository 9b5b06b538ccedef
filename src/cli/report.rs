//! `scout report merge`: combines the JSON reports of sharded runs (`--shard I/N`) into one
//! report, writes every requested format and re-evaluates the gate with the given thresholds.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::cli::args::{GateArgs, OutputArgs};
use crate::report::gate::GateConfig;
use crate::runner::outputs::{Format, Outputs};

/// `scout report …`.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge the JSON reports of sharded runs into one report (every format) and re-gate it
    Merge(Box<MergeArgs>),
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

/// Runs `scout report merge`; returns the exit code of the re-evaluated gate.
pub fn merge(args: MergeArgs) -> Result<u8, CliError> {
    let mut reports = Vec::new();
    for f in &args.files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| CliError::Usage(format!("could not read report {}: {e}", f.display())))?;
        let report = crate::emit::json::parse(&text).map_err(|e| {
            CliError::Usage(format!(
                "{} is not a scout JSON report (scout/report/v1): {e}; pass the files written by `scout check --json`",
                f.display()
            ))
        })?;
        reports.push(report);
    }
    let gate = GateConfig {
        fail_under: args.gate.fail_under,
        fail_under_category: args.gate.fail_under_category.clone(),
        fail_on: args.gate.fail_on,
    };
    let report = crate::report::merge::merge(reports, &gate)
        .map_err(|e| CliError::Usage(format!("cannot merge: {e}")))?;
    let explicit: Vec<(Format, PathBuf)> = [
        (Format::Json, &args.outputs.json),
        (Format::Junit, &args.outputs.junit),
        (Format::Sarif, &args.outputs.sarif),
        (Format::Markdown, &args.outputs.markdown),
        (Format::Gitlab, &args.outputs.gitlab),
        (Format::Har, &args.outputs.har),
        (Format::Events, &args.outputs.events),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.clone().map(|p| (f, p)))
    .collect();
    let outputs = Outputs::plan(explicit, args.out_dir.as_deref(), &[]);
    crate::runner::outputs::write_all(&report, &outputs)
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
    Ok(crate::cli::gate_exit(&report))
}
