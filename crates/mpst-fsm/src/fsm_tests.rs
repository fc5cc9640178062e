//! Unit tests of the FSM model: construction, determinism, canonical numbering.
use super::*;

fn ready() -> Message {
    Message::new("ready")
}

#[test]
fn rejects_duplicate_actions_and_self_loops_to_self() {
    let mut m = Fsm::new("k");
    let s1 = m.add_state();
    m.add_transition(0, Action::send("s", ready()), s1).unwrap();
    let err = m
        .add_transition(0, Action::send("s", ready()), 0)
        .unwrap_err();
    assert!(matches!(err, FsmError::Nondeterministic { state: 0, .. }));
    let err = m
        .add_transition(0, Action::send("k", ready()), 0)
        .unwrap_err();
    assert!(matches!(err, FsmError::SelfCommunication { .. }));
    let err = m
        .add_transition(0, Action::send("s", Message::new("x")), 7)
        .unwrap_err();
    assert_eq!(err, FsmError::NoSuchState { state: 7, count: 2 });
}

#[test]
fn canonical_form_ignores_state_numbering() {
    let mut a = Fsm::new("k");
    let a1 = a.add_state();
    a.add_transition(0, Action::send("s", ready()), a1).unwrap();
    a.add_transition(a1, Action::receive("s", Message::new("value")), 0)
        .unwrap();

    let mut b = Fsm::new("k");
    let junk = b.add_state();
    let b1 = b.add_state();
    b.add_transition(junk, Action::send("t", ready()), junk)
        .unwrap();
    b.set_initial(b1).unwrap();
    b.add_transition(b1, Action::send("s", ready()), 0).unwrap();
    b.add_transition(0, Action::receive("s", Message::new("value")), b1)
        .unwrap();

    assert!(a.is_isomorphic(&b));
    assert_eq!(b.canonical().state_count(), 2);
    b.add_transition(0, Action::receive("s", Message::new("stop")), junk)
        .unwrap();
    assert!(!a.is_isomorphic(&b));
}

#[test]
fn display_uses_nuscr_notation() {
    let a = Action::receive(
        "k",
        Message::with_payloads("value", vec![Payload::named("x", "i32")]),
    );
    assert_eq!(a.to_string(), "k?value(x: i32)");
    assert_eq!(Action::send("s", ready()).to_string(), "s!ready()");
}

#[test]
fn set_role_cannot_create_self_communication() {
    let mut m = Fsm::new("k");
    let s1 = m.add_state();
    m.add_transition(0, Action::send("s", ready()), s1).unwrap();
    let err = m.set_role("s").unwrap_err();
    assert!(
        matches!(err, FsmError::SelfCommunication { state: 0, ref action } if action.peer == "s"),
        "{err:?}"
    );
    assert_eq!(m.role(), "k", "a refused rename leaves the role as it was");
    m.set_role("t").unwrap();
    assert_eq!(m.role(), "t");
}

#[test]
fn state_names_survive_canonical_renumbering_and_do_not_change_equality() {
    let mut m = Fsm::new("k");
    let (s1, s2) = (m.add_state(), m.add_state());
    m.add_transition(s2, Action::send("s", ready()), s1)
        .unwrap();
    m.add_transition(s1, Action::receive("s", ready()), s2)
        .unwrap();
    m.set_initial(s1).unwrap();
    let plain = m.clone();
    m.set_state_name(s2, "Loop").unwrap();
    assert!(m.set_state_name(9, "Nowhere").is_err());
    assert_eq!(m.state_name(s2), Some("Loop"));
    assert_eq!(m, plain);
    // s1 is initial (0 once canonical), s2 becomes 1; the unreachable state 0 is dropped.
    let c = m.canonical();
    assert_eq!(c.state_name(1), Some("Loop"));
    assert_eq!(c.state_name(0), None);
}
