//! Protocol: JSON-RPC and Streamable HTTP conformance. Each probe sends one deliberate
//! request and judges the answer against the revision in use.

use crate::probe::registry::spec;

crate::checks! { phase: Protocol;
    JSONRPC_IDS = "protocol.jsonrpc_ids", Major, "Request ids are echoed with their type", spec::B25,
        "Requests are sent with string and with integer ids; each response must carry exactly the same id value and JSON type (\"7\" is not 7), and exactly one of result or error.",
        "Echo the request id verbatim; never convert between string and number.";
    PARSE_ERROR = "protocol.parse_error", Minor, "Malformed JSON gets -32700", spec::B26,
        "A truncated JSON body must be answered with a -32700 Parse error (id null or absent). Over stdio the server must also keep serving the next line.",
        "Catch JSON parse failures and answer -32700 instead of dropping the message or crashing.";
    INVALID_REQUEST = "protocol.invalid_request", Minor, "Structurally invalid requests get -32600", spec::B26,
        "Requests with jsonrpc \"1.0\", without a method, or with non-object params must be answered with -32600 Invalid Request.",
        "Validate the JSON-RPC envelope before dispatching and answer -32600 when it is wrong.";
    UNKNOWN_METHOD = "protocol.unknown_method", Major, "Unknown methods get -32601", spec::H26,
        "An unknown method must get -32601 Method not found; in 2026-07-28 over HTTP the status must be 404 with the JSON-RPC error in the body.",
        "Answer unknown methods with -32601 (and HTTP 404 in 2026-07-28).";
    NOTIFICATION = "protocol.notification", Major, "Notifications get no reply", spec::B26,
        "A notification (no id), even an unknown one, must not be answered; over HTTP the POST gets 202 Accepted with an empty body.",
        "Never respond to notifications; acknowledge notification POSTs with 202 and no body.";
    NULL_ID = "protocol.null_id", Minor, "A null request id is rejected", spec::B25,
        "MCP forbids null ids. A request with id null should be rejected with an error (-32600 expected) rather than served as a normal request.",
        "Reject requests whose id is null with -32600.";
    BATCH = "protocol.batch", Minor, "JSON-RPC batches are handled per revision", spec::B25A,
        "2025-03-26 requires servers to accept batches and answer with an array of responses. Later revisions removed batching: an array must be rejected as a whole, never half processed.",
        "Support batches only if you serve 2025-03-26 clients; otherwise reject arrays with an error.";
    ACCEPT_HEADER = "protocol.accept_header", Minor, "POST answers honour the Accept header", spec::T25C,
        "Clients send Accept: application/json, text/event-stream. The spec does not say how a server answers a bad Accept; scout reports what it saw (406 is common) and fails only a server that answers a correct Accept with another content type.",
        "Answer with application/json or text/event-stream, as the request's Accept allows.";
    CONTENT_TYPE = "protocol.content_type", Major, "Responses have a JSON or SSE content type", spec::T25C,
        "Every POST that carries a request must be answered with Content-Type application/json or text/event-stream; transport errors should be JSON-RPC errors, not plain text or HTML.",
        "Set Content-Type on every response and return transport errors as JSON-RPC error objects.";
    GET_STREAM = "protocol.get_stream", Major, "GET on the endpoint opens a stream or is refused with 405", spec::T25C,
        "Handshake era: GET with Accept: text/event-stream must return an SSE stream or 405. A 2026-07-28-only server should answer 405 (SHOULD, a warning otherwise).",
        "Serve the standalone SSE stream or answer 405 Method Not Allowed.";
    DELETE = "protocol.delete", Minor, "DELETE ends a session or is refused", spec::T25C,
        "Handshake era with sessions: DELETE with the session id ends the session (2xx) or is refused with 405; after a 2xx the id must give 404. 2026-07-28-only servers should answer 405.",
        "Support DELETE for session termination or answer 405.";
    BOGUS_SESSION = "protocol.bogus_session", Major, "Unknown sessions get 404", spec::T25C,
        "A request carrying a session id the server never issued (or already ended) must get 404 Not Found, so clients know to start a new session.",
        "Answer requests with an unknown or terminated Mcp-Session-Id with HTTP 404.";
    VERSION_HEADER = "protocol.version_header", Major, "A bad MCP-Protocol-Version header is rejected", spec::H26,
        "Since 2025-06-18 an invalid or unsupported MCP-Protocol-Version must get 400. In 2026-07-28 a header that disagrees with _meta must get 400 with -32020.",
        "Validate the MCP-Protocol-Version header and reject unknown values with 400.";
    ROUTING_HEADERS = "protocol.routing_headers", Major, "Mcp-Method and Mcp-Name are validated against the body", spec::H26,
        "2026-07-28 over HTTP: a missing or mismatched Mcp-Method or Mcp-Name must be rejected with 400 and -32020 HeaderMismatch. Header names are case-insensitive, values case-sensitive, surrounding whitespace tolerated. A bare 400 without -32020 is a warning.",
        "Compare the routing headers with the body on every request and answer mismatches with HTTP 400 and error -32020.";
    HEADER_ENCODING = "protocol.header_encoding", Major, "Base64-sentinel header values are decoded", spec::H26,
        "2026-07-28 over HTTP: Mcp-Name sent as =?base64?...?= must be decoded before it is compared with the body, and malformed Base64 inside the sentinel must be rejected with 400 / -32020.",
        "Decode =?base64?...?= values of Mcp-Name and Mcp-Param-* before comparing, and reject malformed ones.";
    PARAM_HEADERS = "protocol.param_headers", Major, "Mcp-Param-* headers are enforced", spec::H26,
        "2026-07-28 over HTTP, for tools whose input schema declares x-mcp-header: a call that omits the Mcp-Param-* header or sends a different value must get 400 with -32020. Not applicable when no tool declares one.",
        "Enforce Mcp-Param-* headers for every argument declared with x-mcp-header.";
    META_REQUIRED = "protocol.meta_required", Major, "Requests without the required _meta are rejected", spec::B26,
        "2026-07-28: a request missing io.modelcontextprotocol/protocolVersion or io.modelcontextprotocol/clientCapabilities in params._meta must get -32602 (HTTP 400); clientInfo is optional and its absence must be accepted.",
        "Reject requests that lack the required _meta keys with -32602 and accept requests without clientInfo.";
    RESULT_TYPE = "protocol.result_type", Major, "Every result carries resultType", spec::B26,
        "2026-07-28: every result must carry resultType (complete or input_required).",
        "Add resultType to every result (SDKs for 2026-07-28 do this).";
    CACHE_HINTS = "protocol.cache_hints", Minor, "Cacheable results carry ttlMs and cacheScope", spec::C26,
        "2026-07-28: discover, list and read results must carry ttlMs (integer >= 0) and cacheScope (public or private), with the same scope on every page of a list.",
        "Add ttlMs and cacheScope to discover, list and read results.";
    ERROR_CODES = "protocol.error_codes", Minor, "No retired or undefined error codes", spec::B26,
        "Across the whole run: a 2026-07-28 server must not emit -32002 or -32042, nor any code in -32020..-32099 other than -32020, -32021 and -32022.",
        "Use -32602 for missing resources in 2026-07-28 and only the defined codes of the reserved range.";
    SSE = "protocol.sse", Major, "Response streams carry only their own request's messages", spec::H26,
        "An SSE response stream may carry notifications about its own request, then the response, then it should end. In 2026-07-28 it must not carry JSON-RPC requests. Anomalies (events without data, events after the response, a stream that never ends) are reported.",
        "Send only related notifications and the final response on a response stream, then close it.";
    WIRE_SCHEMA = "protocol.wire_schema", Major, "Every message matches the schema of its revision", spec::B26,
        "Every message the server sent during the run is checked against the schema of the revision in use. One finding per distinct kind of violation, citing the exchanges.",
        "Make the cited messages match the schema of the negotiated revision.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
