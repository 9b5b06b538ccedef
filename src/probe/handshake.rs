//! Handshake: which protocol generation the server speaks and whether opening a conversation
//! works as the spec says (`initialize` in the handshake revisions, `server/discover` in
//! 2026-07-28).

use crate::probe::registry::spec;

crate::checks! { phase: Handshake;
    PROTOCOL_ERA = "handshake.protocol_era", Critical, "The protocol generation is recognised", spec::V26,
        "scout first sends server/discover with a valid 2026-07-28 _meta envelope. A DiscoverResult or a recognised modern error means the stateless revision; anything else means a handshake-era server, which is then opened with initialize. A server that answers both is dual-era and is probed on both wires. The finding says how the era was decided.",
        "Implement server/discover (2026-07-28) or initialize (2025-11-25 and earlier) so that a client can open a conversation.";
    DISCOVER = "handshake.discover", Major, "server/discover returns a well-formed DiscoverResult", spec::D26,
        "2026-07-28 only. The DiscoverResult must carry resultType \"complete\", a non-empty supportedVersions array containing the version asked for, a capabilities object, ttlMs (integer >= 0) and cacheScope (public or private); serverInfo belongs in _meta[\"io.modelcontextprotocol/serverInfo\"].",
        "Return every required DiscoverResult field; SDKs that implement 2026-07-28 do this for you, so check the SDK version.";
    INITIALIZE = "handshake.initialize", Critical, "initialize returns a well-formed InitializeResult", spec::L25,
        "Handshake revisions only. initialize with the latest handshake version must return protocolVersion, a capabilities object and serverInfo with name and version (instructions, if present, a string).",
        "Return a complete InitializeResult; an agent cannot start a conversation without it.";
    VERSION_NEGOTIATION = "handshake.version_negotiation", Major, "Unknown protocol versions are negotiated, not fatal", spec::L25,
        "Handshake era: initialize with an unknown version must be answered with a version the server supports (a counter-offer), and a supported version must be echoed. 2026-07-28: a request naming an unsupported version must get -32022 with data.supported and data.requested.",
        "Echo a supported requested version, counter-offer your latest otherwise (handshake era); answer unknown versions with -32022 UnsupportedProtocolVersion listing data.supported (2026-07-28).";
    INITIALIZED = "handshake.initialized", Minor, "notifications/initialized gets no reply", spec::L25,
        "Handshake era: the initialized notification must not be answered; over HTTP the POST gets 202 Accepted with an empty body.",
        "Accept notifications silently: 202 with no body over HTTP, nothing at all over stdio.";
    SESSION = "handshake.session", Major, "Session ids are well formed and required", spec::T25C,
        "Handshake era over HTTP. If the server issues Mcp-Session-Id, its value must be visible ASCII (0x21-0x7E) and should be hard to guess; a request without it should get 400. Servers that issue no session are stateless and pass with a note.",
        "Issue session ids made of visible ASCII from a cryptographically secure source, and reject requests that lack the header with 400.";
    STATELESS = "handshake.stateless", Major, "The first request needs no setup", spec::B26,
        "2026-07-28: the very first request on a fresh connection is served without any prior handshake, and no Mcp-Session-Id is minted or echoed.",
        "Serve each 2026-07-28 request on its own, from what its _meta carries; never require or issue a session.";
    CAPABILITIES = "handshake.capabilities", Major, "Declared capabilities match what works", spec::B26,
        "A server that answers tools/list, resources/list, prompts/list or completion/complete must have declared the matching capability; a declared capability whose list method fails is also reported.",
        "Declare exactly the capabilities you implement; clients skip features that are not declared.";
    PING = "handshake.ping", Minor, "ping behaves as the revision says", spec::P25,
        "Handshake era: ping must promptly return an empty result {}. 2026-07-28 removed ping, so a modern server answering -32601 (HTTP 404) is correct.",
        "Answer ping with {} in the handshake revisions; treat it as an unknown method in 2026-07-28.";
    SERVER_INFO = "handshake.server_info", Minor, "The server names itself", spec::B26,
        "serverInfo (handshake era) or _meta[\"io.modelcontextprotocol/serverInfo\"] (2026-07-28) carries a name and a version, so operators can tell which build answered.",
        "Set a name and a version in your server's Implementation info.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
