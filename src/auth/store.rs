//! Tokens stored by `scout auth login`, one file per server in the user's config directory
//! (`$XDG_CONFIG_HOME/scout/tokens` on Linux, the platform's equivalent elsewhere), readable
//! by the user only (0600, in a 0700 folder). `scout check` uses a stored token for a server
//! that has no credentials configured.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::auth::metadata::canonical;

/// What a login stored for one server. The values are secrets: `Debug` hides them.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredToken {
    /// The MCP server's canonical URL.
    pub server: String,
    pub issuer: String,
    pub token_endpoint: String,
    pub client_id: String,
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Unix seconds, when the token endpoint gave a lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Unix seconds.
    pub saved_at: u64,
}

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredToken")
            .field("server", &self.server)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

impl StoredToken {
    /// True when the token's lifetime is known and over (with a minute's margin).
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|t| t <= now + 60)
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The folder tokens are stored in (None when the platform has no config directory).
pub fn dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("scout").join("tokens"))
}

/// The file of one server's token: a hash of its canonical URL (the URL itself may hold
/// characters a file name cannot).
pub fn path_for(dir: &Path, server_url: &str) -> PathBuf {
    let key = canonical(server_url).unwrap_or_else(|| server_url.to_string());
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash.iter().take(12).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{hex}.json"))
}

/// Writes the token readable by the user only, atomically (a temporary file in the same
/// folder, renamed into place).
pub fn save(dir: &Path, token: &StoredToken) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    let path = path_for(dir, &token.server);
    // tempfile creates the file with mode 0600 on Unix.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let text = serde_json::to_string_pretty(token).map_err(std::io::Error::other)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// Replaces the content of a secret file (a rotated refresh token) atomically: a temporary
/// file in the same folder, readable by the user only (0600), renamed over the old one, so a
/// crash leaves either the old token or the new one, never half of either.
pub fn replace_secret_file(path: &Path, value: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    std::io::Write::write_all(&mut tmp, format!("{value}\n").as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The stored token of a server, when there is one that can be read.
pub fn load(dir: &Path, server_url: &str) -> Option<StoredToken> {
    let text = std::fs::read_to_string(path_for(dir, server_url)).ok()?;
    let t: StoredToken = serde_json::from_str(&text).ok()?;
    (canonical(&t.server) == canonical(server_url)).then_some(t)
}

/// Deletes the stored token of a server; true when there was one.
pub fn remove(dir: &Path, server_url: &str) -> std::io::Result<bool> {
    match std::fs::remove_file(path_for(dir, server_url)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(server: &str) -> StoredToken {
        StoredToken {
            server: server.into(),
            issuer: "http://127.0.0.1:1".into(),
            token_endpoint: "http://127.0.0.1:1/token".into(),
            client_id: "c".into(),
            access_token: "at-secret-value".into(),
            refresh_token: Some("rt-secret-value".into()),
            expires_at: Some(100),
            scope: Some("mcp".into()),
            saved_at: 1,
        }
    }

    #[test]
    fn a_rotated_secret_replaces_the_file_owner_only() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("refresh");
        std::fs::write(&p, "old-refresh\n").expect("write");
        replace_secret_file(&p, "new-refresh").expect("replaced");
        assert_eq!(
            std::fs::read_to_string(&p).expect("read").trim(),
            "new-refresh"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Nothing else is left in the folder (no temporary file).
        assert_eq!(std::fs::read_dir(d.path()).expect("dir").count(), 1);
    }

    #[test]
    fn round_trip_owner_only_and_keyed_by_canonical_url() {
        let d = tempfile::tempdir().expect("tempdir");
        let dir = d.path().join("tokens");
        let path = save(&dir, &sample("http://127.0.0.1:9/mcp")).expect("saved");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(&dir).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let back = load(&dir, "HTTP://127.0.0.1:9/mcp/").expect("loaded");
        assert_eq!(back, sample("http://127.0.0.1:9/mcp"));
        assert!(load(&dir, "http://127.0.0.1:9/other").is_none());
        assert!(!format!("{back:?}").contains("secret-value"));
        assert!(back.expired(100));
        assert!(!back.expired(0) || back.expires_at == Some(100));
        assert!(remove(&dir, "http://127.0.0.1:9/mcp").expect("removed"));
        assert!(!remove(&dir, "http://127.0.0.1:9/mcp").expect("gone"));
    }
}
