//! Malformed DOT inputs: every error says where (line, column, byte span) and what was
//! expected.

use mpst_fsm::format::{DotError, parse_dot};

/// Parses `input`, which must fail, and checks the position and message.
fn fails(input: &str, line: usize, column: usize, needle: &str) -> DotError {
    let err = match parse_dot(input) {
        Ok(fsms) => panic!("accepted {input:?} as {fsms:?}"),
        Err(err) => err,
    };
    assert_eq!(
        (err.line, err.column),
        (line, column),
        "position of {:?} in {input:?}",
        err.message
    );
    assert!(
        err.message.contains(needle),
        "message {:?} should contain {needle:?}",
        err.message
    );
    assert!(err.offset + err.length <= input.len());
    assert_eq!(err.span(), err.offset..err.offset + err.length);
    err
}

#[test]
fn empty_input() {
    fails("", 1, 1, "expected `digraph`, found end of input");
    fails("  // only a comment\n", 2, 1, "expected `digraph`");
}

#[test]
fn missing_role_name() {
    fails("digraph {\n}", 1, 9, "expected the role name");
}

#[test]
fn undirected_graphs_and_edges() {
    fails("graph G { a -- b }", 1, 1, "expected `digraph`");
    let err = fails("digraph A { 0 -- 1 }", 1, 15, "expected `->`");
    assert_eq!(err.length, 2);
}

#[test]
fn edge_without_label() {
    fails(
        "digraph A {\n  0 -> 1;\n}",
        2,
        3,
        "the edge `0 -> 1` has no label",
    );
    fails(
        "digraph A {\n  0 -> 1 [color=red];\n}",
        2,
        3,
        "expected `[label=",
    );
}

#[test]
fn malformed_label_points_inside_the_string() {
    let input = "digraph A {\n  0 -> 1 [label=\"B#m()\"];\n}";
    let err = fails(input, 2, 19, "expected `!` (send) or `?` (receive)");
    assert_eq!(&input[err.span()], "#");
    assert_eq!(
        err.to_string(),
        "2:19: in the label `\"B#m()\"`: expected `!` (send) or `?` (receive) after the peer `B`, found `#`"
    );
    // After an escaped quote the column still points at the right character.
    let input = "digraph A { 0 -> 1 [label=\"B!m(\\\"x\\\")\"] }";
    let err = fails(input, 1, 32, "unexpected `\\\"` in the payload sort");
    assert_eq!(&input[err.span()], "\\\"");
}

#[test]
fn unclosed_payload_list_counts_columns_in_characters() {
    let input = "digraph Ä { 0 -> 1 [label=\"B!m(\"] }";
    let err = fails(input, 1, 31, "expected `)` to close this payload list");
    assert_eq!(err.offset, 31);
    assert_eq!(&input[err.span()], "(");
}

#[test]
fn refinements_are_unsupported() {
    fails(
        "digraph A { 0 -> 1 [label=\"B!m(n: int{n > 0})\"] }",
        1,
        38,
        "refinement types are not supported",
    );
    fails(
        "digraph A { 0 -> 1 [label=\"B?m()<x: int>\"] }",
        1,
        33,
        "refinement annotations are not supported",
    );
}

#[test]
fn unterminated_string_and_comment() {
    fails(
        "digraph A {\n  0 -> 1 [label=\"B!m()];\n}",
        2,
        17,
        "unterminated string",
    );
    fails("/* x\ndigraph A {}", 1, 1, "unterminated comment");
}

#[test]
fn missing_closing_brace() {
    fails(
        "digraph A {\n  0;\n",
        3,
        1,
        "expected `}` to close digraph `A` opened on line 1, found end of input",
    );
}

#[test]
fn unclosed_attribute_list() {
    fails(
        "digraph A { 0 -> 1 [label=\"B!m()\" }",
        1,
        35,
        "expected an attribute name or `]`, found `}`",
    );
}

#[test]
fn nondeterministic_state() {
    fails(
        "digraph A {\n 0 -> 1 [label=\"B!m()\"];\n 0 -> 2 [label=\"B!m(i32)\"];\n}",
        3,
        16,
        "state `0` already has a transition `B!m`",
    );
}

#[test]
fn self_communication() {
    fails(
        "digraph A { 0 -> 1 [label=\"A!m()\"]; }",
        1,
        27,
        "communicates with `A` itself",
    );
}

#[test]
fn unsupported_dot_features() {
    fails(
        "digraph A { subgraph cluster { 0 } }",
        1,
        13,
        "subgraphs are not supported",
    );
    fails("digraph A { 0:n -> 1 [label=\"B!m()\"] }", 1, 14, "ports");
    fails("digraph A { <b>x</b> }", 1, 13, "HTML-like strings");
}

#[test]
fn stray_characters_and_tokens() {
    fails(
        "digraph A { 0 -> 1 [label=\"B!m()\"] @ }",
        1,
        36,
        "unexpected character `@`",
    );
    fails(
        "digraph A { 0 -> ; }",
        1,
        18,
        "expected a target state after `->`, found `;`",
    );
    fails("digraph A { ] }", 1, 13, "expected a state, an edge");
    fails("digraph A { } }", 1, 15, "expected `digraph`, found `}`");
}

#[test]
fn duplicate_digraphs_in_one_input_are_located() {
    let input = "digraph A {\n  0 -> 1 [label=\"B!m()\"];\n}\n\ndigraph B { }\n  digraph A { }\n";
    fails(
        input,
        6,
        3,
        "two digraphs are named `A` (the first on line 1)",
    );
}
