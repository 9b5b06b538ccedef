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
use crate::report::check::spec_url;

crate::checks! { phase: Security;
    ORIGIN = "security.origin", Major, "A foreign Origin or Host is refused (DNS rebinding)", spec_url::T25C,
        "Over HTTP, scout repeats a harmless request (ping, or server/discover) once with Origin: http://evil.example and, on plain-http loopback targets, once with Host: evil.example:PORT. The transports require servers to validate Origin and answer an invalid one with 403 (any 4xx before 2025-11-25); otherwise a web page can drive a local server through the user's browser (DNS rebinding). A served foreign Origin fails on a loopback server and warns on a remote one (an observation only when the server demands a token); a refusal with another 4xx where 403 is required, and a served foreign Host, warn (a rebinding page's GET requests carry no Origin). When the plain request itself is not served, nothing is judged.",
        "Validate Origin on every request (allow only your own origins, e.g. http://localhost:*) and answer others with 403; validate Host against the names the server is meant to be reached by. The official SDKs have options for both.";
    SESSION_ENTROPY = "security.session_entropy", Major, "Session ids cannot be guessed", spec_url::T25C,
        "Handshake era over HTTP: five fresh initialize requests each mint an Mcp-Session-Id, and every session is closed again with DELETE. The ids must be visible ASCII, distinct, and random: a repeated id, a counter, a timestamp, a time-based UUID or an estimated entropy below 64 bits fails; below 128 bits warns. Random (version 4) UUIDs, the spec's own example, pass. The estimate counts the positions that vary between the ids and the alphabet they use.",
        "Mint session ids from a cryptographically secure random source (128 bits or more, e.g. 32 random hex characters or a random UUID), never from a counter or a clock.";
    UNAUTHENTICATED_DESTRUCTIVE = "security.unauthenticated_destructive", Major, "Remote servers do not offer state-changing tools without credentials", spec_url::SEC26,
        "A remote server (a non-loopback host, or any HTTP target with treat_as_remote) that answers without credentials lets anyone who can reach it use its tools. It counts as protected only when the first request without credentials was refused (401/403) and no tool list was served to a request that carried no credential (a 403 that only means \"no session\" protects nothing). Tools not marked readOnlyHint: true fail (major); a tool declaring destructiveHint: true makes it critical. Loopback and stdio targets are not applicable.",
        "Require authorization (OAuth 2.1 per the spec's authorization section) before serving tools that change or delete data, or do not expose the server beyond the machine.";
    TRANSPORT = "security.transport", Critical, "Credentials never travel over plain HTTP", spec_url::A25C,
        "The security side of discovery.tls, judged from the recorded requests: a request over plain http:// to a remote host that carried a credential (`Authorization`, or a configured header read from the environment or named like a secret; the auth probes' made-up tokens do not count) can be read and replayed by anyone on the path (critical). Plain http:// to a remote host with no credential sent warns, whatever was configured; https passes; loopback and stdio are not applicable.",
        "Serve the endpoint over https:// and configure clients with the https URL before giving them a token.";
    HIDDEN_CHARACTERS = "security.hidden_characters", Major, "No hidden characters in names and descriptions", spec_url::SEC26,
        "Characters that hide or reorder text in tool, prompt or resource names and descriptions (input-schema and argument descriptions included) and in the server's instructions hide it from the person approving a tool while the model still reads it: bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069), tag characters (U+E0000–U+E007F) outside an emoji flag, U+200B and U+2060 outside a script written without spaces, U+FEFF anywhere but the start, invisible operators, control characters other than tab, newline and carriage return, ANSI escapes, and three invisible characters in a row. What writes a language is not flagged: the zero-width non-joiner and joiner (Persian, Indic, emoji sequences), the left-to-right and right-to-left marks, a single variation selector.",
        "Remove invisible and control characters from names and descriptions.";
    TOOL_POISONING = "security.tool_poisoning", Major, "No instructions hidden in what the model reads", spec_url::SEC26,
        "Tool, prompt and resource descriptions and the server's instructions are read by the model as trusted text. What no honest description says fails: an order to ignore the model's previous instructions, to keep something from the user (\"do not tell the user\"), to read a credential file and pass its content on (\"read ~/.ssh/id_rsa and pass its content as …\"), to send credentials or the conversation to a URL, and an <IMPORTANT>-style block that carries such an order. What ordinary descriptions say too is a heuristic and warns, quoting the match: an <IMPORTANT>-style tag alone, an order to read a credential file, to put credentials into an argument, to act without asking the user, or about how to use other tools. Mentioning a credential file (a kubeconfig path) or a secret store is ordinary, and a negated clause (\"Do not include API keys\") or a sentence that only orders the server's own tools (\"before using any other tool, call login\") matches nothing. When a config lists several servers, a description that names another server's tool fails, and two servers offering the same tool name with different definitions (shadowing) warn.",
        "Describe what the tool does, for the user and the model alike; never instruct the model about other tools, the user, files or other servers.";
    SECRETS_IN_OUTPUT = "security.secrets_in_output", Critical, "No credentials in results or errors", spec_url::SEC26,
        "Every message the server sent is searched, as it was sent (before redaction, and every JSON string decoded), for credential patterns (private keys, AWS access key ids, GitHub, Slack, OpenAI-style and Google API keys), whatever key they stand under. Values scout itself holds — the operator's credentials and the tokens scout obtained — are excluded by value, so an echo of scout's own token is not the server's leak. A credential found is masked everywhere in the report; the finding shows only its well-known prefix (AKIA…[REDACTED]).",
        "Find where the server reads the credential and keep it out of results, errors and logs.";
    ERROR_LEAKAGE = "security.error_leakage", Minor, "Errors do not leak internals", spec_url::SEC26,
        "The strings of JSON-RPC errors and of tool results with isError (decoded, so that a stack's lines are lines), and the text of HTML or plain-text error pages (HTTP 4xx/5xx), are searched for stack traces (Python tracebacks, JavaScript, Java and Rust frames) and absolute home paths, which tell an attacker how the server is built. A path in an error that tells the agent which path to use (\"outside allowed directories: /home/u/project\") is the answer, not a leak. Text rules: at most a warn.",
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
    let exchanges = s.recorder.unredacted();
    let received = content::received(&exchanges);
    s.add_all(content::judge_messages(&received, s.recorder.redactor()));
    s.add_all(pinning::catalog_pinning(s));
    rules::release_caches();
}
