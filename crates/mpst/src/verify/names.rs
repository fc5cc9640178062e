//! The one label/role normalisation every comparison of [`verify`](super) uses: names
//! become the Rust identifiers `mpst generate` gives them, payload sorts the Rust types it
//! writes.

/// The Rust type under which a protocol's payload sort is compared with a label's field
/// (`my::pkg::Date` -> `Date`; the front end already made `int` `i32`):
/// [`mpst_fsm::ident::sort_key`], the rule
/// [`normalise`] applies.
pub use mpst_fsm::ident::sort_key;
use mpst_fsm::{Action, Fsm, FsmError, Message, Payload};

/// The Rust identifier the code generator gives a protocol name (upper camel case,
/// `prefix` before a leading digit, `_` after a keyword): the rule of
/// [`mpst_fsm::ident::rust_name`], which `mpst-codegen` uses too.
pub use mpst_fsm::ident::rust_name;

/// `fsm` with Rust names and Rust payload types: the form in which [`verify`](super)
/// compares a projection with a serialised session type.
///
/// The role and every peer become [`rust_name`]`(name, "R")`, every label
/// [`rust_name`]`(label, "L")`, and every payload sort the short spelling of its Rust type
/// ([`sort_key`]: `my.pkg.Date` -> `Date`),
/// which is how [`serialize`](crate::serialize) records a label's fields; payload names
/// are dropped (a tuple struct has none). States keep their numbers.
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
            message: Message::with_payloads(
                rust_name(&t.action.message.label, "L"),
                t.action
                    .message
                    .payloads
                    .iter()
                    .map(|p| Payload::new(sort_key(&p.ty)))
                    .collect(),
            ),
        };
        out.add_transition(from, action, t.target)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn normalising_renames_and_gives_payloads_their_rust_types() {
        let mut fsm = Fsm::new("k");
        let s1 = fsm.add_state();
        // Sorts as the front end leaves them (`int` is already `i32`).
        let sorts = vec![Payload::named("x", "i32"), Payload::new("my.pkg.Date")];
        let value = Message::with_payloads("value", sorts);
        fsm.add_transition(0, Action::receive("s", value), s1)
            .unwrap();
        fsm.add_transition(s1, Action::send("t", Message::new("get_price")), 0)
            .unwrap();
        let normal = normalise(&fsm).unwrap();
        assert_eq!(
            normal.to_string(),
            "fsm K (initial 0)\n  0 --S?Value(i32, Date)--> 1\n  1 --T!GetPrice()--> 0\n"
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
