//! Where the finished report goes: one dispatch from the requested formats to the emitters,
//! each file written atomically. `--out-dir` (and the config's `formats`) put reports in one
//! folder under fixed names; an explicit path flag puts that one report where it says.

use std::path::{Path, PathBuf};

use crate::emit;
use crate::report::Report;

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    Json,
    Junit,
    Sarif,
    Markdown,
    Gitlab,
    Har,
    Events,
    /// The score badge (SVG).
    Badge,
}

impl Format {
    /// Every format, in the order they are written.
    pub const ALL: [Format; 8] = [
        Format::Json,
        Format::Junit,
        Format::Sarif,
        Format::Markdown,
        Format::Gitlab,
        Format::Har,
        Format::Events,
        Format::Badge,
    ];

    /// The name used in the config's `formats`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Markdown => "markdown",
            Format::Gitlab => "gitlab",
            Format::Har => "har",
            Format::Events => "events",
            Format::Badge => "badge",
        }
    }

    /// Parses a `formats` entry.
    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s.trim().to_ascii_lowercase())
    }

    /// The fixed name inside `--out-dir` (`har` is a folder).
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Json => "scout.json",
            Format::Junit => "junit.xml",
            Format::Sarif => "scout.sarif",
            Format::Markdown => "summary.md",
            Format::Gitlab => "gitlab-codequality.json",
            Format::Har => "har",
            Format::Events => "events.ndjson",
            Format::Badge => "badge.svg",
        }
    }
}

/// The reports to write: format → path (a folder for HAR).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    pub targets: Vec<(Format, PathBuf)>,
}

impl Outputs {
    /// Combines explicit paths with `out_dir` + `formats`. An explicit path wins for its
    /// format; `out_dir` with no format named at all writes every format.
    pub fn plan(
        explicit: Vec<(Format, PathBuf)>,
        out_dir: Option<&Path>,
        formats: &[Format],
    ) -> Outputs {
        let mut targets = explicit;
        let wanted: Vec<Format> = if formats.is_empty() && targets.is_empty() {
            Format::ALL.to_vec()
        } else {
            formats.to_vec()
        };
        if let Some(dir) = out_dir {
            for f in wanted {
                if !targets.iter().any(|(g, _)| *g == f) {
                    targets.push((f, dir.join(f.file_name())));
                }
            }
        }
        targets.sort();
        targets.dedup();
        Outputs { targets }
    }
}

/// A report that could not be written (exit 3).
#[derive(Debug, thiserror::Error)]
#[error(
    "could not write the {format} report to {path}: {source}; check that the folder is writable"
)]
pub struct WriteError {
    pub format: &'static str,
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

/// Renders and writes every requested report; returns the paths written, each with the name
/// of its format (`har` once per server file).
pub fn write_all(report: &Report, outputs: &Outputs) -> Result<Vec<(Format, PathBuf)>, WriteError> {
    write_all_with(report, outputs, &emit::markdown::Options::default())
}

/// The Markdown options of a run that writes `outputs`: the full report is the JSON report
/// being written, in the artifacts of the workflow run when under GitHub Actions.
pub fn markdown_options(outputs: &Outputs) -> emit::markdown::Options<'static> {
    let json = outputs
        .targets
        .iter()
        .find(|(f, _)| *f == Format::Json)
        .map(|(_, p)| p.display().to_string());
    emit::markdown::Options {
        full_report: emit::markdown::full_report_note(
            emit::github::run_url().as_deref(),
            json.as_deref(),
        ),
        ..Default::default()
    }
}

/// [`write_all`] with the Markdown summary's options. When `markdown.full_report` is not
/// set, the JSON report being written (if any) is named as the full report.
pub fn write_all_with(
    report: &Report,
    outputs: &Outputs,
    markdown: &emit::markdown::Options,
) -> Result<Vec<(Format, PathBuf)>, WriteError> {
    let mut markdown = markdown.clone();
    if markdown.full_report.is_none() {
        markdown.full_report = outputs
            .targets
            .iter()
            .find(|(f, _)| *f == Format::Json)
            .and_then(|(_, p)| {
                emit::markdown::full_report_note(None, Some(&p.display().to_string()))
            });
    }
    let mut written = Vec::new();
    for (format, path) in &outputs.targets {
        let fail = |source| WriteError {
            format: format.as_str(),
            path: path.display().to_string(),
            source,
        };
        match format {
            Format::Har => {
                for server in &report.servers {
                    let file = path.join(format!("{}.har", file_safe(&server.name)));
                    emit::write_atomic(&file, emit::har::render(server).as_bytes())
                        .map_err(fail)?;
                    written.push((Format::Har, file));
                }
            }
            other => {
                let text = match other {
                    Format::Json => emit::json::render(report),
                    Format::Junit => emit::junit::render(report),
                    Format::Sarif => emit::sarif::render(report),
                    Format::Markdown => emit::markdown::render_with(report, &markdown),
                    Format::Gitlab => emit::gitlab::render(report),
                    Format::Events => emit::events::render(report),
                    Format::Badge => emit::badge::render(report),
                    Format::Har => String::new(),
                };
                emit::write_atomic(path, text.as_bytes()).map_err(fail)?;
                written.push((*format, path.clone()));
            }
        }
    }
    Ok(written)
}

/// A server name as a file name: anything outside `[A-Za-z0-9._-]` becomes `_`.
pub fn file_safe(name: &str) -> String {
    crate::report::file::safe_file_name(name, "server")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_dir_uses_fixed_names_and_explicit_paths_win() {
        let o = Outputs::plan(
            vec![(Format::Json, PathBuf::from("x/report.json"))],
            Some(Path::new("out")),
            &[Format::Json, Format::Junit],
        );
        assert_eq!(
            o.targets,
            vec![
                (Format::Json, PathBuf::from("x/report.json")),
                (Format::Junit, PathBuf::from("out/junit.xml")),
            ]
        );
        let all = Outputs::plan(vec![], Some(Path::new("out")), &[]);
        assert_eq!(all.targets.len(), Format::ALL.len());
        assert!(
            Outputs::plan(vec![], None, &[Format::Json])
                .targets
                .is_empty()
        );
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_safe("127.0.0.1:3001"), "127.0.0.1_3001");
        assert_eq!(file_safe("../x"), ".._x");
        assert_eq!(file_safe(".."), "server");
    }
}
