//! The one label/role normalisation every comparison of [`verify`](super) uses: names
//! become the Rust identifiers `mpst generate` gives them, and payloads are erased.

use mpst_fsm::{Action, Fsm, FsmError, Message};

/// Rust's strict and reserved keywords, which cannot be identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "gen",
];

/// The Rust identifier the code generator gives a protocol name: upper camel case.
///
/// `ready` -> `Ready`, `get_price` -> `GetPrice`, `x'` -> `XPrime`; a name that would start
/// with a digit gets `prefix` in front (`1` -> `L1` with prefix `L`); a keyword gets a
/// trailing `_` (`self` -> `Self_`). Characters that cannot be in an identifier are
/// dropped. Names that already are such identifiers are left as they are (`Ready`,
/// `GetPrice`, `L1`), so the rule can be applied to both sides of a comparison.
///
/// This is the rule of `mpst-codegen` (which `mpst` cannot depend on); the round-trip test
/// of `mpst-codegen` (`tests/generated.rs`) checks that the two agree on every protocol of
/// the repository.
pub fn rust_name(name: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in name.chars() {
        match c {
            '\'' => {
                out.push_str("Prime");
                upper = true;
            }
            c if c.is_alphanumeric() => {
                if upper {
                    out.extend(c.to_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            _ => upper = true,
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, prefix);
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

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
