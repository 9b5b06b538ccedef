//! The one list of checks. Each phase declares its checks beside its code with the
//! [`checks!`](crate::checks) macro (the `Check` type is in `report::check`); this file fixes the order of the phases and is the only
//! place that lists them all. From a check's id come the JUnit case name, the SARIF rule id,
//! the docs anchor (`docs/checks.md`) and the config key.

use crate::report::check::Check;
use crate::report::finding::Phase;

/// Every phase's check table, in run order. This is the only list.
pub fn tables() -> [(Phase, &'static [&'static Check]); 23] {
    use crate::probe::*;
    [
        (Phase::Discovery, discovery::CHECKS),
        (Phase::Auth, auth::CHECKS),
        (Phase::Handshake, handshake::CHECKS),
        (Phase::Protocol, protocol::CHECKS),
        (Phase::Protocol, protocol::capability_use::CHECKS),
        (Phase::Protocol, protocol::utilities::CHECKS),
        (Phase::Protocol, protocol::subscriptions::CHECKS),
        (Phase::Protocol, protocol::revisions::CHECKS),
        (Phase::Protocol, stdio::CHECKS),
        (Phase::Catalog, catalog::CHECKS),
        (Phase::Execution, execution::CHECKS),
        (Phase::Execution, execution::templates::CHECKS),
        (Phase::Execution, execution::tasks::CHECKS),
        (Phase::Execution, execution::talkback::CHECKS),
        (Phase::Execution, execution::input_required::CHECKS),
        (Phase::Execution, execution::coverage::CHECKS),
        (Phase::Expectations, expectations::CHECKS),
        (Phase::Expectations, snapshots::CHECKS),
        (Phase::Performance, performance::CHECKS),
        (Phase::Resilience, resilience::CHECKS),
        (Phase::Security, security::CHECKS),
        (Phase::Compat, compat::CHECKS),
        (Phase::Manifest, manifest::CHECKS),
    ]
}

/// All checks in report order.
pub fn all() -> impl Iterator<Item = &'static Check> {
    tables().into_iter().flat_map(|(_, t)| t.iter().copied())
}

/// Looks a check up by id.
pub fn lookup(id: &str) -> Option<&'static Check> {
    all().find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::check::Basis;
    use crate::report::grounds;
    use std::collections::HashSet;

    #[test]
    fn every_check_has_exactly_one_ground_and_every_ground_a_check() {
        let mut seen = HashSet::new();
        for g in grounds::GROUNDS {
            assert!(seen.insert(g.id), "{} has two grounds", g.id);
            assert!(
                lookup(g.id).is_some(),
                "{} is grounded but not registered",
                g.id
            );
            assert!(
                !g.quote.is_empty() && !g.source.is_empty(),
                "{}: empty",
                g.id
            );
        }
        for c in all() {
            assert!(
                grounds::of(c.id).is_some(),
                "{} has no basis for its grade",
                c.id
            );
        }
    }

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for c in all() {
            assert!(seen.insert(c.id), "duplicate check id {}", c.id);
            let (prefix, rest) = c.id.split_once('.').expect("id has a phase prefix");
            // `stdio.*` is scored under protocol; `expect.*` (the expectations) under
            // expectations.
            let expected = match prefix {
                "stdio" => "protocol",
                "expect" => "expectations",
                _ => prefix,
            };
            assert_eq!(
                expected,
                c.phase.as_str(),
                "{} is declared in the wrong phase",
                c.id
            );
            assert!(
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'),
                "{} is not snake_case",
                c.id
            );
            assert!(
                !c.title.is_empty() && !c.title.ends_with('.'),
                "{}: title",
                c.id
            );
            assert!(
                !c.description.is_empty() && !c.advice.is_empty(),
                "{}: text",
                c.id
            );
            assert!(
                c.spec.is_empty() || c.spec.starts_with("https://"),
                "{}: spec url",
                c.id
            );
        }
        assert!(
            seen.len() > 60,
            "the catalogue is the floor: {} checks",
            seen.len()
        );
    }

    #[test]
    fn a_verdict_beyond_the_basis_is_refused() {
        // catalog.tool_names rests on a SHOULD: it may warn, never fail.
        let should = lookup("catalog.tool_names").expect("registered");
        assert_eq!(should.basis(), Basis::Should);
        let err = should
            .fail("duplicate")
            .without_exchange()
            .build(|_| true)
            .expect_err("a fail on a SHOULD is refused");
        assert!(
            err.to_string().contains("beyond the check's basis"),
            "{err}"
        );
        assert!(
            should
                .warn("duplicate")
                .without_exchange()
                .build(|_| true)
                .is_ok()
        );
        // An observation never judges.
        let obs = lookup("execution.policy").expect("registered");
        assert_eq!(obs.basis(), Basis::Observation);
        assert!(obs.warn("x").without_exchange().build(|_| true).is_err());
        assert!(obs.info("x").build(|_| true).is_ok());
    }

    #[test]
    fn every_phase_has_checks() {
        for phase in Phase::ALL {
            assert!(all().any(|c| c.phase == phase), "{phase} has no checks");
        }
    }
}
