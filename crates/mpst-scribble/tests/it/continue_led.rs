//! `continue`-led choice branches: every shape a global type can express is accepted
//! (and projects to a 2-MC system), the ill-formed ones keep their diagnostics.

use mpst_fsm::kmc::check_kmc;
use mpst_scribble::diagnostic::line_column;
use mpst_scribble::{ErrorKind, check, parse, project, project_all};

fn accepted(name: &str, source: &str) -> mpst_scribble::GlobalProtocol {
    let mut protocols = parse(source).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let protocol = protocols.remove(0);
    assert!(
        check(&protocol).is_empty(),
        "{name}: {:?}",
        check(&protocol)
    );
    let fsms: Vec<_> = project_all(&protocol)
        .unwrap_or_else(|d| panic!("{name}: {d:?}"))
        .into_iter()
        .map(|p| p.fsm)
        .collect();
    let report = check_kmc(&fsms, 2).expect("checks");
    assert!(report.is_kmc(), "{name}: {report:?}");
    protocol
}

#[test]
fn several_continue_led_branches_to_one_rec_are_accepted() {
    let source = "global protocol P(role A, role B) {
        rec X {
            a() from A to B;
            choice at A { continue X; }
            or { b() from A to B; choice at A { continue X; } or { c() from A to B; } }
        }
    }";
    let p = accepted("two choices", source);
    let b = project(&p, "B").unwrap().to_string();
    assert!(
        b.contains("a()") && b.contains("b()") && b.contains("c()"),
        "{b}"
    );
}

#[test]
fn continue_led_branch_in_a_nested_choice_to_an_outer_rec_is_accepted() {
    let source = "global protocol P(role A, role B, role C) {
        rec Outer {
            start() from A to B;
            start() from B to C;
            rec Inner {
                ask() from A to B;
                choice at B {
                    yes() from B to A;
                    yes() from B to C;
                    choice at A { continue Outer; } or { stop() from A to B; stop() from B to C; }
                } or {
                    no() from B to A;
                    no() from B to C;
                    continue Inner;
                }
            }
        }
    }";
    accepted("outer label", source);
}

#[test]
fn continue_led_branches_to_two_different_recs_are_accepted() {
    let source = "global protocol P(role A, role B) {
        rec X {
            x() from A to B;
            rec Y {
                y() from A to B;
                choice at A { continue X; } or { continue Y; } or { done() from A to B; }
            }
        }
    }";
    let p = accepted("two labels", source);
    let a = project(&p, "A").unwrap().to_string();
    assert!(
        a.contains("x()") && a.contains("y()") && a.contains("done()"),
        "{a}"
    );
}

#[test]
fn every_branch_continue_led_is_accepted() {
    let source = "global protocol P(role A, role B) {
        rec X { tick() from A to B; rec Y { tock() from A to B; choice at A { continue X; } or { continue Y; } } }
    }";
    accepted("all branches", source);
}

#[test]
fn ill_formed_continue_led_branches_keep_their_diagnostics() {
    let cases: &[(&str, ErrorKind, (usize, usize))] = &[
        // No message since `rec X`: the branch loops without any interaction.
        (
            "global protocol P(role A, role B) {\n  rec X {\n    choice at A { continue X; } or { a() from A to B; }\n  }\n}",
            ErrorKind::UnguardedVariable,
            (3, 28),
        ),
        // The branch, unfolded, starts with B's message (reported where it is written)
        // but A chooses.
        (
            "global protocol P(role A, role B) {\n  rec X {\n    a() from B to A;\n    choice at A { continue X; } or { b() from A to B; }\n  }\n}",
            ErrorKind::UndirectedChoice,
            (3, 5),
        ),
        // The unfolded branch repeats the label of the other branch.
        (
            "global protocol P(role A, role B) {\n  rec X {\n    a() from A to B;\n    choice at A { continue X; } or { a() from A to B; }\n  }\n}",
            ErrorKind::UndirectedChoice,
            (4, 38),
        ),
    ];
    for (source, kind, place) in cases {
        let protocols = parse(source).unwrap_or_else(|d| panic!("{source}: {d:?}"));
        let errors = check(&protocols[0]);
        assert!(!errors.is_empty(), "accepted: {source}");
        assert_eq!(errors[0].kind, *kind, "{source}: {errors:?}");
        assert_eq!(
            line_column(source, errors[0].span.start),
            *place,
            "{errors:?}"
        );
    }
}
