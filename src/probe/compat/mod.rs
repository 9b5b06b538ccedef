//! Compat: the catalogue the catalog phase listed, judged against the documented rules of
//! named hosts (docs/compat.md quotes each rule and its source). A host's rule is not the
//! MCP spec: a broken rule is a warning, never a failure, and the category stays out of
//! the overall score (`report::score`), so it informs before anyone chooses to gate on it
//! (`--fail-under-category compat=100`).
//!
//! Nothing is sent to the server: every verdict cites the `tools/list` exchanges that
//! listed the tools it names. [`rules`] holds the rules as pure functions of one tool.

pub mod rules;

use serde_json::Value;

use crate::policy;
use crate::probe::session::{Catalog, Session};
use crate::report::exchange::Seq;
use crate::report::finding::{FindingBuilder, SkipReason};
use crate::report::host::HostProfile;

crate::checks! { phase: Compat;
    ANTHROPIC = "compat.anthropic", Minor, "Tools fit the Claude API's tool definitions", "",
        "The Claude API takes a tool only when its name matches ^[a-zA-Z0-9_-]{1,128}$. A tool whose name breaks that (a `.` or `/` in it, say) cannot be passed to the API as it is: a warning naming the tool.",
        "Rename the tool to letters, digits, `_` and `-` (1-128 characters), or expect hosts on the Claude API to rename or drop it.";
    OPENAI = "compat.openai", Minor, "Tools fit OpenAI function calling", "",
        "OpenAI function calling takes a function whose name matches ^[a-zA-Z0-9_-]{1,64}$, and at most 128 functions in one request: the rules it applies to every function. A tool whose name breaks the pattern is named with the rule, and a catalogue of more than 128 tools is counted: a warning. The parameters schema is held to no subset here: that is strict mode, an opt-in (`\"strict\": true`), judged by compat.openai_strict when selected.",
        "Rename the tool to letters, digits, `_` and `-` (1-64 characters); keep the catalogue to 128 tools, or expect hosts on OpenAI to send only some of them.";
    OPENAI_STRICT = "compat.openai_strict", Minor, "Tools fit OpenAI strict function calling", "",
        "Judged only when the openai-strict profile is selected (strict mode is an opt-in of the function's author). With strict mode on, OpenAI function calling takes a function whose name matches ^[a-zA-Z0-9_-]{1,64}$ and whose parameters schema sets additionalProperties: false on every object, lists every property in required, has no anyOf at the root and uses none of allOf, not, dependentRequired, dependentSchemas, if, then, else. Each tool that breaks a rule is named with the rule: a warning.",
        "Close every object (additionalProperties: false), list every property in required (an optional one as a union with null), drop the unsupported keywords and keep names to 64 characters of [A-Za-z0-9_-].";
    GEMINI = "compat.gemini", Minor, "Tool schemas fit the Gemini API's function declarations", "",
        "A Gemini function declaration's parameters are a Schema, a select subset of the OpenAPI 3.0 schema object: the keywords type (one type, not a list), format, title, description, nullable, enum, maxItems, minItems, properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, items, minimum and maximum. A tool whose input schema uses another keyword, a type list or a boolean subschema is named with what it used: a warning (a host that sends the schema as parametersJsonSchema instead is not bound by the subset).",
        "Keep input schemas to the Schema subset (use nullable instead of a type list, inline $ref definitions), or expect hosts on the Gemini API to rewrite or refuse them.";
    FIRST_PAGE = "compat.first_page", Minor, "Every tool is on the first page of `tools/list`", "",
        "A host that reads only the first page of tools/list never sees the tools on later pages. The tools beyond the first page are named: a warning.",
        "Return every tool on the first page (hosts that follow nextCursor lose nothing), or put the tools that matter most first.";
}

/// The check of each profile.
fn check_of(p: HostProfile) -> &'static crate::report::check::Check {
    match p {
        HostProfile::Anthropic => &ANTHROPIC,
        HostProfile::Openai => &OPENAI,
        HostProfile::OpenaiStrict => &OPENAI_STRICT,
        HostProfile::Gemini => &GEMINI,
        HostProfile::FirstPage => &FIRST_PAGE,
    }
}

/// The most tools named for one rule in a finding; the rest are counted.
const MAX_NAMED: usize = 10;

/// Judges every listed catalogue against every selected profile; nothing is sent.
pub async fn run(s: &mut Session) {
    let found = judge_all(s);
    s.add_all(found);
}

fn judge_all(s: &Session) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    if s.catalogs.is_empty() {
        for c in CHECKS {
            out.push(c.skip(
                SkipReason::NotAssessed,
                "no catalogue was listed (the catalog phase did not run or reached no wire); compat is judged from it",
            ));
        }
        return out;
    }
    for catalog in &s.catalogs {
        let declared = s
            .wires
            .iter()
            .find(|w| Some(w.era()) == catalog.era)
            .is_some_and(|w| crate::probe::catalog::declared(w.capabilities(), "tools"));
        for p in HostProfile::ALL {
            let check = check_of(p);
            let f = if !s.spec.judges(p) && s.spec.compat.is_empty() {
                // Not applicable rather than not assessed: the host applies these rules only
                // to a function whose author turned strict mode on, so by default there is
                // nothing for them to judge (and nothing a run failed to look at).
                check.skip(
                    SkipReason::NotApplicable,
                    format!(
                        "profile `{p}` is an opt-in (strict mode: `\"strict\": true` on a function, set by its author) and is judged only when selected (--compat {p})"
                    ),
                )
            } else if !s.spec.judges(p) {
                check.skip(
                    SkipReason::NotAssessed,
                    format!(
                        "profile `{p}` not selected (compat = [{}])",
                        s.spec
                            .compat
                            .iter()
                            .map(|p| format!("\"{p}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            } else if catalog.tool_pages.is_empty() {
                if declared {
                    check.skip(
                        SkipReason::NotAssessed,
                        "tools/list was not judged (see catalog.tools_list)",
                    )
                } else {
                    check.skip(
                        SkipReason::NotApplicable,
                        "the server does not declare the tools capability",
                    )
                }
            } else if catalog.tools.is_empty() {
                check.skip(SkipReason::NotApplicable, "the server lists no tools")
            } else {
                judge(p, catalog)
            };
            out.push(match catalog.era {
                Some(era) => f.era(era),
                None => f,
            });
        }
    }
    out
}

/// One profile's verdict on one catalogue.
fn judge(p: HostProfile, catalog: &Catalog) -> FindingBuilder {
    match p {
        HostProfile::Anthropic => anthropic(&catalog.tools, &catalog.tool_pages),
        HostProfile::Openai => openai(&catalog.tools, &catalog.tool_pages),
        HostProfile::OpenaiStrict => openai_strict(&catalog.tools, &catalog.tool_pages),
        HostProfile::Gemini => gemini(&catalog.tools, &catalog.tool_pages),
        HostProfile::FirstPage => first_page(&catalog.tools, &catalog.tool_pages),
    }
}

/// `compat.anthropic`: the Claude API's tool name pattern.
pub fn anthropic(tools: &[Value], pages: &[(usize, Vec<Seq>)]) -> FindingBuilder {
    verdict(
        &ANTHROPIC,
        "the Claude API",
        tools,
        pages,
        rules::anthropic,
        "every tool name matches ^[a-zA-Z0-9_-]{1,128}$",
    )
}

/// `compat.openai`: what OpenAI function calling applies to every function: the name
/// pattern of each, and at most 128 functions in one request.
pub fn openai(tools: &[Value], pages: &[(usize, Vec<Seq>)]) -> FindingBuilder {
    let too_many = (tools.len() > rules::OPENAI_MAX_TOOLS).then(|| {
        format!(
            "a request takes at most {} functions: the server lists {} tools, so a host sends only some of them",
            rules::OPENAI_MAX_TOOLS,
            tools.len()
        )
    });
    verdict_with(
        &OPENAI,
        "OpenAI function calling",
        tools,
        pages,
        rules::openai,
        "every name matches ^[a-zA-Z0-9_-]{1,64}$, and the catalogue is within 128 functions",
        too_many,
    )
}

/// `compat.openai_strict`: OpenAI strict function calling (name and parameters schema).
pub fn openai_strict(tools: &[Value], pages: &[(usize, Vec<Seq>)]) -> FindingBuilder {
    verdict(
        &OPENAI_STRICT,
        "OpenAI strict function calling",
        tools,
        pages,
        rules::openai_strict,
        "every name matches ^[a-zA-Z0-9_-]{1,64}$ and every input schema closes its objects, requires every property and uses only supported keywords",
    )
}

/// `compat.gemini`: the Gemini API's Schema subset for function parameters.
pub fn gemini(tools: &[Value], pages: &[(usize, Vec<Seq>)]) -> FindingBuilder {
    verdict(
        &GEMINI,
        "the Gemini API's function declarations",
        tools,
        pages,
        rules::gemini,
        "every input schema keeps to the Schema subset",
    )
}

/// `compat.first_page`: the tools a host that reads one page of `tools/list` would miss.
pub fn first_page(tools: &[Value], pages: &[(usize, Vec<Seq>)]) -> FindingBuilder {
    let all: Vec<Seq> = pages.iter().flat_map(|(_, e)| e.iter().copied()).collect();
    let first = pages.first().map_or(0, |(n, _)| *n);
    if pages.len() <= 1 || first >= tools.len() {
        return FIRST_PAGE
            .pass(format!(
                "all {} tools are on the first page of tools/list",
                tools.len()
            ))
            .evidence(all);
    }
    let later: Vec<String> = tools[first..]
        .iter()
        .map(|t| format!("`{}`", policy::tool_name(t)))
        .collect();
    FIRST_PAGE
        .warn(format!(
            "{} of {} tools are beyond the first page of tools/list ({} pages; the first has {first}): {}; a host that reads only the first page never sees them",
            later.len(),
            tools.len(),
            pages.len(),
            named(&later)
        ))
        .evidence(all)
}

/// The exchanges of the page that listed tool `i`.
fn page_of(pages: &[(usize, Vec<Seq>)], i: usize) -> &[Seq] {
    let mut end = 0;
    for (n, ev) in pages {
        end += n;
        if i < end {
            return ev;
        }
    }
    pages.last().map_or(&[], |(_, ev)| ev.as_slice())
}

/// At most [`MAX_NAMED`] names, then a count of the rest.
fn named(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_NAMED {
        s.push_str(&format!(" and {} more", names.len() - MAX_NAMED));
    }
    s
}

/// A profile's verdict: each broken rule with the tools that break it (a warning citing the
/// pages that listed them), or a pass citing every page.
fn verdict(
    check: &'static crate::report::check::Check,
    host: &str,
    tools: &[Value],
    pages: &[(usize, Vec<Seq>)],
    rule: fn(&Value) -> Vec<rules::Broken>,
    kept: &str,
) -> FindingBuilder {
    verdict_with(check, host, tools, pages, rule, kept, None)
}

/// [`verdict`], with a rule over the whole catalogue that it breaks (`list`, the sentence
/// saying how), which cites every page.
fn verdict_with(
    check: &'static crate::report::check::Check,
    host: &str,
    tools: &[Value],
    pages: &[(usize, Vec<Seq>)],
    rule: fn(&Value) -> Vec<rules::Broken>,
    kept: &str,
    list: Option<String>,
) -> FindingBuilder {
    // Rule → the tools that break it (with what each did), in first-seen order.
    let mut broken: Vec<(&'static str, Vec<String>)> = Vec::new();
    let mut evidence: Vec<Seq> = Vec::new();
    let mut tools_breaking = 0;
    for (i, tool) in tools.iter().enumerate() {
        let found = rule(tool);
        if found.is_empty() {
            continue;
        }
        tools_breaking += 1;
        evidence.extend(page_of(pages, i).iter().copied());
        let name = policy::tool_name(tool);
        for b in found {
            let entry = format!("`{name}` ({})", b.what);
            match broken.iter_mut().find(|(r, _)| *r == b.rule) {
                Some((_, list)) => list.push(entry),
                None => broken.push((b.rule, vec![entry])),
            }
        }
    }
    let all: Vec<Seq> = pages.iter().flat_map(|(_, e)| e.iter().copied()).collect();
    if broken.is_empty() && list.is_none() {
        return check
            .pass(format!("{} tools fit {host}: {kept}", tools.len()))
            .evidence(all);
    }
    if list.is_some() {
        evidence.extend(all);
    }
    evidence.sort_unstable();
    evidence.dedup();
    let mut rules: Vec<String> = broken
        .iter()
        .map(|(rule, list)| format!("{rule}: {}", named(list)))
        .collect();
    rules.extend(list);
    check
        .warn(format!(
            "{tools_breaking} of {} tools break rules of {host} (a host's rule, not MCP's){}: {}",
            tools.len(),
            if tools_breaking == 0 {
                ", and the catalogue breaks one"
            } else {
                ""
            },
            rules.join("; ")
        ))
        .evidence(evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::finding::Status;
    use serde_json::json;

    fn built(f: FindingBuilder) -> crate::report::finding::Finding {
        f.build(|_| true).expect("a valid finding")
    }

    #[test]
    fn tools_beyond_the_first_page_are_named() {
        let tools = vec![
            json!({"name": "a"}),
            json!({"name": "b"}),
            json!({"name": "c"}),
        ];
        let f = built(first_page(&tools, &[(2, vec![3]), (1, vec![5])]));
        assert_eq!(f.status, Status::Warn);
        assert!(
            f.detail.contains("`c`") && !f.detail.contains("`a`"),
            "{}",
            f.detail
        );
        assert_eq!(f.evidence, vec![3, 5]);
        let one = built(first_page(&tools, &[(3, vec![3])]));
        assert_eq!(one.status, Status::Pass);
    }

    #[test]
    fn openai_judges_names_and_the_list_and_leaves_schemas_to_strict_mode() {
        let open = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let plain = vec![json!({"name": "search", "inputSchema": open})];
        assert_eq!(built(openai(&plain, &[(1, vec![4])])).status, Status::Pass);
        let strict = built(openai_strict(&plain, &[(1, vec![4])]));
        assert_eq!(strict.status, Status::Warn);
        assert!(
            strict.detail.contains("additionalProperties"),
            "{}",
            strict.detail
        );
        let many: Vec<Value> = (0..129)
            .map(|i| json!({"name": format!("t{i}"), "inputSchema": open}))
            .collect();
        let f = built(openai(&many, &[(129, vec![4])]));
        assert_eq!(f.status, Status::Warn);
        assert!(
            f.detail.contains("at most 128 functions") && f.detail.contains("129 tools"),
            "{}",
            f.detail
        );
        assert_eq!(f.evidence, vec![4]);
        let f = built(openai(&many[..128], &[(128, vec![4])]));
        assert_eq!(f.status, Status::Pass, "{}", f.detail);
    }

    #[test]
    fn a_warning_cites_the_page_of_the_tool_it_names() {
        let tools = vec![
            json!({"name": "ok", "inputSchema": {"type": "object"}}),
            json!({"name": "fs.read", "inputSchema": {"type": "object"}}),
        ];
        let f = built(anthropic(&tools, &[(1, vec![7]), (1, vec![9])]));
        assert_eq!(f.status, Status::Warn);
        assert!(f.detail.contains("`fs.read`"), "{}", f.detail);
        assert_eq!(f.evidence, vec![9]);
    }
}
