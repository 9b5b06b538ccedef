//! Catalog: what the server offers (tools, resources, prompts, completions) and whether an
//! agent can use the description of it.

use crate::probe::registry::spec;

crate::checks! { phase: Catalog;
    TOOLS_LIST = "catalog.tools_list", Critical, "tools/list works", spec::TL26,
        "A server that declares tools must answer tools/list with a tools array; in 2026-07-28 the order should be deterministic.",
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

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
