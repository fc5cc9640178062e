//! Problems found after reading DOT are located: mixed states, duplicate digraphs (in
//! one input and across inputs) and actions whose peer no machine plays.

use mpst_fsm::format::{DotError, LocatedFsm, check_system, parse_dot, parse_dot_located};
use mpst_fsm::ident::SortTable;

/// `line:column` of byte `offset` in `input`.
fn at(input: &str, offset: usize) -> (usize, usize) {
    let e = DotError::at(input, offset, 0, "");
    (e.line, e.column)
}

fn read(input: &str) -> Vec<LocatedFsm> {
    parse_dot_located(input, false, &SortTable::NONE).expect("reads")
}

#[test]
fn located_reading_keeps_digraph_state_and_label_positions() {
    let input = "digraph A {\n  s0 -> s1 [label=\"B!m()\"];\n  s1 -> s0 [label=\"B?n()\"];\n}\n";
    let machines = read(input);
    assert_eq!(machines[0].fsm, parse_dot(input).unwrap()[0]);
    let spans = &machines[0].spans;
    assert_eq!(&input[spans.digraph.clone()], "A");
    let (name, first) = spans.state(1).expect("state 1");
    assert_eq!((name, at(input, first.start)), ("s1", (2, 9)));
    let label = spans.transition(1, 0).expect("s1's transition");
    assert_eq!(&input[label.clone()], "\"B?n()\"");
    assert_eq!(at(input, label.start), (3, 19));
}

#[test]
fn dot_mixed_state_is_located() {
    let input = "digraph A {\n  0 -> 1 [label=\"B!m()\"];\n  1 -> 2 [label=\"B!x()\"];\n  1 -> 2 [label=\"B?y()\"];\n}\n";
    let machines = read(input);
    let (state, name, span) = machines[0].mixed_state().expect("a mixed state");
    assert_eq!((state, name), (1, "1"));
    assert_eq!(at(input, span.start), (2, 8), "its first mention");
    let fine = read("digraph A { 0 -> 1 [label=\"B!m()\"]; }");
    assert_eq!(fine[0].mixed_state(), None);
}

#[test]
fn duplicate_digraphs_in_one_input_are_located_with_the_first() {
    let input = "digraph A { 0 -> 1 [label=\"B!m()\"]; }\n\ndigraph A { }\n";
    let err = parse_dot_located(input, true, &SortTable::NONE).unwrap_err();
    assert_eq!((err.line, err.column), (3, 1), "{err}");
    assert!(
        err.message
            .contains("two digraphs are named `A` (the first on line 1)"),
        "{err}"
    );
}

#[test]
fn duplicate_digraphs_across_inputs_are_located_in_both() {
    let a = "digraph A { 0 -> 1 [label=\"B!m()\"]; }\n";
    let b = "digraph B { 0 -> 1 [label=\"A?m()\"]; }\n\n  digraph A { }\n";
    let (ma, mb) = (read(a), read(b));
    let machines: Vec<&LocatedFsm> = ma.iter().chain(&mb).collect();
    let err = check_system(&machines, true).unwrap_err();
    assert_eq!(err.machine, 2);
    assert_eq!(at(b, err.span.start), (3, 11), "{err:?}");
    assert!(
        err.message.contains("second digraph for role `A`"),
        "{err:?}"
    );
    let (first, span, _) = err.related.expect("points at the first");
    assert_eq!((first, at(a, span.start)), (0, (1, 9)));
}

#[test]
fn duplicate_role_names_across_inputs_are_refused_even_when_open() {
    let (ma, mb) = (read("digraph A { }"), read("digraph \"A\" { }"));
    let machines: Vec<&LocatedFsm> = ma.iter().chain(&mb).collect();
    assert!(check_system(&machines, false).is_err());
}

#[test]
fn kmc_unknown_peer_is_located_at_its_label() {
    let a = "digraph A {\n  0 -> 1 [label=\"B!m()\"];\n  1 -> 2 [label=\"C!late()\"];\n}\n";
    let b = "digraph B { 0 -> 1 [label=\"A?m()\"]; }\n";
    let (ma, mb) = (read(a), read(b));
    let machines: Vec<&LocatedFsm> = ma.iter().chain(&mb).collect();
    let err = check_system(&machines, true).unwrap_err();
    assert_eq!(err.machine, 0);
    assert_eq!(at(a, err.span.start), (3, 17), "{err:?}");
    assert!(err.message.contains("talks to `C`"), "{err:?}");
    assert!(
        err.message.contains("expected one of the roles A, B"),
        "{err:?}"
    );
    // Not closed (subtyping compares one role at a time): no peer is required.
    assert!(check_system(&machines, false).is_ok());
}
