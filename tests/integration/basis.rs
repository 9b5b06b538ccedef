//! Every check grades no worse than its basis allows: a check resting on a SHOULD never fails,
//! an observation never judges. The finding builder refuses such a verdict at run time; this
//! test reads the source and fails on any `CHECK.fail(…)` (or `.warn`, `.pass` for an
//! observation) written for a check whose basis does not allow it, so the mistake is caught
//! before any server meets it.

use regex::Regex;
use scout::probe::registry;
use scout::report::check::Basis;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The non-test part of a source file (unit tests build verdicts on purpose).
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |at| &text[..at])
}

#[test]
fn no_check_is_written_to_grade_beyond_its_basis() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .map(|p| {
            let t = std::fs::read_to_string(&p).expect("read source");
            (p, t)
        })
        .collect();

    // The static items the `checks!` blocks declare: NAME = "phase.id".
    let decl = Regex::new(r#"(?m)^\s+([A-Z][A-Z0-9_]*) = "([a-z]+\.[a-z0-9_]+)","#).expect("regex");
    let mut by_name: HashMap<String, Vec<&'static scout::report::check::Check>> = HashMap::new();
    for (_, text) in &texts {
        for c in decl.captures_iter(text) {
            if let Some(check) = registry::lookup(&c[2]) {
                by_name.entry(c[1].to_string()).or_default().push(check);
            }
        }
    }
    assert!(
        by_name.values().map(Vec::len).sum::<usize>() >= registry::all().count(),
        "every registered check is declared in a checks! block"
    );

    let call = Regex::new(r"\b([A-Z][A-Z0-9_]*)\s*\.\s*(fail|warn|pass)\(").expect("regex");
    let mut wrong = Vec::new();
    let mut calls = 0;
    for (path, text) in &texts {
        for c in call.captures_iter(without_tests(text)) {
            let Some(candidates) = by_name.get(&c[1]) else {
                continue;
            };
            calls += 1;
            let status = match &c[2] {
                "fail" => scout::report::Status::Fail,
                "warn" => scout::report::Status::Warn,
                _ => scout::report::Status::Pass,
            };
            // The same static name in two phases: wrong only when no candidate allows it.
            if candidates.iter().all(|chk| !chk.basis().allows(status)) {
                wrong.push(format!(
                    "{}: {}.{}(…) but {} rests on `{}`",
                    path.strip_prefix(&src).unwrap_or(path).display(),
                    &c[1],
                    &c[2],
                    candidates[0].id,
                    candidates[0].basis().as_str()
                ));
            }
        }
    }
    assert!(calls > 100, "the scan found the verdicts ({calls})");
    assert!(
        wrong.is_empty(),
        "verdicts beyond their check's basis:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_check_states_its_basis() {
    for c in registry::all() {
        let g = c
            .ground()
            .unwrap_or_else(|| panic!("{} has no basis", c.id));
        if g.basis == Basis::Should {
            assert!(
                g.quote.contains("SHOULD") || g.quote.contains("MUST"),
                "{}: a should basis quotes its SHOULD",
                c.id
            );
        }
    }
}
