//! Unit tests of the witness search: each kind of wrong run, giving up, safety.

use super::*;
use crate::LocalType;

fn fsm(role: &str, text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm(role).unwrap()
}

#[test]
fn a_receive_before_a_send_deadlocks_against_the_dual() {
    let sup = fsm("p", "q!a(). q?b(). end");
    let sub = fsm("p", "q?b(). q!a(). end");
    let search = against_dual(&sub, &sup, &Budget::default());
    let run = search.wrong_run().expect("a deadlock");
    assert!(matches!(run.kind, ViolationKind::Deadlock { .. }), "{run}");
    assert!(run.trace.is_empty(), "{run}");
    assert!(replays_to_wrong_against_dual(&sub, &sup, &run.trace));
    // The supertype itself is safe beside its dual.
    assert_eq!(
        against_dual(&sup, &sup, &Budget::default()),
        Search::Safe(5)
    );
}

#[test]
fn orphans_and_unspecified_receptions_are_found_with_their_runs() {
    let sup = fsm("p", "q!a(). end");
    let sub = fsm("p", "q!a(). q!b(). end");
    let run = against_dual(&sub, &sup, &Budget::default());
    let run = run.wrong_run().expect("an orphan");
    assert!(matches!(&run.kind, ViolationKind::Orphan { message, .. } if message.label == "b"));
    let shown: Vec<String> = run.trace.iter().map(ToString::to_string).collect();
    assert!(shown.contains(&"p: q!b()".to_string()), "{shown:?}");

    let sup = fsm("p", "q?{a(). end, b(). end}");
    let sub = fsm("p", "q?a(). end");
    let run = against_dual(&sub, &sup, &Budget::default());
    let run = run.wrong_run().expect("an unspecified reception");
    assert!(
        matches!(run.kind, ViolationKind::UnspecifiedReception { .. }),
        "{run}"
    );
    assert_eq!(run.trace[0].to_string(), "q: p!b()");
    assert!(replays_to_wrong_against_dual(&sub, &sup, &run.trace));
    assert!(!replays_to_wrong_against_dual(&sup, &sup, &run.trace));
}

#[test]
fn unbounded_queues_give_up_instead_of_claiming_safety() {
    let sender = fsm("a", "rec x. b!m(). x");
    let receiver = fsm("b", "rec x. a?m(). x");
    let budget = Budget {
        max_configurations: 1000,
        max_queue: 4,
    };
    // The receiver keeps up: the space is finite once sends are capped, but capped.
    let found = find_wrong_run(&[sender.clone(), receiver], &budget).unwrap();
    assert_eq!(found, Search::GaveUp(GaveUp::QueueLength(4), 5));
    let sink = fsm("b", "end");
    let found = find_wrong_run(&[sender, sink], &budget).unwrap();
    assert!(matches!(
        found.wrong_run().map(|r| &r.kind),
        Some(ViolationKind::Orphan { .. })
    ));
}

#[test]
fn systems_are_checked_like_kmc_and_nondeterminism_is_accepted() {
    let err = find_wrong_run(&[fsm("a", "c!m(). end")], &Budget::default()).unwrap_err();
    assert!(matches!(err, KmcError::UnknownPeer { .. }));
    // `a` may send `m` and then wait for `n`, or stop: with two `b!m` transitions.
    let mut a = Fsm::new("a");
    let (s1, s2, s3) = (a.add_state(), a.add_state(), a.add_state());
    a.add_nondeterministic_transition(0, Action::send("b", Message::new("m")), s1)
        .unwrap();
    a.add_nondeterministic_transition(0, Action::send("b", Message::new("m")), s2)
        .unwrap();
    a.add_transition(s1, Action::receive("b", Message::new("n")), s3)
        .unwrap();
    let b = fsm("b", "a?m(). end");
    let found = find_wrong_run(&[a.clone(), b.clone()], &Budget::default()).unwrap();
    let run = found.wrong_run().expect("a deadlock in one branch");
    assert!(matches!(run.kind, ViolationKind::Deadlock { .. }), "{run}");
    assert!(replays_to_wrong(&[a, b], &run.trace));
}

#[test]
fn a_message_left_unread_by_a_send_loop_refutes_only_beside_a_dual() {
    // The candidate may send `n` for ever and never take the `m` the dual sent first.
    let sup = fsm("p", "q?m(). rec x. q!{n(). x, o(). end}");
    let sub = fsm("p", "rec x. q!{n(). x, o(). q?m(). end}");
    let search = against_dual(&sub, &sup, &Budget::default());
    let run = search.wrong_run().expect("an orphan left by choice");
    assert!(matches!(&run.kind, ViolationKind::Orphan { message, .. } if message.label == "m"));
    let escape = run.escape.as_ref().expect("the send loop");
    assert!(escape.lead_in.is_empty());
    let cycle: Vec<String> = escape.cycle.iter().map(ToString::to_string).collect();
    assert_eq!(cycle, ["p: q!n()"]);
    assert!(
        run.to_string().contains("(p: q!n()) repeated for ever"),
        "{run}"
    );
    assert!(replays_to_wrong_against_dual(&sub, &sup, &run.trace));
    assert!(!replays_to_wrong_against_dual(&sup, &sup, &run.trace));
    // Sends that must end in the receive are no escape: sending ahead is safe.
    let sup = fsm("p", "q?m(). q!a(). q!b(). end");
    let sub = fsm("p", "q!a(). q!b(). q?m(). end");
    let search = against_dual(&sub, &sup, &Budget::default());
    assert!(matches!(search, Search::Safe(_)), "{search:?}");
    // In a system the receiver's choices are its own to make later: no wrong run.
    let a = fsm("a", "b!m(). rec y. b?{n(). y, o(). end}");
    let b = fsm("b", "rec x. a!{n(). x, o(). a?m(). end}");
    let budget = Budget {
        max_configurations: 1000,
        max_queue: 4,
    };
    let found = find_wrong_run(&[a, b], &budget).unwrap();
    assert!(found.wrong_run().is_none(), "{found:?}");
}
