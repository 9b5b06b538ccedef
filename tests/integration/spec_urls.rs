//! Every specification URL scout cites (a check's `spec`, and any link in the source) names a
//! page the specification site serves. The page list is data the repository carries,
//! `tests/data/spec-pages.txt`, rewritten from the specification repository by
//! `scripts/update-spec-pages.sh`.

use regex::Regex;
use scout::probe::registry;
use std::collections::BTreeSet;
use std::path::Path;

const SITE: &str = "https://modelcontextprotocol.io";

fn pages() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/spec-pages.txt");
    let text = std::fs::read_to_string(&path).expect("tests/data/spec-pages.txt");
    let pages: BTreeSet<String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect();
    assert!(
        pages.len() > 100,
        "the page list is whole ({})",
        pages.len()
    );
    pages
}

/// The site path of a URL on the specification site, without fragment or query.
fn path_of(url: &str) -> Option<String> {
    let rest = url.strip_prefix(SITE)?;
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    Some(rest.trim_end_matches('/').to_string())
}

fn rust_sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_spec_url_is_a_page_of_the_site() {
    let pages = pages();
    let mut cited: BTreeSet<String> = registry::all()
        .filter(|c| !c.spec.is_empty())
        .map(|c| c.spec.to_string())
        .collect();
    let link = Regex::new(r#"https://modelcontextprotocol\.io/[A-Za-z0-9_./#-]*"#).expect("regex");
    let mut files = Vec::new();
    rust_sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read source");
        cited.extend(link.find_iter(&text).map(|m| m.as_str().to_string()));
    }
    assert!(cited.len() > 20, "the scan found the citations");
    let missing: Vec<&String> = cited
        .iter()
        .filter(|u| path_of(u).is_none_or(|p| !pages.contains(&p)))
        .collect();
    assert!(
        missing.is_empty(),
        "cited URLs that are not pages of the specification site:\n{}",
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_url_outside_the_list_is_caught() {
    // The check above would pass vacuously if every path matched: a made-up page does not.
    let pages = pages();
    let made_up =
        path_of("https://modelcontextprotocol.io/specification/2026-07-28/basic/made_up#x")
            .expect("a site path");
    assert!(!pages.contains(&made_up));
    assert!(pages.contains("/specification/2026-07-28/basic/transports/streamable-http"));
}
