//! `LocalType::parse`, the notation the subtyping tests are written in: it never
//! panics, reads back what `Display` prints, and reports where the input went wrong.

use mpst_fsm::{Direction, LocalType, Message, Payload};
use proptest::prelude::*;

/// Random closed local types over a few peers, labels and sorts.
fn local_type() -> impl Strategy<Value = LocalType> {
    let leaf = prop_oneof![Just(LocalType::End), Just(LocalType::var("t"))];
    leaf.prop_recursive(5, 32, 3, |inner| {
        prop_oneof![
            (
                any::<bool>(),
                prop::sample::select(vec!["p", "q", "r2"]),
                prop::collection::vec(
                    (
                        prop::sample::select(vec!["a", "b", "c_1"]),
                        prop::collection::vec(
                            (
                                prop::option::of(Just("x")),
                                prop::sample::select(vec!["i32", "u64"])
                            ),
                            0..3
                        ),
                        inner.clone()
                    ),
                    1..4
                )
            )
                .prop_map(|(send, peer, branches)| {
                    let mut seen = Vec::new();
                    let branches = branches
                        .into_iter()
                        .filter(|(l, _, _)| {
                            let fresh = !seen.contains(l);
                            seen.push(*l);
                            fresh
                        })
                        .map(|(l, ps, cont)| {
                            let payloads = ps
                                .into_iter()
                                .map(|(n, ty)| match n {
                                    Some(n) => Payload::named(n, ty),
                                    None => Payload::new(ty),
                                })
                                .collect();
                            (Message::with_payloads(l, payloads), cont)
                        })
                        .collect();
                    LocalType::Choice {
                        direction: if send {
                            Direction::Send
                        } else {
                            Direction::Receive
                        },
                        peer: peer.to_string(),
                        branches,
                    }
                }),
            inner.prop_map(|body| LocalType::rec("t", body)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn display_reads_back(t in local_type()) {
        let text = t.to_string();
        prop_assert_eq!(LocalType::parse(&text), Ok(t), "{}", text);
    }

    #[test]
    fn never_panics_and_errors_point_into_the_input(input in "[ a-z!?{}().,:µ\n]{0,40}") {
        if let Err(e) = LocalType::parse(&input) {
            prop_assert!(e.offset <= input.len());
            prop_assert!(input.is_char_boundary(e.offset));
            prop_assert!(e.line >= 1 && e.column >= 1);
            prop_assert!(e.message.contains("expected"), "{}", e.message);
        }
    }
}

#[test]
fn the_paper_notation_reads() {
    let t = LocalType::parse("µt. c!{add. a?add. t, sub. a?add. t}").unwrap();
    assert_eq!(
        t.to_string(),
        "rec t. c!{add(). a?add(). t, sub(). a?add(). t}"
    );
    let fsm = t.to_fsm("b").unwrap();
    assert_eq!((fsm.state_count(), fsm.transition_count()), (3, 4));
}

#[test]
fn errors_say_what_was_expected_where() {
    let err = LocalType::parse("rec t. p!{a(). t,\n b(). end").unwrap_err();
    assert_eq!((err.line, err.column), (2, 10));
    assert_eq!(err.message, "expected `}`, found the end of the input");
    let err = LocalType::parse("p!a(i32 i32). end").unwrap_err();
    assert_eq!(err.to_string(), "1:9: expected `,` or `)`, found `i`");
    let err = LocalType::parse("p#a. end").unwrap_err();
    assert_eq!(err.column, 2);
}
