//! `do` calls that are not the last interaction. Of a protocol not being inlined: what
//! follows is appended to the callee's exits. Recursive: unsupported when the callee
//! can finish (the protocol would count calls); when it cannot, what follows is
//! unreachable, which is an error (as in scribble-java), located where it is.

use mpst_fsm::kmc::check_kmc;
use mpst_scribble::diagnostic::line_column;
use mpst_scribble::{ErrorKind, check, parse, project, project_all};

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

/// The `(line, column, kind)` of each diagnostic `source` gets.
fn rejected(source: &str) -> Vec<(usize, usize, ErrorKind)> {
    let diagnostics = parse(source).expect_err("rejected");
    diagnostics
        .iter()
        .map(|d| {
            let (line, column) = line_column(source, d.span.start);
            (line, column, d.kind)
        })
        .collect()
}

#[test]
fn a_clock_that_never_stops_is_a_loop() {
    let source = "global protocol Clock(role A, role B, role C) {
        choice at A {
            tick() from A to B;
            tick() from B to C;
            do Clock(A, B, C);
        } or {
            tock() from A to B;
            tock() from B to C;
            do Clock(A, B, C);
        }
    }";
    let protocols = accepted(source);
    let c = project(&protocols[0], "C").expect("projects").to_string();
    assert!(c.contains("tick") && c.contains("tock"), "{c}");
}

#[test]
fn interactions_after_a_recursive_call_that_never_finishes_are_unreachable() {
    // As scribble-java's reachability check: `late` can never be sent.
    let source = "global protocol Clock(role A, role B) {\n  tick() from A to B;\n  do Clock(A, B);\n  late() from A to B;\n}";
    assert_eq!(rejected(source), [(4, 3, ErrorKind::Unreachable)]);
    let d = &parse(source).unwrap_err()[0];
    assert!(d.message.contains("`do Clock` never finishes"), "{d:?}");
    assert_eq!(line_column(source, d.labels[0].span.start), (3, 3));
}

#[test]
fn unreachable_after_mutual_recursion_is_reported_once_per_place() {
    let source = "global protocol Ping(role A, role B) {\n  ping() from A to B;\n  do Pong(A, B);\n  never() from A to B;\n}\nglobal protocol Pong(role A, role B) {\n  pong() from B to A;\n  do Ping(A, B);\n  never() from B to A;\n}";
    assert_eq!(
        rejected(source),
        [
            (4, 3, ErrorKind::Unreachable),
            (9, 3, ErrorKind::Unreachable)
        ]
    );
}

#[test]
fn interactions_after_a_rec_that_never_exits_are_unreachable() {
    let source = "global protocol P(role A, role B) {\n  rec Z {\n    choice at A {\n      rec X { one() from A to B; continue X; }\n    } or {\n      rec Y { two() from A to B; continue Y; }\n    }\n  }\n  three() from A to B;\n}";
    assert_eq!(rejected(source), [(9, 3, ErrorKind::Unreachable)]);
}

#[test]
fn a_never_finishing_protocol_called_last_is_fine() {
    let source = "global protocol Clock(role A, role B) { tick() from A to B; do Clock(A, B); }
    global protocol Main(role A, role B) { hello() from A to B; do Clock(A, B); }";
    let protocols = accepted(source);
    let b = project(&protocols[1], "B").expect("projects").to_string();
    assert!(b.contains("hello") && b.contains("tick"), "{b}");
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

#[test]
fn the_consensus_lock_with_retries_inside_its_own_recursion_is_unsupported() {
    // The shape of the consensus "Clock" lock (nuscr examples/consensus): a retry
    // re-runs the protocol with the roles rotated and then goes on with the rest, so
    // each pending retry adds a `rel` at the end: a^n ... rel^n, not finite-state.
    let source = "global protocol Lock(role A, role B, role C) {
  req() from A to B;
  req() from A to C;
  choice at B { ack() from B to A; } or { do Lock(B, A, C); }
  choice at C { ack() from C to A; } or { do Lock(C, A, B); }
  rel() from A to B;
  rel() from A to C;
}";
    let found = rejected(source);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|(line, _, kind)| *kind == ErrorKind::Unsupported && [4, 5].contains(line)),
        "{found:?}"
    );
}
