//! Well-formedness: one malformed protocol per error class, with its kind and location.

use crate::parse_common::assert_projections;
use mpst_fsm::Message;
use mpst_scribble::diagnostic::line_column;
use mpst_scribble::wf::unused_roles;
use mpst_scribble::{Diagnostic, ErrorKind, Global, GlobalProtocol, check, parse, project};
use mpst_scribble::{Name, Span};

/// The single protocol of `source`.
fn one(source: &str) -> GlobalProtocol {
    let mut protocols = parse(source).unwrap_or_else(|e| panic!("does not parse: {e:?}"));
    assert_eq!(protocols.len(), 1);
    protocols.remove(0)
}

/// The diagnostics of `source` as `line:column: kind`.
fn errors(source: &str) -> Vec<(usize, usize, ErrorKind)> {
    check(&one(source))
        .iter()
        .map(|d| {
            let (l, c) = line_column(source, d.span.start);
            (l, c, d.kind)
        })
        .collect()
}

fn first(source: &str) -> Diagnostic {
    check(&one(source)).into_iter().next().expect("an error")
}

#[test]
fn reflexive_message() {
    let src = "global protocol P(role A, role B) {\n  x() from A to B;\n  y() from B to B;\n}\n";
    assert_eq!(errors(src), vec![(3, 3, ErrorKind::ReflexiveMessage)]);
    assert!(first(src).message.contains("`B` sends a message to itself"));
}

#[test]
fn unguarded_recursion_variable() {
    let src = "global protocol P(role A, role B) {\n  rec X {\n    continue X;\n  }\n}\n";
    assert_eq!(errors(src), vec![(3, 14, ErrorKind::UnguardedVariable)]);
    let d = first(src);
    assert_eq!(line_column(src, d.labels[0].span.start), (2, 7));
}

#[test]
fn unguarded_through_a_nested_recursion() {
    let src = "global protocol P(role A, role B) {\n  rec X {\n    rec Y {\n      continue X;\n    }\n  }\n}\n";
    assert_eq!(errors(src), vec![(4, 16, ErrorKind::UnguardedVariable)]);
}

#[test]
fn choice_branch_reaching_continue_without_interaction() {
    let src = "global protocol P(role A, role B) {\n  rec X {\n    choice at A {\n      a() from A to B;\n      continue X;\n    } or {\n      continue X;\n    }\n  }\n}\n";
    assert_eq!(errors(src), vec![(7, 16, ErrorKind::UnguardedVariable)]);
}

#[test]
fn choice_not_directed_by_sender() {
    let src = "global protocol P(role A, role B) {\n  choice at A {\n    a() from A to B;\n  } or {\n    b() from B to A;\n  }\n}\n";
    assert_eq!(errors(src), vec![(5, 5, ErrorKind::UndirectedChoice)]);
    assert!(first(src).message.contains("from `B`"));
}

#[test]
fn choice_to_different_receivers_is_accepted() {
    // scribble-java's `1() from A to B; 2() from A to C;` or the other order.
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n    a() from A to C;\n  } or {\n    b() from A to C;\n    b() from A to B;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    let p = one(src);
    assert_projections(
        &p,
        &[
            ("A", "+{B!a(). C!a(). end, C!b(). B!b(). end}"),
            ("B", "A?{a(). end, b(). end}"),
            ("C", "A?{a(). end, b(). end}"),
        ],
    );
    let fsm = mpst_scribble::project_fsm(&p, "A").unwrap();
    let peers: Vec<&str> = fsm
        .transitions(fsm.initial())
        .iter()
        .map(|t| t.action.peer.as_str())
        .collect();
    assert_eq!(peers, ["B", "C"]);
}

#[test]
fn choice_to_different_receivers_in_a_loop_with_a_nested_choice() {
    // The nested choice at A flattens into one internal choice over three peers.
    let src = "global protocol P(role A, role B, role C, role D) {\n  rec X {\n    choice at A {\n      choice at A { b() from A to B; n() from A to C; } or { c() from A to C; n() from A to B; }\n      done() from A to D;\n      continue X;\n    } or {\n      stop() from A to D;\n      stop() from A to B;\n      stop() from A to C;\n    }\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    let p = one(src);
    assert_projections(
        &p,
        &[
            (
                "A",
                "rec X. +{B!b(). C!n(). D!done(). X, C!c(). B!n(). D!done(). X, D!stop(). B!stop(). C!stop(). end}",
            ),
            ("D", "rec X. A?{done(). X, stop(). end}"),
            ("B", "rec X. A?{b(). X, n(). X, stop(). end}"),
        ],
    );
}

#[test]
fn choice_to_different_receivers_that_each_role_learns_from_whichever_speaks_first() {
    // B learns `go` from A in one branch and `y` from C in the other; C learns `x` from
    // B or `stop` from A. Once refused (nuscr's merge needs one sender); now each waits
    // on both, and k-MC proves the system.
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    go() from A to B;\n    x() from B to C;\n  } or {\n    stop() from A to C;\n    y() from C to B;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    let p = one(src);
    assert_projections(
        &p,
        &[
            ("B", "&{A?go(). C!x(). end, C?y(). end}"),
            ("C", "&{B?x(). end, A?stop(). B!y(). end}"),
        ],
    );
}

#[test]
fn choice_to_different_receivers_with_a_bystander_that_cannot_learn() {
    let src = "global protocol P(role A, role B, role C, role D) {\n  choice at A {\n    l() from A to B;\n    t() from B to D;\n  } or {\n    r() from A to C;\n  }\n}\n";
    // B, C (each told in one branch only) and D (told by B in one branch only).
    assert_eq!(errors(src), vec![(6, 5, ErrorKind::Unmergeable); 3]);
    let messages: Vec<String> = check(&one(src)).into_iter().map(|d| d.message).collect();
    assert!(
        messages.iter().any(|m| m.contains("role `D`")),
        "{messages:?}"
    );
}

/// scribble-java's bad/safety shapes with a choice to different receivers: a loop that
/// only B hears of (B waits for ever once A picks C), and a loop whose other branch
/// leaves B a message it cannot tell apart from the next round's. Both are refused.
#[test]
fn choice_to_different_receivers_that_would_deadlock_or_leave_a_stuck_message() {
    let deadlock = "global protocol P(role A, role B, role C) {\n  rec X {\n    choice at A {\n      one() from A to B;\n      continue X;\n    } or {\n      two() from A to C;\n    }\n  }\n}\n";
    assert_eq!(errors(deadlock), vec![(7, 7, ErrorKind::Unmergeable); 2]);
    let stuck = "global protocol P(role A, role B, role C) {\n  rec X {\n    two() from A to B;\n    choice at A {\n      one() from A to C;\n      continue X;\n    } or {\n      two() from A to B;\n      two() from A to C;\n    }\n  }\n}\n";
    assert_eq!(errors(stuck), vec![(8, 7, ErrorKind::Unmergeable)]);
    assert!(first(stuck).message.contains("role `B`"));
}

#[test]
fn choice_to_different_receivers_with_one_label_twice() {
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n  } or {\n    a() from A to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![(5, 5, ErrorKind::UndirectedChoice)]);
    assert!(first(src).message.contains("label `a` starts two branches"));
}

#[test]
fn choice_with_duplicate_first_labels() {
    let src = "global protocol P(role A, role B) {\n  choice at A {\n    a() from A to B;\n  } or {\n    a() from A to B;\n    b() from B to A;\n  }\n}\n";
    assert_eq!(errors(src), vec![(5, 5, ErrorKind::UndirectedChoice)]);
    assert!(first(src).message.contains("label `a` starts two branches"));
}

#[test]
fn nested_choice_at_the_same_role_is_directed() {
    let src = "global protocol P(role A, role B) {\n  choice at A {\n    choice at A { a() from A to B; } or { b() from A to B; }\n  } or {\n    c() from A to B;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    assert_projections(&one(src), &[("B", "A?{a(). end, b(). end, c(). end}")]);
}

#[test]
fn unmergeable_third_party() {
    // C learns nothing in the first branch but must receive in the second.
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n  } or {\n    b() from A to B;\n    c() from B to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![(5, 5, ErrorKind::Unmergeable)]);
    let d = first(src);
    assert!(d.message.contains("role `C`"), "{}", d.message);
    assert_eq!(line_column(src, d.labels[0].span.start), (3, 5));
    assert!(d.notes[0].contains("B?c(). end"), "{:?}", d.notes);
    assert_eq!(
        project(&one(src), "C").unwrap_err().kind,
        ErrorKind::Unmergeable
    );
}

#[test]
fn different_senders_merge_into_an_offer() {
    // C learns the choice from whichever of B and A speaks first (scribble-java's rule:
    // the branches' first messages to C differ by sender and label).
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n    x() from B to C;\n  } or {\n    b() from A to B;\n    y() from A to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    assert_projections(&one(src), &[("C", "&{B?x(). end, A?y(). end}")]);
}

#[test]
fn a_race_between_senders_that_k_mc_refutes_is_refused() {
    // The merge gives C `&{B?x(). A?z(). end, A?z(). end}`, but in the first branch A's
    // `z` can overtake B's `x`: C ends and `x` is never read.
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    l() from A to B;\n    x() from B to C;\n    z() from A to C;\n  } or {\n    r() from A to B;\n    z() from A to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![(1, 17, ErrorKind::Unmergeable)]);
    let d = first(src);
    assert!(d.message.contains("k-MC does not prove"), "{}", d.message);
    assert!(
        d.notes.iter().any(|n| n.contains("never received")),
        "{:?}",
        d.notes
    );
    // Each role on its own still projects: only the system is unsafe.
    assert_projections(&one(src), &[("C", "&{B?x(). A?z(). end, A?z(). end}")]);
}

#[test]
fn receptions_from_one_sender_and_label_in_two_branches_still_merge_their_continuations() {
    // Same (sender, label) first: nuscr's rule, continuations merged.
    let src = "global protocol P(role A, role B, role C, role D) {\n  choice at A {\n    a() from A to B;\n    x() from B to C;\n    y() from B to C;\n    s() from A to D;\n    u() from D to C;\n  } or {\n    b() from A to B;\n    x() from B to C;\n    z() from B to C;\n    t() from A to D;\n    w() from D to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    assert_projections(
        &one(src),
        &[("C", "B?x(). B?{y(). D?u(). end, z(). D?w(). end}")],
    );
}

#[test]
fn unmergeable_same_label_different_sorts() {
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n    x(i32) from B to C;\n  } or {\n    b() from A to B;\n    x(bool) from B to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![(6, 5, ErrorKind::Unmergeable)]);
}

#[test]
fn mergeable_third_party_with_distinct_labels_merges_recursively() {
    let src = "global protocol P(role A, role B, role C) {\n  choice at A {\n    a() from A to B;\n    x() from B to C;\n    y() from B to C;\n  } or {\n    b() from A to B;\n    x() from B to C;\n    z() from B to C;\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    assert_projections(&one(src), &[("C", "B?x(). B?{y(). end, z(). end}")]);
}

#[test]
fn role_outside_a_loop_does_not_loop() {
    let src = "global protocol P(role A, role B, role C) {\n  start() from A to C;\n  rec X {\n    choice at A {\n      a() from A to B;\n      continue X;\n    } or {\n      b() from A to B;\n    }\n  }\n}\n";
    assert_eq!(errors(src), vec![]);
    assert_projections(
        &one(src),
        &[
            ("C", "A?start(). end"),
            ("B", "rec X. A?{a(). X, b(). end}"),
        ],
    );
}

#[test]
fn unused_role_is_accepted_and_listed() {
    let src = "global protocol P(role A, role B, role C) {\n  x() from A to B;\n}\n";
    assert_eq!(errors(src), vec![]);
    let p = one(src);
    let unused: Vec<&str> = unused_roles(&p).iter().map(|r| r.text.as_str()).collect();
    assert_eq!(unused, ["C"]);
    assert_projections(&p, &[("C", "end")]);
}

#[test]
fn unknown_role_for_projection() {
    let p = one("global protocol P(role A, role B) { x() from A to B; }");
    let d = project(&p, "Z").unwrap_err();
    assert_eq!(d.kind, ErrorKind::UnboundRole);
    assert!(d.notes[0].contains("`A`, `B`"), "{:?}", d.notes);
}

fn name(text: &str, at: usize) -> Name {
    Name::new(text, Span::new(at, at + text.len()))
}

fn msg(from: &str, to: &str, label: &str, at: usize, cont: Global) -> Global {
    Global::Message {
        from: name(from, at),
        to: name(to, at),
        message: Message::new(label),
        span: Span::new(at, at + 1),
        cont: Box::new(cont),
    }
}

/// Classes the parser normally reports itself, checked on hand-built global types.
#[test]
fn hand_built_unbound_names_and_duplicate_roles() {
    let p = GlobalProtocol {
        name: name("P", 0),
        roles: vec![name("A", 1), name("B", 2), name("A", 3)],
        body: msg("A", "Z", "x", 10, Global::Continue(name("X", 20))),
    };
    let kinds: Vec<(ErrorKind, usize)> = check(&p).iter().map(|d| (d.kind, d.span.start)).collect();
    assert_eq!(
        kinds,
        vec![
            (ErrorKind::DuplicateRole, 3),
            (ErrorKind::UnboundRole, 10),
            (ErrorKind::UnboundVariable, 20),
        ]
    );
    let empty = GlobalProtocol {
        name: name("P", 0),
        roles: vec![name("A", 1), name("B", 2)],
        body: Global::Choice {
            at: name("A", 5),
            branches: vec![],
            span: Span::new(4, 9),
        },
    };
    assert_eq!(check(&empty)[0].kind, ErrorKind::UndirectedChoice);
    assert_eq!(
        project(&empty, "B").unwrap_err().kind,
        ErrorKind::UndirectedChoice
    );
}

#[test]
fn several_errors_are_reported_together() {
    let src = "global protocol P(role A, role B) {\n  x() from A to A;\n  rec X {\n    continue X;\n  }\n}\n";
    assert_eq!(
        errors(src),
        vec![
            (2, 3, ErrorKind::ReflexiveMessage),
            (4, 14, ErrorKind::UnguardedVariable)
        ]
    );
}

/// `Choice11` with the exit led by the loop's own first message: B cannot tell the next
/// round from the exit (both start with `1`, then differ), even with the loop unfolded.
#[test]
fn loop_back_whose_next_round_starts_like_the_exit_is_unmergeable() {
    let src = "global protocol P(role A, role B, role C) {\n  rec X {\n    1() from A to B;\n    choice at A {\n      k() from A to C;\n      continue X;\n    } or {\n      1() from A to B;\n      2() from A to C;\n    }\n  }\n}\n";
    assert_eq!(errors(src), vec![(8, 7, ErrorKind::Unmergeable)]);
    let d = first(src);
    assert!(d.message.contains("role `B`"), "{}", d.message);
    assert!(
        d.notes.iter().any(|n| n.contains("continues as `X`")),
        "{:?}",
        d.notes
    );
}

/// `depth` nested `Choice11` loops, each inner one able to go back to the outer one.
fn nested_loop_backs(depth: usize) -> String {
    let mut s = String::from("global protocol P(role A, role B, role C) { ");
    for i in 0..depth {
        s.push_str(&format!("rec X{i} {{ a{i}() from A to B; choice at A {{ k{i}() from A to C; continue X{i}; }} or {{ e{i}() from A to B; "));
        if i > 0 {
            s.push_str(&format!("choice at A {{ j{i}() from A to C; continue X{}; }} or {{ f{i}() from A to B; f{i}() from A to C; ", i - 1));
        }
    }
    s.push_str("z() from A to C; ");
    for i in 0..depth {
        s.push_str(if i > 0 { "} } } " } else { "} } " });
    }
    s.push('}');
    s
}

/// Unfolding is bounded: a shallow nest is accepted; a deep one is answered (not
/// hung), refused with a note that this is a limit, not a proof of ill-formedness.
#[test]
fn nested_loop_backs_are_accepted_or_refused_at_the_unfolding_limit() {
    assert_eq!(errors(&nested_loop_backs(4)), vec![]);
    let deep = nested_loop_backs(40);
    let d = first(&deep);
    assert_eq!(d.kind, ErrorKind::Unmergeable);
    assert!(
        d.notes.iter().any(|n| n.contains("not proved")),
        "{:?}",
        d.notes
    );
}
