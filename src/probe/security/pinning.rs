//! `security.catalog_pinning`: the catalogue of this run against `scout.lock`. The wire an
//! agent would use (2026-07-28 first) is pinned by `scout pin`, so that is the catalogue
//! compared here; each difference is one failing finding with its kind and severity, and
//! the gate fails on any of them (see `report::gate`).

use super::CATALOG_PINNING;
use crate::pin::{Listed, PinnedServer, diff};
use crate::probe::Session;
use crate::probe::session::Catalog;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason, Status};
use crate::spec::PinSpec;

/// The catalogue an agent would read: the modern wire's when the server speaks it.
pub fn preferred(s: &Session) -> Option<&Catalog> {
    s.catalogs
        .iter()
        .find(|c| c.era == Some(Era::Modern))
        .or_else(|| s.catalogs.first())
}

/// What the server lists now on its preferred wire, pinned the way `scout pin` pins it:
/// as the server sent it, with only scout's own secrets masked by value (they must never
/// reach a lock file that is committed). Nothing is masked by key: a schema value under
/// `code` or `token` is the server's, and a change of it is a change of the catalogue.
pub fn current(s: &Session) -> Option<(PinnedServer, &Catalog)> {
    let cat = preferred(s)?;
    let instructions = cat
        .era
        .and_then(|e| s.wire(e))
        .and_then(|w| w.instructions())
        .map(str::to_string);
    let listed = Listed {
        instructions,
        tools: cat.tools.clone(),
        prompts: cat.prompts.clone(),
        resource_templates: cat.resource_templates.clone(),
    }
    .masked(s.recorder.redactor());
    Some((PinnedServer::from_listed(&s.spec.name, &listed), cat))
}

/// True when the catalog phase could not read the tool list completely on `era`.
fn listing_failed(s: &Session, era: Option<Era>) -> bool {
    s.findings.iter().any(|f| {
        matches!(f.id.as_str(), "catalog.tools_list" | "catalog.pagination")
            && f.status == Status::Fail
            && (era.is_none() || f.era == era)
    })
}

/// How a report names the lock file: relative to the working directory when it lies below
/// it, else by its file name. Reports travel (PR comments, SARIF uploads), and an absolute
/// path would tell the world about the machine that ran the check.
fn shown(lock: &std::path::Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| lock.strip_prefix(cwd).ok().map(|p| p.to_path_buf()));
    match relative {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => lock
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scout.lock".to_string()),
    }
}

/// Compares the run's catalogue with the lock.
pub fn catalog_pinning(s: &Session) -> Vec<FindingBuilder> {
    let (lock, pinned) = match &s.spec.pin {
        PinSpec::NoLock => {
            return vec![CATALOG_PINNING.skip(
                SkipReason::NotApplicable,
                "No scout.lock was found; `scout pin` writes one to pin the catalogue.",
            )];
        }
        PinSpec::Unpinned { lock } => {
            return vec![CATALOG_PINNING.skip(
                SkipReason::NotApplicable,
                format!(
                    "{} does not pin this server; `scout pin {}` adds it.",
                    shown(lock),
                    s.spec.name
                ),
            )];
        }
        PinSpec::Pinned { lock, server } => (lock, server),
    };
    let Some((now, cat)) = current(s) else {
        return vec![CATALOG_PINNING.skip(
            SkipReason::NotAssessed,
            "The catalogue was not listed in this run.",
        )];
    };
    if listing_failed(s, cat.era) {
        return vec![CATALOG_PINNING.skip(
            SkipReason::NotAssessed,
            "The tool list could not be read completely in this run (see catalog.tools_list and catalog.pagination), so it is not compared with the lock.",
        )];
    }
    let evidence: Vec<Seq> = cat.evidence.clone();
    let tag = |f: FindingBuilder| {
        let f = if evidence.is_empty() {
            f.without_exchange()
        } else {
            f.evidence(evidence.clone())
        };
        match cat.era {
            Some(e) => f.era(e),
            None => f,
        }
    };
    let changes = diff::diff(pinned, &now);
    if changes.is_empty() {
        return vec![tag(CATALOG_PINNING.pass(format!(
            "The catalogue matches {} ({}{}).",
            shown(lock),
            now.summary(),
            if now.instructions.is_some() {
                ", and the instructions"
            } else {
                ""
            }
        )))];
    }
    changes
        .into_iter()
        .map(|c| {
            tag(CATALOG_PINNING
                .fail(format!("{} (compared with {})", c.line(), shown(lock)))
                .severity(c.severity)
                .subject(c.subject()))
        })
        .collect()
}

#[cfg(test)]
mod shown_tests {
    use super::shown;

    #[test]
    fn the_lock_is_named_without_the_machine_s_directories() {
        let cwd = std::env::current_dir().expect("cwd");
        assert_eq!(shown(&cwd.join("ci").join("scout.lock")), "ci/scout.lock");
        assert_eq!(
            shown(std::path::Path::new("/elsewhere/deep/scout.lock")),
            "scout.lock"
        );
    }
}
