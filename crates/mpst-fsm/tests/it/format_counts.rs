//! Messages count in good English: "1 transition", "2 transitions".

use mpst_fsm::{Action, Fsm, Message};

#[test]
fn counts_are_singular_for_one() {
    use mpst_fsm::format::count;
    assert_eq!(count(1usize, "transition"), "1 transition");
    assert_eq!(count(0usize, "transition"), "0 transitions");
    assert_eq!(count(2u64, "configuration"), "2 configurations");
    // A report of one configuration and one transition says so.
    let mut a = Fsm::new("a");
    let end = a.add_state();
    a.add_transition(0, Action::send("b", Message::new("m")), end)
        .unwrap();
    let b = Fsm::new("b");
    let report = mpst_fsm::check_kmc(&[a, b], 1).expect("a system");
    let text = report.to_string();
    assert!(
        !text.contains(" 1 transitions") && !text.contains(" 1 configurations"),
        "{text}"
    );
}
