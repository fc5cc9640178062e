//! Giving a serialised session type back the names of its protocol, so that an optimised
//! role written in Rust can be saved as a DOT file in nuscr's layout (`s!value(i32)`) and
//! fed to `mpst subtype`, `mpst kmc` or `mpst generate --optimised`; and checking that
//! such a DOT file still records the optimised role (the optimised examples' tests).

use std::fmt;

use mpst::verify::rust_name;
use mpst_fsm::{Action, DotError, Fsm, FsmError, parse_dot};

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

/// Why [`records_role`] could not compare a DOT file with a role.
#[derive(Debug)]
pub enum RecordError {
    /// The DOT text does not parse.
    Dot(DotError),
    /// The DOT text holds this many machines; one was expected.
    MachineCount(usize),
    /// The role could not be given the projection's names.
    Names(FsmError),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Dot(error) => write!(f, "the DOT file does not parse: {error}"),
            RecordError::MachineCount(n) => {
                write!(f, "expected one machine in the DOT file, found {n}")
            }
            RecordError::Names(error) => write!(f, "cannot rename the role: {error}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// Whether the DOT text `dot` (one machine, as `mpst generate --optimised` reads it)
/// records `machine` (a serialised optimised role) up to state numbering, once `machine`
/// has the names of `projection` ([`scribble_names`]).
pub fn records_role(dot: &str, machine: &Fsm, projection: &Fsm) -> Result<bool, RecordError> {
    let recorded = match parse_dot(dot).map_err(RecordError::Dot)?.as_slice() {
        [fsm] => fsm.clone(),
        more => return Err(RecordError::MachineCount(more.len())),
    };
    let named = scribble_names(machine, projection).map_err(RecordError::Names)?;
    Ok(recorded.is_isomorphic(&named))
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

    fn one_send(role: &str, peer: &str, label: &str) -> Fsm {
        let mut fsm = Fsm::new(role);
        let end = fsm.add_state();
        fsm.add_transition(0, Action::send(peer, Message::new(label)), end)
            .unwrap();
        fsm
    }

    #[test]
    fn a_dot_file_records_the_role_it_was_written_from() {
        let projection = one_send("k", "s", "get_ready");
        let machine = one_send("K", "S", "GetReady");
        let dot = mpst_fsm::write_dot(&scribble_names(&machine, &projection).unwrap());
        assert!(records_role(&dot, &machine, &projection).unwrap());
        let other = one_send("K", "S", "Value");
        assert!(!records_role(&dot, &other, &projection).unwrap());
    }

    #[test]
    fn a_dot_file_must_hold_one_machine() {
        let projection = one_send("k", "s", "get_ready");
        let machine = one_send("K", "S", "GetReady");
        let named = scribble_names(&machine, &projection).unwrap();
        let one = mpst_fsm::write_dot(&named);
        // Two machines of different roles: two digraphs of one name are already refused
        // by the DOT reader itself.
        let other = mpst_fsm::write_dot(&one_send("t", "s", "get_ready"));
        let dot = format!("{one}\n{other}");
        let error = records_role(&dot, &machine, &projection).unwrap_err();
        assert!(matches!(error, RecordError::MachineCount(2)), "{error}");
        assert!(matches!(
            records_role("not dot", &machine, &projection),
            Err(RecordError::Dot(_))
        ));
    }
}
