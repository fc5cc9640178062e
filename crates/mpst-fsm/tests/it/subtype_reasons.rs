//! Every [`Reason`] of a failed subtyping check, with the states, prefixes and paths
//! an explanation carries.

use mpst_fsm::subtype::{NotProved, Reason, Side, is_subtype};
use mpst_fsm::{Action, Fsm, LocalType, Message};

fn fsm(text: &str) -> Fsm {
    LocalType::parse(text).unwrap().to_fsm("r").unwrap()
}

fn rejects(sub: &str, sup: &str) -> NotProved {
    is_subtype(&fsm(sub), &fsm(sup), 10).expect_err("not a subtype")
}

fn render(actions: &[Action]) -> Vec<String> {
    actions.iter().map(ToString::to_string).collect()
}

#[test]
fn actions_left_unmatched_when_both_end() {
    let err = rejects("p!a(). q!c(). end", "q?b(). p!a(). end");
    assert_eq!(err.reason, Reason::PendingAtEnd);
    assert_eq!(render(&err.sub_prefix), ["q!c()"]);
    assert_eq!(render(&err.super_prefix), ["q?b()"]);
    assert_eq!(render(&err.sub_trace), ["p!a()", "q!c()"]);
    assert_eq!(render(&err.super_trace), ["q?b()", "p!a()"]);
    assert_eq!((err.sub_state, err.super_state), (2, 2));
    let text = err.to_string();
    assert!(text.contains("subtype path:   p!a() . q!c()"), "{text}");
}

#[test]
fn payload_sorts_must_agree() {
    let err = rejects("p!a(i32). end", "p!a(u32). end");
    match &err.reason {
        Reason::Mismatch { sub, sup } => {
            assert_eq!(sub.to_string(), "p!a(i32)");
            assert_eq!(sup.to_string(), "p!a(u32)");
        }
        other => panic!("{other:?}"),
    }
    // Payload names are documentation.
    assert!(is_subtype(&fsm("p!a(x: i32). end"), &fsm("p!a(y: i32). end"), 1).is_ok());
}

#[test]
fn two_sends_to_one_peer_keep_their_order() {
    let err = rejects("p!b(). p!a(). end", "p!a(). p!b(). end");
    assert!(matches!(err.reason, Reason::Mismatch { .. }), "{err}");
    // Sends to different peers may be swapped ([→B]).
    assert!(is_subtype(&fsm("q!b(). p!a(). end"), &fsm("p!a(). q!b(). end"), 1).is_ok());
    // So may receives from different peers ([→A]), but not from the same one.
    assert!(is_subtype(&fsm("q?b(). p?a(). end"), &fsm("p?a(). q?b(). end"), 1).is_ok());
    let err = rejects("p?b(). p?a(). end", "p?a(). p?b(). end");
    assert!(matches!(err.reason, Reason::Mismatch { .. }), "{err}");
}

#[test]
fn mixed_states_are_not_session_types() {
    let mut mixed = Fsm::new("r");
    let end = mixed.add_state();
    mixed
        .add_transition(0, Action::send("p", Message::new("a")), end)
        .unwrap();
    mixed
        .add_transition(0, Action::receive("p", Message::new("b")), end)
        .unwrap();
    let other = fsm("p!a(). end");
    let err = is_subtype(&mixed, &other, 5).unwrap_err();
    assert_eq!(
        err.reason,
        Reason::MixedState {
            side: Side::Sub,
            state: 0
        }
    );
    let err = is_subtype(&other, &mixed, 5).unwrap_err();
    assert_eq!(
        err.reason,
        Reason::MixedState {
            side: Side::Super,
            state: 0
        }
    );
    assert!(
        err.to_string()
            .contains("state 0 of the supertype both sends and receives")
    );
}

#[test]
fn a_failing_universal_branch_is_the_one_reported() {
    // [OO]: every send of the subtype needs a matching send of the supertype; `c` has
    // none, and that is what the explanation shows.
    let err = rejects("p!{a(). end, c(). end}", "p!{a(). end, b(). end}");
    assert_eq!(render(&err.sub_prefix), ["p!c()"]);
    assert!(matches!(err.reason, Reason::Mismatch { .. }), "{err}");
}

#[test]
fn the_furthest_existential_alternative_is_reported() {
    // [II]: the supertype's `p?b` needs some receive of the subtype. `a` (tried first)
    // fails at once against it; `b` matches and fails one step later on `q!y` against
    // `q!z`: the explanation follows `b`.
    let err = rejects("p?{a(). end, b(). q!y(). end}", "p?b(). q!z(). end");
    assert_eq!(render(&err.sub_trace), ["p?b()", "q!y()"], "{err}");
    assert!(matches!(err.reason, Reason::Mismatch { .. }), "{err}");
}

#[test]
fn the_bound_counts_visits_of_a_pair_on_one_path() {
    // Three extra sends ahead: the kernel's loop comes back before the prefixes settle.
    let kernel = "rec x. s!ready(). s?value(). t?ready(). t!value(). x";
    let sub = fsm(&format!(
        "s!ready(). s!ready(). s!ready(). s!ready(). {kernel}"
    ));
    let sup = fsm(kernel);
    let needed = (1..20)
        .find(|&v| is_subtype(&sub, &sup, v).is_ok())
        .unwrap();
    assert!(needed > 1);
    let err = is_subtype(&sub, &sup, needed - 1).unwrap_err();
    assert_eq!(err.reason, Reason::BoundReached { visits: needed - 1 });
    assert!(!err.sub_prefix.is_empty(), "{err}");
}

/// A random machine: up to 6 states, transitions with peers `p`/`q`, labels `a`/`b`,
/// both directions (mixed states included), some states unreachable.
fn machine() -> impl proptest::strategy::Strategy<Value = Fsm> {
    use proptest::prelude::*;
    (
        1..6usize,
        prop::collection::vec(
            (
                0..6usize,
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                0..6usize,
            ),
            0..12,
        ),
    )
        .prop_map(|(states, edges)| {
            let mut fsm = Fsm::new("r");
            for _ in 1..states {
                fsm.add_state();
            }
            for (from, q, send, b, to) in edges {
                let message = Message::new(if b { "b" } else { "a" });
                let peer = if q { "q" } else { "p" };
                let action = if send {
                    Action::send(peer, message)
                } else {
                    Action::receive(peer, message)
                };
                let _ = fsm.add_transition(from % states, action, to % states);
            }
            fsm
        })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    #[test]
    fn any_pair_of_machines_gets_an_answer(a in machine(), b in machine(), visits in 1..4usize) {
        let mixed = |m: &Fsm| (0..m.state_count()).any(|s| m.kind(s) == mpst_fsm::StateKind::Mixed);
        match is_subtype(&a, &b, visits) {
            Ok(stats) => proptest::prop_assert!(stats.pairs_explored >= 1),
            Err(e) => {
                proptest::prop_assert!(e.sub_state < a.state_count() && e.super_state < b.state_count());
                proptest::prop_assert!(!e.to_string().is_empty());
            }
        }
        // A machine without mixed states is its own subtype: the search may run out of
        // its budget before proving it (not proved), but no rule may fail on the pair
        // (`a_self_pair_that_exhausts_the_budget_is_not_proved_never_refuted`).
        if !mixed(&a) {
            match is_subtype(&a, &a, visits) {
                Ok(_) => {}
                Err(e) => proptest::prop_assert!(
                    matches!(e.reason, Reason::BudgetExhausted { .. }),
                    "{}\n{}",
                    a,
                    e
                ),
            }
        }
    }
}

/// Regression, named after what CI found (`any_pair_of_machines_gets_an_answer`, seed not
/// kept): a machine that sends in one state and receives from two peers in the others is
/// proved a subtype of itself with 1 and 2 visits, but with 3 the proof search wanders
/// into anticipations and runs out of its budget. That is "not proved", never a
/// refutation: reflexivity may go unproved within a budget, it must never be refuted.
#[test]
fn a_self_pair_that_exhausts_the_budget_is_not_proved_never_refuted() {
    use mpst_fsm::subtype::{Options, check};
    let mut m = Fsm::new("r");
    m.add_state();
    m.add_state();
    let t = |m: &mut Fsm, from, action, to| m.add_transition(from, action, to).unwrap();
    t(&mut m, 0, Action::send("p", Message::new("a")), 1);
    t(&mut m, 0, Action::send("q", Message::new("a")), 0);
    t(&mut m, 1, Action::receive("p", Message::new("a")), 2);
    t(&mut m, 1, Action::receive("q", Message::new("a")), 0);
    t(&mut m, 1, Action::receive("p", Message::new("b")), 0);
    t(&mut m, 2, Action::receive("p", Message::new("a")), 0);
    t(&mut m, 2, Action::receive("q", Message::new("a")), 1);
    assert!(is_subtype(&m, &m, 1).is_ok());
    assert!(is_subtype(&m, &m, 2).is_ok());
    let err = is_subtype(&m, &m, 3).expect_err("the budget runs out with 3 visits");
    assert!(
        matches!(err.reason, Reason::BudgetExhausted { .. }),
        "{err}"
    );
    for visits in 1..4 {
        assert!(
            !check(&m, &m, &Options::new(visits)).is_refuted(),
            "visits {visits}"
        );
    }
}
