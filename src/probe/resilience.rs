//! Resilience: whether the server keeps serving after bad input. The probes of this phase
//! belong to a later issue; until then the category is reported as not assessed.

crate::checks! { phase: Resilience;
    MALFORMED_SURVIVAL = "resilience.malformed_survival", Major, "The server still serves after garbage", crate::probe::registry::spec::B26,
        "After the malformed and invalid requests of the protocol phase, an ordinary request must still be answered.",
        "Handle malformed input per message without tearing down the connection or process.";
}

/// Runs this phase's probes against the session.
pub async fn run(_s: &mut crate::probe::Session) {}
