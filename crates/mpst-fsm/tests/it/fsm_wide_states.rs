//! `Fsm::add_transition` on states of high out-degree: linear in the number of
//! transitions (an index, not a scan), and still deterministic.

use mpst_fsm::{Action, Fsm, FsmError, Message};

#[test]
fn add_transition_is_not_quadratic_in_out_degree_and_still_rejects_duplicates() {
    let mut m = Fsm::new("k");
    let end = m.add_state();
    for i in 0..50_000 {
        let action = Action::send("s", Message::new(format!("l{i}")));
        m.add_transition(0, action, end).unwrap();
    }
    for i in [0, 15, 16, 17, 49_999] {
        let action = Action::send("s", Message::new(format!("l{i}")));
        let err = m.add_transition(0, action, end).unwrap_err();
        assert!(matches!(err, FsmError::Nondeterministic { state: 0, .. }));
    }
    // Another peer or direction with the same label is no clash.
    m.add_transition(0, Action::receive("s", Message::new("l7")), end)
        .unwrap();
    m.add_transition(0, Action::send("t", Message::new("l7")), end)
        .unwrap();
    // A canonical copy (built without the index) still finds clashes.
    let mut c = m.canonical();
    let action = Action::send("s", Message::new("l123"));
    assert!(c.add_transition(0, action, 1).is_err());
    assert_eq!(c, m.canonical());
}
