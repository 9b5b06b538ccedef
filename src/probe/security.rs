//! Security: what an attacker (or a careless server) can do to an agent. The probes of this
//! phase belong to a later issue; until then the category is reported as not assessed.

crate::checks! { phase: Security;
    HIDDEN_CHARACTERS = "security.hidden_characters", Major, "No hidden characters in names and descriptions", crate::probe::registry::spec::SEC26,
        "Zero-width characters, bidi overrides, control characters and ANSI escapes in tool names or descriptions hide text from the person approving a tool.",
        "Remove invisible and control characters from names and descriptions.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
