//! Catalog: what the server offers (tools, resources, prompts, completions) and whether an
//! agent can use the description of it.
//!
//! This module sends the list requests ([`run`]); the verdicts are pure functions, one file per
//! family: [`paging`] (paged lists and `pagination`), [`tools`] (the tool list),
//! [`x_mcp_header`], [`features`] (resources, prompts, completions), [`context`], [`icons`],
//! [`identity`] and [`deprecated`].

pub mod context;
pub mod deprecated;
pub mod features;
pub mod icons;
pub mod identity;
pub mod paging;
pub mod tools;
pub mod x_mcp_header;

use serde_json::{Value, json};

pub use context::{BYTES_PER_TOKEN, context_size, estimate_tokens};
pub use features::{judge_completion, prompts, resources};
pub use paging::{MAX_PAGES, Paged, declared, describe, list_all, pagination};
pub use tools::{
    annotations, descriptions, good_tool_name, output_schema, tool_names, tool_schema, tools_list,
};
pub use x_mcp_header::{x_mcp_header, x_mcp_header_problems};

use crate::client::Connection;
use crate::policy;
use crate::probe::handshake::CAPABILITIES;
use crate::probe::session::{Catalog, Session};
use crate::report::check::spec_url;
use crate::report::exchange::Seq;
use crate::report::finding::{Era, FindingBuilder, SkipReason};
use crate::transport::Reply;
use crate::transport::limiter::RateLimiter;

crate::checks! { phase: Catalog;
    TOOLS_LIST = "catalog.tools_list", Critical, "`tools/list` works", spec_url::TL26,
        "A server that declares tools must answer tools/list with a tools array on every page (a result without it fails; it is not an empty list) whose entries carry a string name; in 2026-07-28 the order should be deterministic.",
        "Answer tools/list with every tool the server offers.";
    PAGINATION = "catalog.pagination", Major, "Pagination ends and rejects bad cursors", spec_url::PAGINATION26,
        "nextCursor is followed to the end (with a hard cap on pages); a cursor or a page that repeats is a loop. A garbage cursor should get -32602.",
        "Return a fresh cursor for each page, omit nextCursor on the last page, and reject unknown cursors with -32602.";
    TOOL_SCHEMA = "catalog.tool_schema", Major, "Tool input schemas are valid JSON Schema objects", spec_url::TL26,
        "Each inputSchema must be a valid JSON Schema for its dialect (2020-12 when $schema is absent from 2025-11-25 on) with root type \"object\".",
        "Give every tool an inputSchema with type \"object\" that validates against its dialect's meta-schema.";
    OUTPUT_SCHEMA = "catalog.output_schema", Major, "Tool output schemas are valid", spec_url::TL26,
        "An outputSchema, where present, must be valid JSON Schema (root type object in 2025-06-18 and 2025-11-25).",
        "Fix the outputSchema so it validates against its dialect's meta-schema.";
    TOOL_NAMES = "catalog.tool_names", Major, "Tool names are well formed and unique", spec_url::TL26,
        "Names should be 1-128 characters of A-Z a-z 0-9 _ - . (a warning otherwise); duplicate names are a failure.",
        "Rename tools to 1-128 characters of [A-Za-z0-9_.-] and keep them unique.";
    ANNOTATIONS = "catalog.annotations", Minor, "Tool annotations are typed and present", spec_url::TL26,
        "Annotation hints must be booleans. A tool without annotations is, per the spec's defaults, destructive and open-world, so agents (and scout) will not call it freely: a warning.",
        "Annotate every tool, at least readOnlyHint and destructiveHint.";
    X_MCP_HEADER = "catalog.x_mcp_header", Major, "`x-mcp-header` declarations are valid", spec_url::H26,
        "2026-07-28: x-mcp-header may only sit on string, integer or boolean properties reached through properties chains, with a token name unique case-insensitively. A client on Streamable HTTP must drop a tool with an invalid declaration (scout does not call it).",
        "Fix or remove invalid x-mcp-header declarations.";
    DESCRIPTIONS = "catalog.descriptions", Minor, "Tools and arguments are described", spec_url::TL26,
        "An agent picks tools and fills arguments from their descriptions: every tool and every argument should have one.",
        "Describe every tool and every input property.";
    RESOURCES = "catalog.resources", Major, "Resources and templates are listed well formed", spec_url::R26,
        "With the resources capability: resources/list and resources/templates/list answer, each resource has uri and name, each template uriTemplate and name. A templates list that fails (other than with -32601) is a warning: the resources still work.",
        "Answer the resource list methods with complete entries.";
    PROMPTS = "catalog.prompts", Major, "Prompts are listed well formed", spec_url::PR26,
        "With the prompts capability: prompts/list answers, each prompt has a name and well-formed arguments.",
        "Answer prompts/list with complete entries.";
    COMPLETIONS = "catalog.completions", Minor, "Completions return at most 100 values", spec_url::COMPLETION26,
        "With the completions capability: completion/complete for a prompt argument answers with at most 100 values.",
        "Cap completion values at 100 and set hasMore.";
    CONTEXT_SIZE = "catalog.context_size", Minor, "What the catalogue costs an agent's context", spec_url::TL26,
        "An estimate of the tokens the whole catalogue (names, descriptions, schemas) takes in an agent's context. Information, with a warning above the configured threshold.",
        "Shorten descriptions and schemas, or split the server, so the catalogue leaves room for the task.";
    ICONS = "catalog.icons", Minor, "Icons use safe URI schemes", spec_url::B25,
        "Every icon of a tool, resource, resource template or prompt should be an https: or data: URI: clients must reject icon URIs with unsafe schemes (javascript:, file:, ftp:, ws:, local app schemes), so such an icon is never shown. Each other icon is named: a warning.",
        "Serve icons from https: URLs or inline them as data: URIs.";
    IDENTITY = "catalog.identity", Minor, "What a host can show of the server", spec_url::B25,
        "A statement, not a judgement: what serverInfo says beyond name and version (title, description, websiteUrl, icons) and how many tools, prompts, prompt arguments, resources and resource templates carry a human-readable `title` (for a tool, `annotations.title` counts too). Every one of these fields is optional; a host shows the name where there is no title.",
        "Give the server and each tool, prompt and resource a short `title` people can read, and the server a description, a websiteUrl and an icon.";
    DEPRECATED = "catalog.deprecated", Minor, "No deprecated feature is in use", spec_url::DEPRECATED26,
        "The specification keeps a registry of deprecated features; of those a client can see from the handshake, scout looks for the `logging` capability (deprecated in 2026-07-28) and the HTTP+SSE transport (deprecated since 2025-03-26). A feature the wire's own revision deprecates is a warning naming the migration and the earliest removal; one only a later revision deprecates (logging declared at 2025-11-25) is a notice, so a server can see what the next revision will ask of it.",
        "Migrate as the notice says before the earliest removal: log to stderr or through OpenTelemetry instead of `notifications/message`, and serve Streamable HTTP instead of HTTP+SSE.";
}

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
    let limiter = RateLimiter::new(None);
    // The wires of a dual-era server are independent connections: listed at the same time,
    // each on a branch of the session, and the catalogues kept in wire order.
    let mut branches: Vec<Session> = wires.iter().map(|_| s.fork()).collect();
    let catalogs = futures_util::future::join_all(
        branches
            .iter_mut()
            .zip(&wires)
            .map(|(b, wire)| crate::probe::on_heap(|| catalog_wire(b, wire, &limiter))),
    )
    .await;
    for b in branches {
        s.join(b);
    }
    s.catalogs.extend(catalogs);
    for wire in &wires {
        s.add(deprecated::deprecated(wire));
    }
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
    if let Some(f) = undeclared_answer(capability, method, key, &reply) {
        s.add(f.subject(method).era(era));
    }
    None
}

/// `handshake.capabilities` for a list asked of a capability the server did not declare.
/// "Only use capabilities that were successfully negotiated" binds whoever sends the
/// request — here scout — so answering it is no fault in itself. A list with entries is:
/// the server offers tools, resources or prompts that no client will ask for, and servers
/// that support a feature must declare its capability. An empty list offers nothing; it is
/// noted, not judged. `None` when the request got no result.
fn undeclared_answer(
    capability: &str,
    method: &str,
    key: &str,
    reply: &Reply,
) -> Option<FindingBuilder> {
    let result = reply.result()?;
    let n = result.get(key).and_then(Value::as_array).map(Vec::len);
    let f = match n {
        Some(0) => CAPABILITIES.info(format!(
            "{method} answered with an empty list although the server did not declare the `{capability}` capability; it offers nothing there, so nothing is missing"
        )),
        Some(n) => CAPABILITIES.fail(format!(
            "{method} answered with {n} entr{} but the server did not declare the `{capability}` capability; clients will never ask for them",
            if n == 1 { "y" } else { "ies" }
        )),
        None => CAPABILITIES.fail(format!(
            "{method} answered with a result, but the server did not declare the `{capability}` capability; clients will never ask for it"
        )),
    };
    Some(f.evidence(reply.evidence.iter().copied()))
}

/// The catalog probes on one wire. Tools, resources and prompts are listed at the same time
/// (each on a branch of the session, joined in that order so findings keep a fixed order);
/// completions follow, as they need a prompt or a resource template to complete.
async fn catalog_wire(s: &mut Session, wire: &Connection, limiter: &RateLimiter) -> Catalog {
    let era = wire.era();
    let mut catalog = Catalog {
        era: Some(era),
        ..Catalog::default()
    };
    let (mut st, mut sr, mut sp) = (s.fork(), s.fork(), s.fork());
    let (tools, resources, prompts) = futures_util::join!(
        list_tools(&mut st, wire, limiter),
        list_resources(&mut sr, wire, limiter),
        list_prompts(&mut sp, wire, limiter),
    );
    for branch in [st, sr, sp] {
        s.join(branch);
    }
    let mut size_evidence = Vec::new();
    if tools.is_none() && declared(wire.capabilities(), "tools") {
        catalog.unread.push("tools/list");
    }
    if let Some((items, evidence, pages)) = tools {
        size_evidence.extend(evidence);
        catalog.tools = items;
        catalog.tool_pages = pages;
    }
    if let Some((items, templates, evidence, unread)) = resources {
        catalog.unread.extend(unread);
        size_evidence.extend(evidence);
        catalog.resources = items;
        catalog.resource_templates = templates;
    }
    if let Some((items, evidence, answered)) = prompts {
        if answered {
            catalog.prompt_pages = evidence.clone();
        } else {
            catalog.unread.push("prompts/list");
        }
        size_evidence.extend(evidence);
        catalog.prompts = items;
    }

    // ---- completions
    completions(s, wire, limiter, &catalog).await;

    // ---- context size, icons
    s.add(context_size(&catalog, s.spec.context_warn_tokens, &size_evidence).era(era));
    s.add(icons::icons(&catalog, &size_evidence).era(era));
    let mut shown = wire.handshake_evidence().to_vec();
    shown.extend(&size_evidence);
    if !shown.is_empty() {
        s.add(identity::identity(&catalog, wire.server_info(), &shown).era(era));
    }
    catalog.evidence = size_evidence;
    catalog
}

/// The tool list and its checks; the tools, the exchanges that listed them and the pages
/// (tools per page, with their exchanges) when the list could be judged.
async fn list_tools(
    s: &mut Session,
    wire: &Connection,
    limiter: &RateLimiter,
) -> Option<(Vec<Value>, Vec<Seq>, Vec<(usize, Vec<Seq>)>)> {
    let era = wire.era();
    let version = wire.protocol_version().to_string();
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
            None
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
            None
        }
        Some(paged) if paged.malformed.is_some() => {
            s.add(tools_list(&paged).era(era));
            for c in &tool_checks[1..] {
                s.add(
                    c.skip(
                        SkipReason::NotAssessed,
                        "tools/list answered without a tools array",
                    )
                    .era(era),
                );
            }
            None
        }
        Some(paged) => {
            let tools = paged.items.clone();
            let mut f = tools_list(&paged);
            // The garbage cursor goes out beside the 2026-07-28 second listing: neither
            // depends on the other.
            let again = async {
                // 2026-07-28: the order SHOULD be deterministic: list again and compare.
                if era == Era::Modern && paged.problem.is_none() {
                    Some(list_all(wire, limiter, "tools/list", "tools").await)
                } else {
                    None
                }
            };
            let garbage = async {
                limiter.wait().await;
                wire.request("tools/list", json!({"cursor": GARBAGE_CURSOR}))
                    .await
            };
            let (again, garbage) = futures_util::join!(again, garbage);
            if let Some(again) = again {
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
            s.add(pagination("tools/list", &paged, &garbage).era(era));
            let all = |fs: Vec<FindingBuilder>| fs.into_iter().map(move |f| f.era(era));
            s.add_all(all(tool_schema(&tools, &paged.evidence)));
            s.add_all(all(output_schema(&tools, &version, &paged.evidence)));
            s.add_all(all(tool_names(&tools, &paged.evidence)));
            s.add_all(all(annotations(&tools, &paged.evidence)));
            if era == Era::Modern {
                s.add_all(all(x_mcp_header(&tools, &paged.evidence)));
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
            s.add_all(all(descriptions(&tools, &paged.evidence)));
            Some((tools, paged.evidence, paged.page_items))
        }
    }
}

/// Resources and resource templates (listed at the same time once the capability is
/// declared): the resources, the templates, the exchanges that listed them and which of the
/// two lists could not be read whole.
async fn list_resources(
    s: &mut Session,
    wire: &Connection,
    limiter: &RateLimiter,
) -> Option<(Vec<Value>, Vec<Value>, Vec<Seq>, Vec<&'static str>)> {
    let era = wire.era();
    if !declared(wire.capabilities(), "resources") {
        // Probed once anyway, to catch "works without being declared".
        gated_list(s, wire, limiter, "resources", "resources/list", "resources").await;
        s.add(
            RESOURCES
                .skip(
                    SkipReason::NotApplicable,
                    "the server does not declare the resources capability",
                )
                .era(era),
        );
        return None;
    }
    let (paged, templates) = futures_util::join!(
        list_all(wire, limiter, "resources/list", "resources"),
        list_all(
            wire,
            limiter,
            "resources/templates/list",
            "resourceTemplates",
        ),
    );
    let evidence = paged
        .evidence
        .iter()
        .chain(&templates.evidence)
        .copied()
        .collect();
    s.add(resources(&paged, &templates).era(era));
    let mut unread = Vec::new();
    if !paged.read_whole() {
        unread.push("resources/list");
    }
    // -32601 for templates is the server saying it has none, as the resources check reads it.
    let no_templates = templates
        .failed
        .as_ref()
        .is_some_and(|r| r.error_code() == Some(-32601));
    if !templates.read_whole() && !no_templates {
        unread.push("resources/templates/list");
    }
    Some((paged.items, templates.items, evidence, unread))
}

/// The prompt list: the prompts, the exchanges that listed them, and whether the list
/// answered with a list (not an error nor a malformed result).
async fn list_prompts(
    s: &mut Session,
    wire: &Connection,
    limiter: &RateLimiter,
) -> Option<(Vec<Value>, Vec<Seq>, bool)> {
    let era = wire.era();
    match gated_list(s, wire, limiter, "prompts", "prompts/list", "prompts").await {
        None => {
            s.add(
                PROMPTS
                    .skip(
                        SkipReason::NotApplicable,
                        "the server does not declare the prompts capability",
                    )
                    .era(era),
            );
            None
        }
        Some(paged) => {
            s.add(prompts(&paged).era(era));
            let answered = paged.failed.is_none() && paged.malformed.is_none();
            Some((paged.items, paged.evidence, answered))
        }
    }
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

#[cfg(test)]
pub(crate) mod tests {
    //! Helpers the catalog and execution tests share.

    use super::*;
    use crate::report::finding::{Finding, Status};
    use crate::transport::{Outcome, Reply};
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
            refused: false,
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

    #[test]
    fn an_empty_list_of_an_undeclared_capability_is_only_noted() {
        // Previously: resources/list answered `{"resources": []}` by a server that declared
        // no resources failed handshake.capabilities major.
        let f = undeclared_answer(
            "resources",
            "resources/list",
            "resources",
            &ok(1, json!({"resources": []})),
        );
        let f = built(f.expect("answered"));
        assert_eq!(f.status, Status::Info, "{}", f.detail);
        assert_eq!(f.evidence, vec![1]);
        let one = json!({"prompts": [{"name": "p"}]});
        let f = built(
            undeclared_answer("prompts", "prompts/list", "prompts", &ok(2, one)).expect("answered"),
        );
        assert_eq!(f.status, Status::Fail, "{}", f.detail);
        assert!(f.detail.contains("1 entry"), "{}", f.detail);
        assert!(undeclared_answer("prompts", "prompts/list", "prompts", &err(3, -32601)).is_none());
    }

    pub(crate) fn statuses(fs: Vec<FindingBuilder>) -> Vec<(Status, Option<String>)> {
        fs.into_iter()
            .map(built)
            .map(|f| (f.status, f.subject))
            .collect()
    }

    pub(crate) fn paged(items: Vec<Value>) -> Paged {
        Paged {
            items,
            evidence: vec![1],
            pages: 1,
            ..Paged::default()
        }
    }
}
