//! Baselines: a baselined fail lets the gate pass, a stale entry fails it (unless allowed),
//! and writing a baseline from a report then applying it to the same report passes.

use scout::report::baseline::{self, Baseline, Entry};
use scout::report::finding::{Status, Suppression};
use scout::report::gate::GateConfig;
use scout::report::{Report, Severity};

use crate::sample;

/// Gate on majors and above only, so the sample's single critical decides.
fn gate() -> GateConfig {
    GateConfig {
        fail_under: None,
        fail_under_category: Vec::new(),
        fail_on: Some(Severity::Critical),
    }
}

/// The sample's `everything` server alone, gated with [`gate`].
fn everything() -> Report {
    let mut r = sample::report_of(vec![sample::everything()], "run");
    baseline::rescore(&mut r, &gate(), Vec::new());
    r
}

fn entry(check: &str, subject: Option<&str>) -> Entry {
    Entry {
        check: check.into(),
        server: "everything".into(),
        subject: subject.map(String::from),
        era: None,
        reason: "tracked in ISSUE-42".into(),
        any_subject: false,
        official: None,
    }
}

#[test]
fn a_baselined_fail_lets_the_gate_pass() {
    let mut report = everything();
    assert!(
        !report.gate.passed,
        "the critical fail breaks the gate before"
    );
    let before = report.servers[0].score;
    let b = Baseline {
        version: baseline::VERSION,
        accepted: vec![entry("catalog.tools_list", None)],
    };
    let stale = baseline::apply(&mut report, &b);
    assert!(stale.is_empty(), "{stale:?}");
    baseline::rescore(&mut report, &gate(), baseline::stale_reasons(&stale, false));
    assert!(report.gate.passed, "{:?}", report.gate.reasons);
    let f = report.servers[0]
        .findings
        .iter()
        .find(|f| f.id == "catalog.tools_list")
        .expect("still reported");
    assert_eq!(f.status, Status::Fail);
    assert_eq!(
        f.suppressed,
        Some(Suppression::Baselined {
            reason: "tracked in ISSUE-42".into()
        })
    );
    assert!(
        report.servers[0].score > before,
        "score recomputed without it"
    );
    // The JSON report says so.
    let json = scout::emit::json::render(&report);
    assert!(json.contains("\"kind\": \"baselined\""), "{json}");
}

#[test]
fn a_stale_entry_fails_the_gate_unless_allowed() {
    let b = Baseline {
        version: baseline::VERSION,
        accepted: vec![
            entry("catalog.tools_list", None),
            entry("protocol.unknown_method", Some("other/method")),
            // Another shard's server: neither applied nor stale here.
            Entry {
                server: "elsewhere".into(),
                ..entry("protocol.batch", None)
            },
        ],
    };
    let mut report = everything();
    let stale = baseline::apply(&mut report, &b);
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert_eq!(stale[0].entry.subject.as_deref(), Some("other/method"));
    baseline::rescore(&mut report, &gate(), baseline::stale_reasons(&stale, false));
    assert!(!report.gate.passed);
    assert!(
        report.gate.reasons[0]
            .starts_with("everything: protocol.unknown_method[other/method] no longer occurs"),
        "{:?}",
        report.gate.reasons
    );

    let mut report = everything();
    let stale = baseline::apply(&mut report, &b);
    baseline::rescore(&mut report, &gate(), baseline::stale_reasons(&stale, true));
    assert!(report.gate.passed, "{:?}", report.gate.reasons);
}

#[test]
fn writing_a_baseline_then_applying_it_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nested/scout-baseline.toml");
    let strict = GateConfig {
        fail_under: Some(100),
        fail_under_category: Vec::new(),
        fail_on: Some(Severity::Minor),
    };
    let mut first = everything();
    baseline::rescore(&mut first, &strict, Vec::new());
    assert!(!first.gate.passed);
    baseline::from_report(&first, "accepted when adopting scout")
        .save(&path)
        .expect("saved");
    let text = std::fs::read_to_string(&path).expect("written");
    assert!(text.contains("check = \"catalog.annotations\""), "{text}");
    assert!(text.contains("subject = \"delete_file\""), "{text}");

    let loaded = baseline::load(&path).expect("loads");
    let mut second = everything();
    let stale = baseline::apply(&mut second, &loaded);
    assert!(stale.is_empty(), "{stale:?}");
    baseline::rescore(&mut second, &strict, baseline::stale_reasons(&stale, false));
    assert!(second.gate.passed, "{:?}", second.gate.reasons);
    assert_eq!(second.servers[0].score, Some(100));
}

#[test]
fn a_broken_baseline_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("b.toml");
    std::fs::write(&path, "version = 1\n[[accepted]]\ncheck = 3\n").expect("write");
    let err = baseline::load(&path).expect_err("invalid");
    let msg = err.to_string();
    assert!(msg.contains("b.toml") && !msg.contains('\n'), "{msg}");
    let missing = baseline::load(&dir.path().join("absent.toml")).expect_err("missing");
    assert!(missing.to_string().contains("absent.toml"));
}

#[test]
fn entries_imported_from_one_official_entry_are_stale_together_and_match_any_subject() {
    // As `scout baseline import` writes them: the official `server-stateless` entry covers
    // protocol.unknown_method (which fails, for the subject bogus/method) and handshake.discover
    // (which does not occur here).
    let imported = |check: &str, official: &str| Entry {
        any_subject: true,
        official: Some(official.into()),
        ..entry(check, None)
    };
    let b = Baseline {
        version: baseline::VERSION,
        accepted: vec![
            imported("protocol.unknown_method", "server-stateless"),
            imported("handshake.discover", "server-stateless"),
            imported("manifest.schema", "made-up-scenario"),
        ],
    };
    let mut report = everything();
    let stale = baseline::apply(&mut report, &b);
    let f = report.servers[0]
        .findings
        .iter()
        .find(|f| f.id == "protocol.unknown_method")
        .expect("reported");
    assert!(
        matches!(f.suppressed, Some(Suppression::Baselined { .. })),
        "any subject matches bogus/method: {f:?}"
    );
    // handshake.discover is not stale (its official entry occurred); manifest.schema is.
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert_eq!(stale[0].entry.check, "manifest.schema");
    assert!(
        stale[0].to_string().contains("(official made-up-scenario)"),
        "{}",
        stale[0]
    );
}
