//! Giving a serialised session type back the names of its protocol, so that an optimised
//! role written in Rust can be saved as a DOT file in nuscr's layout (`s!value(i32)`) and
//! fed to `mpst subtype`, `mpst kmc` or `mpst generate --optimised`.

use mpst::verify::rust_name;
use mpst_fsm::{Action, Fsm, FsmError};

/// `machine` (e.g. `mpst::serialize::serialize::<S>()`, which speaks Rust: `S!Value()`)
/// with the role, peer and label names of `projection` (which speaks Scribble:
/// `s!value(i32)`) and the payloads the projection gives each message.
///
/// A name is matched by its Rust form ([`rust_name`]); an action the projection has no
/// counterpart for keeps its name. States keep their numbers.
pub fn scribble_names(machine: &Fsm, projection: &Fsm) -> Result<Fsm, FsmError> {
    let counterpart = |action: &Action| {
        projection.all_transitions().find_map(|(_, t)| {
            let same = t.action.direction == action.direction
                && rust_name(&t.action.peer, "R") == action.peer
                && rust_name(&t.action.message.label, "L") == action.message.label;
            same.then(|| t.action.clone())
        })
    };
    let role = if rust_name(projection.role(), "R") == machine.role() {
        projection.role()
    } else {
        machine.role()
    };
    let mut out = Fsm::new(role);
    for _ in 1..machine.state_count() {
        out.add_state();
    }
    out.set_initial(machine.initial())?;
    for (from, t) in machine.all_transitions() {
        let action = counterpart(&t.action).unwrap_or_else(|| t.action.clone());
        out.add_transition(from, action, t.target)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_fsm::{Message, Payload};

    #[test]
    fn rust_names_become_the_projections_names_with_payloads() {
        let mut projection = Fsm::new("k");
        let p1 = projection.add_state();
        let value = Message::with_payloads("value", vec![Payload::new("i32")]);
        projection
            .add_transition(0, Action::send("s", Message::new("get_ready")), p1)
            .unwrap();
        projection
            .add_transition(p1, Action::receive("s", value), 0)
            .unwrap();
        let mut machine = Fsm::new("K");
        let m1 = machine.add_state();
        let m2 = machine.add_state();
        machine
            .add_transition(0, Action::send("S", Message::new("GetReady")), m1)
            .unwrap();
        machine
            .add_transition(m1, Action::send("S", Message::new("GetReady")), m2)
            .unwrap();
        machine
            .add_transition(m2, Action::receive("S", Message::new("Value")), m1)
            .unwrap();
        machine
            .add_transition(m2, Action::receive("S", Message::new("Other")), m1)
            .unwrap();
        let named = scribble_names(&machine, &projection).unwrap();
        assert_eq!(
            named.to_string(),
            "fsm k (initial 0)\n  0 --s!get_ready()--> 1\n  1 --s!get_ready()--> 2\n  \
             2 --s?value(i32)--> 1\n  2 --S?Other()--> 1\n"
        );
    }
}
