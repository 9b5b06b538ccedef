//! The floors of ARCHITECTURE.md, held: every `crate::<folder>` path in the library's source
//! (outside test modules and comments) points at the same floor or one below, except the
//! arrows listed in [`KNOWN_UPWARD`], each with the reason it still exists (none today). The
//! list only shrinks: an arrow that is gone must be taken off it, and a new upward arrow
//! fails. With one folder per floor, no import cycle can span two folders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules, ground floor first. A module may use its own floor's and the ones
/// below. `exit` and the `say!`/`checks!` macros live at the root and are usable everywhere.
const FLOORS: &[&[&str]] = &[
    &["report", "exit", "say", "checks"],
    &["telemetry"],
    &["pin"],
    &["transport"],
    &["auth"],
    &["spec"],
    &["client"],
    &["policy"],
    &["probe"],
    &["emit"],
    &["runner"],
    &["config"],
    &["serve"],
    &["cli"],
];

/// Upward arrows that remain, with why: each a move still to make. Empty: keep it so.
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

fn floor_of(module: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`src/probe/x.rs` → `probe`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel
        .components()
        .next()
        .expect("a component")
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// `from → {to: files}` over the library's non-test code.
fn arrows() -> BTreeMap<(String, String), BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let path = regex::Regex::new(r"\bcrate::([a-z_]+)").expect("regex");
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let from = module_of(&src, &f);
        if from == "main" || from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("readable");
        // Test modules sit at the end of a file; what they import is not the library's.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or("");
            for c in path.captures_iter(line) {
                let to = c[1].to_string();
                if to != from {
                    out.entry((from.clone(), to))
                        .or_default()
                        .insert(f.strip_prefix(&src).unwrap_or(&f).display().to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_ground_floor_imports_nothing_from_the_crate() {
    let from_report: Vec<_> = arrows()
        .into_iter()
        .filter(|((from, to), _)| from == "report" && !FLOORS[0].contains(&to.as_str()))
        .collect();
    assert!(from_report.is_empty(), "report/ imports {from_report:#?}");
}

#[test]
fn every_module_is_on_a_floor_and_no_new_arrow_points_up() {
    let all = arrows();
    let mut upward = BTreeMap::new();
    for ((from, to), files) in &all {
        let (Some(a), Some(b)) = (floor_of(from), floor_of(to)) else {
            panic!("{from} or {to} is on no floor of ARCHITECTURE.md (used in {files:?})");
        };
        if b > a {
            upward.insert((from.as_str(), to.as_str()), files);
        }
    }
    let known: BTreeSet<(&str, &str)> = KNOWN_UPWARD.iter().map(|(a, b, _)| (*a, *b)).collect();
    let new: Vec<_> = upward.iter().filter(|(k, _)| !known.contains(*k)).collect();
    assert!(
        new.is_empty(),
        "new upward arrows (move the type down instead): {new:#?}"
    );
    let gone: Vec<_> = known.iter().filter(|k| !upward.contains_key(*k)).collect();
    assert!(
        gone.is_empty(),
        "these arrows are gone: take them off KNOWN_UPWARD and ARCHITECTURE.md: {gone:?}"
    );
}

/// ARCHITECTURE.md's table of floors is the same list, in the same order, as [`FLOORS`]: the
/// page a newcomer reads is the rule this test holds.
#[test]
fn the_architecture_page_lists_these_floors() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md is readable");
    let row = regex::Regex::new(r"(?m)^\| (\d+) \| `([a-z_]+)(?:/|\.rs)` \|").expect("regex");
    let listed: Vec<(usize, String)> = row
        .captures_iter(&page)
        .map(|c| (c[1].parse().expect("a floor number"), c[2].to_string()))
        .collect();
    let held: Vec<(usize, String)> = FLOORS
        .iter()
        .enumerate()
        .map(|(i, f)| (i, f[0].to_string()))
        .collect();
    assert_eq!(
        listed, held,
        "ARCHITECTURE.md's floors differ from the test's"
    );
}
