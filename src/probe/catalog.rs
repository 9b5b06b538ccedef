//! Catalog: what the server offers (tools, resources, prompts, completions) and whether an
//! agent can use the description of it.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::client::Connection;
use crate::policy::{self, limiter::RateLimiter, schema, schema::SchemaError};
use crate::probe::handshake::CAPABILITIES;
use crate::probe::registry::spec;
use crate::probe::session::{Catalog, Session};
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::telemetry::Seq;
use crate::transport::{Outcome, Reply};

crate::checks! { phase: Catalog;
    TOOLS_LIST = "catalog.tools_list", Critical, "tools/list works", spec::TL26,
        "A server that declares tools must answer tools/list with a tools array on every page (a result without it fails; it is not an empty list) whose entries carry a string name; in 2026-07-28 the order should be deterministic.",
        "Answer tools/list with every tool the server offers.";
    PAGINATION = "catalog.pagination", Major, "Pagination ends and rejects bad cursors", spec::PAGINATION26,
        "nextCursor is followed to the end (with a hard cap on pages); a cursor or a page that repeats is a loop. A garbage cursor should get -32602.",
        "Return a fresh cursor for each page, omit nextCursor on the last page, and reject unknown cursors with -32602.";
    TOOL_SCHEMA = "catalog.tool_schema", Major, "Tool input schemas are valid JSON Schema objects", spec::TL26,
        "Each inputSchema must be a valid JSON Schema for its dialect (2020-12 when $schema is absent from 2025-11-25 on) with root type \"object\".",
        "Give every tool an inputSchema with type \"object\" that validates against its dialect's meta-schema.";
    OUTPUT_SCHEMA = "catalog.output_schema", Major, "Tool output schemas are valid", spec::TL26,
        "An outputSchema, where present, must be valid JSON Schema (root type object in 2025-06-18 and 2025-11-25).",
        "Fix the outputSchema so it validates against its dialect's meta-schema.";
    TOOL_NAMES = "catalog.tool_names", Major, "Tool names are well formed and unique", spec::TL26,
        "Names should be 1-128 characters of A-Z a-z 0-9 _ - . (a warning otherwise); duplicate names are a failure.",
        "Rename tools to 1-128 characters of [A-Za-z0-9_.-] and keep them unique.";
    ANNOTATIONS = "catalog.annotations", Minor, "Tool annotations are typed and present", spec::TL26,
        "Annotation hints must be booleans. A tool without annotations is, per the spec's defaults, destructive and open-world, so agents (and scout) will not call it freely: a warning.",
        "Annotate every tool, at least readOnlyHint and destructiveHint.";
    X_MCP_HEADER = "catalog.x_mcp_header", Major, "x-mcp-header declarations are valid", spec::H26,
        "2026-07-28: x-mcp-header may only sit on string, integer or boolean properties reached through properties chains, with a token name unique case-insensitively. A client must drop a tool with an invalid declaration.",
        "Fix or remove invalid x-mcp-header declarations.";
    DESCRIPTIONS = "catalog.descriptions", Minor, "Tools and arguments are described", spec::TL26,
        "An agent picks tools and fills arguments from their descriptions: every tool and every argument should have one.",
        "Describe every tool and every input property.";
    RESOURCES = "catalog.resources", Major, "Resources and templates are listed well formed", spec::R26,
        "With the resources capability: resources/list and resources/templates/list answer, each resource has uri and name, each template uriTemplate and name.",
        "Answer the resource list methods with complete entries.";
    PROMPTS = "catalog.prompts", Major, "Prompts are listed well formed", spec::PR26,
        "With the prompts capability: prompts/list answers, each prompt has a name and well-formed arguments.",
        "Answer prompts/list with complete entries.";
    COMPLETIONS = "catalog.completions", Minor, "Completions return at most 100 values", spec::COMPLETION26,
        "With the completions capability: completion/complete for a prompt argument answers with at most 100 values.",
        "Cap completion values at 100 and set hasMore.";
    CONTEXT_SIZE = "catalog.context_size", Minor, "What the catalogue costs an agent's context", spec::TL26,
        "An estimate of the tokens the whole catalogue (names, descriptions, schemas) takes in an agent's context. Information, with a warning above the configured threshold.",
        "Shorten descriptions and schemas, or split the server, so the catalogue leaves room for the task.";
}

/// The most pages scout follows on one list before calling it a loop.
pub const MAX_PAGES: usize = 100;

/// The cursor sent to see whether the server rejects cursors it never issued.
const GARBAGE_CURSOR: &str = "scout-garbage-cursor-\u{1F980}";

/// Runs the catalog probes on every wire the server speaks and stores what was learnt in
/// `s.catalogs` for the execution phase.
pub async fn run(s: &mut Session) {
    let wires = s.wires.clone();
    if wires.is_empty() {
        for c in CHECKS {
            s.add(c.skip(
                SkipReason::NotAssessed,
                "no connection to the server was established",
            ));
        }
        return;
    }
    let limiter = RateLimiter::for_spec(&s.spec);
    for wire in &wires {
        let catalog = catalog_wire(s, wire, &limiter).await;
        s.catalogs.push(catalog);
    }
}

/// Everything a paged list produced.
#[derive(Debug, Default)]
pub struct Paged {
    /// Items of every page, in order.
    pub items: Vec<Value>,
    /// Evidence of every page request.
    pub evidence: Vec<Seq>,
    /// Number of pages fetched.
    pub pages: usize,
    /// Why paging stopped early (a loop, a repeated page, the page cap).
    pub problem: Option<String>,
    /// The first page did not answer with a result: the reply, to judge.
    pub failed: Option<Reply>,
    /// A page answered with a result that lacks the list's array (`tools`, `prompts` …):
    /// what was wrong. Paging stops there; no items are invented for it.
    pub malformed: Option<String>,
}

/// Fetches every page of a list method (`key` = the result's array field), with a hard page
/// cap and loop detection on cursors and page contents.
pub async fn list_all(wire: &Connection, limiter: &RateLimiter, method: &str, key: &str) -> Paged {
    let mut out = Paged::default();
    let mut cursor: Option<String> = None;
    let mut cursors = HashSet::new();
    let mut pages = HashSet::new();
    loop {
        if out.pages >= MAX_PAGES {
            out.problem = Some(format!(
                "{method} still returned a nextCursor after {MAX_PAGES} pages; scout stopped"
            ));
            return out;
        }
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        limiter.wait().await;
        let reply = wire.request(method, params).await;
        out.evidence.extend(reply.evidence.iter().copied());
        out.pages += 1;
        let Some(result) = reply.result().cloned() else {
            if out.pages == 1 {
                out.failed = Some(reply);
            } else {
                out.problem = Some(format!(
                    "{method} page {} did not answer with a result ({})",
                    out.pages,
                    describe(&reply)
                ));
            }
            return out;
        };
        // The array is required by every revision's schema: a result without it is not an
        // empty list.
        let Some(page) = result.get(key).and_then(Value::as_array).cloned() else {
            out.malformed = Some(format!(
                "{method} page {} answered with a result that has no `{key}` array ({})",
                out.pages,
                match result.get(key) {
                    None => "the member is missing".to_string(),
                    Some(v) => format!("`{key}` is {}", schema::kind(v)),
                }
            ));
            return out;
        };
        let fingerprint = serde_json::to_string(&page).unwrap_or_default();
        if !page.is_empty() && !pages.insert(fingerprint) {
            out.problem = Some(format!(
                "{method} page {} repeats an earlier page: the cursor loops",
                out.pages
            ));
            return out;
        }
        out.items.extend(page);
        match result.get("nextCursor") {
            Some(Value::String(next)) => {
                if !cursors.insert(next.clone()) {
                    out.problem = Some(format!(
                        "{method} returned the cursor {next:?} twice: a loop that would never end"
                    ));
                    return out;
                }
                cursor = Some(next.clone());
            }
            _ => return out,
        }
    }
}

/// One line on what a reply was, for details.
pub fn describe(reply: &Reply) -> String {
    if let Some(code) = reply.error_code() {
        return format!(
            "JSON-RPC error {code} {:?}",
            reply.error_message().unwrap_or_default()
        );
    }
    match &reply.outcome {
        Outcome::Answered => "a response without a result".into(),
        Outcome::NoResponse => match reply.status() {
            Some(st) => format!("HTTP {st} without a JSON-RPC response"),
            None => "no JSON-RPC response".into(),
        },
        Outcome::TimedOut => "no answer within the timeout".into(),
        Outcome::Truncated => "a response cut at the size cap".into(),
        Outcome::TransportError(e) => format!("a transport error ({e})"),
    }
}

/// True when the capability object `caps[name]` is declared (present and not null/false).
pub fn declared(caps: &Value, name: &str) -> bool {
    matches!(caps.get(name), Some(v) if !v.is_null() && v != &Value::Bool(false))
}

/// Lists one feature, honouring capability gating: an undeclared feature is probed once to
/// catch "works without being declared" (a `handshake.capabilities` failure), and its
/// checks are skipped as not applicable.
async fn gated_list(
    s: &mut Session,
    wire: &Connection,
    limiter: &RateLimiter,
    capability: &str,
    method: &str,
    key: &str,
) -> Option<Paged> {
    let era = wire.era();
    if declared(wire.capabilities(), capability) {
        return Some(list_all(wire, limiter, method, key).await);
    }
    limiter.wait().await;
    let reply = wire.request(method, json!({})).await;
    if reply.result().is_some() {
        s.add(
            CAPABILITIES
                .fail(format!(
                    "{method} answered with a result, but the server did not declare the `{capability}` capability; clients will never ask for it"
                ))
                .subject(method)
                .era(era)
                .evidence(reply.evidence.iter().copied()),
        );
    }
    None
}

/// The catalog probes on one wire.
async fn catalog_wire(s: &mut Session, wire: &Connection, limiter: &RateLimiter) -> Catalog {
    let era = wire.era();
    let version = wire.protocol_version().to_string();
    let mut catalog = Catalog {
        era: Some(era),
        ..Catalog::default()
    };
    let mut size_evidence = Vec::new();

    // ---- tools
    let tool_checks = [
        &TOOLS_LIST,
        &PAGINATION,
        &TOOL_SCHEMA,
        &OUTPUT_SCHEMA,
        &TOOL_NAMES,
        &ANNOTATIONS,
        &X_MCP_HEADER,
        &DESCRIPTIONS,
    ];
    match gated_list(s, wire, limiter, "tools", "tools/list", "tools").await {
        None => {
            for c in tool_checks {
                s.add(
                    c.skip(
                        SkipReason::NotApplicable,
                        "the server does not declare the tools capability",
                    )
                    .era(era),
                );
            }
        }
        Some(Paged {
            failed: Some(reply),
            ..
        }) => {
            s.add(
                TOOLS_LIST
                    .fail(format!(
                        "the server declares tools, but tools/list got {}",
                        describe(&reply)
                    ))
                    .era(era)
                    .evidence(reply.evidence.iter().copied()),
            );
            for c in &tool_checks[1..] {
                s.add(
                    c.skip(SkipReason::NotAssessed, "tools/list did not answer")
                        .era(era),
                );
            }
        }
        Some(paged) if paged.malformed.is_some() => {
            s.add(judge_tools_list(&paged).era(era));
            for c in &tool_checks[1..] {
                s.add(
                    c.skip(
                        SkipReason::NotAssessed,
                        "tools/list answered without a tools array",
                    )
                    .era(era),
                );
            }
        }
        Some(paged) => {
            size_evidence.extend(paged.evidence.iter().copied());
            let tools = paged.items.clone();
            let mut f = judge_tools_list(&paged);
            if era == Era::Modern && paged.problem.is_none() {
                // 2026-07-28: the order SHOULD be deterministic: list again and compare.
                let again = list_all(wire, limiter, "tools/list", "tools").await;
                let ev: Vec<Seq> = paged
                    .evidence
                    .iter()
                    .chain(&again.evidence)
                    .copied()
                    .collect();
                if again.failed.is_none() && again.problem.is_none() {
                    let names = |t: &[Value]| {
                        t.iter()
                            .map(|x| policy::tool_name(x).to_string())
                            .collect::<Vec<_>>()
                    };
                    if names(&tools) != names(&again.items) {
                        f = TOOLS_LIST
                            .warn("tools/list returned the tools in a different order the second time; 2026-07-28 says the order should be deterministic")
                            .evidence(ev);
                    }
                }
            }
            s.add(f.era(era));
            let garbage = {
                limiter.wait().await;
                wire.request("tools/list", json!({"cursor": GARBAGE_CURSOR}))
                    .await
            };
            s.add(judge_pagination("tools/list", &paged, &garbage).era(era));
            let all = |fs: Vec<FindingBuilder>| fs.into_iter().map(move |f| f.era(era));
            s.add_all(all(judge_tool_schemas(&tools, &paged.evidence)));
            s.add_all(all(judge_output_schemas(&tools, &version, &paged.evidence)));
            s.add_all(all(judge_tool_names(&tools, &paged.evidence)));
            s.add_all(all(judge_annotations(&tools, &paged.evidence)));
            if era == Era::Modern {
                s.add_all(all(judge_x_mcp_header(&tools, &paged.evidence)));
            } else {
                s.add(
                    X_MCP_HEADER
                        .skip(
                            SkipReason::NotApplicable,
                            "x-mcp-header exists only in 2026-07-28",
                        )
                        .era(era),
                );
            }
            s.add_all(all(judge_descriptions(&tools, &paged.evidence)));
            catalog.tools = tools;
        }
    }

    // ---- resources and templates
    match gated_list(s, wire, limiter, "resources", "resources/list", "resources").await {
        None => s.add(
            RESOURCES
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the resources capability",
                )
                .era(era),
        ),
        Some(paged) => {
            let templates = list_all(
                wire,
                limiter,
                "resources/templates/list",
                "resourceTemplates",
            )
            .await;
            size_evidence.extend(paged.evidence.iter().chain(&templates.evidence).copied());
            s.add(judge_resources(&paged, &templates).era(era));
            catalog.resources = paged.items;
            catalog.resource_templates = templates.items;
        }
    }

    // ---- prompts
    match gated_list(s, wire, limiter, "prompts", "prompts/list", "prompts").await {
        None => s.add(
            PROMPTS
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the prompts capability",
                )
                .era(era),
        ),
        Some(paged) => {
            size_evidence.extend(paged.evidence.iter().copied());
            s.add(judge_prompts(&paged).era(era));
            catalog.prompts = paged.items;
        }
    }

    // ---- completions
    completions(s, wire, limiter, &catalog).await;

    // ---- context size
    s.add(judge_context_size(&catalog, s.spec.context_warn_tokens, &size_evidence).era(era));
    catalog.evidence = size_evidence;
    catalog
}

/// completion/complete for the first prompt argument (or resource template variable).
async fn completions(s: &mut Session, wire: &Connection, limiter: &RateLimiter, catalog: &Catalog) {
    let era = wire.era();
    if !declared(wire.capabilities(), "completions") {
        s.add(
            COMPLETIONS
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the completions capability",
                )
                .era(era),
        );
        return;
    }
    let target = catalog
        .prompts
        .iter()
        .find_map(|p| {
            let name = p.get("name")?.as_str()?;
            let arg = p
                .get("arguments")?
                .as_array()?
                .first()?
                .get("name")?
                .as_str()?;
            Some((json!({"type": "ref/prompt", "name": name}), arg.to_string()))
        })
        .or_else(|| {
            catalog.resource_templates.iter().find_map(|t| {
                let uri = t.get("uriTemplate")?.as_str()?;
                let var = uri
                    .split('{')
                    .nth(1)?
                    .split('}')
                    .next()?
                    .trim_start_matches(['+', '#', '/', '?', '&', '.', ';']);
                let var = var.split([',', '*', ':']).next()?.to_string();
                Some((json!({"type": "ref/resource", "uri": uri}), var))
            })
        });
    let Some((reference, argument)) = target else {
        s.add(
            COMPLETIONS
                .skip(
                    SkipReason::NotApplicable,
                    "no prompt argument or resource template to complete",
                )
                .era(era),
        );
        return;
    };
    limiter.wait().await;
    let reply = wire
        .request(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": argument, "value": ""}}),
        )
        .await;
    s.add(judge_completion(&reply).era(era));
}

/// `catalog.tools_list`: the list answered with a `tools` array on every page; every entry
/// is an object with a string name.
pub fn judge_tools_list(paged: &Paged) -> FindingBuilder {
    let (tools, evidence) = (&paged.items, &paged.evidence);
    if let Some(what) = &paged.malformed {
        return TOOLS_LIST
            .fail(format!("{what}; ListToolsResult requires it"))
            .evidence(evidence.iter().copied());
    }
    let bad: Vec<String> = tools
        .iter()
        .enumerate()
        .filter(|(_, t)| t.get("name").and_then(Value::as_str).is_none())
        .map(|(i, _)| format!("#{i}"))
        .collect();
    if bad.is_empty() {
        TOOLS_LIST
            .pass(format!("tools/list listed {} tool(s)", tools.len()))
            .evidence(evidence.iter().copied())
    } else {
        TOOLS_LIST
            .fail(format!(
                "tools/list entries without a string name: {}",
                bad.join(", ")
            ))
            .evidence(evidence.iter().copied())
    }
}

/// `catalog.pagination`: the pages ended without a loop, and a garbage cursor was refused.
pub fn judge_pagination(method: &str, paged: &Paged, garbage: &Reply) -> FindingBuilder {
    if let Some(problem) = &paged.problem {
        return PAGINATION
            .fail(problem.clone())
            .subject(method)
            .evidence(paged.evidence.iter().copied());
    }
    let ev = garbage.evidence.iter().copied();
    match garbage.error_code() {
        Some(-32602) => PAGINATION
            .pass(format!(
                "{method} ended after {} page(s); a cursor it never issued got -32602",
                paged.pages
            ))
            .subject(method)
            .evidence(paged.evidence.iter().copied().chain(ev)),
        Some(code) => PAGINATION
            .warn(format!(
                "{method} ended after {} page(s), but a cursor it never issued got error {code} instead of -32602 (Invalid params)",
                paged.pages
            ))
            .subject(method)
            .evidence(ev),
        None => PAGINATION
            .warn(format!(
                "{method} accepted a cursor it never issued ({}); it should answer -32602",
                if garbage.result().is_some() {
                    "it answered with a result".to_string()
                } else {
                    describe(garbage)
                }
            ))
            .subject(method)
            .evidence(ev),
    }
}

fn name_of(tool: &Value) -> String {
    policy::tool_name(tool).to_string()
}

/// `catalog.tool_schema`: one finding per tool with a problem, or one pass.
pub fn judge_tool_schemas(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    for t in tools {
        let ev = evidence.iter().copied();
        let problem = match t.get("inputSchema") {
            None => Some((true, "has no inputSchema".to_string())),
            Some(sch) if !sch.is_object() => Some((
                true,
                format!(
                    "has an inputSchema that is {}, not an object",
                    schema::kind(sch)
                ),
            )),
            Some(sch) if !schema::root_is_object(sch) => Some((
                true,
                "has an inputSchema whose root is not type \"object\"".to_string(),
            )),
            Some(sch) => match schema::check(sch) {
                Ok(()) => None,
                Err(e @ SchemaError::Invalid(_)) => Some((
                    true,
                    format!("has an invalid inputSchema ({}): {e}", schema::dialect(sch)),
                )),
                Err(e) => Some((false, format!("has an inputSchema scout cannot use: {e}"))),
            },
        };
        if let Some((fail, why)) = problem {
            let detail = format!("tool `{}` {why}", name_of(t));
            let f = if fail {
                TOOL_SCHEMA.fail(detail)
            } else {
                TOOL_SCHEMA.warn(detail)
            };
            out.push(f.subject(name_of(t)).evidence(ev));
        }
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            TOOL_SCHEMA
                .pass(format!(
                    "all {} input schemas are valid object schemas",
                    tools.len()
                ))
                .evidence(evidence.iter().copied()),
        );
    }
    if tools.is_empty() {
        out.push(TOOL_SCHEMA.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

/// True for the revisions whose outputSchema root must be `type: "object"`.
fn output_root_object(version: &str) -> bool {
    matches!(version, "2025-06-18" | "2025-11-25")
}

/// `catalog.output_schema`: every outputSchema that is present is valid.
pub fn judge_output_schemas(
    tools: &[Value],
    version: &str,
    evidence: &[Seq],
) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    let mut seen = 0;
    for t in tools {
        let Some(sch) = t.get("outputSchema") else {
            continue;
        };
        seen += 1;
        let problem = if !sch.is_object() {
            Some(format!("is {}, not a schema object", schema::kind(sch)))
        } else if output_root_object(version) && !schema::root_is_object(sch) {
            Some(format!(
                "has no root type \"object\", which {version} requires"
            ))
        } else {
            schema::check(sch).err().map(|e| e.to_string())
        };
        if let Some(why) = problem {
            out.push(
                OUTPUT_SCHEMA
                    .fail(format!("tool `{}`: outputSchema {why}", name_of(t)))
                    .subject(name_of(t))
                    .evidence(evidence.iter().copied()),
            );
        }
    }
    if seen == 0 {
        out.push(OUTPUT_SCHEMA.skip(
            SkipReason::NotApplicable,
            "no tool declares an outputSchema",
        ));
    } else if out.is_empty() {
        out.push(
            OUTPUT_SCHEMA
                .pass(format!("{seen} output schema(s) are valid"))
                .evidence(evidence.iter().copied()),
        );
    }
    out
}

/// True for a name the spec recommends: 1–128 of `[A-Za-z0-9_.-]`.
pub fn good_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `catalog.tool_names`: duplicates fail; malformed names warn (a SHOULD).
pub fn judge_tool_names(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let ev = || evidence.iter().copied();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut dups = Vec::new();
    for t in tools {
        let n = name_of(t);
        if !seen.insert(n.clone()) && !dups.contains(&n) {
            dups.push(n);
        }
    }
    for d in &dups {
        out.push(
            TOOL_NAMES
                .fail(format!(
                    "the tool name `{d}` is listed more than once; an agent cannot tell them apart"
                ))
                .subject(d.clone())
                .evidence(ev()),
        );
    }
    for t in tools {
        let n = name_of(t);
        if !good_tool_name(&n) {
            out.push(
                TOOL_NAMES
                    .warn(format!(
                        "the tool name {n:?} is not 1-128 characters of [A-Za-z0-9_.-]"
                    ))
                    .subject(n)
                    .evidence(ev()),
            );
        }
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            TOOL_NAMES
                .pass(format!(
                    "{} tool names, well formed and unique",
                    tools.len()
                ))
                .evidence(ev()),
        );
    }
    if tools.is_empty() {
        out.push(TOOL_NAMES.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

const HINTS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// `catalog.annotations`: hints are booleans (a fail otherwise); tools without annotations
/// are destructive by the spec's defaults (one warn naming them).
pub fn judge_annotations(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let ev = || evidence.iter().copied();
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for t in tools {
        let n = name_of(t);
        match t.get("annotations") {
            None | Some(Value::Null) => missing.push(n),
            Some(Value::Object(a)) => {
                let mut bad: Vec<String> = HINTS
                    .iter()
                    .filter_map(|h| {
                        a.get(*h)
                            .filter(|v| !v.is_boolean())
                            .map(|v| format!("{h} is {}", schema::kind(v)))
                    })
                    .collect();
                if let Some(v) = a.get("title").filter(|v| !v.is_string()) {
                    bad.push(format!("title is {}", schema::kind(v)));
                }
                if !bad.is_empty() {
                    out.push(
                        ANNOTATIONS
                            .fail(format!(
                                "tool `{n}`: {} (hints must be booleans; scout reads them as the defaults)",
                                bad.join(", ")
                            ))
                            .subject(n)
                            .evidence(ev()),
                    );
                }
            }
            Some(other) => out.push(
                ANNOTATIONS
                    .fail(format!(
                        "tool `{n}`: annotations is {}, not an object",
                        schema::kind(other)
                    ))
                    .subject(n)
                    .evidence(ev()),
            ),
        }
    }
    if !missing.is_empty() {
        out.push(
            ANNOTATIONS
                .warn(format!(
                    "{} tool(s) have no annotations, so the spec's defaults make them destructive and open-world; scout will not call them by default: {}",
                    missing.len(),
                    missing.join(", ")
                ))
                .evidence(ev()),
        );
    }
    if out.is_empty() && !tools.is_empty() {
        out.push(
            ANNOTATIONS
                .pass(format!("all {} tools carry typed annotations", tools.len()))
                .evidence(ev()),
        );
    }
    if tools.is_empty() {
        out.push(ANNOTATIONS.skip(SkipReason::NotApplicable, "the server lists no tools"));
    }
    out
}

/// True for an RFC 9110 token (the characters a header name may use).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// Collects the problems of every `x-mcp-header` in one input schema. Valid: on a property
/// reached through `properties` chains only, of type string/integer/boolean, a token name,
/// unique case-insensitively.
pub fn x_mcp_header_problems(input: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names = HashSet::new();
    // (schema, path, reachable through properties only)
    let mut stack = vec![(input, String::new(), true)];
    while let Some((node, path, direct)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        if let Some(decl) = map.get("x-mcp-header") {
            let at = if path.is_empty() {
                "the root".to_string()
            } else {
                format!("`{path}`")
            };
            match decl.as_str() {
                None => problems.push(format!("at {at} is {}, not a string", schema::kind(decl))),
                Some(name) if !is_token(name) => {
                    problems.push(format!("{name:?} at {at} is not a valid header name"))
                }
                Some(name) => {
                    if !names.insert(name.to_ascii_lowercase()) {
                        problems.push(format!(
                            "{name:?} at {at} is declared twice (names are case-insensitive)"
                        ));
                    }
                    if !direct || path.is_empty() {
                        problems.push(format!(
                            "{name:?} at {at} is not reached through properties alone"
                        ));
                    }
                    let ty = map.get("type").and_then(Value::as_str);
                    if !matches!(ty, Some("string" | "integer" | "boolean")) {
                        problems.push(format!("{name:?} at {at} sits on a property of type {}, not string, integer or boolean", ty.unwrap_or("(none)")));
                    }
                }
            }
        }
        for (k, v) in map {
            match k.as_str() {
                "properties" => {
                    if let Value::Object(props) = v {
                        for (pk, pv) in props {
                            let p = if path.is_empty() {
                                pk.clone()
                            } else {
                                format!("{path}.{pk}")
                            };
                            stack.push((pv, p, direct));
                        }
                    }
                }
                "items"
                | "prefixItems"
                | "oneOf"
                | "anyOf"
                | "allOf"
                | "$defs"
                | "definitions"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else" => {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    match v {
                        Value::Array(a) => stack.extend(a.iter().map(|x| (x, p.clone(), false))),
                        Value::Object(o) if matches!(k.as_str(), "$defs" | "definitions") => {
                            stack.extend(o.values().map(|x| (x, p.clone(), false)))
                        }
                        other => stack.push((other, p, false)),
                    }
                }
                _ => {}
            }
        }
    }
    problems.sort();
    problems
}

/// `catalog.x_mcp_header` (2026-07-28): invalid declarations make a client drop the tool.
pub fn judge_x_mcp_header(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let mut out = Vec::new();
    let mut declared = 0;
    for t in tools {
        let input = t.get("inputSchema").unwrap_or(&Value::Null);
        if serde_json::to_string(input)
            .unwrap_or_default()
            .contains("\"x-mcp-header\"")
        {
            declared += 1;
        }
        let problems = x_mcp_header_problems(input);
        if !problems.is_empty() {
            out.push(
                X_MCP_HEADER
                    .fail(format!(
                        "tool `{}`: x-mcp-header {}; clients must drop this tool",
                        name_of(t),
                        problems.join("; ")
                    ))
                    .subject(name_of(t))
                    .evidence(evidence.iter().copied()),
            );
        }
    }
    if declared == 0 {
        out.push(X_MCP_HEADER.skip(SkipReason::NotApplicable, "no tool declares x-mcp-header"));
    } else if out.is_empty() {
        out.push(
            X_MCP_HEADER
                .pass(format!(
                    "{declared} tool(s) declare valid x-mcp-header parameters"
                ))
                .evidence(evidence.iter().copied()),
        );
    }
    out
}

/// `catalog.descriptions`: every tool and every top-level argument has a description.
pub fn judge_descriptions(tools: &[Value], evidence: &[Seq]) -> Vec<FindingBuilder> {
    let described = |v: &Value| {
        v.get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.trim().is_empty())
    };
    let mut missing = Vec::new();
    for t in tools {
        let n = name_of(t);
        if !described(t) {
            missing.push(format!("tool `{n}`"));
        }
        if let Some(props) = t
            .get("inputSchema")
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            for (k, v) in props {
                if !described(v) {
                    missing.push(format!("`{n}.{k}`"));
                }
            }
        }
    }
    if tools.is_empty() {
        return vec![DESCRIPTIONS.skip(SkipReason::NotApplicable, "the server lists no tools")];
    }
    let ev = evidence.iter().copied();
    if missing.is_empty() {
        vec![
            DESCRIPTIONS
                .pass("every tool and every argument is described")
                .evidence(ev),
        ]
    } else {
        let shown: Vec<String> = missing.iter().take(20).cloned().collect();
        let more = if missing.len() > shown.len() {
            format!(" and {} more", missing.len() - shown.len())
        } else {
            String::new()
        };
        vec![
            DESCRIPTIONS
                .warn(format!(
                    "{} without a description: {}{more}",
                    missing.len(),
                    shown.join(", ")
                ))
                .evidence(ev),
        ]
    }
}

/// `catalog.resources`: both lists answered and every entry has its required fields.
pub fn judge_resources(resources: &Paged, templates: &Paged) -> FindingBuilder {
    let ev: Vec<Seq> = resources
        .evidence
        .iter()
        .chain(&templates.evidence)
        .copied()
        .collect();
    if let Some(r) = &resources.failed {
        return RESOURCES
            .fail(format!(
                "the server declares resources, but resources/list got {}",
                describe(r)
            ))
            .evidence(r.evidence.iter().copied());
    }
    if let Some(p) = resources
        .problem
        .as_ref()
        .or(templates.problem.as_ref())
        .or(resources.malformed.as_ref())
        .or(templates.malformed.as_ref())
    {
        return RESOURCES.fail(p.clone()).evidence(ev);
    }
    let mut problems = Vec::new();
    if let Some(r) = &templates.failed {
        // Templates are part of the resources feature; -32601 means the server has none.
        if r.error_code() != Some(-32601) {
            problems.push(format!("resources/templates/list got {}", describe(r)));
        }
    }
    let has = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).is_some();
    for (i, r) in resources.items.iter().enumerate() {
        for k in ["uri", "name"] {
            if !has(r, k) {
                problems.push(format!("resource #{i} has no string `{k}`"));
            }
        }
    }
    for (i, t) in templates.items.iter().enumerate() {
        for k in ["uriTemplate", "name"] {
            if !has(t, k) {
                problems.push(format!("resource template #{i} has no string `{k}`"));
            }
        }
    }
    if problems.is_empty() {
        RESOURCES
            .pass(format!(
                "{} resource(s) and {} template(s), well formed",
                resources.items.len(),
                templates.items.len()
            ))
            .evidence(ev)
    } else {
        RESOURCES.fail(problems.join("; ")).evidence(ev)
    }
}

/// `catalog.prompts`: the list answered and every prompt and argument is well formed.
pub fn judge_prompts(paged: &Paged) -> FindingBuilder {
    let ev = paged.evidence.iter().copied();
    if let Some(r) = &paged.failed {
        return PROMPTS
            .fail(format!(
                "the server declares prompts, but prompts/list got {}",
                describe(r)
            ))
            .evidence(r.evidence.iter().copied());
    }
    if let Some(p) = paged.problem.as_ref().or(paged.malformed.as_ref()) {
        return PROMPTS.fail(p.clone()).evidence(ev);
    }
    let mut problems = Vec::new();
    for (i, p) in paged.items.iter().enumerate() {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            problems.push(format!("prompt #{i} has no string `name`"));
            continue;
        };
        match p.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::Array(args)) => {
                for (j, a) in args.iter().enumerate() {
                    if a.get("name").and_then(Value::as_str).is_none() {
                        problems.push(format!(
                            "prompt `{name}` argument #{j} has no string `name`"
                        ));
                    }
                    if let Some(r) = a.get("required").filter(|r| !r.is_boolean()) {
                        problems.push(format!(
                            "prompt `{name}` argument #{j}: required is {}",
                            schema::kind(r)
                        ));
                    }
                }
            }
            Some(other) => problems.push(format!(
                "prompt `{name}`: arguments is {}, not an array",
                schema::kind(other)
            )),
        }
    }
    if problems.is_empty() {
        PROMPTS
            .pass(format!("{} prompt(s), well formed", paged.items.len()))
            .evidence(ev)
    } else {
        PROMPTS.fail(problems.join("; ")).evidence(ev)
    }
}

/// `catalog.completions`: `completion.values` is an array of at most 100 strings.
pub fn judge_completion(reply: &Reply) -> FindingBuilder {
    let ev = reply.evidence.iter().copied();
    let Some(result) = reply.result() else {
        return COMPLETIONS
            .fail(format!(
                "the server declares completions, but completion/complete got {}",
                describe(reply)
            ))
            .evidence(ev);
    };
    match result
        .get("completion")
        .and_then(|c| c.get("values"))
        .and_then(Value::as_array)
    {
        None => COMPLETIONS
            .fail("completion/complete answered without completion.values")
            .evidence(ev),
        Some(v) if v.len() > 100 => COMPLETIONS
            .fail(format!(
                "completion/complete returned {} values; at most 100 are allowed",
                v.len()
            ))
            .evidence(ev),
        Some(v) if v.iter().any(|x| !x.is_string()) => COMPLETIONS
            .fail("completion.values holds something other than strings")
            .evidence(ev),
        Some(v) => COMPLETIONS
            .pass(format!("completion/complete returned {} value(s)", v.len()))
            .evidence(ev),
    }
}

/// Tokens per byte of JSON, for the estimate: about 4 bytes of JSON per token, the usual
/// rule of thumb for English text and JSON in current tokenizers. An estimate, not a count.
pub const BYTES_PER_TOKEN: usize = 4;

/// The estimated token cost of the whole catalogue (tools, resources, templates, prompts
/// serialised as the agent would receive them).
pub fn estimate_tokens(c: &Catalog) -> u64 {
    let bytes: usize = [&c.tools, &c.resources, &c.resource_templates, &c.prompts]
        .iter()
        .map(|items| serde_json::to_vec(items).map(|v| v.len()).unwrap_or(0))
        .sum();
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// `catalog.context_size`: info, or a warn above `threshold` tokens.
pub fn judge_context_size(c: &Catalog, threshold: u64, evidence: &[Seq]) -> FindingBuilder {
    let tokens = estimate_tokens(c);
    let detail = format!(
        "the catalogue ({} tools, {} resources, {} templates, {} prompts) costs about {tokens} tokens of an agent's context (JSON bytes / {BYTES_PER_TOKEN})",
        c.tools.len(),
        c.resources.len(),
        c.resource_templates.len(),
        c.prompts.len()
    );
    if tokens > threshold && !evidence.is_empty() {
        CONTEXT_SIZE
            .warn(format!("{detail}, above the threshold of {threshold}"))
            .evidence(evidence.iter().copied())
    } else {
        CONTEXT_SIZE.info(detail).evidence(evidence.iter().copied())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::finding::{Finding, Status};

    /// A reply as a transport would hand it over: `response` answered, cited as `seq`.
    pub(crate) fn reply(seq: Seq, response: Value) -> Reply {
        Reply {
            evidence: vec![seq],
            outcome: Outcome::Answered,
            response: Some(response),
            notifications: Vec::new(),
            server_requests: Vec::new(),
            http: None,
            elapsed: std::time::Duration::ZERO,
        }
    }

    pub(crate) fn ok(seq: Seq, result: Value) -> Reply {
        reply(seq, json!({"jsonrpc": "2.0", "id": 1, "result": result}))
    }

    pub(crate) fn err(seq: Seq, code: i64) -> Reply {
        reply(
            seq,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}}),
        )
    }

    pub(crate) fn built(f: FindingBuilder) -> Finding {
        f.build(|_| true).expect("a valid finding")
    }

    fn statuses(fs: Vec<FindingBuilder>) -> Vec<(Status, Option<String>)> {
        fs.into_iter()
            .map(built)
            .map(|f| (f.status, f.subject))
            .collect()
    }

    fn paged(items: Vec<Value>) -> Paged {
        Paged {
            items,
            evidence: vec![1],
            pages: 1,
            ..Paged::default()
        }
    }

    #[test]
    fn tools_list_without_its_array_fails() {
        // A result without `tools` is not an empty list (issue 15).
        let missing = Paged {
            malformed: Some("tools/list page 1 answered with a result that has no `tools` array (the member is missing)".into()),
            ..paged(vec![])
        };
        let f = built(judge_tools_list(&missing));
        assert_eq!(f.status, Status::Fail);
        assert!(f.detail.contains("no `tools` array"), "{}", f.detail);
        let empty = built(judge_tools_list(&paged(vec![])));
        assert_eq!(empty.status, Status::Pass);
        assert!(empty.detail.contains("0 tool(s)"));
    }

    #[test]
    fn pagination_judgement() {
        let f = built(judge_pagination(
            "tools/list",
            &paged(vec![]),
            &err(2, -32602),
        ));
        assert_eq!((f.status, f.evidence), (Status::Pass, vec![1, 2]));
        let f = built(judge_pagination(
            "tools/list",
            &paged(vec![]),
            &ok(2, json!({"tools": []})),
        ));
        assert_eq!((f.status, f.evidence), (Status::Warn, vec![2]));
        let mut looping = paged(vec![]);
        looping.problem = Some("loops".into());
        assert_eq!(
            built(judge_pagination("tools/list", &looping, &err(2, -32602))).status,
            Status::Fail
        );
    }

    #[test]
    fn tool_schema_judgement() {
        let good = json!({"name": "a", "inputSchema": {"type": "object"}});
        let not_object = json!({"name": "b", "inputSchema": {"type": "string"}});
        let invalid = json!({"name": "c", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}});
        let missing = json!({"name": "d"});
        let remote = json!({"name": "e", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/x.json"}}}});
        assert_eq!(
            statuses(judge_tool_schemas(std::slice::from_ref(&good), &[1])),
            vec![(Status::Pass, None)]
        );
        let s = statuses(judge_tool_schemas(
            &[good, not_object, invalid, missing, remote],
            &[1],
        ));
        assert_eq!(
            s,
            vec![
                (Status::Fail, Some("b".into())),
                (Status::Fail, Some("c".into())),
                (Status::Fail, Some("d".into())),
                (Status::Warn, Some("e".into())),
            ]
        );
    }

    #[test]
    fn output_schema_judgement() {
        let t =
            |o: Value| json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": o});
        assert_eq!(
            statuses(judge_output_schemas(
                &[t(json!({"type": "object"}))],
                "2025-11-25",
                &[1]
            ))[0]
                .0,
            Status::Pass
        );
        assert_eq!(
            statuses(judge_output_schemas(
                &[t(json!({"type": "array"}))],
                "2025-11-25",
                &[1]
            ))[0]
                .0,
            Status::Fail
        );
        assert_eq!(
            statuses(judge_output_schemas(
                &[t(json!({"type": "array"}))],
                "2026-07-28",
                &[1]
            ))[0]
                .0,
            Status::Pass
        );
        assert_eq!(
            statuses(judge_output_schemas(
                &[json!({"name": "x"})],
                "2026-07-28",
                &[1]
            ))[0]
                .0,
            Status::Skip
        );
    }

    #[test]
    fn tool_names_judgement() {
        let t = |n: &str| json!({"name": n});
        assert_eq!(
            statuses(judge_tool_names(&[t("a.b-c_1")], &[1])),
            vec![(Status::Pass, None)]
        );
        let long = "x".repeat(129);
        let s = statuses(judge_tool_names(
            &[t("dup"), t("dup"), t("has space"), t(&long)],
            &[1],
        ));
        assert_eq!(s[0], (Status::Fail, Some("dup".into())));
        assert_eq!(s[1], (Status::Warn, Some("has space".into())));
        assert_eq!(s[2].0, Status::Warn);
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn annotations_judgement() {
        let good = json!({"name": "a", "annotations": {"readOnlyHint": true}});
        let bare = json!({"name": "b"});
        let stringly = json!({"name": "c", "annotations": {"readOnlyHint": "true"}});
        assert_eq!(
            statuses(judge_annotations(std::slice::from_ref(&good), &[1]))[0].0,
            Status::Pass
        );
        let s = statuses(judge_annotations(&[good, bare, stringly], &[1]));
        assert_eq!(
            s,
            vec![(Status::Fail, Some("c".into())), (Status::Warn, None)]
        );
    }

    #[test]
    fn x_mcp_header_judgement() {
        let ok_tool = json!({"name": "a", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}}});
        assert_eq!(
            statuses(judge_x_mcp_header(&[ok_tool], &[1]))[0].0,
            Status::Pass
        );
        let bad = json!({"name": "b", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Dup"},
            "b": {"type": "integer", "x-mcp-header": "dup"},
            "c": {"type": "object", "x-mcp-header": "Obj"},
            "d": {"type": "string", "x-mcp-header": "bad name"},
            "e": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}});
        let problems = x_mcp_header_problems(&bad["inputSchema"]);
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert_eq!(
            statuses(judge_x_mcp_header(&[bad], &[1]))[0],
            (Status::Fail, Some("b".into()))
        );
        assert_eq!(
            statuses(judge_x_mcp_header(&[json!({"name": "c"})], &[1]))[0].0,
            Status::Skip
        );
    }

    #[test]
    fn descriptions_judgement() {
        let good = json!({"name": "a", "description": "d", "inputSchema": {"properties": {"x": {"description": "x"}}}});
        let bad = json!({"name": "b", "inputSchema": {"properties": {"y": {}}}});
        assert_eq!(
            statuses(judge_descriptions(std::slice::from_ref(&good), &[1]))[0].0,
            Status::Pass
        );
        let f = built(judge_descriptions(&[good, bad], &[1]).remove(0));
        assert_eq!(f.status, Status::Warn);
        assert!(
            f.detail.contains("tool `b`") && f.detail.contains("`b.y`"),
            "{}",
            f.detail
        );
    }

    #[test]
    fn resources_prompts_completions() {
        let r = paged(vec![json!({"uri": "x://1", "name": "one"})]);
        let t = paged(vec![json!({"uriTemplate": "x://{id}", "name": "t"})]);
        assert_eq!(built(judge_resources(&r, &t)).status, Status::Pass);
        let bad = paged(vec![json!({"uri": "x://1"})]);
        assert_eq!(built(judge_resources(&bad, &t)).status, Status::Fail);
        let p = paged(vec![
            json!({"name": "greet", "arguments": [{"name": "who", "required": true}]}),
        ]);
        assert_eq!(built(judge_prompts(&p)).status, Status::Pass);
        let p = paged(vec![
            json!({"name": "greet", "arguments": [{"required": "yes"}]}),
        ]);
        assert_eq!(built(judge_prompts(&p)).status, Status::Fail);
        let many: Vec<String> = (0..101).map(|i| i.to_string()).collect();
        assert_eq!(
            built(judge_completion(&ok(
                3,
                json!({"completion": {"values": ["a"]}})
            )))
            .status,
            Status::Pass
        );
        assert_eq!(
            built(judge_completion(&ok(
                3,
                json!({"completion": {"values": many}})
            )))
            .status,
            Status::Fail
        );
    }

    #[test]
    fn context_size_estimate() {
        let c = Catalog {
            tools: vec![json!({"name": "x".repeat(396)})],
            ..Catalog::default()
        };
        // [{"name":"xxx…"}] is 396 + 12 bytes, the three empty lists 2 bytes each:
        // 414 bytes = 104 tokens at 4 bytes a token (rounded up).
        assert_eq!(estimate_tokens(&c), 104);
        assert_eq!(
            built(judge_context_size(&c, 1000, &[1])).status,
            Status::Info
        );
        assert_eq!(
            built(judge_context_size(&c, 100, &[1])).status,
            Status::Warn
        );
    }

    #[test]
    fn capability_declaration() {
        assert!(declared(&json!({"tools": {}}), "tools"));
        assert!(!declared(&json!({"tools": null}), "tools"));
        assert!(!declared(&json!({}), "prompts"));
    }
}
