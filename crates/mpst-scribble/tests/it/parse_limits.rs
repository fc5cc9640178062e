//! The front end's limits: large or deep inputs are either handled without exhausting
//! the stack or rejected with a located diagnostic, never a crash.

use crate::parse_common;

use mpst_scribble::{ErrorKind, Global, parse};
use parse_common::parse_ok;

/// Consumes a lowered protocol without relying on a deep recursive drop.
fn dismantle(global: Global) -> usize {
    let mut next = Some(global);
    let mut steps = 0;
    while let Some(Global::Message { cont, .. }) = next {
        next = Some(*cont);
        steps += 1;
    }
    steps
}

#[test]
fn long_sequences_copied_into_branches_do_not_exhaust_the_stack() {
    let mut src = String::from("global protocol P(role A, role B) {\n");
    src.push_str("choice at A { l() from A to B; } or { r() from A to B; }\n");
    for i in 0..5_000 {
        src.push_str(&format!("m{i}(int) from A to B;\n"));
    }
    src.push('}');
    let mut protocols = parse_ok(&src);
    let Global::Choice { branches, .. } = &mut protocols[0].body else {
        panic!("not a choice")
    };
    for branch in branches.drain(..) {
        assert_eq!(dismantle(branch), 5_001);
    }
}

#[test]
fn expansions_past_the_budget_are_reported_not_attempted() {
    // 24 choices in a row: 2^24 paths once continuations are copied into branches.
    let mut src = String::from("global protocol Big(role A, role B) {\n");
    for _ in 0..24 {
        src.push_str("choice at A { l() from A to B; } or { r() from A to B; }\n");
    }
    src.push('}');
    let diagnostics = parse(&src).expect_err("too large");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].kind, ErrorKind::Unsupported);
    assert!(
        diagnostics[0].located(&src).starts_with("1:17: "),
        "{:?}",
        diagnostics[0]
    );

    // Each protocol calls the previous one twice: 2^20 messages.
    let mut src = String::from("global protocol P0(role A, role B) { m() from A to B; }\n");
    for i in 1..=20 {
        src.push_str(&format!(
            "global protocol P{i}(role A, role B) {{ do P{}(A, B); do P{}(B, A); }}\n",
            i - 1,
            i - 1
        ));
    }
    let diagnostics = parse(&src).expect_err("too large");
    assert!(diagnostics.iter().all(|d| d.kind == ErrorKind::Unsupported));
    assert!(!diagnostics.is_empty());
}

#[test]
fn very_long_sequences_are_reported_not_built() {
    let mut src = String::from("global protocol Long(role A, role B) {\n");
    for _ in 0..(mpst_scribble::syntax::MAX_DEPTH + 1) {
        src.push_str("m() from A to B;\n");
    }
    src.push('}');
    let diagnostics = parse(&src).expect_err("too deep");
    assert_eq!(diagnostics[0].kind, ErrorKind::Unsupported);
    assert!(
        diagnostics[0].message.contains("in a row"),
        "{}",
        diagnostics[0].message
    );
}

#[test]
fn deep_nesting_is_a_syntax_error_not_a_stack_overflow() {
    let depth = 10_000;
    let mut src = String::from("global protocol P(role A, role B) {\n");
    for _ in 0..depth {
        src.push_str("choice at A { ");
    }
    for _ in 0..depth {
        src.push_str("} ");
    }
    src.push('}');
    let diagnostics = parse(&src).expect_err("too deep");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].kind, ErrorKind::Syntax);
    assert!(diagnostics[0].message.contains("nested too deeply"));
}
