//! The four benchmark families: every optimised FSM is accepted with the instance's
//! bound, every FSM is a subtype of itself, and the bound is close to what is needed.

use mpst_fsm::families::{self, Family, Instance};
use mpst_fsm::subtype::{Reason, is_subtype};

fn sizes(family: Family) -> Vec<usize> {
    match family {
        Family::NestedChoice => vec![0, 1, 2, 3, 4],
        Family::Ring => vec![2, 3, 5, 10, 30],
        Family::Stream | Family::KBuffering => vec![0, 1, 2, 5, 10, 50, 100],
    }
}

fn instances() -> impl Iterator<Item = Instance> {
    Family::ALL
        .into_iter()
        .flat_map(|f| sizes(f).into_iter().map(move |n| f.instance(n).unwrap()))
}

#[test]
fn every_optimised_fsm_is_accepted_with_the_instance_bound() {
    for instance in instances() {
        let checks = instance.checks();
        assert_eq!(
            checks.len(),
            instance.optimised.len(),
            "{:?} {}",
            instance.family,
            instance.n
        );
        for (optimised, projected) in checks {
            if let Err(e) = is_subtype(optimised, projected, instance.visits) {
                panic!(
                    "{} {} role {}:\n{e}",
                    instance.family,
                    instance.n,
                    optimised.role()
                );
            }
        }
    }
}

#[test]
fn every_family_fsm_is_a_subtype_of_itself() {
    for instance in instances() {
        for fsm in instance.projected.iter().chain(&instance.optimised) {
            let result = is_subtype(fsm, fsm, 2);
            assert!(
                result.is_ok(),
                "{} {} {}: {:?}",
                instance.family,
                instance.n,
                fsm.role(),
                result
            );
        }
    }
}

#[test]
fn k_buffering_needs_a_bound_growing_with_the_unrolls() {
    for n in [4, 20, 100] {
        let instance = families::k_buffering(n);
        let (optimised, projected) = instance.checks()[0];
        let minimal = (1..=instance.visits)
            .find(|&v| is_subtype(optimised, projected, v).is_ok())
            .unwrap();
        // Until the prefixes settle the kernel's loop pair comes back every 4 steps
        // while the projection catches up with the n extra sends: about 3n/4 visits.
        assert_eq!(minimal, 3 * n / 4 + 1, "k-buffering {n}");
        let err = is_subtype(optimised, projected, minimal - 1).unwrap_err();
        assert!(matches!(err.reason, Reason::BoundReached { .. }), "{err}");
    }
}

#[test]
fn instances_have_the_paper_shape() {
    let stream = families::stream(3);
    assert_eq!(stream.projected.len(), 2);
    assert_eq!(stream.optimised[0].state_count(), 3 + 3 + 3);
    let ring = families::ring(30);
    assert_eq!((ring.projected.len(), ring.optimised.len()), (30, 29));
    assert_eq!(ring.optimised_system().len(), 30);
    let kb = families::k_buffering(1);
    assert_eq!(kb.projected_role("k").unwrap().state_count(), 4);
    assert_eq!(kb.optimised[0].state_count(), 5);
    let nested = families::nested_choice(2);
    // 1 + 2 + 5 * |T_1| states with |T_1| = 8.
    assert_eq!(nested.optimised[0].state_count(), 43);
    assert!(Family::NestedChoice.instance(9).is_err());
    assert!(Family::Ring.instance(1).is_err());
    assert_eq!("nested".parse::<Family>(), Ok(Family::NestedChoice));
    assert!("tree".parse::<Family>().is_err());
}
