//! `docs/checks.md` is generated from the registry: this test renders it and fails when the
//! committed file differs. `SCOUT_UPDATE_DOCS=1 cargo test --test integration docs` rewrites it.

use scout::probe::registry;
use scout::report::Phase;
use scout::report::check::Check;

/// Phases whose `run` has no probes yet in this version: their checks are listed but the
/// category is reported as not assessed. Remove a phase here when its probes land.
const NOT_YET_PROBED: &[Phase] = &[];

/// The scoring rules (`report::score`), rendered before the checks.
const SCORING: &str = "## Scoring\n\n\
- Every category (phase) starts at 100. A failing check costs it by severity: critical zeroes it, major 40, minor 15; a warning costs 5. A category never goes below 0.\n\
- Each check id (and subject) costs its category once per server. A dual-era server is probed on both wires; when the same check and subject fail or warn on both, the worse of the two findings costs, once, so a dual-era server scores what a single-era server with the same defect scores. Both findings stay in every report, each with its era.\n\
- A category is assessed only when at least one of its counted findings is a judgement: pass, warn or fail. Observations (info) and skips judge nothing, so a category of only those (e.g. `auth` on an open server, where `auth.open` is an observation) is shown as \"not assessed\" and stays out of the mean.\n\
- The overall score is the rounded mean of the assessed categories other than `compat`: host rules (docs/compat.md) are scored in their own category, which gates only when asked (`--fail-under-category compat=100`), and never move the overall score. A server has no score (JSON `null`, \"not assessed\" in every other report) when no category was assessed, or when its run was blocked (unreachable, credentials missing) or interrupted: a score over the few checks that ran would look green although the server was not checked. A server without a score fails the gate, with the reason.\n\
- Baselined and ignored findings are reported, marked as such, and cost nothing.\n\n";

/// What a check's basis means for the worst verdict it may give.
const BASES: &str = "## Basis of a grade\n\n\
Every check names the basis of its worst verdict and quotes the sentence it rests on:\n\n\
- **must**: a MUST or MUST NOT of the MCP revision or of an RFC it cites. Broken, it fails.\n\
- **should**: a SHOULD, SHOULD NOT or RECOMMENDED. Broken, it warns; it never fails.\n\
- **robustness**: what JSON-RPC or HTTP ask of any server, such as answering after garbage or refusing what it cannot take. Broken, it fails.\n\
- **heuristic**: scout's own rule (text patterns, timings, sizes). A match warns; it fails only what is unambiguous.\n\
- **observation**: a statement about the server, reported as info and never judged.\n\
- **assertion**: the server author's own assertion, an expectation in the config ([docs/expectations.md](expectations.md)) or a published manifest ([docs/manifests.md](manifests.md)). Not held, it fails.\n\n\
scout refuses to record a verdict beyond its check's basis (it reports its own internal error instead), and a test reads the source for any.\n\n";

/// The library's source, to say where each check is judged.
struct Sources {
    /// (path relative to the crate root, text) of every `.rs` file under `src/`.
    files: Vec<(String, String)>,
}

impl Sources {
    fn read() -> Sources {
        fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .expect("src is readable")
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            for p in entries {
                if p.is_dir() {
                    walk(&p, root, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
                    out.push((rel, std::fs::read_to_string(&p).expect("readable")));
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        walk(&root.join("src"), root, &mut files);
        Sources { files }
    }

    /// The files that give a verdict of check `id`: where its static (declared as
    /// `NAME = "id"`) is followed by `.pass(`, `.fail(`, `.warn(`, `.info(` or `.skip(`,
    /// outside test modules; the declaring file when no such call is found.
    fn judged_in(&self, id: &str) -> Vec<String> {
        let decl = regex::Regex::new(&format!(r#"\b([A-Z][A-Z0-9_]*) = "{}""#, regex::escape(id)))
            .expect("regex");
        let Some((declared, name)) = self
            .files
            .iter()
            .find_map(|(f, t)| decl.captures(t).map(|c| (f.clone(), c[1].to_string())))
        else {
            return Vec::new();
        };
        // A name declared by several phases (rare) is looked for in the declaring phase only.
        let declared_twice = self
            .files
            .iter()
            .filter(|(_, t)| t.contains(&format!("{name} = \"")))
            .count()
            > 1;
        let folder = declared
            .trim_end_matches("/mod.rs")
            .trim_end_matches(".rs")
            .to_string();
        let verdict = regex::Regex::new(&format!(r"\b{name}\s*\.\s*(pass|fail|warn|info|skip)\("))
            .expect("regex");
        let mut out: Vec<String> = self
            .files
            .iter()
            .filter(|(f, _)| !declared_twice || f == &declared || f.starts_with(&folder))
            .filter(|(_, t)| {
                let code = t.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
                verdict.is_match(code)
            })
            .map(|(f, _)| f.clone())
            .collect();
        if out.is_empty() {
            out.push(declared);
        }
        out
    }
}

fn render() -> String {
    let sources = Sources::read();
    let mut out = String::from(
        "# Checks\n\n<!-- Generated from the check registry (src/probe/*.rs) and the source that judges each check by tests/integration/docs.rs; do not edit by hand. Regenerate with `SCOUT_UPDATE_DOCS=1 cargo test --test integration docs`. -->\n\nEvery check has a stable id (`phase.name`): the JUnit test case name, the SARIF rule id, the anchor on this page and the key for `[checks] ignore`. A failing check costs its category by severity (critical zeroes it, major 40, minor 15); every warning costs 5 (see [Scoring](#scoring)).\n\n",
    );
    out.push_str(SCORING);
    out.push_str(BASES);
    for phase in Phase::ALL {
        out.push_str(&format!("- [{phase}](#{phase})\n"));
    }
    out.push('\n');
    for phase in Phase::ALL {
        out.push_str(&format!("## {phase}\n\n"));
        if phase == Phase::Protocol {
            out.push_str("The `stdio.*` checks apply to stdio servers only and are scored in this category.\n\n");
        }
        if NOT_YET_PROBED.contains(&phase) {
            out.push_str("This phase has no probes yet: its checks are reported as not assessed in this version.\n\n");
        }
        let checks: Vec<&Check> = registry::all().filter(|c| c.phase == phase).collect();
        for c in checks {
            out.push_str(&format!(
                "<a id=\"{}\"></a>\n\n### `{}`\n\n",
                c.anchor(),
                c.id
            ));
            out.push_str(&format!("**{}**  \n", c.title));
            out.push_str(&format!("Default severity: {}", c.severity.as_str()));
            if !c.spec.is_empty() {
                out.push_str(&format!(" · Spec: <{}>", c.spec));
            }
            out.push_str("\n\n");
            if let Some(g) = c.ground() {
                out.push_str(&format!(
                    "Basis: **{}** ({}) — “{}”\n\n",
                    g.basis.as_str(),
                    g.source,
                    g.quote
                ));
            }
            out.push_str(&format!("{}\n\n", c.description));
            out.push_str(&format!("*Advice:* {}\n\n", c.advice));
            out.push_str(&conformance_line(c.id));
            out.push_str(&format!(
                "*Judged in:* {}\n\n",
                sources
                    .judged_in(c.id)
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if phase == Phase::Security {
            out.push_str(&security_rules());
        }
    }
    format!("{}\n", out.trim_end())
}

/// The official conformance suite's scenarios (and check ids) a check covers, linked to
/// docs/conformance.md.
fn conformance_line(id: &str) -> String {
    use scout::probe::conformance;
    let mut aliases: Vec<String> = conformance::aliases(id)
        .iter()
        .map(|a| format!("`{a}`"))
        .collect();
    for (check, scout_id) in conformance::EVERY_SCENARIO {
        if *scout_id == id {
            aliases.push(format!("`{check}` of every scenario"));
        }
    }
    if aliases.is_empty() {
        return String::new();
    }
    format!(
        "*Official conformance ([{} {}](conformance.md)):* {}\n\n",
        conformance::SUITE,
        conformance::SUITE_VERSION,
        aliases.join(", ")
    )
}

/// The security phase's text rules (data in `src/probe/security/rules.rs`), each with the
/// example it must match and the near miss it must not.
fn security_rules() -> String {
    use scout::probe::security::rules;
    // Invisible and control characters as escapes, so the page shows what the rule sees.
    let cell = |s: &str| {
        let shown: String = s
            .chars()
            .map(|c| match c {
                '\n' => "\\n".to_string(),
                '\t' => "\\t".to_string(),
                c if c.is_control() || rules::hidden_class(c).is_some() => {
                    format!("\\u{{{:x}}}", c as u32)
                }
                '`' => "'".to_string(),
                '|' => "\\|".to_string(),
                c => c.to_string(),
            })
            .collect();
        format!("`{shown}`")
    };
    let mut out = String::from(
        "### Security rules\n\nThe text rules behind `security.tool_poisoning`, `security.secrets_in_output`, `security.error_leakage` and `security.hidden_characters`. Each rule is tested against its example (must match) and its near misses (must not). A poisoning rule marked *warn* is a heuristic: its match is quoted in a warn; *fail* is for what an honest description never says. A match in a negated clause (\"**Do not** include API keys …\") is dropped, a quoted one is a warn, and an <IMPORTANT>-style tag carrying another match fails.\n\n",
    );
    out.push_str(
        "`security.tool_poisoning`:\n\n| rule | finds | grade | example | near misses |\n|---|---|---|---|---|\n",
    );
    for r in rules::POISONING {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            r.id,
            r.what.replace('|', "\\|").replace('<', "&lt;"),
            match r.tier {
                rules::Tier::Heuristic => "warn",
                rules::Tier::Unambiguous => "fail",
            },
            cell(r.example),
            r.near_misses
                .iter()
                .map(|n| cell(n))
                .collect::<Vec<_>>()
                .join("<br>")
        ));
    }
    out.push('\n');
    for (title, table) in [
        ("secrets_in_output", rules::SECRETS),
        ("error_leakage", rules::LEAKAGE),
    ] {
        out.push_str(&format!(
            "`security.{title}`:\n\n| rule | finds | example | near miss |\n|---|---|---|---|\n"
        ));
        for r in table {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                r.id,
                r.what.replace('|', "\\|").replace('<', "&lt;"),
                cell(r.example),
                cell(r.near_miss)
            ));
        }
        out.push('\n');
    }
    out.push_str("`security.hidden_characters` (not flagged: U+200C, U+200D, U+200E, U+200F and single variation selectors, which write languages and emoji; newline, carriage return and tab):\n\n| rule | finds | example | near misses |\n|---|---|---|---|\n");
    for h in rules::HIDDEN.iter().chain([&rules::INVISIBLE_RUN_CLASS]) {
        out.push_str(&format!(
            "| `{}` | {} characters | {} | {} |\n",
            h.id,
            h.what,
            cell(h.example),
            h.near_misses
                .iter()
                .map(|n| cell(n))
                .collect::<Vec<_>>()
                .join("<br>")
        ));
    }
    out.push_str("\nAcross the servers of one run (`security.tool_poisoning`): a description or the instructions of one server that name a tool of another (identifier-like names only, e.g. `send_email`, not `echo`) fail; the same tool name offered by two servers with different definitions (shadowing) warns, while byte-identical tools (one server configured twice) do not.\n\n");
    out
}

#[test]
fn checks_md_matches_the_registry() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/checks.md");
    let expected = render();
    if std::env::var_os("SCOUT_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("docs folder")).expect("mkdir docs");
        std::fs::write(&path, &expected).expect("write docs/checks.md");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/checks.md is out of date with the registry; run `SCOUT_UPDATE_DOCS=1 cargo test --test integration docs` and commit it"
    );
    for c in registry::all() {
        assert!(
            actual.contains(&format!("### `{}`", c.id)),
            "{} missing",
            c.id
        );
    }
}
