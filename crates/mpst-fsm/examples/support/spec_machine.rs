//! The random machines of the subtyping property tests, built from a list of
//! transitions; shared by `tests/it/subtype_verdict_props.rs` and the `budget_times`
//! example, so that the example measures machines of the tests' shape.

use mpst_fsm::{Action, Direction, Fsm, Message};

/// A transition: (from, peer, send?, label, to).
pub type Spec = (usize, usize, bool, usize, usize);

/// A machine of role `r` talking to `p` and `q`; clashing transitions are skipped,
/// and a state keeps only sends or only receives (a session type), as its first
/// transition decides.
pub fn machine(specs: &[Spec]) -> Fsm {
    let mut fsm = Fsm::new("r");
    for &(from, peer, send, label, to) in specs {
        while fsm.state_count() <= from.max(to) {
            fsm.add_state();
        }
        if let Some(first) = fsm.transitions(from).first() {
            if first.action.is_send() != send {
                continue;
            }
        }
        let action = Action {
            peer: ["p", "q"][peer].to_string(),
            direction: if send {
                Direction::Send
            } else {
                Direction::Receive
            },
            message: Message::new(["a", "b", "c"][label]),
        };
        let _ = fsm.add_transition(from, action, to);
    }
    fsm
}
