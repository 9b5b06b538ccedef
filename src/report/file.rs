//! Writing a report file: atomically, so that a reader (a later CI step, a browser) never
//! sees half of one.

use std::io::Write;
use std::path::Path;

/// `name` as a file name: every character outside `[A-Za-z0-9._-]` becomes `_`; a name
/// that is empty or only dots (which would name the folder itself or its parent) becomes
/// `fallback`.
pub fn safe_file_name(name: &str, fallback: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.trim_matches('.').is_empty() {
        fallback.to_string()
    } else {
        s
    }
}

/// Writes `bytes` to `path` atomically (temp file in the same folder, then rename), creating
/// the folder if needed. The file gets the mode any new file gets under the process's umask
/// (0644 under the usual 022), not the temp file's private 0600: a later CI step may run as
/// another user (upload-artifact after scout ran as root in a container) and must read it.
/// Reports hold nothing secret; they are redacted before they are written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The mode asked for at creation; the kernel applies the umask to it.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_report_is_readable_by_others_as_the_umask_allows() {
        use std::os::unix::fs::PermissionsExt;
        // Previously every report was 0600 whatever the umask (the temp file's mode).
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.json");
        write_atomic(&path, b"{}").expect("written");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        // The umask this process runs under, as a child shell inherits it.
        let out = std::process::Command::new("sh")
            .args(["-c", "umask"])
            .output()
            .expect("sh runs");
        let umask = u32::from_str_radix(String::from_utf8_lossy(&out.stdout).trim(), 8)
            .expect("an octal umask");
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o} under umask {umask:o}");
        // Overwriting keeps it so.
        write_atomic(&path, b"{}").expect("rewritten");
        let again = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(again, mode);
    }
}
