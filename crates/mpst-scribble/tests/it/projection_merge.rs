//! Projection details: merging through recursions, branches that start with `rec`,
//! state sharing, and protocols far longer than the call stack would allow naively.

use crate::parse_common::assert_projections;
use mpst_fsm::{Action, Message};
use mpst_scribble::generated::{message_count, rounds};
use mpst_scribble::{GlobalProtocol, check, parse, project, project_all, project_fsm};

fn one(source: &str) -> GlobalProtocol {
    let mut protocols = parse(source).unwrap_or_else(|e| panic!("does not parse: {e:?}"));
    protocols.remove(0)
}

#[test]
fn branch_starting_with_rec_is_unfolded_for_chooser_and_receiver() {
    let p = one("global protocol P(role A, role B) {
           choice at A { rec Y { a() from A to B; continue Y; } } or { b() from A to B; }
         }");
    assert_eq!(check(&p), vec![]);
    assert_projections(
        &p,
        &[
            ("B", "A?{a(). rec Y. A?a(). Y, b(). end}"),
            ("A", "B!{a(). rec Y. B!a(). Y, b(). end}"),
        ],
    );
    let fsm = project_fsm(&p, "B").unwrap();
    assert_eq!(fsm.state_count(), 3);
    // The loop: state 1 receives `a` and stays.
    let a = Action::receive("A", Message::new("a"));
    assert_eq!(fsm.transitions(0)[0].action, a);
    let looping = fsm.transitions(0)[0].target;
    assert_eq!(fsm.transitions(looping)[0].target, looping);
}

#[test]
fn recursions_on_the_same_variable_merge_by_their_bodies() {
    let p = one("global protocol P(role A, role B, role C) {
           choice at A {
             a() from A to B; rec Y { x() from B to C; continue Y; }
           } or {
             b() from A to B; rec Y { y() from B to C; continue Y; }
           }
         }");
    assert_eq!(check(&p), vec![]);
    assert_projections(&p, &[("C", "rec Y. B?{x(). Y, y(). Y}")]);
}

#[test]
fn a_recursion_merges_with_a_reception_by_unfolding() {
    let p = one("global protocol P(role A, role B, role C) {
           choice at A {
             a() from A to B; rec Y { x() from B to C; continue Y; }
           } or {
             b() from A to B; x() from B to C; z() from B to C;
           }
         }");
    assert_eq!(check(&p), vec![]);
    assert_projections(&p, &[("C", "B?x(). B?{x(). rec Y. B?x(). Y, z(). end}")]);
}

#[test]
fn what_follows_a_choice_is_one_state() {
    // The parser copies `done` into both branches; the FSM shares it.
    let p = one("global protocol P(role A, role B) {
           choice at A { a() from A to B; } or { b() from A to B; }
           done() from B to A;
         }");
    let fsm = project_fsm(&p, "A").unwrap();
    assert_eq!(fsm.state_count(), 3);
    assert_eq!(fsm.transition_count(), 3);
}

#[test]
fn equal_protocols_give_equal_fsms_whatever_the_branch_order() {
    let p = one("global protocol P(role A, role B) {
           choice at A { a() from A to B; x() from B to A; } or { b() from A to B; }
         }");
    let q = one("global protocol P(role A, role B) {
           choice at A { b() from A to B; } or { a() from A to B; x() from B to A; }
         }");
    for role in ["A", "B"] {
        assert_eq!(
            project_fsm(&p, role).unwrap(),
            project_fsm(&q, role).unwrap()
        );
    }
}

#[test]
fn generated_protocols_project_every_role() {
    for (n, r, d) in [(2, 1, 0), (3, 4, 2), (5, 10, 7), (8, 3, 20)] {
        let p = rounds(n, r, d);
        assert_eq!(check(&p), vec![]);
        let all = project_all(&p).unwrap();
        assert_eq!(all.len(), n);
        let m = message_count(&p.body);
        for projection in all {
            // Linear size: at most one state per message plus the initial one.
            assert!(projection.fsm.state_count() <= m + 1);
            assert!(projection.fsm.transition_count() >= r);
        }
    }
}

#[test]
fn long_runs_of_messages_do_not_exhaust_the_stack() {
    // 20 000 messages in a row: checking and projecting to an FSM walk runs of
    // messages in loops. (A `LocalType` that deep would overflow a test thread's stack
    // when dropped, so the local type is checked on a shorter run.)
    let p = rounds(3, 1, 20_000);
    assert_eq!(check(&p), vec![]);
    let fsm = project_fsm(&p, "R1").unwrap();
    assert_eq!(fsm.state_count(), 13_338);
    let short = rounds(3, 1, 1_000);
    let local = project(&short, "R1").unwrap();
    assert!(matches!(local, mpst_fsm::LocalType::Rec(..)));
}

#[test]
fn deeply_nested_choices_project() {
    let p = rounds(3, 300, 1);
    assert_eq!(check(&p), vec![]);
    let fsm = project_fsm(&p, "R2").unwrap();
    assert!(fsm.state_count() > 300);
}

#[test]
fn long_common_runs_merge_without_recursion() {
    // C receives the same 20 000 messages in both branches, then `y` or `z`.
    use mpst_scribble::{Global, Name, Span};
    let name = |t: &str| Name::new(t, Span::default());
    let msg = |from: &str, to: &str, label: &str, cont: Global| Global::Message {
        from: name(from),
        to: name(to),
        message: Message::new(label),
        span: Span::default(),
        cont: Box::new(cont),
    };
    let branch = |first: &str, last: &str| {
        let mut g = msg("B", "C", last, Global::End);
        for _ in 0..20_000 {
            g = msg("B", "C", "x", g);
        }
        msg("A", "B", first, g)
    };
    let p = GlobalProtocol {
        name: name("Long"),
        roles: vec![name("A"), name("B"), name("C")],
        body: Global::Choice {
            at: name("A"),
            branches: vec![branch("a", "y"), branch("b", "z")],
            span: Span::default(),
        },
    };
    assert_eq!(check(&p), vec![]);
    let fsm = project_fsm(&p, "C").unwrap();
    assert_eq!(fsm.state_count(), 20_000 + 2);
    assert_eq!(fsm.transitions(20_000).len(), 2);
}
