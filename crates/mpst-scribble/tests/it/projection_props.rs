//! Properties of well-formedness and projection on random global types.
//!
//! - Nothing panics, whatever the global type (undeclared roles, reflexive messages,
//!   unbound or unguarded variables, undirected choices, unmergeable roles).
//! - `check` and projection agree: no diagnostic exactly when every role projects.
//! - Soundness: the projections of a well-formed protocol form a safe system; the
//!   k-MC checker of `mpst-fsm` (an independent exploration of the composed system)
//!   must accept them for k = 1 or 2.

use mpst_fsm::{Message, Payload, least_k};
use mpst_scribble::{Global, GlobalProtocol, check, project, project_all, project_fsm};
use mpst_scribble::{Name, Span};
use proptest::prelude::*;

fn name(text: String) -> Name {
    Name::new(text, Span::default())
}

fn role(i: usize) -> Name {
    name(format!("R{i}"))
}

fn message(from: usize, to: usize, label: String, sort: bool, cont: Global) -> Global {
    let payloads = if sort {
        vec![Payload::new("i32")]
    } else {
        Vec::new()
    };
    Global::Message {
        from: role(from),
        to: role(to),
        message: Message::with_payloads(label, payloads),
        span: Span::default(),
        cont: Box::new(cont),
    }
}

/// Global types over roles `R0..R3` and variables `X`, `Y`. Choices are directed by
/// construction most of the time (each branch starts with a distinct label from the
/// chooser, to one receiver or to a receiver per branch, possibly relayed to a role
/// that learns the choice from whichever receiver speaks first), so a good share of
/// them is well-formed.
fn global() -> impl Strategy<Value = Global> {
    let leaf = prop_oneof![
        2 => Just(Global::End),
        1 => prop::sample::select(vec!["X", "Y"]).prop_map(|v| Global::Continue(name(v.into()))),
    ];
    leaf.prop_recursive(6, 40, 3, |inner| {
        prop_oneof![
            4 => (0..4usize, 0..4usize, 0..3usize, any::<bool>(), inner.clone()).prop_map(
                |(from, to, label, sort, cont)| message(from, to, format!("m{label}"), sort, cont)
            ),
            2 => (0..4usize, 0..4usize, prop::collection::vec(inner.clone(), 1..=3)).prop_map(
                |(at, to, branches)| Global::Choice {
                    at: role(at),
                    branches: branches
                        .into_iter()
                        .enumerate()
                        .map(|(i, b)| message(at, to, format!("c{i}"), false, b))
                        .collect(),
                    span: Span::default(),
                }
            ),
            // Choices whose branches start with messages to different receivers.
            2 => (0..4usize, prop::collection::vec((0..4usize, inner.clone()), 1..=3)).prop_map(
                |(at, branches)| Global::Choice {
                    at: role(at),
                    branches: branches
                        .into_iter()
                        .enumerate()
                        .map(|(i, (to, b))| {
                            // Then the chooser tells every other role which branch it
                            // took, so that most such choices are well-formed.
                            let told = (0..4usize).rev().filter(|&q| q != at && q != to).fold(
                                b,
                                |cont, q| message(at, q, format!("n{i}"), false, cont),
                            );
                            message(at, to, format!("c{i}"), false, told)
                        })
                        .collect(),
                    span: Span::default(),
                }
            ),
            // Choices whose branches tell different receivers, each of which tells one
            // `learner` (the chooser tells everyone else): the learner learns the choice
            // from whichever receiver speaks first (an `Offer` once the receivers
            // differ).
            2 => (0..4usize, 0..4usize, prop::collection::vec((0..4usize, inner.clone()), 1..=3))
                .prop_map(|(at, learner, branches)| Global::Choice {
                    at: role(at),
                    branches: branches
                        .into_iter()
                        .enumerate()
                        .map(|(i, (to, b))| {
                            let told = (0..4usize)
                                .rev()
                                .filter(|&q| q != at && q != to && q != learner)
                                .fold(b, |cont, q| message(at, q, format!("n{i}"), false, cont));
                            let relayed = if to != learner {
                                message(to, learner, format!("t{i}"), false, told)
                            } else {
                                told
                            };
                            message(at, to, format!("c{i}"), false, relayed)
                        })
                        .collect(),
                    span: Span::default(),
                }),
            1 => (0..4usize, prop::collection::vec(inner.clone(), 1..=2)).prop_map(
                |(at, branches)| Global::Choice {
                    at: role(at),
                    branches,
                    span: Span::default(),
                }
            ),
            2 => (prop::sample::select(vec!["X", "Y"]), inner).prop_map(|(v, body)| {
                Global::Rec {
                    var: name(v.into()),
                    body: Box::new(body),
                }
            }),
        ]
    })
}

fn protocol() -> impl Strategy<Value = GlobalProtocol> {
    (2..=4usize, global()).prop_map(|(roles, body)| GlobalProtocol {
        name: name("Random".into()),
        roles: (0..roles).map(role).collect(),
        body,
    })
}

/// Protocols over all four roles, where choices to different receivers that tell every
/// other role are most often well-formed.
fn protocol_of_four() -> impl Strategy<Value = GlobalProtocol> {
    global().prop_map(|body| GlobalProtocol {
        name: name("P".into()),
        roles: (0..4).map(role).collect(),
        body,
    })
}

/// If `p` is well-formed, its projections form a system that is k-MC for some k ≤ 2.
fn well_formed_projections_are_k_mc(p: &GlobalProtocol) -> Result<(), TestCaseError> {
    prop_assume!(check(p).is_empty());
    let system: Vec<_> = project_all(p)
        .expect("well-formed protocols project")
        .into_iter()
        .map(|projection| projection.fsm)
        .collect();
    let report = least_k(&system, 2).expect("a well-formed system");
    prop_assert!(report.is_kmc(), "{:#?}\n{}", p, report);
    Ok(())
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_global_rejects: 100_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn check_and_projection_agree_and_never_panic(p in protocol()) {
        let errors = check(&p);
        let all = project_all(&p);
        prop_assert_eq!(errors.is_empty(), all.is_ok());
        for r in &p.roles {
            let local = project(&p, &r.text);
            let fsm = project_fsm(&p, &r.text);
            prop_assert_eq!(local.is_ok(), fsm.is_ok());
            if errors.is_empty() {
                prop_assert!(fsm.is_ok());
            }
        }
        if let Ok(all) = all {
            for projection in all {
                let fsm = project_fsm(&p, &projection.role).expect("projects");
                prop_assert_eq!(&fsm, &projection.fsm);
                // The local type's own FSM has the same behaviour, without sharing.
                let direct = projection.local.to_fsm(&projection.role).expect("an FSM");
                prop_assert!(fsm.state_count() <= direct.state_count());
            }
        }
    }

    #[test]
    fn projections_of_well_formed_protocols_are_k_mc(p in protocol()) {
        well_formed_projections_are_k_mc(&p)?;
    }

    #[test]
    fn projections_of_well_formed_protocols_of_four_roles_are_k_mc(p in protocol_of_four()) {
        well_formed_projections_are_k_mc(&p)?;
    }
}

/// The soundness property above is not vacuous for choices to different receivers:
/// the generator yields well-formed protocols whose chooser sends to several peers.
#[test]
fn some_generated_well_formed_protocols_choose_among_receivers() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn selects(t: &mpst_fsm::LocalType) -> bool {
        match t {
            mpst_fsm::LocalType::Select { .. } => true,
            mpst_fsm::LocalType::Choice { branches, .. } => {
                branches.iter().any(|(_, c)| selects(c))
            }
            mpst_fsm::LocalType::Rec(_, body) => selects(body),
            _ => false,
        }
    }
    let mut runner = TestRunner::deterministic();
    let strategy = protocol_of_four();
    let found = (0..2000)
        .filter_map(|_| strategy.new_tree(&mut runner).ok())
        .map(|tree| tree.current())
        .filter(|p| check(p).is_empty())
        .filter(|p| project_all(p).is_ok_and(|all| all.iter().any(|proj| selects(&proj.local))))
        .count();
    assert!(found >= 20, "{found} of 2000");
}

/// The soundness properties above are not vacuous for roles that learn a choice from
/// whichever of several peers speaks first: the generator yields well-formed protocols
/// with such a role (an `Offer` projection, proved safe by k-MC in the front end), and
/// their projections are k-MC (checked again here, independently of the front end).
#[test]
fn some_generated_well_formed_protocols_offer_from_several_peers() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    fn offers(t: &mpst_fsm::LocalType) -> bool {
        match t {
            mpst_fsm::LocalType::Offer { .. } => true,
            mpst_fsm::LocalType::Choice { branches, .. } => branches.iter().any(|(_, c)| offers(c)),
            mpst_fsm::LocalType::Select { branches } => branches.iter().any(|(_, _, c)| offers(c)),
            mpst_fsm::LocalType::Rec(_, body) => offers(body),
            _ => false,
        }
    }
    let mut runner = TestRunner::deterministic();
    let strategy = protocol_of_four();
    let mut found = 0;
    for _ in 0..4000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let p = tree.current();
        if !check(&p).is_empty() {
            continue;
        }
        let Ok(all) = project_all(&p) else { continue };
        if !all.iter().any(|proj| offers(&proj.local)) {
            continue;
        }
        found += 1;
        let system: Vec<_> = all.into_iter().map(|proj| proj.fsm).collect();
        let report = least_k(&system, 2).expect("a well-formed system");
        assert!(report.is_kmc(), "{p:#?}\n{report}");
    }
    assert!(found >= 10, "{found} of 4000");
}
