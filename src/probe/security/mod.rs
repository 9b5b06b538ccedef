//! Security: what a careless or hostile server can do to an agent, and what an exposed
//! server lets others do. The phase reads what the server said (catalogue, instructions,
//! every message: [`content`]), sends a few requests of its own that change nothing (a
//! foreign `Origin` and `Host`: [`origin`]; fresh sessions, all closed again: [`sessions`]),
//! judges exposure by policy ([`exposure`]), and compares the catalogue with `scout.lock`
//! ([`pinning`]). Rules that need every server of a run (shadowing, one server naming
//! another's tools) are judged by the runner at the end of the run ([`cross`]). The text
//! rules are data, each with an example and a near miss ([`rules`]).

pub mod content;
pub mod cross;
pub mod exposure;
pub mod origin;
pub mod pinning;
pub mod rules;
pub mod sessions;

use crate::probe::Session;
use crate::probe::registry::spec;

crate::checks! { phase: Security;
    ORIGIN = "security.origin", Major, "A foreign Origin or Host is refused (DNS rebinding)", spec::T25C,
        "Over HTTP, scout repeats a harmless request (ping, or server/discover) once with Origin: http://evil.example and, on plain-http loopback targets, once with Host: evil.example:PORT. The transports require servers to validate Origin and answer an invalid one with 403 (any 4xx before 2025-11-25); otherwise a web page can drive a local server through the user's browser (DNS rebinding). A served foreign Origin fails on a loopback server and warns on a remote one (an observation only when the server demands a token); a refusal with another 4xx where 403 is required, and a served foreign Host, warn (a rebinding page's GET requests carry no Origin). When the plain request itself is not served, nothing is judged.",
        "Validate Origin on every request (allow only your own origins, e.g. http://localhost:*) and answer others with 403; validate Host against the names the server is meant to be reached by. The official SDKs have options for both.";
    SESSION_ENTROPY = "security.session_entropy", Major, "Session ids cannot be guessed", spec::T25C,
        "Handshake era over HTTP: five fresh initialize requests each mint an Mcp-Session-Id, and every session is closed again with DELETE. The ids must be visible ASCII, distinct, and random: a repeated id, a counter, a timestamp, a time-based UUID or an estimated entropy below 64 bits fails; below 128 bits warns. Random (version 4) UUIDs, the spec's own example, pass. The estimate counts the positions that vary between the ids and the alphabet they use.",
        "Mint session ids from a cryptographically secure random source (128 bits or more, e.g. 32 random hex characters or a random UUID), never from a counter or a clock.";
    UNAUTHENTICATED_DESTRUCTIVE = "security.unauthenticated_destructive", Major, "Remote servers do not offer state-changing tools without credentials", spec::SEC26,
        "A remote server (a non-loopback host, or any HTTP target with treat_as_remote) that answers without credentials lets anyone who can reach it use its tools. Tools not marked readOnlyHint: true fail (major); a tool declaring destructiveHint: true makes it critical. Loopback and stdio targets are not applicable.",
        "Require authorization (OAuth 2.1 per the spec's authorization section) before serving tools that change or delete data, or do not expose the server beyond the machine.";
    TRANSPORT = "security.transport", Critical, "Credentials never travel over plain HTTP", spec::A25C,
        "The security side of discovery.tls: a token or credential header sent over plain http:// to a remote host can be read and replayed by anyone on the path (critical). Plain http:// to a remote host without credentials warns; https passes; loopback and stdio are not applicable.",
        "Serve the endpoint over https:// and configure clients with the https URL before giving them a token.";
    HIDDEN_CHARACTERS = "security.hidden_characters", Major, "No hidden characters in names and descriptions", spec::SEC26,
        "Zero-width characters, bidi overrides, control characters and ANSI escapes in tool, prompt or resource names and descriptions (input-schema and argument descriptions included) and in the server's instructions hide text from the person approving a tool while the model still reads it.",
        "Remove invisible and control characters from names and descriptions.";
    TOOL_POISONING = "security.tool_poisoning", Major, "No instructions hidden in what the model reads", spec::SEC26,
        "Tool, prompt and resource descriptions and the server's instructions are read by the model as trusted text. Markers such as <IMPORTANT> tags, \"ignore previous instructions\", \"do not tell the user\", requests to read credential files (~/.ssh, id_rsa, .env) or to send the conversation to a URL, and instructions about other tools are the signature of tool poisoning. When a config lists several servers, a description that names another server's tool fails, and two servers offering the same tool name with different definitions (shadowing) warn.",
        "Describe what the tool does, for the user and the model alike; never instruct the model about other tools, the user, files or other servers.";
    SECRETS_IN_OUTPUT = "security.secrets_in_output", Critical, "No credentials in results or errors", spec::SEC26,
        "Every message the server sent is searched for credential patterns (private keys, cloud access keys, GitHub, Slack and OpenAI-style tokens). scout's own secrets are masked before this runs, so anything found came from the server.",
        "Find where the server reads the credential and keep it out of results, errors and logs.";
    ERROR_LEAKAGE = "security.error_leakage", Minor, "Errors do not leak internals", spec::SEC26,
        "Error messages and tool errors are searched for stack traces (Python tracebacks, JavaScript and Rust/Java frames) and absolute internal paths, which tell an attacker how the server is built.",
        "Log internals on the server and return a short error message to the client.";
    CATALOG_PINNING = "security.catalog_pinning", Major, "The catalogue matches scout.lock", "",
        "When a scout.lock pins this server (written by `scout pin`), the tools, prompts, resource templates and instructions the server lists now are compared with it: descriptions (with a word diff), parameters added, removed or retyped, annotations flipped (a tool that becomes destructive is critical), entries added, removed or renamed. Every difference fails and fails the gate whatever the thresholds, until it is reviewed and accepted with `scout pin --update`: a tool that changes after approval is a rug pull.",
        "Review the changes; if they are intended, run `scout pin --update` and commit the new scout.lock with the change that caused them.";
}

/// Runs this phase's checks against the session: the probes first (so that the message
/// checks see their answers too), then the judgements over what was recorded.
pub async fn run(s: &mut Session) {
    probe(s).await;
    judge(s);
}

/// The phase's probes: the Origin check on the run's own session first (before anything
/// opens the extra sessions a server that caps them would evict it for), then the session
/// ids (several new sessions).
pub async fn probe(s: &mut Session) {
    let found = origin::run(s).await;
    s.add_all(found);
    let found = sessions::run(s).await;
    s.add_all(found);
}

/// The phase's judgements over what was recorded: run after the last probe of the run, so
/// that the message scan reads every message the server sent.
pub fn judge(s: &mut Session) {
    s.add_all(exposure::unauthenticated_destructive(s));
    s.add_all(exposure::transport(s));
    s.add_all(content::judge_catalog(s));
    let received = content::received(s);
    s.add_all(content::judge_messages(&received));
    s.add_all(pinning::judge(s));
}
