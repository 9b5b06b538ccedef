//! `scout snapshots review|accept|reject [DIR]`: the pending snapshots that `scout check
//! --snapshots DIR` wrote as `.new` files, listed with their diffs, accepted (moved over the
//! stored file) or rejected (removed), and the pending removals it marked with `.gone` (a
//! stored snapshot no item of the run maps to), listed with why, accepted (the stored file is
//! removed) or rejected (it stays). Non-interactive, for CI and for a terminal alike.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::probe::snapshots::{GONE, PENDING, unified};

/// `scout snapshots …`.
#[derive(Debug, Subcommand)]
pub enum SnapshotsCommand {
    /// List the pending .new snapshots under DIR, each with its diff against the stored one, and the pending removals (.gone)
    Review(DirArgs),
    /// Accept every pending snapshot under DIR (it replaces the stored file) and every pending removal (the stored file is removed)
    Accept(DirArgs),
    /// Reject every pending snapshot under DIR (the .new file is removed) and every pending removal (the stored file stays)
    Reject(DirArgs),
}

/// The snapshot folder.
#[derive(Debug, Args)]
pub struct DirArgs {
    /// The folder given to `scout check --snapshots`
    #[arg(value_name = "DIR", default_value = "snapshots")]
    pub dir: PathBuf,
}

/// Runs the command; 0 on success, a one-line error when DIR cannot be read.
pub fn run(cmd: SnapshotsCommand) -> Result<u8, CliError> {
    let (dir, action) = match &cmd {
        SnapshotsCommand::Review(a) => (&a.dir, "review"),
        SnapshotsCommand::Accept(a) => (&a.dir, "accept"),
        SnapshotsCommand::Reject(a) => (&a.dir, "reject"),
    };
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "{} is not a folder of snapshots",
            dir.display()
        )));
    }
    let mut pending = Vec::new();
    walk(dir, &mut pending)
        .map_err(|e| CliError::Internal(format!("could not read {}: {e}", dir.display())))?;
    pending.sort();
    let mut out = String::new();
    for new in &pending {
        let io = |e: std::io::Error, p: &Path| {
            CliError::Internal(format!("could not update {}: {e}", p.display()))
        };
        if let Some(stored) = new.to_string_lossy().strip_suffix(GONE) {
            out.push_str(&settle_gone(new, Path::new(stored), action).map_err(|e| io(e, new))?);
            continue;
        }
        let stored = PathBuf::from(
            new.to_string_lossy()
                .strip_suffix(PENDING)
                .unwrap_or_default(),
        );
        match action {
            "review" => {
                let text = std::fs::read_to_string(new).map_err(|e| io(e, new))?;
                match std::fs::read_to_string(&stored) {
                    Ok(old) => {
                        out.push_str(&format!("changed: {}\n", stored.display()));
                        out.push_str(&unified(&old, &text, &stored));
                    }
                    Err(_) => out.push_str(&format!("new: {}\n", stored.display())),
                }
            }
            "accept" => {
                std::fs::rename(new, &stored).map_err(|e| io(e, &stored))?;
                out.push_str(&format!("accepted: {}\n", stored.display()));
            }
            _ => {
                std::fs::remove_file(new).map_err(|e| io(e, new))?;
                out.push_str(&format!("rejected: {}\n", stored.display()));
            }
        }
    }
    out.push_str(&match (action, pending.len()) {
        (_, 0) => "no pending snapshots\n".to_string(),
        ("review", n) => format!(
            "{n} pending snapshot(s); accept with `scout snapshots accept`, reject with `scout snapshots reject`\n"
        ),
        (_, n) => format!("{n} pending snapshot(s) {action}ed\n"),
    });
    use std::io::Write;
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| CliError::Internal(format!("could not write to stdout: {e}")))?;
    Ok(crate::exit::PASSED)
}

/// One pending removal (`marker` beside `stored`): listed with why, accepted by removing
/// the stored file, or rejected by keeping it.
fn settle_gone(marker: &Path, stored: &Path, action: &str) -> std::io::Result<String> {
    let gone = |p: &Path| match std::fs::remove_file(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    };
    Ok(match action {
        "review" => {
            let why = std::fs::read_to_string(marker)?;
            format!("gone: {} ({})\n", stored.display(), why.trim())
        }
        "accept" => {
            gone(stored)?;
            gone(marker)?;
            format!("removed: {}\n", stored.display())
        }
        _ => {
            gone(marker)?;
            format!("kept: {}\n", stored.display())
        }
    })
}

/// Every `.new` and `.gone` file under `dir`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else if path.to_string_lossy().ends_with(PENDING)
            || path.to_string_lossy().ends_with(GONE)
        {
            out.push(path);
        }
    }
    Ok(())
}
