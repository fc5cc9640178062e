//! The shapes of the protocols in the `errors` folders of nuscr's examples and in the
//! `bad` folders of scribble-java's tests, written anew (other roles, labels and
//! layout): every one is still rejected, with the kind of error expected.
//!
//! Where the kind depends on work under way (choices whose branches go to different
//! receivers are unsupported today; once supported, merging must reject these shapes),
//! the row lists both kinds.

use mpst_scribble::{ErrorKind, check, parse};

use ErrorKind::{Syntax, UndirectedChoice, Unmergeable, Unreachable, Unsupported};

/// `(name, source, kinds)`: the first diagnostic must be of one of `kinds`.
const CASES: &[(&str, &str, &[ErrorKind])] = &[
    // nuscr errors/MissingParticipant: a role present in one branch only.
    (
        "nuscr_missing_participant",
        "global protocol P(role Ask, role Ans, role Log) {
            choice at Ask { ping() from Ask to Ans; }
            or { pong() from Ask to Ans; note() from Ask to Log; }
        }",
        &[Unmergeable],
    ),
    // nuscr errors/Scratch1: two branches that start with the same message.
    (
        "nuscr_two_branches_same_label",
        "global protocol P(role Cl, role Sv) {
            rec Again {
                hello() from Cl to Sv;
                choice at Cl { req(i32) from Cl to Sv; res(i32) from Sv to Cl; continue Again; }
                or { quit() from Cl to Sv; ack() from Cl to Sv; }
                or { quit() from Cl to Sv; ack() from Cl to Sv; }
            }
        }",
        &[UndirectedChoice],
    ),
    // nuscr errors/ClockTR: a lock whose retries recurse with the roles rotated.
    (
        "nuscr_rotating_lock",
        "global protocol Ring(role X, role Y, role Z) {
            want() from X to Y;
            want() from X to Z;
            choice at Y {
                grant() from Y to X;
                choice at Z { grant() from Z to X; free() from X to Y; free() from X to Z; }
                or { do Ring(Z, X, Y); }
            } or { do Ring(Y, X, Z); }
        }",
        &[Unmergeable],
    ),
    // scribble-java bad/reach/globals/gdo/Test01a: after a call that never returns.
    (
        "sj_reach_after_recursive_do",
        "global protocol Beat(role P, role Q) { pulse() from P to Q; do Beat(P, Q); after() from P to Q; }",
        &[Unreachable],
    ),
    // scribble-java bad/reach/globals/gdo/Test06a: after a call of a protocol whose
    // every path ends in another that never returns.
    (
        "sj_reach_after_never_ending_callee",
        "global protocol Up(role P, role Q) {
            choice at P { up() from P to Q; do Up(P, Q); do Spin(P, Q); } or { do Spin(P, Q); }
        }
        global protocol Spin(role S, role T) { spin() from S to T; do Spin(S, T); }",
        &[Unreachable],
    ),
    // scribble-java bad/reach/globals/grecursion/Recursion17c: after a loop whose
    // branches both loop forever.
    (
        "sj_reach_after_endless_loops",
        "global protocol P(role P, role Q) {
            rec Outer { choice at P { rec L { left() from P to Q; continue L; } }
                        or { rec R { right() from P to Q; continue R; } } }
            done() from P to Q;
        }",
        &[Unreachable],
    ),
    // scribble-java bad/reach/globals/grecursion/Recursion01b: after `continue`.
    (
        "sj_reach_after_continue",
        "global protocol P(role P, role Q) { rec L { a() from P to Q; continue L; b() from P to Q; } }",
        &[Syntax],
    ),
    // scribble-java bad/reach/globals/gchoice/Test01: an empty branch.
    (
        "sj_empty_branch",
        "global protocol P(role A, role B, role C) {
            rec L { choice at A { x() from A to B; y() from B to A; continue L; } or { } }
            z() from A to B;
            w() from B to C;
        }",
        &[Unmergeable],
    ),
    // scribble-java bad/safety/deadlock/Test01: B waits forever in one branch.
    (
        "sj_deadlock",
        "global protocol P(role A, role B, role C) {
            rec L { choice at A { one() from A to B; continue L; } or { two() from A to C; } }
        }",
        &[Unsupported, Unmergeable],
    ),
    // scribble-java bad/safety/orphan/twoparty/Test01: one label for two branches.
    (
        "sj_orphan",
        "global protocol P(role A, role B) {
            rec L { choice at A { m() from A to B; continue L; } or { m() from A to B; } }
        }",
        &[UndirectedChoice],
    ),
    // scribble-java bad/safety/stuckmsg/threeparty/Test01: a message left in a queue.
    (
        "sj_stuck_message",
        "global protocol P(role A, role B, role C) {
            rec L {
                go() from A to B;
                choice at A { on() from A to C; continue L; }
                or { go() from A to B; go() from A to C; }
            }
        }",
        &[Unsupported, Unmergeable, UndirectedChoice],
    ),
    // scribble-java bad/liveness/roleprog/Test02: a role starved by an endless branch.
    (
        "sj_role_starved",
        "global protocol P(role A, role B, role C) {
            start() from A to B;
            choice at B { rec L { tick() from B to C; continue L; } }
            or { stop() from B to C; }
            reply() from C to A;
        }",
        &[Unmergeable],
    ),
];

#[test]
fn error_corpus_shapes_are_rejected_with_the_expected_kind() {
    let mut wrong = Vec::new();
    for (name, source, kinds) in CASES {
        let first = match parse(source) {
            Err(diagnostics) => Some(diagnostics[0].kind),
            Ok(protocols) => protocols
                .iter()
                .find_map(|p| check(p).first().map(|d| d.kind)),
        };
        match first {
            Some(kind) if kinds.contains(&kind) => {}
            other => wrong.push(format!("{name}: expected one of {kinds:?}, got {other:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
