//! `scout snapshots review|accept|reject [DIR]`: the pending snapshots that `scout check
//! --snapshots DIR` wrote as `.new` files, listed with their diffs, accepted (moved over the
//! stored file) or rejected (removed). Non-interactive, for CI and for a terminal alike.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::cli::CliError;
use crate::probe::snapshots::{PENDING, unified};

/// `scout snapshots …`.
#[derive(Debug, Subcommand)]
pub enum SnapshotsCommand {
    /// List the pending .new snapshots under DIR, each with its diff against the stored one
    Review(DirArgs),
    /// Accept every pending snapshot under DIR (it replaces the stored file)
    Accept(DirArgs),
    /// Reject every pending snapshot under DIR (the .new file is removed)
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
        let stored = PathBuf::from(
            new.to_string_lossy()
                .strip_suffix(PENDING)
                .unwrap_or_default(),
        );
        let io = |e: std::io::Error, p: &Path| {
            CliError::Internal(format!("could not update {}: {e}", p.display()))
        };
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

/// Every `.new` file under `dir`.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else if path.to_string_lossy().ends_with(PENDING) {
            out.push(path);
        }
    }
    Ok(())
}
