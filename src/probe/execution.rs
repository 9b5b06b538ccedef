//! Execution: whether the tools, resources and prompts work when an agent uses them, within
//! the safety policy.

use crate::probe::registry::spec;

crate::checks! { phase: Execution;
    TOOL_CALL = "execution.tool_call", Major, "Allowed tools answer with a valid result", spec::TL26,
        "Each tool the policy allows is called once with schema-generated (or configured) arguments; the answer must be a valid CallToolResult. isError results are the tool's own error and are reported as such.",
        "Make the tool return a CallToolResult with a content array.";
    STRUCTURED_OUTPUT = "execution.structured_output", Major, "Structured output matches the output schema", spec::TL26,
        "With an outputSchema, structuredContent must be present and validate; a text block with its serialisation should be there too.",
        "Return structuredContent conforming to the declared outputSchema.";
    CONTENT_BLOCKS = "execution.content_blocks", Major, "Content blocks are well formed", spec::TL26,
        "Content block types must be valid for the revision; base64 data must decode; image and audio need a mimeType; embedded resources need a uri and text or blob.",
        "Fix the content blocks the cited result returned.";
    UNKNOWN_TOOL = "execution.unknown_tool", Minor, "An unknown tool gets a JSON-RPC error", spec::TL26,
        "tools/call with a made-up name must get a JSON-RPC error (-32602 expected), not an isError result.",
        "Answer calls to unknown tools with a -32602 error.";
    INVALID_ARGUMENTS = "execution.invalid_arguments", Major, "Invalid arguments are refused", spec::TL26,
        "Arguments that violate the input schema must get a JSON-RPC error or an isError result, never a silent success.",
        "Validate arguments against the inputSchema before running the tool.";
    PROGRESS = "execution.progress", Minor, "Progress notifications are well behaved", spec::PROGRESS26,
        "With a progressToken, notifications echo it, progress strictly increases, and none arrives after the result.",
        "Echo the progressToken, increase progress on every notification and stop after the result.";
    CANCELLATION = "execution.cancellation", Minor, "Cancelled requests go quiet", spec::CANCEL26,
        "stdio: after notifications/cancelled for a request the server must send no further messages for it.",
        "Stop work on cancellation and send nothing more for that request.";
    RESOURCE_READ = "execution.resource_read", Major, "Resources can be read; missing ones are errors", spec::R26,
        "Listed resources are read and must return contents with uri and text or blob. A missing URI must give -32002 (handshake revisions) or -32602 (2026-07-28), never an empty success.",
        "Return contents for listed resources and an error for unknown URIs.";
    PROMPT_GET = "execution.prompt_get", Major, "Prompts can be fetched; unknown ones are errors", spec::PR26,
        "Each prompt is fetched with generated string arguments and must return messages; an unknown prompt must get -32602.",
        "Return messages for prompts/get and -32602 for unknown prompt names.";
    POLICY = "execution.policy", Minor, "What was not called, and why", "",
        "Information: every tool the safety policy kept scout from calling, with the reason and the flag that would allow it.",
        "Use --allow-mutations or --allow-destructive (dangerous) only against servers you can afford to change.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
