//! Why each check may grade as it does: the basis of the worst verdict it can give and the
//! sentence that verdict rests on. A `must` quotes a MUST or MUST NOT (of the MCP revision or
//! an RFC it cites) and may fail; a `should` quotes a SHOULD and warns at most; a `heuristic`
//! states scout's own rule (text patterns, timings, sizes) and fails only what is unambiguous;
//! a `robustness` rule is what JSON-RPC or HTTP ask of any server (answering after garbage,
//! refusing what it cannot take); an `observation` reports and never judges.
//!
//! The table is keyed by check id; a test ties it to the registry both ways, and the finding
//! builder refuses a verdict beyond its check's basis.

use super::check::Basis::{self, Assertion, Heuristic, Must, Observation, Robustness, Should};

/// The ground of one check's grade.
#[derive(Debug, PartialEq, Eq)]
pub struct Ground {
    /// The check id this ground belongs to.
    pub id: &'static str,
    /// What kind of rule the worst verdict rests on.
    pub basis: Basis,
    /// Where the sentence is: an MCP revision and page, an RFC section, or `scout` for its own rule.
    pub source: &'static str,
    /// The sentence, quoted (scout's rule, stated, for heuristics and observations).
    pub quote: &'static str,
}

const fn g(id: &'static str, basis: Basis, source: &'static str, quote: &'static str) -> Ground {
    Ground {
        id,
        basis,
        source,
        quote,
    }
}

/// One entry per registered check.
pub static GROUNDS: &[Ground] = &[
    // discovery
    g(
        "discovery.reachable",
        Robustness,
        "MCP 2025-11-25 basic/transports",
        "The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods.",
    ),
    g(
        "discovery.tls",
        Must,
        "RFC 6750 §5.3",
        "Clients MUST always use TLS [RFC5246] (https) or equivalent transport security when making requests with bearer tokens.",
    ),
    g(
        "discovery.protected_resource",
        Must,
        "RFC 9728 §3.3",
        "If these values are not identical, the data contained in the response MUST NOT be used.",
    ),
    g(
        "discovery.authorization_server",
        Must,
        "MCP 2026-07-28 basic/authorization/authorization-server-discovery",
        "After retrieving a metadata document, MCP clients MUST validate it as required by RFC8414 Section 3.3 or OpenID Connect Discovery Section 4.3.",
    ),
    g(
        "discovery.pkce",
        Must,
        "MCP 2026-07-28 basic/authorization/security-considerations",
        "If code_challenge_methods_supported is absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed.",
    ),
    g(
        "discovery.registration",
        Observation,
        "scout",
        "Which registration paths the authorization server metadata offers is reported, not judged.",
    ),
    // auth
    g(
        "auth.challenge",
        Must,
        "RFC 9110 §15.5.2",
        "The server generating a 401 response MUST send a WWW-Authenticate header field (Section 11.6.1) containing at least one challenge applicable to the target resource.",
    ),
    g(
        "auth.garbage_token",
        Must,
        "MCP 2026-07-28 basic/authorization",
        "Invalid or expired tokens MUST receive a HTTP 401 response.",
    ),
    g(
        "auth.query_token",
        Should,
        "RFC 6750 §2.3",
        "Because of the security weaknesses associated with the URI method (see Section 5), including the high likelihood that the URL containing the access token will be logged, it SHOULD NOT be used unless it is impossible to transport the access token in the \"Authorization\" request header field or the HTTP request entity-body.",
    ),
    g(
        "auth.audience",
        Must,
        "MCP 2026-07-28 basic/authorization/security-considerations",
        "MCP servers MUST only accept tokens specifically intended for themselves and MUST reject tokens that do not include them in the audience claim or otherwise verify that they are the intended recipient of the token.",
    ),
    g(
        "auth.token_acquired",
        Robustness,
        "scout",
        "A token obtained with the configured credentials is accepted by the server; otherwise nothing behind the authorization can be assessed.",
    ),
    g(
        "auth.scope_challenge",
        Should,
        "MCP 2026-07-28 basic/authorization",
        "When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with: - HTTP 403 Forbidden status code (per RFC 6750 Section 3.1)",
    ),
    g(
        "auth.open",
        Should,
        "MCP 2025-11-25 basic/transports",
        "Servers SHOULD implement proper authentication for all connections.",
    ),
    // handshake
    g(
        "handshake.protocol_era",
        Must,
        "MCP 2026-07-28 basic/versioning",
        "Servers MUST implement server/discover.",
    ),
    g(
        "handshake.discover",
        Must,
        "MCP 2026-07-28 basic/versioning",
        "Servers MUST implement server/discover.",
    ),
    g(
        "handshake.initialize",
        Must,
        "MCP 2025-11-25 basic/lifecycle",
        "The server MUST respond with its own capabilities and information.",
    ),
    g(
        "handshake.version_negotiation",
        Must,
        "MCP 2025-11-25 basic/lifecycle",
        "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports.",
    ),
    g(
        "handshake.initialized",
        Must,
        "MCP 2025-11-25 basic/transports",
        "If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.",
    ),
    g(
        "handshake.session",
        Must,
        "MCP 2025-11-25 basic/transports",
        "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).",
    ),
    g(
        "handshake.stateless",
        Must,
        "MCP 2026-07-28 basic",
        "Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity).",
    ),
    g(
        "handshake.capabilities",
        Must,
        "MCP 2026-07-28 server/tools",
        "Servers that support tools MUST declare the tools capability.",
    ),
    g(
        "handshake.ping",
        Must,
        "MCP 2025-11-25 basic/utilities/ping",
        "The receiver MUST respond promptly with an empty response.",
    ),
    g(
        "handshake.server_info",
        Must,
        "MCP 2025-11-25 basic/lifecycle",
        "The server MUST respond with its own capabilities and information.",
    ),
    // protocol
    g(
        "protocol.capability_use",
        Must,
        "MCP 2025-11-25 basic/lifecycle",
        "Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated",
    ),
    g(
        "protocol.removed_methods",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).",
    ),
    g(
        "protocol.logging",
        Must,
        "MCP 2025-11-25 and 2026-07-28 server/utilities/logging",
        "Servers that emit log message notifications MUST declare the logging capability (2025-11-25); the server MUST NOT emit notifications/message for a request that does not include this field (2026-07-28, io.modelcontextprotocol/logLevel). Warned: \"The server should send all logs at this level and higher (i.e., more severe) to the client as notifications/message.\" (2025-11-25 schema, SetLevelRequestParams.level; 2026-07-28 sets the level per request in _meta).",
    ),
    g(
        "protocol.resource_subscribe",
        Heuristic,
        "scout, from the resources capability of MCP 2025-11-25 server/resources",
        "subscribe: whether the client can subscribe to be notified of changes to individual resources. A server that declares it yet refuses resources/subscribe or resources/unsubscribe contradicts its own declaration; no sentence of the spec makes this a MUST, so it is a warning. Of notifications/resources/updated the 2025-11-25 schema says \"This should only be sent if the client previously sent a resources/subscribe request\" and that its uri \"might be a sub-resource of the one that the client actually subscribed to\": an update for another resource is a warning.",
    ),
    g(
        "protocol.jsonrpc_ids",
        Must,
        "MCP 2025-11-25 basic",
        "Result responses MUST include the same ID as the request they correspond to.",
    ),
    g(
        "protocol.parse_error",
        Robustness,
        "JSON-RPC 2.0 §5.1",
        "Invalid JSON was received by the server. An error occurred on the server while parsing the JSON text.",
    ),
    g(
        "protocol.invalid_request",
        Robustness,
        "JSON-RPC 2.0 §5.1",
        "The JSON sent is not a valid Request object.",
    ),
    g(
        "protocol.unknown_method",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "If the server does not implement the requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601 (Method not found).",
    ),
    g(
        "protocol.notification",
        Must,
        "MCP 2026-07-28 basic",
        "The receiver MUST NOT send a response.",
    ),
    g(
        "protocol.null_id",
        Should,
        "MCP 2025-11-25 basic",
        "Unlike base JSON-RPC, the ID MUST NOT be null.",
    ),
    g(
        "protocol.batch",
        Must,
        "MCP 2025-03-26 basic",
        "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.",
    ),
    g(
        "protocol.accept_header",
        Must,
        "MCP 2025-11-25 basic/transports",
        "If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.",
    ),
    g(
        "protocol.content_type",
        Must,
        "MCP 2025-11-25 basic/transports",
        "If the input is a JSON-RPC request, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.",
    ),
    g(
        "protocol.get_stream",
        Must,
        "MCP 2025-11-25 basic/transports",
        "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.",
    ),
    g(
        "protocol.delete",
        Must,
        "MCP 2025-11-25 basic/transports",
        "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
    ),
    g(
        "protocol.bogus_session",
        Must,
        "MCP 2025-11-25 basic/transports",
        "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.",
    ),
    g(
        "protocol.version_header",
        Must,
        "MCP 2025-11-25 basic/transports",
        "If the server receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request.",
    ),
    g(
        "protocol.routing_headers",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 (HeaderMismatch) if any validation fails.",
    ),
    g(
        "protocol.header_encoding",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 (HeaderMismatch) if any validation fails.",
    ),
    g(
        "protocol.param_headers",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "Servers MUST reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020 (HeaderMismatch) if any validation fails.",
    ),
    g(
        "protocol.meta_required",
        Must,
        "MCP 2026-07-28 server/tools",
        "Every request MUST include the required _meta fields",
    ),
    g(
        "protocol.subscriptions",
        Must,
        "MCP 2026-07-28 basic/patterns/subscriptions",
        "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID in _meta under io.modelcontextprotocol/subscriptionId, and MUST NOT send any notification on the subscription before it. The server MUST NOT send notification types the client has not explicitly requested.",
    ),
    g(
        "protocol.input_required_shape",
        Must,
        "MCP 2026-07-28 basic/patterns/mrtr",
        "Servers MUST NOT send InputRequiredResult responses on any other client requests.",
    ),
    g(
        "protocol.result_type",
        Must,
        "MCP 2026-07-28 basic",
        "The result MUST include a resultType field to indicate the type of the result.",
    ),
    g(
        "protocol.cache_hints",
        Must,
        "MCP 2026-07-28 server/utilities/caching",
        "Servers MUST provide a ttlMs value that is >= 0.",
    ),
    g(
        "protocol.error_codes",
        Must,
        "MCP 2026-07-28 basic",
        "Implementations of this protocol version MUST NOT emit these codes",
    ),
    g(
        "protocol.sse",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "The server MUST NOT send independent JSON-RPC requests on this stream.",
    ),
    g(
        "protocol.revisions",
        Observation,
        "scout",
        "Which handshake revisions a server accepts is reported, not judged: a server that supports the version an initialize requests answers with the same version, so an echo is an acceptance.",
    ),
    g(
        "protocol.wire_schema",
        Must,
        "MCP 2026-07-28 basic",
        "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. … The full specification of the protocol is defined as a TypeScript schema. This is the source of truth for all protocol messages and structures.",
    ),
    // stdio
    g(
        "stdio.process",
        Robustness,
        "scout",
        "A stdio server that exits before it answers its first request cannot be checked: the process must start and stay up.",
    ),
    g(
        "stdio.environment",
        Observation,
        "scout",
        "What the child process was handed is stated, not judged.",
    ),
    g(
        "stdio.stdout_clean",
        Must,
        "MCP 2026-07-28 basic/transports/stdio",
        "The server MUST NOT write anything to its stdout that is not a valid MCP message.",
    ),
    g(
        "stdio.stderr",
        Observation,
        "MCP 2025-11-25 basic/transports",
        "The client MAY capture, forward, or ignore the server's stderr output and SHOULD NOT assume stderr output indicates error conditions.",
    ),
    g(
        "stdio.alive",
        Robustness,
        "scout",
        "A server that dies under a client's ordinary and malformed messages cannot serve an agent: the process must survive the run.",
    ),
    g(
        "stdio.ordering",
        Observation,
        "scout",
        "How scout knew that a message got no answer (an answered ping behind it, or a bounded quiet window) is stated, not judged.",
    ),
    g(
        "stdio.shutdown",
        Robustness,
        "MCP 2025-11-25 basic/lifecycle",
        "For the stdio transport, the client SHOULD initiate shutdown by: 1. First, closing the input stream to the child process (the server) 2. Waiting for the server to exit, or sending SIGTERM if the server does not exit within a reasonable time",
    ),
    // catalog
    g(
        "catalog.tools_list",
        Must,
        "MCP 2026-07-28 server/tools",
        "Servers that declare the tools capability MUST respond to tools/list requests with the set of tools currently available to the requesting client.",
    ),
    g(
        "catalog.pagination",
        Robustness,
        "MCP 2026-07-28 server/utilities/pagination",
        "Invalid cursors SHOULD result in an error with code -32602 (Invalid params).",
    ),
    g(
        "catalog.tool_schema",
        Must,
        "MCP 2026-07-28 basic",
        "Schemas MUST be valid according to their declared or default dialect",
    ),
    g(
        "catalog.output_schema",
        Must,
        "MCP 2026-07-28 basic",
        "Schemas MUST be valid according to their declared or default dialect",
    ),
    g(
        "catalog.tool_names",
        Should,
        "MCP 2026-07-28 server/tools",
        "Tool names SHOULD be unique within a server.",
    ),
    g(
        "catalog.annotations",
        Heuristic,
        "scout, on MCP 2026-07-28 schema",
        "Annotation hints are booleans (readOnlyHint?: boolean); a tool without annotations is destructive and open-world by the schema's defaults, so agents will not call it freely: a warning.",
    ),
    g(
        "catalog.x_mcp_header",
        Must,
        "MCP 2026-07-28 basic/transports/streamable-http",
        "Clients using the Streamable HTTP transport MUST reject tool definitions where any x-mcp-header value violates these constraints.",
    ),
    g(
        "catalog.descriptions",
        Heuristic,
        "scout",
        "An agent picks tools and fills arguments from their descriptions: a tool or argument without one warns.",
    ),
    g(
        "catalog.resources",
        Must,
        "MCP 2026-07-28 server/resources",
        "Servers that declare the resources capability MUST respond to resources/list",
    ),
    g(
        "catalog.prompts",
        Must,
        "MCP 2026-07-28 server/prompts",
        "Servers that declare the prompts capability MUST respond to prompts/list requests",
    ),
    g(
        "catalog.completions",
        Must,
        "MCP 2025-11-25 schema",
        "An array of completion values. Must not exceed 100 items.",
    ),
    g(
        "catalog.context_size",
        Heuristic,
        "scout",
        "A catalogue over the configured token threshold crowds an agent's context: a warning.",
    ),
    // execution
    g(
        "execution.resource_templates",
        Must,
        "MCP 2026-07-28 server/resources",
        "Servers MUST NOT return an empty contents array for a non-existent resource.",
    ),
    g(
        "execution.tasks",
        Must,
        "MCP 2025-11-25 basic/utilities/tasks",
        "The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.",
    ),
    g(
        "execution.input_required",
        Should,
        "MCP 2026-07-28 basic/patterns/mrtr",
        "If the client fails to send all the information requested in a previous InputRequests, and the missing information is necessary for the server to process the request, the server SHOULD respond with a new InputRequiredResult requesting the missing information again, rather than returning an error. Reported, not warned: \"Servers MAY choose to return an InputRequiredResult on multiple attempts at the same request\". Warned, since a client cannot see whether tampering \"can cause nothing worse than request failure\": a request completed on a requestState that fails an integrity check (the page requires servers to protect it otherwise).",
    ),
    g(
        "execution.elicitation",
        Must,
        "MCP 2025-11-25 client/elicitation",
        "Servers MUST NOT send elicitation requests with modes that are not supported by the client. Warned: \"Servers should handle each state appropriately: … Decline: Handle explicit decline (e.g., offer alternatives)\" — a tool call that ends in a JSON-RPC error after scout answered has not handled the answer.",
    ),
    g(
        "execution.sampling",
        Must,
        "MCP 2025-11-25 client/sampling",
        "Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the `sampling.tools` capability. A tool call that ends in a JSON-RPC error after scout answered is warned by scout's rule (no sentence makes it a MUST).",
    ),
    g(
        "execution.roots",
        Must,
        "MCP 2025-11-25 basic/lifecycle",
        "Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated. A tool call that ends in a JSON-RPC error after scout answered is warned by scout's rule (no sentence makes it a MUST).",
    ),
    g(
        "execution.tool_call",
        Must,
        "MCP 2026-07-28 basic",
        "Result responses MUST include a result field.",
    ),
    g(
        "execution.structured_output",
        Must,
        "MCP 2026-07-28 server/tools",
        "Servers MUST provide structured results that conform to this schema.",
    ),
    g(
        "execution.content_blocks",
        Must,
        "MCP 2026-07-28 server/prompts",
        "The image data MUST be base64-encoded and include a valid MIME type.",
    ),
    g(
        "execution.unknown_tool",
        Robustness,
        "MCP 2026-07-28 server/tools",
        "Protocol Errors indicate issues with the request structure itself that models are less likely to be able to fix",
    ),
    g(
        "execution.invalid_arguments",
        Robustness,
        "MCP 2026-07-28 server/tools",
        "Tool Execution Errors contain actionable feedback that language models can use to self-correct and retry with adjusted parameters",
    ),
    g(
        "execution.error_reporting",
        Should,
        "MCP 2025-11-25 schema, CallToolResult.isError",
        "Any errors that originate from the tool SHOULD be reported inside the result object, with `isError` set to true, _not_ as an MCP protocol-level error response. Otherwise, the LLM would not be able to see that an error occurred and self-correct.",
    ),
    g(
        "execution.progress",
        Must,
        "MCP 2026-07-28 basic/patterns/progress",
        "The progress value MUST increase with each notification, even if the total is unknown.",
    ),
    g(
        "execution.cancellation",
        Must,
        "MCP 2026-07-28 basic/transports/stdio",
        "Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.",
    ),
    g(
        "execution.resource_read",
        Must,
        "MCP 2026-07-28 server/resources",
        "Servers MUST NOT return an empty contents array for a non-existent resource.",
    ),
    g(
        "execution.prompt_get",
        Robustness,
        "MCP 2026-07-28 server/prompts",
        "Servers SHOULD return standard JSON-RPC errors for common failure cases: - Invalid prompt name: -32602 (Invalid params)",
    ),
    g(
        "execution.policy",
        Observation,
        "scout",
        "Which tools the safety policy kept scout from calling, and why, is reported, not judged.",
    ),
    g(
        "execution.coverage",
        Observation,
        "scout",
        "Which listed tools, prompts and resources the run sent a call, get or read to, and why the others got none, is reported, not judged.",
    ),
    // expectations
    g(
        "expect.expectation",
        Assertion,
        "the server's own config ([[servers.expect]])",
        "An expectation is the server author's own assertion about their server: it holds when every trial's result is what the author wrote, and fails otherwise.",
    ),
    g(
        "expect.snapshot",
        Assertion,
        "the server's own snapshots (--snapshots DIR)",
        "A snapshot is the server author's record of what the server offered and answered in an accepted run: it holds when this run gives the same, once volatile values are masked, and fails otherwise.",
    ),
    // performance
    g(
        "performance.latency",
        Heuristic,
        "scout",
        "p95 within 1 s for list, discover and ping, and 2 s for read, get and complete, over requests that were not queued behind scout's own work.",
    ),
    g(
        "performance.cold_start",
        Heuristic,
        "scout",
        "The first answer within 5 s of the start (scout's default request timeout is 10 s).",
    ),
    g(
        "performance.payload_size",
        Heuristic,
        "scout",
        "A result the model reads within 256 KiB (about 64k tokens).",
    ),
    g(
        "performance.throughput",
        Heuristic,
        "scout",
        "Concurrent read-only requests are served faster than one at a time; a server that serialises them warns.",
    ),
    // resilience
    g(
        "resilience.malformed_survival",
        Robustness,
        "JSON-RPC 2.0 §5.1",
        "Invalid JSON was received by the server. An error occurred on the server while parsing the JSON text.",
    ),
    g(
        "resilience.timeout_recovery",
        Robustness,
        "MCP 2025-11-25 basic/transports",
        "Disconnection SHOULD NOT be interpreted as the client cancelling its request.",
    ),
    g(
        "resilience.oversized_request",
        Robustness,
        "RFC 9110 §15.5.14",
        "The 413 (Content Too Large) status code indicates that the server is refusing to process a request because the request content is larger than the server is willing or able to process.",
    ),
    g(
        "resilience.stateless",
        Must,
        "MCP 2026-07-28 server/tools",
        "but MUST NOT vary per-connection or as a side effect of other requests on the connection.",
    ),
    g(
        "resilience.session_recovery",
        Must,
        "MCP 2025-11-25 basic/transports",
        "When a client receives HTTP 404 in response to a request containing an MCP-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.",
    ),
    g(
        "resilience.concurrent_sessions",
        Must,
        "MCP 2025-11-25 basic/transports",
        "The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.",
    ),
    g(
        "resilience.output_volume",
        Heuristic,
        "scout",
        "Output beyond what scout keeps (20,000 exchanges and 64 MiB per server) is counted, not judged: a warning.",
    ),
    g(
        "resilience.stays_up",
        Robustness,
        "JSON-RPC 2.0 §5",
        "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.",
    ),
    // security
    g(
        "security.origin",
        Must,
        "MCP 2025-11-25 basic/transports",
        "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks",
    ),
    g(
        "security.session_entropy",
        Must,
        "MCP 2025-11-25 tutorials/security/security_best_practices",
        "MCP servers MUST use secure, non-deterministic session IDs.",
    ),
    g(
        "security.unauthenticated_destructive",
        Heuristic,
        "scout, on MCP 2025-11-25 basic/transports",
        "\"Servers SHOULD implement proper authentication for all connections.\" scout fails only the unambiguous case: a remote server that serves state-changing tools to a client without credentials.",
    ),
    g(
        "security.transport",
        Must,
        "RFC 6750 §5.3",
        "Clients MUST always use TLS [RFC5246] (https) or equivalent transport security when making requests with bearer tokens.",
    ),
    g(
        "security.hidden_characters",
        Heuristic,
        "scout",
        "Characters that hide text from the person approving a tool while the model reads it (bidi overrides and isolates, tag characters, zero-width spaces out of place, control characters, ANSI escapes) are flagged; the joiners and marks that write a language are not.",
    ),
    g(
        "security.tool_poisoning",
        Heuristic,
        "scout",
        "Text the model reads that hides instructions from the user, conceals from them, or exfiltrates credentials fails; a pattern that only may be one warns, with the matched words quoted.",
    ),
    g(
        "security.secrets_in_output",
        Heuristic,
        "scout",
        "A value the server sent that matches an unambiguous credential pattern (a private key, a cloud access key, a provider token) fails; scout's own secrets are excluded by value.",
    ),
    g(
        "security.error_leakage",
        Heuristic,
        "scout",
        "Stack traces and absolute internal paths in errors tell an attacker how the server is built: a warning, a failure only for an unambiguous trace.",
    ),
    g(
        "security.catalog_pinning",
        Heuristic,
        "scout",
        "What the server lists now differs from what scout.lock pinned: each difference is reported, a tool that became destructive is critical.",
    ),
    g(
        "catalog.icons",
        Should,
        "MCP 2025-11-25 basic",
        "Ensure that the icon URI is either a HTTPS or `data:` URI. Clients MUST reject icon URIs that use unsafe schemes and redirects, such as `javascript:`, `file:`, `ftp:`, `ws:`, or local app URI schemes.",
    ),
    g(
        "catalog.identity",
        Observation,
        "MCP 2025-11-25 schema, Implementation and BaseMetadata",
        "Intended for UI and end-user contexts — optimized to be human-readable and easily understood, even by those unfamiliar with domain-specific terminology. If not provided, the name should be used for display (except for Tool, where annotations.title should be given precedence over using name, if present).",
    ),
    g(
        "catalog.deprecated",
        Should,
        "MCP 2026-07-28 deprecated features",
        "A Deprecated feature remains part of the specification but is scheduled for removal: new implementations SHOULD NOT adopt it, and existing implementations SHOULD migrate before the feature's earliest removal.",
    ),
    // compat: a host's documented rule, not MCP's; these checks warn and never fail.
    g(
        "compat.anthropic",
        Heuristic,
        "Claude API docs, Define tools (platform.claude.com/docs/agents-and-tools/tool-use/define-tools)",
        "name | The name of the tool. Must match the regex ^[a-zA-Z0-9_-]{1,128}$.",
    ),
    g(
        "compat.openai",
        Heuristic,
        "OpenAI API reference, Create chat completion: tools and tools[].function.name (platform.openai.com/docs/api-reference/chat/create)",
        "The name of the function to be called. Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64. … A list of tools the model may call. … A max of 128 functions are supported.",
    ),
    g(
        "compat.openai_strict",
        Heuristic,
        "OpenAI API docs, Structured Outputs: supported schemas (platform.openai.com/docs/guides/structured-outputs), for a function with strict: true",
        "The name of the function to be called. Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64. … To use Structured Outputs, all fields or function parameters must be specified as required. … additionalProperties: false must always be set in objects",
    ),
    g(
        "compat.gemini",
        Heuristic,
        "Google Gen AI SDK reference, Schema (googleapis.github.io/java-genai/javadoc/com/google/genai/types/Schema.html)",
        "Schema is used to define the format of input/output data. Represents a select subset of an OpenAPI 3.0 schema object. More fields may be added in the future as needed.",
    ),
    g(
        "compat.first_page",
        Heuristic,
        "scout, on MCP 2025-11-25 server/utilities/pagination",
        "A host that reads only the first page of tools/list never sees the tools on later pages: each of them is named in a warning.",
    ),
    // manifest: what the author published about the server; a drift holds or fails as written.
    g(
        "manifest.schema",
        Must,
        "/definitions/Server/properties/name of static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json, the MCP Registry's server.json schema",
        "Server name in reverse-DNS format. Must contain exactly one forward slash separating namespace from server name.",
    ),
    g(
        "manifest.version",
        Assertion,
        "/definitions/Server/properties/version of static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json, the MCP Registry's server.json schema",
        "Version string for this server. SHOULD follow semantic versioning (e.g., '1.0.2', '2.1.0-alpha'). Equivalent of Implementation.version in MCP specification. (An MCPB manifest's version is only the \"Semantic version of your extension\": reported, not judged.)",
    ),
    g(
        "manifest.transport",
        Assertion,
        "/definitions/Package/properties/transport of static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json, the MCP Registry's server.json schema",
        "Transport protocol configuration for the package",
    ),
    g(
        "manifest.env",
        Heuristic,
        "/definitions/Package/properties/environmentVariables of static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json, the MCP Registry's server.json schema",
        "A mapping of environment variables to be set when running the package.",
    ),
    g(
        "manifest.tools",
        Assertion,
        "MANIFEST.md of github.com/modelcontextprotocol/mcpb, the MCPB manifest spec: Field Definitions; Tools and Prompts",
        "tools: Array of tools the extension provides. … tools_generated: Server generates additional tools beyond those listed (default: false)",
    ),
    g(
        "manifest.prompts",
        Assertion,
        "MANIFEST.md of github.com/modelcontextprotocol/mcpb, the MCPB manifest spec: Field Definitions; Tools and Prompts",
        "prompts: Array of prompts the extension provides. … Implementing apps may choose to validate prompts at run-time against the declaration of your prompts in the manifest.",
    ),
    g(
        "manifest.user_config",
        Observation,
        "MANIFEST.md of github.com/modelcontextprotocol/mcpb, the MCPB manifest spec: User Configuration",
        "required: Whether this field must be provided (default: false) … default: Default value (supports variable substitution)",
    ),
    g(
        "manifest.compatibility",
        Observation,
        "MANIFEST.md of github.com/modelcontextprotocol/mcpb, the MCPB manifest spec: Compatibility",
        "The compatibility object specifies all requirements for running the extension. All fields, including the compatibility field itself, are optional. If you specify nothing, clients implementing MCPB are encouraged to run the extension on any system.",
    ),
];

/// The ground of `id`, if the table has one.
pub fn of(id: &str) -> Option<&'static Ground> {
    GROUNDS.iter().find(|g| g.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_must_or_should_quotes_its_keyword() {
        for g in GROUNDS {
            let kw = match g.basis {
                Must => "MUST",
                Should => "SHOULD",
                _ => continue,
            };
            // A MUST check may rest on "MUST NOT"; a SHOULD on "SHOULD NOT". A SHOULD check
            // may quote a MUST that binds the client (the server's side is then a SHOULD).
            // A schema's own words are its types and descriptions, not RFC 2119 keywords.
            let schema = g.source.ends_with("schema");
            assert!(
                schema || g.quote.contains(kw) || (g.basis == Should && g.quote.contains("MUST")),
                "{}: a {} basis quotes no {kw}: {}",
                g.id,
                g.basis.as_str(),
                g.quote
            );
        }
    }
}
