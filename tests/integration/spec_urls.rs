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

/// The `$id` of every JSON schema under schemas/.
fn vendored_schema_ids() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let mut ids = BTreeSet::new();
    for dir in std::fs::read_dir(&root).expect("read schemas/") {
        let dir = dir.expect("entry").path();
        for f in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "json") {
                let v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).expect("read schema"))
                        .expect("schema is JSON");
                if let Some(id) = v["$id"].as_str() {
                    ids.insert(id.to_string());
                }
            }
        }
    }
    ids
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

/// Documents beside the MCP specification that define what a check judges, each cited at a
/// heading it has: the MCPB manifest format (its MANIFEST.md, manifest 0.3, last updated
/// 2025-12-02, headings "Tools and Prompts", "User Configuration" and "Compatibility").
const OTHER_DOCUMENTS: &[&str] = &[
    "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#tools-and-prompts",
    "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#user-configuration",
    "https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md#compatibility",
];

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
    // The manifest checks rest on the registry's published schema, which the repository
    // carries (schemas/registry/): a check may cite a schema by the `$id` of such a copy.
    let schemas = vendored_schema_ids();
    assert!(!schemas.is_empty(), "the scan found the vendored schemas");
    let missing: Vec<&String> = cited
        .iter()
        .filter(|u| !schemas.contains(*u))
        .filter(|u| !OTHER_DOCUMENTS.contains(&u.as_str()))
        .filter(|u| path_of(u).is_none_or(|p| !pages.contains(&p)))
        .collect();
    assert!(
        missing.is_empty(),
        "cited URLs that are not pages of the specification site, vendored schemas nor listed documents:\n{}",
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
