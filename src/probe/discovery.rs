//! Discovery: can the endpoint be reached at all, and over what. Auth-server discovery
//! (RFC 9728 / 8414) is a later piece of work; its checks are not registered yet.

use crate::probe::registry::spec;

crate::checks! { phase: Discovery;
    REACHABLE = "discovery.reachable", Critical, "The server can be reached", spec::T25C,
        "scout opens the transport the way an agent would: an HTTP POST to the MCP endpoint, or spawning the stdio command. Any HTTP answer (even an error status) counts as reachable; a refused connection, a DNS failure, a TLS failure, a timeout or a command that cannot be started does not.",
        "Check the URL or command, that the server is running and listening on that address, and that nothing (a proxy, a firewall, a missing binary) stands in between. Every later phase is skipped as blocked until this passes.";
    TLS = "discovery.tls", Major, "Remote servers are reached over TLS", spec::A25C,
        "A server on a non-loopback host reached over plain http:// exposes every request, and any bearer token on it, to the network. Loopback and stdio targets are not applicable.",
        "Serve the endpoint over https:// (terminate TLS at the server or a trusted proxy) and point clients at the https URL.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
