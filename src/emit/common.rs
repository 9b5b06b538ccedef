//! What several emitters say the same way: where a server's results point (its anchor), the
//! stable fingerprint of a finding, the evidence as text, and the order of capped lists.

use sha2::{Digest, Sha256};

use crate::report::finding::Finding;
use crate::report::model::{Anchor, ServerReport};

/// The file and line a server's results point at (SARIF, JUnit, annotations, GitLab).
pub fn anchor_of(server: &ServerReport) -> Anchor {
    server.anchor.clone().unwrap_or_else(|| Anchor {
        path: format!("mcp/{}", sanitize_path_segment(&server.name)),
        line: 1,
    })
}

/// The workflow file named by `$GITHUB_WORKFLOW_REF`
/// (`owner/repo/.github/workflows/ci.yml@refs/heads/main` → `.github/workflows/ci.yml`
/// line 1). The CLI sets it as the anchor of servers given on the command line when running
/// under GitHub Actions, so their alerts point at the workflow that checked them; `None`
/// when the value does not have that shape.
pub fn workflow_anchor(workflow_ref: &str) -> Option<Anchor> {
    let path = workflow_ref.split('@').next()?;
    let mut parts = path.splitn(3, '/');
    let (_owner, _repo, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let ok = rest.starts_with(".github/")
        && !rest.contains("..")
        && !rest.contains(':')
        && rest.chars().all(|c| !c.is_control());
    ok.then(|| Anchor {
        path: rest.to_string(),
        line: 1,
    })
}

/// Keeps a server name usable as one relative path segment (no `/`, `:`, `\` or spaces).
fn sanitize_path_segment(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '.') {
        "server".to_string()
    } else {
        s
    }
}

/// How a finding's wire reads beside its id: the era (`legacy`), and for a finding of the
/// revision matrix the revision it was judged at (`legacy 2025-06-18`).
pub fn era_label(f: &Finding) -> Option<String> {
    match (f.era, &f.revision) {
        (Some(e), Some(r)) => Some(format!("{} {r}", e.as_str())),
        (Some(e), None) => Some(e.as_str().to_string()),
        (None, Some(r)) => Some(r.clone()),
        (None, None) => None,
    }
}

/// A stable hex fingerprint of (check id, server, subject, era, and the revision for a
/// finding of the revision matrix): the same problem on the same server keeps its
/// fingerprint across runs whatever the line numbers.
pub fn fingerprint(server: &str, f: &Finding) -> String {
    let mut h = Sha256::new();
    for part in [
        f.id.as_str(),
        server,
        f.subject.as_deref().unwrap_or(""),
        f.era.map(|e| e.as_str()).unwrap_or(""),
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    // Absent for the run's own wires, so their fingerprints are what they always were.
    if let Some(r) = &f.revision {
        h.update(r.as_bytes());
        h.update([0u8]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `req#3, req#4` for a message.
pub fn evidence_text(evidence: &[u64]) -> String {
    evidence
        .iter()
        .map(|s| format!("req#{s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Orders findings for capped outputs: fail before warn, then by severity.
pub fn rank(f: &Finding) -> u8 {
    f.rank()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_paths_stay_one_relative_segment() {
        assert_eq!(sanitize_path_segment("a/b:c d"), "a_b_c_d");
        assert_eq!(sanitize_path_segment(".."), "server");
    }

    #[test]
    fn workflow_ref_gives_the_workflow_file() {
        let a = workflow_anchor("octo/repo/.github/workflows/mcp.yml@refs/heads/main")
            .expect("a workflow path");
        assert_eq!(a.path, ".github/workflows/mcp.yml");
        assert_eq!(a.line, 1);
        assert_eq!(workflow_anchor("nonsense"), None);
        assert_eq!(workflow_anchor("o/r/../../etc/passwd@x"), None);
    }
}
