//! The two verification algorithms agree: whenever asynchronous subtyping accepts a
//! randomly reordered role, the system where it replaces its projection is k-MC for some
//! small k (k-MC with unbounded k coincides with the liveness subtyping guarantees, PPoPP
//! 2022 §4.2; the reorderings here move at most a few actions, so a small k suffices).

use crate::support;

use mpst_fsm::kmc::{KmcError, least_k};
use mpst_fsm::subtype::is_subtype;
use mpst_fsm::{Fsm, LocalType};
use proptest::prelude::*;
use support::{Rng, amr, global};

/// The largest k tried.
const MAX_K: usize = 6;
/// The subtyping bound used for the candidates.
const VISITS: usize = 8;

/// A random protocol's projections, one role reordered, and whether subtyping accepts it.
fn case(seed: u64) -> Option<(Vec<Fsm>, usize, LocalType, Fsm, bool)> {
    let mut rng = Rng::new(seed);
    let protocol = global::protocol(&mut rng);
    let (types, projected) = global::project_all_fsms(&protocol)?;
    let role = rng.below(types.len());
    let reordered = amr::reorder(&types[role], &mut rng, 3)?;
    let optimised = reordered.to_fsm(protocol.roles[role].clone()).ok()?;
    let accepted = is_subtype(&optimised, &projected[role], VISITS).is_ok();
    Some((projected, role, reordered, optimised, accepted))
}

/// `Some(true)` if k-MC for some k ≤ [`MAX_K`], `None` if the state space is too big.
fn kmc(system: &[Fsm]) -> Option<bool> {
    match least_k(system, MAX_K) {
        Ok(report) => Some(report.is_kmc()),
        Err(KmcError::TooManyConfigurations { .. }) => None,
        Err(e) => panic!("the system cannot be checked: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn what_subtyping_accepts_is_kmc(seed in any::<u64>()) {
        let Some((projected, role, reordered, optimised, accepted)) = case(seed) else {
            return Ok(());
        };
        prop_assert_ne!(kmc(&projected), Some(false), "projections of seed {} not k-MC", seed);
        if accepted {
            let mut system = projected;
            system[role] = optimised;
            prop_assert_ne!(
                kmc(&system),
                Some(false),
                "subtyping accepted {} but the system is not k-MC for k <= {}",
                reordered,
                MAX_K
            );
        }
    }
}

/// The property above says something only if the generator produces accepted
/// reorderings that are real reorderings, and systems small enough to check.
#[test]
fn the_agreement_is_tested_on_real_reorderings() {
    let (mut accepted, mut checked) = (0, 0);
    for seed in 0..300 {
        let Some((projected, role, _, optimised, ok)) = case(seed) else {
            continue;
        };
        if ok && !optimised.is_isomorphic(&projected[role]) {
            accepted += 1;
            let mut system = projected;
            system[role] = optimised;
            if let Some(verdict) = kmc(&system) {
                assert!(verdict, "seed {seed}: accepted but not k-MC");
                checked += 1;
            }
        }
    }
    assert!(
        accepted >= 30,
        "only {accepted} accepted proper reorderings"
    );
    assert!(
        checked * 10 >= accepted * 9,
        "only {checked} of {accepted} checked"
    );
}
