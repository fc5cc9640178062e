//! Recursive `do` calls that are not the last interaction: accepted when the callee can
//! never finish (what follows is unreachable, so the call is a loop back), rejected as
//! unsupported with a located diagnostic when it can (the protocol would count calls).

use mpst_fsm::kmc::check_kmc;
use mpst_scribble::diagnostic::line_column;
use mpst_scribble::{check, parse, project, project_all, ErrorKind};

/// Parses `source`, checks every protocol and asserts its projections are 2-MC.
fn accepted(source: &str) -> Vec<mpst_scribble::GlobalProtocol> {
    let protocols = parse(source).unwrap_or_else(|d| panic!("{source}: {d:?}"));
    for protocol in &protocols {
        assert!(check(protocol).is_empty(), "{:?}", check(protocol));
        let fsms: Vec<_> = project_all(protocol)
            .expect("projects")
            .into_iter()
            .map(|p| p.fsm)
            .collect();
        let report = check_kmc(&fsms, 2).expect("checks");
        assert!(report.is_kmc(), "{}: {report:?}", protocol.name.text);
    }
    protocols
}

#[test]
fn clock_that_never_stops_drops_what_follows_its_recursive_call() {
    // `Clock` never finishes, so `late` can never be sent: the call loops back.
    let source = "global protocol Clock(role A, role B) {
        tick() from A to B;
        do Clock(A, B);
        late() from A to B;
    }";
    let protocols = accepted(source);
    let b = project(&protocols[0], "B").expect("projects").to_string();
    assert!(b.contains("tick"), "{b}");
    assert!(!b.contains("late"), "unreachable `late` survived: {b}");
}

#[test]
fn clock_whose_choices_all_recurse_is_a_loop() {
    let source = "global protocol Clock(role A, role B, role C) {
        choice at A {
            tick() from A to B;
            tick() from B to C;
            do Clock(A, B, C);
            unreachable() from C to A;
        } or {
            tock() from A to B;
            tock() from B to C;
            do Clock(A, B, C);
        }
        also_unreachable() from A to C;
    }";
    let protocols = accepted(source);
    let c = project(&protocols[0], "C").expect("projects").to_string();
    assert!(c.contains("tick") && c.contains("tock"), "{c}");
    assert!(!c.contains("unreachable"), "{c}");
}

#[test]
fn mutually_recursive_clocks_that_never_stop_are_accepted() {
    let source = "global protocol Ping(role A, role B) {
        ping() from A to B;
        do Pong(A, B);
        never() from A to B;
    }
    global protocol Pong(role A, role B) {
        pong() from B to A;
        do Ping(A, B);
        never() from B to A;
    }";
    let protocols = accepted(source);
    let a = project(&protocols[0], "A").expect("projects").to_string();
    assert!(
        a.contains("ping") && a.contains("pong") && !a.contains("never"),
        "{a}"
    );
}

#[test]
fn a_non_tail_call_of_a_finishing_recursive_protocol_is_still_inlined_from_outside() {
    // Not recursive at the call site: what follows is appended to `Clock`'s exit.
    let source = "global protocol Clock(role A, role B) {
        choice at A { tick() from A to B; do Clock(A, B); } or { stop() from A to B; }
    }
    global protocol Main(role A, role B) { do Clock(A, B); done() from B to A; }";
    let protocols = accepted(source);
    let b = project(&protocols[1], "B").expect("projects").to_string();
    assert!(b.contains("done"), "{b}");
}

#[test]
fn non_tail_recursive_call_of_a_finishing_protocol_is_unsupported_where_it_is() {
    let cases = [
        // a^n stop b^n: counts.
        (
            "global protocol P(role A, role B) {\n  choice at A {\n    a() from A to B;\n    do P(A, B);\n    b() from A to B;\n  } or {\n    stop() from A to B;\n  }\n}",
            vec![(4, 5)],
        ),
        // Through a mutual recursion, and with what follows the choice.
        (
            "global protocol P(role A, role B) {\n  choice at A {\n    a() from A to B;\n    do Q(A, B);\n  } or {\n    stop() from A to B;\n  }\n  after() from B to A;\n}\nglobal protocol Q(role A, role B) { q() from A to B; do P(A, B); }",
            // Both calls are recursive and not last, seen from `Q` and from `P`.
            vec![(4, 5), (10, 54)],
        ),
    ];
    for (source, places) in cases {
        let diagnostics = parse(source).expect_err("rejected");
        let found: Vec<_> = diagnostics
            .iter()
            .map(|d| line_column(source, d.span.start))
            .collect();
        assert_eq!(found, places, "{diagnostics:?}");
        for d in &diagnostics {
            assert_eq!(d.kind, ErrorKind::Unsupported);
            assert!(d.message.contains("can finish"), "{}", d.message);
            assert!(d.notes.iter().any(|n| n.contains("finite-state")), "{d:?}");
        }
    }
}
