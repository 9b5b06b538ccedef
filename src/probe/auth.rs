//! Auth: how a protected server challenges and accepts credentials. The probes of this phase
//! belong to a later issue; until then the category is reported as not assessed.

crate::checks! { phase: Auth;
    OPEN = "auth.open", Minor, "Whether the server asks for credentials", crate::probe::registry::spec::AU26,
        "Observes whether the first unauthenticated request was answered (an open server) or challenged with 401. An observation, not a judgement: many local servers are open by design.",
        "If the server is reachable by others, protect it with OAuth 2.1 as the authorization section of the spec describes.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
