//! Hand-made systems that violate each property of k-MC (and a few that hold): the
//! checker must name the property, the role and queue, and the execution.

use mpst_fsm::kmc::{
    KmcError, KmcOptions, Property, ViolationKind, check_kmc, check_kmc_with, least_k,
};
use mpst_fsm::{Action, Fsm, LocalType, Message, Payload};

/// The FSM of a local type in the paper's ASCII syntax.
fn role(name: &str, ty: &str) -> Fsm {
    LocalType::parse(ty)
        .unwrap_or_else(|e| panic!("{ty}: {e}"))
        .to_fsm(name)
        .unwrap_or_else(|e| panic!("{ty}: {e}"))
}

/// An FSM from `(from, "peer!label" | "peer?label", to)` triples.
fn machine(name: &str, transitions: &[(usize, &str, usize)]) -> Fsm {
    let mut fsm = Fsm::new(name);
    for &(from, action, to) in transitions {
        while fsm.state_count() <= from.max(to) {
            fsm.add_state();
        }
        let (peer, label, send) = match action.split_once('!') {
            Some((p, l)) => (p, l, true),
            None => {
                let (p, l) = action.split_once('?').expect("action has ! or ?");
                (p, l, false)
            }
        };
        let action = if send {
            Action::send(peer, Message::new(label))
        } else {
            Action::receive(peer, Message::new(label))
        };
        fsm.add_transition(from, action, to)
            .expect("valid transition");
    }
    fsm
}

fn steps(report: &mpst_fsm::KmcReport) -> Vec<String> {
    let v = report.violation.as_ref().expect("a violation");
    v.trace.iter().map(ToString::to_string).collect()
}

#[test]
fn deadlock_after_one_exchange() {
    let system = [
        role("a", "b!go(). b?x(). end"),
        role("b", "a?go(). a?y(). end"),
    ];
    let report = check_kmc(&system, 1).unwrap();
    assert!(!report.is_kmc());
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::Progress);
    assert_eq!(
        v.kind,
        ViolationKind::Deadlock {
            waiting: vec!["a".into(), "b".into()]
        }
    );
    assert_eq!(steps(&report), ["a: b!go()", "b: a?go()"]);
    assert!(v.configuration.queues.is_empty());
    assert_eq!(v.configuration.states, [("a".into(), 1), ("b".into(), 1)]);
}

#[test]
fn orphan_message_left_in_a_queue() {
    let system = [role("a", "b!x(). b!y(). end"), role("b", "a?x(). end")];
    let report = check_kmc(&system, 1).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::EventualReception);
    assert_eq!(
        v.kind,
        ViolationKind::Orphan {
            from: "a".into(),
            to: "b".into(),
            message: Message::new("y"),
        }
    );
    assert_eq!(steps(&report), ["a: b!x()", "b: a?x()", "a: b!y()"]);
    assert_eq!(
        v.configuration.queues,
        [("a".into(), "b".into(), vec![Message::new("y")])]
    );
    // With room for both messages the orphan is the same, after three steps too.
    let report = check_kmc(&system, 2).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::EventualReception);
    assert_eq!(v.trace.len(), 3);
}

#[test]
fn orphan_while_the_others_run_forever() {
    // `x` to `c` is never received, but `a` and `b` never stop: no deadlock, only
    // the eventual-reception analysis finds it.
    let system = [
        role("a", "c!x(). rec t. b!ping(). t"),
        role("b", "rec t. a?ping(). t"),
        role("c", "end"),
    ];
    let report = check_kmc(&system, 1).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(
        v.kind,
        ViolationKind::Orphan {
            from: "a".into(),
            to: "c".into(),
            message: Message::new("x"),
        }
    );
    assert_eq!(steps(&report), ["a: c!x()"]);
}

#[test]
fn starvation_without_global_deadlock() {
    let system = [
        role("a", "rec t. b!ping(). t"),
        role("b", "rec t. a?ping(). t"),
        role("c", "a?hello(). end"),
    ];
    let report = check_kmc(&system, 1).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::Progress);
    assert_eq!(v.kind, ViolationKind::Starvation { role: "c".into() });
    assert!(v.trace.is_empty(), "c starves from the start: {v}");
}

#[test]
fn unspecified_reception_of_a_label() {
    let system = [role("a", "b!x(). end"), role("b", "a?{y(). end, z(). end}")];
    let report = check_kmc(&system, 1).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::UnspecifiedReception);
    assert_eq!(
        v.kind,
        ViolationKind::UnspecifiedReception {
            role: "b".into(),
            from: "a".into(),
            message: Message::new("x"),
            expected: vec![
                Action::receive("a", Message::new("y")),
                Action::receive("a", Message::new("z")),
            ],
        }
    );
    assert_eq!(steps(&report), ["a: b!x()"]);
    let text = v.to_string();
    assert!(text.contains("b cannot receive x() from a"), "{text}");
    assert!(text.contains("1. a: b!x()"), "{text}");
}

#[test]
fn unspecified_reception_of_a_payload_sort() {
    let system = [role("a", "b!v(i32). end"), role("b", "a?v(bool). end")];
    let v = check_kmc(&system, 1).unwrap().violation.unwrap();
    assert_eq!(v.property(), Property::UnspecifiedReception);
    match v.kind {
        ViolationKind::UnspecifiedReception { message, .. } => {
            assert_eq!(message.payloads, [Payload::new("i32")]);
        }
        other => panic!("unexpected {other}"),
    }
}

/// `a` sends `x` to `b`, then chooses between `b!y` and `c!z`; `b` first waits for
/// `c`, which waits for `a`'s `z`. With k = 1, `b!y` is never enabled unless `a` moves
/// (sends `z`) first: 1-safe, not 1-exhaustive; with k = 2 it is k-MC.
fn choice_blocked_by_bound() -> Vec<Fsm> {
    vec![
        machine(
            "a",
            &[
                (0, "b!x", 1),
                (1, "b!y", 2),
                (2, "c!z", 4),
                (1, "c!z", 3),
                (3, "b!y", 4),
            ],
        ),
        role("b", "c?go(). a?x(). a?y(). end"),
        role("c", "a?z(). b!go(). end"),
    ]
}

#[test]
fn non_exhaustive_send() {
    let system = choice_blocked_by_bound();
    let report = check_kmc(&system, 1).unwrap();
    let v = report.violation.as_ref().unwrap();
    assert_eq!(v.property(), Property::Exhaustivity);
    assert!(!v.property().is_safety());
    assert_eq!(
        v.kind,
        ViolationKind::NotExhaustive {
            role: "a".into(),
            to: "b".into(),
            action: Action::send("b", Message::new("y")),
        }
    );
    assert_eq!(steps(&report), ["a: b!x()"]);
    assert!(!report.shape.directed, "a's state 1 sends to b and to c");
    assert!(report.shape.csa);
    assert!(!report.shape.basic);

    let least = least_k(&system, 4).unwrap();
    assert!(least.is_kmc());
    assert_eq!(least.k, 2);
}

#[test]
fn least_k_reports_the_last_failure_when_no_bound_works() {
    let system = [role("a", "b!x(). end"), role("b", "a?y(). end")];
    let report = least_k(&system, 3).unwrap();
    assert!(!report.is_kmc());
    assert_eq!(report.k, 3);
    assert_eq!(report.violation.unwrap().k, 3);
}

#[test]
fn mixed_states_are_accepted_and_reported() {
    // `a` either sends `x` or receives `y`; `b` sends `y` then receives `x`.
    let system = [
        machine(
            "a",
            &[(0, "b!x", 1), (0, "b?y", 2), (1, "b?y", 3), (2, "b!x", 3)],
        ),
        role("b", "a!y(). a?x(). end"),
    ];
    let report = check_kmc(&system, 1).unwrap();
    assert!(!report.shape.csa);
    assert!(report.is_kmc(), "{report}");
}

#[test]
fn a_protocol_that_holds() {
    let system = [
        role("t", "rec x. s!ready(). s?{value(i32). x, stop(). end}"),
        role("s", "rec x. t?ready(). t!{value(i32). x, stop(). end}"),
    ];
    let report = check_kmc(&system, 1).unwrap();
    assert!(report.is_kmc(), "{report}");
    assert!(report.shape.basic && report.shape.directed && report.shape.csa);
    assert!(report.configurations >= 3);
    assert!(report.to_string().starts_with("k-MC holds for k = 1"));
}

#[test]
fn malformed_systems_are_errors() {
    assert_eq!(check_kmc(&[], 1), Err(KmcError::EmptySystem));
    let a = role("a", "b!x(). end");
    assert_eq!(
        check_kmc(&[a.clone(), a.clone()], 1),
        Err(KmcError::DuplicateRole("a".into()))
    );
    match check_kmc(std::slice::from_ref(&a), 1) {
        Err(KmcError::UnknownPeer { role, state, .. }) => {
            assert_eq!((role.as_str(), state), ("a", 0));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        check_kmc(std::slice::from_ref(&a), 0),
        Err(KmcError::ZeroBound)
    );
    assert_eq!(least_k(&[a], 0).unwrap_err(), KmcError::ZeroBound);
}

#[test]
fn the_configuration_limit_is_an_error() {
    let system = [role("a", "rec t. b!x(). t"), role("b", "rec t. a?x(). t")];
    let options = KmcOptions {
        max_configurations: 1,
        ..KmcOptions::new(3)
    };
    assert_eq!(
        check_kmc_with(&system, &options),
        Err(KmcError::TooManyConfigurations { limit: 1 })
    );
}

#[test]
fn a_role_is_not_ignored_while_others_loop_forever() {
    // `a` and `b` ping-pong forever; `c` and `d` are independent of them. A reduction
    // that always lets `a`/`b` move first would never explore `c`'s send, and would
    // wrongly find `d` starving; the ignoring proviso expands it.
    let system = [
        role("a", "rec t. b!ping(). t"),
        role("b", "rec t. a?ping(). t"),
        role("c", "d!hello(). end"),
        role("d", "c?hello(). end"),
    ];
    for k in 1..=3 {
        let reduced = check_kmc(&system, k).unwrap();
        assert!(reduced.is_kmc(), "{reduced}");
        let full = check_kmc_with(
            &system,
            &KmcOptions {
                reduce: false,
                ..KmcOptions::new(k)
            },
        )
        .unwrap();
        assert!(full.is_kmc());
        assert!(reduced.configurations < full.configurations);
    }
    // And when `d` expects something else, the reduced check still finds it.
    let mut wrong = system.clone();
    wrong[3] = role("d", "c?bye(). end");
    let v = check_kmc(&wrong, 1).unwrap().violation.unwrap();
    assert_eq!(v.property(), Property::UnspecifiedReception);
    assert_eq!(steps_of(&v), ["c: d!hello()"]);
}

fn steps_of(v: &mpst_fsm::KmcViolation) -> Vec<String> {
    v.trace.iter().map(ToString::to_string).collect()
}
