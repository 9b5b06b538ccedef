//! The official conformance suite (`@modelcontextprotocol/conformance`) in scout's terms:
//! which of its server scenarios (and, where a scenario has several, which of its check ids)
//! each scout check covers. Read from the suite's published bundle at [`SUITE_VERSION`]
//! (`conformance list --server`, `requirements/*.yaml`, each scenario's check ids); an
//! integration test reads the installed bundle and fails when a name here is not in it.
//!
//! An alias is written as the suite writes an `expected-failures.yml` entry: `scenario` (the
//! scout check covers the whole scenario) or `scenario:check-id` (one check of it), so a
//! value shown in a JUnit property or a SARIF tag can be pasted into the suite's baseline.

/// The npm package the aliases name.
pub const SUITE: &str = "@modelcontextprotocol/conformance";

/// The suite version the scenario and check ids were read from.
pub const SUITE_VERSION: &str = "0.2.0-alpha.12";

/// Every server scenario of [`SUITE_VERSION`], in the order `conformance list --server` prints
/// them.
pub static SERVER_SCENARIOS: &[&str] = &[
    "server-initialize",
    "server-session-lifecycle",
    "server-stateless",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "sep-2164-resource-not-found",
    "sep-2640-skills-directory",
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
];

/// The server scenarios the frozen requirement set of 2025-11-25 scores
/// (`requirements/2025-11-25.yaml`, `server:`).
pub static REQUIRED_2025_11_25: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
];

/// The server scenarios the frozen requirement set of 2026-07-28 scores
/// (`requirements/2026-07-28.yaml`, `server:`).
pub static REQUIRED_2026_07_28: &[&str] = &[
    "server-stateless",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "server-sse-multiple-streams",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "sep-2164-resource-not-found",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
    "caching",
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
];

/// Check ids the suite adds to every scenario (its wire-schema validation of each message),
/// with the scout check that judges the same property.
pub static EVERY_SCENARIO: &[(&str, &str)] = &[("wire-schema-valid", "protocol.wire_schema")];

/// The scout checks that judge parts of the suite's `wire-schema-valid` that
/// `protocol.wire_schema` leaves to them, so that one defect gets one finding: at 2026-07-28 the
/// schema requires `resultType` (`protocol.result_type`) and `ttlMs`/`cacheScope`
/// (`protocol.cache_hints`) on results, and the suite fails the scenario whose message lacks
/// them.
pub static SCHEMA_PARTS: &[&str] = &["protocol.result_type", "protocol.cache_hints"];

/// The methods the suite sends in a scenario that scout judges without fixtures, so that a
/// whole-run schema verdict (`wire-schema-valid` and its [`SCHEMA_PARTS`]) counts against
/// the scenarios whose messages it cites, and no other.
pub static SCENARIO_METHODS: &[(&str, &[&str])] = &[
    ("server-initialize", &["initialize"]),
    ("ping", &["ping"]),
    ("tools-list", &["tools/list"]),
    ("resources-list", &["resources/list"]),
    ("prompts-list", &["prompts/list"]),
];

/// The methods the suite sends in scenario `id` ([`SCENARIO_METHODS`]; empty when not listed).
pub fn methods_of(id: &str) -> &'static [&'static str] {
    SCENARIO_METHODS
        .iter()
        .find(|(s, _)| *s == id)
        .map_or(&[], |(_, m)| m)
}

/// scout check id → the official scenarios (`scenario`) or scenario checks
/// (`scenario:check-id`) it covers. A check absent here covers none.
pub static ALIASES: &[(&str, &[&str])] = &[
    (
        "handshake.initialize",
        &["server-initialize:server-initialize"],
    ),
    (
        "handshake.initialized",
        &["server-session-lifecycle:server-session-initialized-accepted"],
    ),
    (
        "handshake.session",
        &["server-initialize:server-session-id-visible-ascii"],
    ),
    (
        "handshake.version_negotiation",
        &["server-stateless:sep-2575-server-unsupported-version-error"],
    ),
    (
        "handshake.discover",
        &["server-stateless:sep-2575-server-implements-discover"],
    ),
    (
        "handshake.capabilities",
        &[
            "server-stateless:sep-2575-discover-capabilities-match-handlers",
            "server-stateless:sep-2575-server-declares-prompts-in-discover",
        ],
    ),
    (
        "handshake.server_info",
        &["server-stateless:sep-2575-server-identifies-in-result-meta"],
    ),
    ("handshake.ping", &["ping:ping"]),
    (
        "protocol.removed_methods",
        &[
            "server-stateless:sep-2575-http-server-method-not-found-404-logging-setlevel",
            "server-stateless:sep-2575-http-server-method-not-found-404-resources-subscribe",
            "server-stateless:sep-2575-http-server-method-not-found-404-resources-unsubscribe",
        ],
    ),
    (
        "protocol.logging",
        &[
            "logging-set-level",
            "server-stateless:sep-2575-server-no-log-without-loglevel",
        ],
    ),
    (
        "protocol.resource_subscribe",
        &["resources-subscribe", "resources-unsubscribe"],
    ),
    (
        "execution.resource_templates",
        &["resources-templates-read"],
    ),
    (
        "execution.tasks",
        &[
            "tasks-lifecycle",
            "tasks-capability-negotiation",
            "tasks-wire-fields",
        ],
    ),
    (
        "protocol.jsonrpc_ids",
        &["server-stateless:sep-2575-http-server-error-jsonrpc-id"],
    ),
    (
        "protocol.unknown_method",
        &["server-stateless:sep-2575-http-server-method-not-found-404"],
    ),
    (
        "protocol.delete",
        &[
            "server-session-lifecycle:server-session-delete-accepted",
            "server-session-lifecycle:server-session-terminated-returns-404",
        ],
    ),
    (
        "protocol.bogus_session",
        &["server-session-lifecycle:server-session-terminated-returns-404"],
    ),
    (
        "protocol.version_header",
        &[
            "server-stateless:sep-2575-http-server-unsupported-version-400",
            "server-stateless:sep-2575-http-server-header-mismatch-400",
        ],
    ),
    (
        "protocol.meta_required",
        &[
            "server-stateless:sep-2575-http-server-meta-invalid-400",
            "server-stateless:sep-2575-request-meta-client-info-optional",
        ],
    ),
    (
        "protocol.sse",
        &["server-stateless:sep-2575-http-server-no-independent-requests-on-stream"],
    ),
    (
        "protocol.subscriptions",
        &[
            "server-stateless:sep-2575-server-sends-subscription-ack",
            "server-stateless:sep-2575-server-tags-subscription-id",
        ],
    ),
    (
        "protocol.capability_use",
        &[
            "server-stateless:sep-2575-server-rejects-undeclared-capability",
            "server-stateless:sep-2575-missing-capability-http-400",
        ],
    ),
    (
        "protocol.routing_headers",
        &[
            "http-header-validation:sep-2243-server-reject-invalid-headers",
            "http-header-validation:sep-2243-header-name-case-insensitive",
            "http-header-validation:sep-2243-server-accepts-whitespace-header-value",
        ],
    ),
    (
        "protocol.header_encoding",
        &["http-custom-header-server-validation:sep-2243-server-decode-base64"],
    ),
    (
        "protocol.param_headers",
        &[
            "http-custom-header-server-validation:sep-2243-server-validate-param-match",
            "http-custom-header-server-validation:sep-2243-server-reject-param-mismatch",
        ],
    ),
    ("protocol.cache_hints", &["caching"]),
    ("catalog.tools_list", &["tools-list:tools-list"]),
    ("catalog.tool_names", &["tools-list:tools-name-format"]),
    ("catalog.resources", &["resources-list:resources-list"]),
    ("catalog.prompts", &["prompts-list:prompts-list"]),
    (
        "catalog.completions",
        &["completion-complete:completion-complete"],
    ),
    (
        "execution.tool_call",
        &["tools-call-simple-text:tools-call-simple-text"],
    ),
    (
        "execution.content_blocks",
        &[
            "tools-call-image:tools-call-image",
            "tools-call-audio:tools-call-audio",
            "tools-call-embedded-resource:tools-call-embedded-resource",
            "tools-call-mixed-content:tools-call-mixed-content",
        ],
    ),
    (
        "execution.progress",
        &["tools-call-with-progress:tools-call-with-progress"],
    ),
    (
        "execution.resource_read",
        &[
            "resources-read-text:resources-read-text",
            "resources-read-binary:resources-read-binary",
            "sep-2164-resource-not-found:sep-2164-error-code",
            "sep-2164-resource-not-found:sep-2164-no-empty-contents",
        ],
    ),
    (
        "execution.prompt_get",
        &[
            "prompts-get-simple:prompts-get-simple",
            "prompts-get-with-args:prompts-get-with-args",
            "prompts-get-embedded-resource:prompts-get-embedded-resource",
            "prompts-get-with-image:prompts-get-with-image",
        ],
    ),
    (
        "security.origin",
        &["dns-rebinding-protection:localhost-host-rebinding-rejected"],
    ),
];

/// How far scout's checks reach into an official scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The mapped checks judge what the scenario judges, on any server.
    Covered,
    /// The mapped checks judge part of it; the note says what is left.
    Partly,
    /// The scenario calls the official everything-server's fixture tools, prompts or
    /// resources by name; scout judges whatever the server lists with its own checks.
    NeedsFixture,
    /// No scout check judges it; the note says why.
    NotCovered,
}

impl Coverage {
    /// As `docs/conformance.md` and the parity view write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::Covered => "covered",
            Coverage::Partly => "partly covered",
            Coverage::NeedsFixture => "needs fixture tools",
            Coverage::NotCovered => "not covered",
        }
    }
}

/// One official server scenario as scout sees it.
#[derive(Debug)]
pub struct Scenario {
    pub id: &'static str,
    pub coverage: Coverage,
    /// What scout judges of it and what not, and why.
    pub note: &'static str,
}

macro_rules! scenarios {
    ($( $id:literal, $cov:ident, $note:literal; )*) => {
        /// Every server scenario of [`SUITE_VERSION`] with scout's coverage, in
        /// [`SERVER_SCENARIOS`] order (a test holds both lists equal).
        pub static SCENARIOS: &[Scenario] = &[
            $( Scenario { id: $id, coverage: Coverage::$cov, note: $note }, )*
        ];
    };
}

scenarios! {
    "server-initialize", Covered, "initialize answers a well-formed InitializeResult; a minted session id is visible ASCII.";
    "server-session-lifecycle", Covered, "The initialized notification is accepted on the session; DELETE ends the session (then 404) or is refused with 405, which both the suite and scout accept.";
    "server-stateless", Partly, "scout judges per-request _meta (400/-32602, clientInfo optional), server/discover, the capabilities it declares against the methods that work, serverInfo in _meta, -32022 and the version header (400/-32020), 404/-32601 for unknown methods, error ids and stream contents, 404/-32601 for the removed methods logging/setLevel, resources/subscribe and resources/unsubscribe (a result is a warning), no log message for a request without a logLevel, the acknowledgement of subscriptions/listen over Streamable HTTP (first, with the listen request's id as subscriptionId, a filter within the request), and the form of -32021 refusals of scout's calls (data.requiredCapabilities, HTTP 400). Not judged: list-changed notifications on a subscription, the notification filter, subscriptions/listen over stdio, and -32021 for the fixture tool test_missing_capability.";
    "logging-set-level", Partly, "With the logging capability declared, logging/setLevel to info must be accepted (an unknown level should get -32602); a server that sends log messages without declaring logging fails. Not judged: that later messages respect the level, and logging/setLevel on a server that does not declare logging (the suite sends it anyway).";
    "ping", Covered, "ping answers an empty result (2026-07-28: -32601, ping is removed).";
    "completion-complete", NeedsFixture, "The suite asks completion/complete for argument arg1 of the fixture prompt test_prompt_with_arguments, so a server without that prompt fails it; catalog.completions asks for an argument of a prompt the server lists and judges the answer.";
    "tools-list", Partly, "tools/list answers a well-formed list and the tool names follow the naming rules; at 2026-07-28 its result carries the resultType and cache hints the schema requires (wire-schema-valid). Not judged: tools-list-deterministic-order (2026-07-28), the same order on three consecutive lists.";
    "tools-call-simple-text", NeedsFixture, "The suite calls test_simple_text and expects its exact text; scout calls every tool the policy allows (test_simple_text among them when listed) and judges each CallToolResult.";
    "tools-call-image", NeedsFixture, "The suite calls test_image_content; scout judges every image block it receives (base64 data, a mimeType).";
    "tools-call-audio", NeedsFixture, "The suite calls test_audio_content; scout judges every audio block it receives (base64 data, a mimeType).";
    "tools-call-embedded-resource", NeedsFixture, "The suite calls test_embedded_resource; scout judges every embedded resource it receives (a uri, text or blob).";
    "tools-call-mixed-content", NeedsFixture, "The suite calls test_multiple_content_types; scout judges each content block of every result.";
    "tools-call-with-logging", NotCovered, "The suite calls test_tool_with_logging and expects notifications/message during the call; scout does not judge log notifications.";
    "tools-call-error", NeedsFixture, "The suite calls test_error_handling and expects isError: true; scout reports a tool's isError as the tool's own answer, which is no verdict on the server.";
    "tools-call-with-progress", NeedsFixture, "The suite calls test_tool_with_progress; scout sends a progressToken and judges the progress notifications of the calls it makes.";
    "tools-call-sampling", NotCovered, "The suite calls the fixture tool test_sampling, which asks the client for sampling/createMessage; scout's full persona answers what any listed tool asks (execution.sampling), but not this tool's exact expectations.";
    "tools-call-elicitation", NotCovered, "The suite calls the fixture tool test_elicitation, which asks the client for elicitation/create; scout's full persona answers what any listed tool asks (execution.elicitation), but not this tool's exact expectations.";
    "json-schema-2020-12", NotCovered, "The suite reads the fixture tool json_schema_2020_12_tool and checks that 2020-12 keywords survive; scout judges that input schemas are valid JSON Schema (catalog.tool_schema), not that given keywords are kept.";
    "elicitation-sep1034-defaults", NotCovered, "The suite calls a fixture tool that elicits with defaults (or enum forms); scout's full persona answers what any listed tool asks (execution.elicitation), but not this tool's exact expectations.";
    "server-sse-polling", NeedsFixture, "The suite calls test_reconnection, which closes its stream mid-call; scout resumes any stream a server closes before the response (protocol.sse) but cannot make a server close one.";
    "server-sse-multiple-streams", NotCovered, "scout sends concurrent requests (performance.throughput) but does not judge that each POST gets its own SSE stream.";
    "elicitation-sep1330-enums", NotCovered, "The suite calls a fixture tool that elicits with defaults (or enum forms); scout's full persona answers what any listed tool asks (execution.elicitation), but not this tool's exact expectations.";
    "resources-list", Covered, "resources/list (and templates) answer well-formed lists; at 2026-07-28 with the resultType and cache hints the schema requires (wire-schema-valid).";
    "resources-read-text", NeedsFixture, "The suite reads test://static-text and expects its text; scout reads every listed resource and judges the contents.";
    "resources-read-binary", NeedsFixture, "The suite reads test://static-binary and expects its blob; scout reads every listed resource and judges the contents.";
    "resources-templates-read", NeedsFixture, "The suite reads the fixture template test://template/{id}/data with id 123 and expects its text; scout expands every template the server lists with inert values and reads it (execution.resource_templates), where contents or a not-found error are both answers.";
    "resources-subscribe", Partly, "When the server declares resources.subscribe, scout subscribes to the first resource it listed (the suite to the fixture URI test://watched-resource) and needs a result. Not judged: a server that accepts subscriptions without declaring the capability (scout does not subscribe then), and the updated notifications.";
    "resources-unsubscribe", Partly, "After subscribing, scout unsubscribes from the same resource and needs a result (only when resources.subscribe is declared).";
    "sep-2164-resource-not-found", Partly, "Reading a URI the server never listed must be an error (-32602 in 2026-07-28), never empty contents. Not judged: sep-2164-data-uri, the URI in the error's data.";
    "sep-2640-skills-directory", NotCovered, "The skills extension: no scout check, and no frozen set scores it.";
    "sep-2640-skills-enumeration", NotCovered, "The skills extension: no scout check, and no frozen set scores it.";
    "sep-2640-skills-manifest", NotCovered, "The skills extension: no scout check, and no frozen set scores it.";
    "prompts-list", Covered, "prompts/list answers a well-formed list; at 2026-07-28 with the resultType and cache hints the schema requires (wire-schema-valid).";
    "prompts-get-simple", NeedsFixture, "The suite fetches test_simple_prompt; scout fetches every listed prompt (and a made-up name, which must be an error) and judges the result.";
    "prompts-get-with-args", NeedsFixture, "The suite fetches test_prompt_with_arguments with given values; scout fetches every listed prompt with generated arguments.";
    "prompts-get-embedded-resource", NeedsFixture, "The suite fetches test_prompt_with_embedded_resource; scout fetches every listed prompt and judges its messages.";
    "prompts-get-with-image", NeedsFixture, "The suite fetches test_prompt_with_image; scout fetches every listed prompt and judges its messages.";
    "dns-rebinding-protection", Partly, "On plain-http loopback, the suite sends a foreign Host and Origin together and wants a 4xx; scout sends a foreign Origin (served: a fail) and a foreign Host (served: a warning) apart. Not judged as its own check: localhost-host-valid-accepted, though every scout request carries the real Host.";
    "caching", Covered, "2026-07-28 discover, list and read results carry ttlMs (an integer >= 0) and cacheScope (public or private).";
    "http-header-validation", Covered, "Mcp-Method and Mcp-Name must match the body (400, -32020); header names are case-insensitive and surrounding whitespace is tolerated.";
    "http-custom-header-server-validation", Partly, "On tools that declare x-mcp-header, Mcp-Param-* values must match the arguments and Base64 values are decoded. Not judged: the suite's own OAuth setup and invalid characters in parameter values.";
    "tasks-lifecycle", Partly, "With the io.modelcontextprotocol/tasks extension declared, execution.tasks follows every task the full persona is handed (tasks/get at the server's pollIntervalMs, tasks/update for its input requests) to its end and judges each state; the suite drives its own fixture tools instead. 2026-07-28 does not score it.";
    "tasks-capability-negotiation", Partly, "execution.tasks: no task for a request that did not declare the extension, and -32021 to tasks/get from such a client. 2026-07-28 does not score it.";
    "tasks-wire-fields", Partly, "execution.tasks: every CreateTaskResult and tasks/get answer carries taskId, a task status, createdAt, lastUpdatedAt and ttlMs, a completed task its result, a failed one its error, and tasks/get's resultType is complete. 2026-07-28 does not score it.";
    "tasks-request-state-removal", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-mrtr-input", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-request-headers", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-dispatch-and-envelope", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-status-notifications", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-required-task-error", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "tasks-mrtr-composition", NotCovered, "The tasks extension: no scout check; 2026-07-28 does not score it.";
    "input-required-result-basic-elicitation", NeedsFixture, "The suite calls test_input_required_result_elicitation and answers its input request; scout completes every input_required it meets on the tools the server lists (execution.input_required, execution.elicitation) and judges each result's shape (protocol.input_required_shape), but not this fixture tool's exact expectations.";
    "input-required-result-basic-sampling", NeedsFixture, "The suite calls test_input_required_result_sampling and answers its input request; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-basic-list-roots", NeedsFixture, "The suite calls test_input_required_result_list_roots and answers its input request; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-request-state", NeedsFixture, "The suite calls test_input_required_result_request_state and echoes its requestState; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-multiple-input-requests", NeedsFixture, "The suite calls test_input_required_result_multiple_inputs; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-multi-round", NeedsFixture, "The suite calls test_input_required_result_multi_round; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-missing-input-response", NeedsFixture, "The suite retries an input-required tool without the input; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-non-tool-request", NeedsFixture, "The suite gets test_input_required_result_prompt, a prompt that asks for input; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-result-type", NeedsFixture, "The suite checks resultType on an input-required answer of a fixture tool; scout judges resultType on every 2026-07-28 result (protocol.result_type) but meets no input-required answer without the fixture.";
    "input-required-result-unsupported-methods", NeedsFixture, "The suite checks what a fixture tool may ask for; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-tampered-state", NeedsFixture, "The suite calls test_input_required_result_tampered_state with a changed requestState; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-capability-check", NeedsFixture, "The suite calls test_input_required_result_capabilities without the client capability; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-ignore-extra-params", NeedsFixture, "The suite sends unknown parameters with an input response to a fixture tool; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
    "input-required-result-validate-input", NeedsFixture, "The suite sends an invalid input response to a fixture tool; scout completes every input_required it meets on the tools the server lists (execution.input_required) and judges each result's shape (protocol.input_required_shape), but not this fixture's exact expectations.";
}

/// The official everything-server's fixture tool each scenario calls by name (scenarios that
/// call none, or call a prompt or resource, are not listed).
pub static FIXTURE_TOOLS: &[(&str, &str)] = &[
    ("tools-call-simple-text", "test_simple_text"),
    ("tools-call-image", "test_image_content"),
    ("tools-call-audio", "test_audio_content"),
    ("tools-call-embedded-resource", "test_embedded_resource"),
    ("tools-call-mixed-content", "test_multiple_content_types"),
    ("tools-call-with-logging", "test_tool_with_logging"),
    ("tools-call-error", "test_error_handling"),
    ("tools-call-with-progress", "test_tool_with_progress"),
    ("tools-call-sampling", "test_sampling"),
    ("tools-call-elicitation", "test_elicitation"),
    (
        "elicitation-sep1034-defaults",
        "test_elicitation_sep1034_defaults",
    ),
    (
        "elicitation-sep1330-enums",
        "test_elicitation_sep1330_enums",
    ),
    ("server-sse-polling", "test_reconnection"),
    (
        "input-required-result-basic-elicitation",
        "test_input_required_result_elicitation",
    ),
    (
        "input-required-result-basic-sampling",
        "test_input_required_result_sampling",
    ),
    (
        "input-required-result-basic-list-roots",
        "test_input_required_result_list_roots",
    ),
    (
        "input-required-result-request-state",
        "test_input_required_result_request_state",
    ),
    (
        "input-required-result-multiple-input-requests",
        "test_input_required_result_multiple_inputs",
    ),
    (
        "input-required-result-multi-round",
        "test_input_required_result_multi_round",
    ),
    (
        "input-required-result-missing-input-response",
        "test_input_required_result_elicitation",
    ),
    (
        "input-required-result-result-type",
        "test_input_required_result_elicitation",
    ),
    (
        "input-required-result-tampered-state",
        "test_input_required_result_tampered_state",
    ),
    (
        "input-required-result-capability-check",
        "test_input_required_result_capabilities",
    ),
    (
        "input-required-result-ignore-extra-params",
        "test_input_required_result_elicitation",
    ),
    (
        "input-required-result-validate-input",
        "test_input_required_result_elicitation",
    ),
];

/// The fixture tool scenario `id` calls, if it calls one.
pub fn fixture_tool(id: &str) -> Option<&'static str> {
    FIXTURE_TOOLS
        .iter()
        .find(|(s, _)| *s == id)
        .map(|(_, t)| *t)
}

/// scout's view of scenario `id`.
pub fn scenario(id: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.id == id)
}

/// The scout checks with an alias in scenario `id`, in registry order.
pub fn checks_of(id: &str) -> Vec<&'static str> {
    crate::probe::registry::all()
        .filter(|c| aliases(c.id).iter().any(|a| scenario_of(a) == id))
        .map(|c| c.id)
        .collect()
}

/// The aliases of check `id` (empty when it covers no official scenario).
pub fn aliases(id: &str) -> &'static [&'static str] {
    ALIASES
        .iter()
        .find(|(c, _)| *c == id)
        .map_or(&[], |(_, a)| a)
}

/// The scenario of an alias (`tools-list` of `tools-list:tools-name-format`).
pub fn scenario_of(alias: &str) -> &str {
    alias.split_once(':').map_or(alias, |(s, _)| s)
}

/// The distinct scenarios check `id` covers, in alias order. The suite-wide
/// [`EVERY_SCENARIO`] checks are not listed: they would name every scenario.
pub fn scenarios(id: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for a in aliases(id) {
        let s = scenario_of(a);
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The scout checks an official baseline entry excuses: for a whole `scenario`, every check
/// with an alias in it; for `scenario:check-id`, the checks aliased to exactly that check or
/// to the whole scenario, and the scout check of a suite-wide check id. Sorted, distinct.
pub fn checks_for(scenario: &str, check: Option<&str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = ALIASES
        .iter()
        .filter(|(_, aliases)| {
            aliases.iter().any(|a| match (a.split_once(':'), check) {
                (None, _) => *a == scenario,
                (Some((s, _)), None) => s == scenario,
                (Some((s, c)), Some(want)) => s == scenario && c == want,
            })
        })
        .map(|(id, _)| *id)
        .collect();
    if let Some(want) = check
        && let Some((_, id)) = EVERY_SCENARIO.iter().find(|(c, _)| *c == want)
    {
        out.push(id);
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::registry;
    use std::collections::HashSet;

    #[test]
    fn every_alias_names_a_registered_check_and_a_scenario_of_the_suite() {
        let mut seen = HashSet::new();
        for (id, aliases) in ALIASES {
            assert!(seen.insert(*id), "{id} is listed twice");
            assert!(registry::lookup(id).is_some(), "{id} is not a check");
            assert!(!aliases.is_empty(), "{id}: no aliases");
            for a in *aliases {
                assert!(
                    SERVER_SCENARIOS.contains(&scenario_of(a)),
                    "{id}: {a} names no server scenario of {SUITE_VERSION}"
                );
                if let Some((_, c)) = a.split_once(':') {
                    assert!(!c.is_empty() && !c.contains(':'), "{id}: {a}");
                }
            }
        }
        for (_, id) in EVERY_SCENARIO {
            assert!(registry::lookup(id).is_some(), "{id} is not a check");
        }
    }

    #[test]
    fn every_scenario_says_how_far_scout_covers_it() {
        let ids: Vec<&str> = SCENARIOS.iter().map(|s| s.id).collect();
        assert_eq!(ids, SERVER_SCENARIOS);
        for s in SCENARIOS {
            let checks = checks_of(s.id);
            match s.coverage {
                Coverage::Covered | Coverage::Partly => {
                    assert!(!checks.is_empty(), "{}: covered by no check", s.id)
                }
                Coverage::NeedsFixture | Coverage::NotCovered => {}
            }
            if s.coverage == Coverage::NotCovered {
                assert!(checks.is_empty(), "{}: not covered, yet {checks:?}", s.id);
            }
            assert!(s.note.ends_with('.'), "{}", s.id);
        }
        for (s, tool) in FIXTURE_TOOLS {
            assert!(SERVER_SCENARIOS.contains(s), "{s}");
            assert!(tool.starts_with("test_"), "{tool}");
        }
    }

    #[test]
    fn the_frozen_sets_are_server_scenarios_of_the_suite() {
        // The issue counts them: 30 server scenarios for 2025-11-25, 37 for 2026-07-28.
        assert_eq!(REQUIRED_2025_11_25.len(), 30);
        assert_eq!(REQUIRED_2026_07_28.len(), 37);
        for s in REQUIRED_2025_11_25.iter().chain(REQUIRED_2026_07_28) {
            assert!(SERVER_SCENARIOS.contains(s), "{s}");
        }
    }

    #[test]
    fn an_official_entry_maps_to_the_checks_that_cover_it() {
        assert_eq!(
            checks_for("tools-list", Some("tools-name-format")),
            ["catalog.tool_names"]
        );
        assert_eq!(
            checks_for("tools-list", None),
            ["catalog.tool_names", "catalog.tools_list"]
        );
        // A whole-scenario alias covers each check of the scenario.
        assert_eq!(
            checks_for("caching", Some("sep-2549-ttl-non-negative")),
            ["protocol.cache_hints"]
        );
        assert_eq!(
            checks_for("tools-call-image", Some("wire-schema-valid")),
            ["protocol.wire_schema"]
        );
        assert!(checks_for("tools-call-sampling", None).is_empty());
        assert!(checks_for("no-such-scenario", None).is_empty());
        assert_eq!(scenarios("protocol.delete"), ["server-session-lifecycle"]);
        assert!(aliases("stdio.process").is_empty());
    }
}
