//! Send states whose transitions go to different peers (the projection of a choice
//! whose branches start with messages to different receivers): k-MC, subtyping and the
//! witness search handle them, and what they say is true of the composed system.

use mpst_fsm::kmc::{ViolationKind, check_kmc};
use mpst_fsm::subtype::{Options, check};
use mpst_fsm::witness::{Budget, Search, find_wrong_run, replays_to_wrong};
use mpst_fsm::{Fsm, LocalType};

fn fsm(role: &str, text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm(role).unwrap()
}

/// The projections of scribble-java's `choice at A { l() from A to B; l2() from A to C; }
/// or { r() from A to C; r2() from A to B; }`, in a loop.
const A: &str = "rec t. +{B!l(). C!l2(). t, C!r(). B!r2(). t, B!stop(). C!stop(). end}";
const B: &str = "rec t. A?{l(). t, r2(). t, stop(). end}";
const C: &str = "rec t. A?{l2(). t, r(). t, stop(). end}";

/// The same choice, once.
const ONCE_A: &str = "+{B!l(). C!l2(). end, C!r(). B!r2(). end}";

fn once(a: &str) -> Vec<Fsm> {
    vec![
        fsm("A", a),
        fsm("B", "A?{l(). end, r2(). end}"),
        fsm("C", "A?{l2(). end, r(). end}"),
    ]
}

fn system(a: &str) -> Vec<Fsm> {
    vec![fsm("A", a), fsm("B", B), fsm("C", C)]
}

#[test]
fn the_projections_are_one_mc() {
    let report = check_kmc(&system(A), 1).unwrap();
    assert!(report.is_kmc(), "{report}");
    // A's first state sends to two peers: the system is not directed.
    assert!(!report.shape.directed, "{report}");
    // A may run ahead of B and C, so the queues are unbounded and the search without
    // a bound gives up; it must not find a wrong run.
    let search = find_wrong_run(&system(A), &Budget::default()).unwrap();
    assert!(search.wrong_run().is_none(), "{search:?}");
    // Without the loop it explores everything and finds the system safe.
    assert!(matches!(
        find_wrong_run(&once(ONCE_A), &Budget::default()).unwrap(),
        Search::Safe(_)
    ));
}

#[test]
fn a_subtype_that_reorders_sends_to_different_peers_is_proved() {
    // A tells C first in the `l` branch: its first state now sends to C only.
    let sub = "rec t. +{C!l2(). B!l(). t, C!r(). B!r2(). t, B!stop(). C!stop(). end}";
    let verdict = check(&fsm("A", sub), &fsm("A", A), &Options::new(8));
    assert!(verdict.is_subtype(), "{verdict}");
    // And the system with it is safe too (the property that subtyping promises).
    assert!(check_kmc(&system(sub), 2).unwrap().is_kmc());
    // A subtype may also drop a branch of its internal choice.
    let fewer = "rec t. +{C!r(). B!r2(). t, B!stop(). C!stop(). end}";
    assert!(check(&fsm("A", fewer), &fsm("A", A), &Options::new(8)).is_subtype());
}

#[test]
fn a_subtype_that_forgets_a_receiver_is_not_proved_and_its_system_goes_wrong() {
    // In the `l` branch the candidate never tells C: C waits for ever.
    let sub = "+{B!l(). end, C!r(). B!r2(). end}";
    let verdict = check(&fsm("A", sub), &fsm("A", ONCE_A), &Options::new(8));
    // The dual of a supertype with a choice among several peers is no context (it could
    // pick a branch the supertype did not), so no refutation may come from it; and it
    // must not be a proof.
    assert!(!verdict.is_subtype(), "{verdict}");
    assert!(!verdict.is_refuted(), "{verdict}");
    // The run that goes wrong, in the system itself: C is left waiting.
    let search = find_wrong_run(&once(sub), &Budget::default()).unwrap();
    let run = search.wrong_run().expect("a wrong run");
    assert!(matches!(run.kind, ViolationKind::Deadlock { .. }), "{run}");
    assert!(replays_to_wrong(&once(sub), &run.trace));
    assert!(!replays_to_wrong(&once(ONCE_A), &run.trace));
    let report = check_kmc(&once(sub), 2).unwrap();
    assert!(!report.is_kmc(), "{report}");
}

#[test]
fn mixing_the_branches_is_caught_by_k_mc() {
    // The candidate tells B `l` but C `r`, then ends while both still loop: B and C
    // wait for a `stop` that never comes.
    let sub = "+{B!l(). C!r(). end}";
    assert!(!check(&fsm("A", sub), &fsm("A", A), &Options::new(8)).is_subtype());
    let report = check_kmc(&system(sub), 1).unwrap();
    let violation = report.violation.expect("a violation");
    assert!(
        matches!(
            violation.kind,
            ViolationKind::Deadlock { .. } | ViolationKind::Starvation { .. }
        ),
        "{violation:?}"
    );
}
