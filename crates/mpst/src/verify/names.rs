//! The one label/role normalisation every comparison of [`verify`](super) uses: names
//! become the Rust identifiers `mpst generate` gives them, and payloads are erased.

use mpst_fsm::{Action, Fsm, FsmError, Message};

/// The Rust identifier the code generator gives a protocol name (upper camel case,
/// `prefix` before a leading digit, `_` after a keyword): the rule of
/// [`mpst_fsm::ident::rust_name`], which `mpst-codegen` uses too.
pub use mpst_fsm::ident::rust_name;

/// `fsm` with Rust names and no payloads: the form in which [`verify`](super) compares a
/// projection with a serialised session type.
///
/// The role and every peer become [`rust_name`]`(name, "R")`, every label
/// [`rust_name`]`(label, "L")`, and payload sorts are erased (a serialised session type has
/// none, see [`serialize`](crate::serialize)). States keep their numbers.
///
/// Fails if two labels of one state become the same action (e.g. `get_price` and
/// `getPrice` sent to one peer), which the code generator refuses as well.
pub fn normalise(fsm: &Fsm) -> Result<Fsm, FsmError> {
    let mut out = Fsm::new(rust_name(fsm.role(), "R"));
    for _ in 1..fsm.state_count() {
        out.add_state();
    }
    out.set_initial(fsm.initial())?;
    for (from, t) in fsm.all_transitions() {
        let action = Action {
            peer: rust_name(&t.action.peer, "R"),
            direction: t.action.direction,
            message: Message::new(rust_name(&t.action.message.label, "L")),
        };
        out.add_transition(from, action, t.target)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_fsm::Payload;

    #[test]
    fn names_become_rust_identifiers_and_stay_put_once_they_are() {
        for (scribble, rust) in [
            ("ready", "Ready"),
            ("get_price", "GetPrice"),
            ("getPrice", "GetPrice"),
            ("x'", "XPrime"),
            ("self", "Self_"),
            ("OK", "OK"),
        ] {
            assert_eq!(rust_name(scribble, "L"), rust);
            assert_eq!(rust_name(rust, "L"), rust, "{rust} is not a fixed point");
        }
        assert_eq!(rust_name("1", "L"), "L1");
        assert_eq!(rust_name("", "R"), "R");
    }

    #[test]
    fn normalising_renames_and_erases_payloads() {
        let mut fsm = Fsm::new("k");
        let s1 = fsm.add_state();
        let value = Message::with_payloads("value", vec![Payload::named("x", "int")]);
        fsm.add_transition(0, Action::receive("s", value), s1)
            .unwrap();
        fsm.add_transition(s1, Action::send("t", Message::new("get_price")), 0)
            .unwrap();
        let normal = normalise(&fsm).unwrap();
        assert_eq!(
            normal.to_string(),
            "fsm K (initial 0)\n  0 --S?Value()--> 1\n  1 --T!GetPrice()--> 0\n"
        );
    }

    #[test]
    fn labels_that_collide_once_normalised_are_an_error() {
        let mut fsm = Fsm::new("k");
        let s1 = fsm.add_state();
        fsm.add_transition(0, Action::send("s", Message::new("get_price")), s1)
            .unwrap();
        fsm.add_transition(0, Action::send("s", Message::new("getPrice")), s1)
            .unwrap();
        assert!(matches!(
            normalise(&fsm),
            Err(FsmError::Nondeterministic { state: 0, .. })
        ));
    }
}
