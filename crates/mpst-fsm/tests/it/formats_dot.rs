//! DOT format: exact writer output, the dialects the reader accepts, and round trips.

use mpst_fsm::format::{parse_dot, parse_dot_with, write_dot};
use mpst_fsm::ident::SortTable;

/// A front end's table, as nuscr's output needs it.
const OCAML: SortTable = SortTable::new(&[("int", "i32")]);
use mpst_fsm::{Action, Fsm, LocalType, Message, Payload};

fn msg(label: &str) -> Message {
    Message::new(label)
}

fn value(ty: &str) -> Message {
    Message::with_payloads("value", vec![Payload::new(ty)])
}

/// The double-buffering kernel of the PPoPP paper (Fig. 4a):
/// `µx. s!ready. s?value(i32). t?ready. t!value(i32). x`.
fn kernel() -> Fsm {
    LocalType::rec(
        "x",
        LocalType::send(
            "s",
            msg("ready"),
            LocalType::receive(
                "s",
                value("i32"),
                LocalType::receive(
                    "t",
                    msg("ready"),
                    LocalType::send("t", value("i32"), LocalType::var("x")),
                ),
            ),
        ),
    )
    .to_fsm("k")
    .unwrap()
}

/// The optimised kernel (Fig. 4b, Appendix B): `s!ready. s!ready. µx. s!ready. s?value.
/// t?ready. t!value. x`.
fn optimised_kernel() -> Fsm {
    let body = kernel();
    let mut fsm = Fsm::new("k");
    let s1 = fsm.add_state();
    fsm.add_transition(0, Action::send("s", msg("ready")), s1)
        .unwrap();
    // s1 --s!ready--> the loop of `body`, copied with an offset.
    let offset = fsm.state_count();
    for _ in 0..body.state_count() {
        fsm.add_state();
    }
    fsm.add_transition(s1, Action::send("s", msg("ready")), offset + body.initial())
        .unwrap();
    for (source, t) in body.all_transitions() {
        fsm.add_transition(offset + source, t.action.clone(), offset + t.target)
            .unwrap();
    }
    fsm
}

#[test]
fn writes_the_kernel_with_its_initial_state_marked() {
    assert_eq!(
        write_dot(&kernel()),
        "digraph k {\n  0 [style=bold];\n  1;\n  2;\n  3;\n\
         \x20 0 -> 1 [label=\"s!ready()\"];\n\
         \x20 1 -> 2 [label=\"s?value(i32)\"];\n\
         \x20 2 -> 3 [label=\"t?ready()\"];\n\
         \x20 3 -> 0 [label=\"t!value(i32)\"];\n}\n"
    );
}

#[test]
fn writes_the_optimised_kernel_in_canonical_numbering() {
    assert_eq!(
        write_dot(&optimised_kernel()),
        "digraph k {\n  0 [style=bold];\n  1;\n  2;\n  3;\n  4;\n  5;\n\
         \x20 0 -> 1 [label=\"s!ready()\"];\n\
         \x20 1 -> 2 [label=\"s!ready()\"];\n\
         \x20 2 -> 3 [label=\"s!ready()\"];\n\
         \x20 3 -> 4 [label=\"s?value(i32)\"];\n\
         \x20 4 -> 5 [label=\"t?ready()\"];\n\
         \x20 5 -> 2 [label=\"t!value(i32)\"];\n}\n"
    );
}

#[test]
fn writes_named_payloads_choices_and_quoted_roles() {
    let mut fsm = Fsm::new("my role");
    let a = fsm.add_state();
    let b = fsm.add_state();
    let add = Message::with_payloads(
        "add",
        vec![Payload::named("x", "i32"), Payload::named("y", "i32")],
    );
    fsm.add_transition(0, Action::receive("C", add), a).unwrap();
    fsm.add_transition(0, Action::receive("C", msg("quit")), b)
        .unwrap();
    fsm.add_transition(a, Action::send("C", value("i32")), 0)
        .unwrap();
    assert_eq!(
        write_dot(&fsm),
        "digraph \"my role\" {\n  0 [style=bold];\n  1;\n  2 [peripheries=2];\n\
         \x20 0 -> 1 [label=\"C?add(x: i32, y: i32)\"];\n\
         \x20 0 -> 2 [label=\"C?quit()\"];\n\
         \x20 1 -> 0 [label=\"C!value(i32)\"];\n}\n"
    );
}

#[test]
fn equal_behaviours_give_identical_output() {
    // The same kernel built with scrambled state numbers and an unreachable state.
    let mut fsm = Fsm::new("k");
    let junk = fsm.add_state();
    let a = fsm.add_state();
    let b = fsm.add_state();
    let c = fsm.add_state();
    fsm.add_transition(junk, Action::send("s", msg("lost")), junk)
        .unwrap();
    fsm.set_initial(c).unwrap();
    fsm.add_transition(c, Action::send("s", msg("ready")), b)
        .unwrap();
    fsm.add_transition(b, Action::receive("s", value("i32")), 0)
        .unwrap();
    fsm.add_transition(0, Action::receive("t", msg("ready")), a)
        .unwrap();
    fsm.add_transition(a, Action::send("t", value("i32")), c)
        .unwrap();
    assert_eq!(write_dot(&fsm), write_dot(&kernel()));
}

#[test]
fn reads_nuscr_output() {
    // As nuscr prints it: unquoted ids, `, ]`, sparse state numbers, comments, `int`.
    let input = "// projected by nuscr\n\
        digraph k {\n  0;\n  5;\n  6;\n  \n  \n\
        \x20 0 -> 5 [label=\"s!ready()\", ];\n\
        \x20 5 -> 6 [label=\"s?value(x: int)\", ];\n /* loop back */\n\
        \x20 6 -> 0 [label=\"t!value(int)\",\n            ];\n  \n  }\n";
    let fsms = parse_dot_with(input, &OCAML).unwrap();
    assert_eq!(fsms.len(), 1);
    let fsm = &fsms[0];
    assert_eq!(fsm.role(), "k");
    assert_eq!(fsm.state_count(), 3);
    assert_eq!(fsm.initial(), 0);
    let labels: Vec<String> = fsm
        .all_transitions()
        .map(|(_, t)| t.action.to_string())
        .collect();
    assert_eq!(labels, ["s!ready()", "s?value(x: i32)", "t!value(i32)"]);
    // Without a table, sorts are kept as written.
    let plain = parse_dot(input).unwrap();
    let labels: Vec<String> = plain[0]
        .all_transitions()
        .map(|(_, t)| t.action.to_string())
        .collect();
    assert_eq!(labels, ["s!ready()", "s?value(x: int)", "t!value(int)"]);
}

#[test]
fn reads_the_rumpsteak_dialect() {
    let input = "digraph \"S\" {\n    0;\n    1;\n\n    0 -> 1 [label=\"T?ready\"];\n    1 -> 0 [label=\"T!value(int)\"];\n}";
    let fsms = parse_dot_with(input, &OCAML).unwrap();
    let fsm = &fsms[0];
    assert_eq!(fsm.role(), "S");
    let mut expected = Fsm::new("S");
    let one = expected.add_state();
    expected
        .add_transition(0, Action::receive("T", msg("ready")), one)
        .unwrap();
    expected
        .add_transition(one, Action::send("T", value("i32")), 0)
        .unwrap();
    assert_eq!(fsm, &expected);
}

#[test]
fn reads_several_digraphs_and_ignores_attribute_statements() {
    let input = "strict digraph A { graph [rankdir=LR]; node [shape=circle]; rankdir = LR\n\
        \"0\" [label=\"start\", shape=doublecircle]; 0 -> 1 [color=red; label=\"B!m()\"] }\n\
        DiGraph B { edge [fontsize=10]\n 0 -> 1 -> 2 [label=\"A?m()\"] }";
    let fsms = parse_dot(input).unwrap();
    assert_eq!(fsms.len(), 2);
    assert_eq!(fsms[0].role(), "A");
    assert_eq!(fsms[0].transition_count(), 1);
    assert_eq!(fsms[1].role(), "B");
    // The chain gives every hop the same label.
    assert_eq!(fsms[1].transition_count(), 2);
    assert_eq!(fsms[1].state_count(), 3);
}

#[test]
fn initial_state_is_zero_or_the_first_mentioned() {
    // `0` is initial even when not written first.
    let fsms = parse_dot("digraph A { 3; 0; 0 -> 3 [label=\"B!m()\"]; }").unwrap();
    let fsm = &fsms[0];
    assert_eq!(
        fsm.transitions(fsm.initial())[0].action.to_string(),
        "B!m()"
    );
    // Without a state `0`, the first state mentioned is initial.
    let fsms =
        parse_dot("digraph A { q1 -> q2 [label=\"B!m()\"]; q2 -> q3 [label=\"B?n()\"]; }").unwrap();
    let fsm = &fsms[0];
    assert_eq!(
        fsm.transitions(fsm.initial())[0].action.to_string(),
        "B!m()"
    );
}

#[test]
fn round_trips_the_kernels() {
    for fsm in [kernel(), optimised_kernel()] {
        let text = write_dot(&fsm);
        let back = parse_dot(&text).unwrap();
        assert_eq!(back.len(), 1);
        assert!(back[0].is_isomorphic(&fsm), "{text}");
        // Named payloads survive too, and writing again is a fixed point.
        assert_eq!(write_dot(&back[0]), text);
    }
}

#[test]
fn a_role_that_does_nothing_round_trips() {
    let end = Fsm::new("idle");
    let text = write_dot(&end);
    assert_eq!(
        text,
        "digraph idle {\n  0 [style=bold, peripheries=2];\n}\n"
    );
    let back = parse_dot(&text).unwrap();
    assert_eq!(back, vec![end]);
    // An empty digraph is the same machine.
    assert_eq!(parse_dot("digraph idle {}").unwrap(), back);
}
