//! Emitters: pure functions of a finished, redacted [`Report`], one module per format. They
//! write; they never compute a score, talk to a server or see an unredacted secret.
//! Every file is written to a temporary file beside the target and renamed into place, so a
//! crash never leaves a half-written report for the upload step.

pub mod badge;
pub mod diff;
pub mod github;
pub mod gitlab;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod pinning;
pub mod sarif;
pub mod text;

use std::io::Write;
use std::path::Path;

#[allow(unused_imports)]
use crate::report::Report;

/// Writes `bytes` to `path` atomically (temp file in the same folder, then rename), creating
/// the folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
