//! Soundness of asynchronous subtyping on generated protocols: whenever a randomly
//! reordered FSM is accepted as a subtype of its projection, the system where it
//! replaces the projection has, explored exhaustively with bounded queues, no
//! deadlock, no orphan message and no unspecified reception.

use crate::support;

use mpst_fsm::subtype::{NotProved, Stats, is_subtype};
use mpst_fsm::{Fsm, LocalType};
use proptest::prelude::*;
use support::explore::{Violation, explore};
use support::{Rng, amr, global};

/// Queue bound of the exploration.
const BOUND: usize = 2;
/// Configurations explored at most per system.
const BUDGET: usize = 20_000;
/// The subtyping bound used for the candidates.
const VISITS: usize = 8;

struct Case {
    protocol: global::Protocol,
    role: usize,
    projected: Vec<Fsm>,
    optimised_type: LocalType,
    optimised: Fsm,
    result: Result<Stats, NotProved>,
}

impl Case {
    fn system(&self) -> Vec<Fsm> {
        let mut system = self.projected.clone();
        system[self.role] = self.optimised.clone();
        system
    }
}

fn has_action(t: &LocalType) -> bool {
    !matches!(t, LocalType::End | LocalType::Var(_))
}

/// A random protocol, one role's projection reordered, and the subtyping verdict.
fn case(seed: u64) -> Option<Case> {
    let mut rng = Rng::new(seed);
    let protocol = global::protocol(&mut rng);
    let (types, projected) = global::project_all_fsms(&protocol)?;
    let active: Vec<usize> = (0..types.len())
        .filter(|&r| has_action(&types[r]))
        .collect();
    if active.is_empty() {
        return None;
    }
    let role = active[rng.below(active.len())];
    let optimised_type = amr::reorder(&types[role], &mut rng, 3)?;
    let optimised = optimised_type.to_fsm(protocol.roles[role].clone()).ok()?;
    let result = is_subtype(&optimised, &projected[role], VISITS);
    Some(Case {
        protocol,
        role,
        projected,
        optimised_type,
        optimised,
        result,
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn accepted_reorderings_never_go_wrong(seed in any::<u64>()) {
        let Some(case) = case(seed) else { return Ok(()) };
        // The generator's own systems are safe, or the property would say nothing.
        match explore(&case.projected, BOUND, BUDGET) {
            Ok(_) | Err(Violation::TooBig) => {}
            Err(v) => prop_assert!(false, "projected system of {:?} unsafe: {:?}", case.protocol, v),
        }
        if case.result.is_ok() {
            match explore(&case.system(), BOUND, BUDGET) {
                Ok(_) | Err(Violation::TooBig) => {}
                Err(v) => prop_assert!(
                    false,
                    "accepted {} for role {} of {:?}, but the system fails: {:?}",
                    case.optimised_type, case.protocol.roles[case.role], case.protocol, v
                ),
            }
        }
    }

    #[test]
    fn projections_are_subtypes_of_themselves_and_of_their_unrollings(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let protocol = global::protocol(&mut rng);
        let Some(types) = global::project_all(&protocol) else { return Ok(()) };
        for (t, role) in types.iter().zip(&protocol.roles) {
            let fsm = t.to_fsm(role.clone()).unwrap();
            prop_assert!(is_subtype(&fsm, &fsm, 1).is_ok(), "{t}");
            let mut unrolled = t.clone();
            for _ in 0..2 {
                if let LocalType::Rec(v, body) = &unrolled {
                    unrolled = amr::substitute(body, v, &unrolled);
                }
            }
            let unrolled = unrolled.to_fsm(role.clone()).unwrap();
            prop_assert!(is_subtype(&unrolled, &fsm, 2).is_ok(), "{t}");
            prop_assert!(is_subtype(&fsm, &unrolled, 2).is_ok(), "{t}");
        }
    }
}

#[test]
fn the_generator_produces_a_healthy_mix() {
    let (mut accepted, mut rejected, mut rejected_unsafe, mut total) = (0, 0, 0, 0);
    let mut accepted_explored = 0;
    for seed in 0..400 {
        let Some(case) = case(seed) else { continue };
        total += 1;
        if case.result.is_ok() {
            accepted += 1;
            // The same soundness property on fixed seeds, and a count of the accepted
            // systems explored to the end (not cut by the budget).
            match explore(&case.system(), BOUND, BUDGET) {
                Ok(_) => accepted_explored += 1,
                Err(Violation::TooBig) => {}
                Err(v) => panic!("accepted {} but {v:?}", case.optimised_type),
            }
        } else {
            rejected += 1;
            if matches!(
                explore(&case.system(), BOUND, BUDGET),
                Err(Violation::Deadlock(_)
                    | Violation::Orphan(_)
                    | Violation::UnspecifiedReception(_))
            ) {
                rejected_unsafe += 1;
            }
        }
    }
    eprintln!(
        "{total} cases: {accepted} accepted, {rejected} rejected ({rejected_unsafe} really unsafe)"
    );
    assert!(total >= 250, "too few cases: {total}");
    assert!(
        accepted_explored * 10 >= accepted * 9,
        "only {accepted_explored} of {accepted} accepted systems explored completely"
    );
    assert!(
        accepted * 5 >= total,
        "too few accepted: {accepted} of {total}"
    );
    assert!(
        rejected * 5 >= total,
        "too few rejected: {rejected} of {total}"
    );
    assert!(
        rejected_unsafe * 10 >= total,
        "too few unsafe rejections: {rejected_unsafe} of {total}"
    );
}
