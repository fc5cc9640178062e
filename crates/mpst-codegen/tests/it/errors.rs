//! What the generator refuses, and that it says why.

use mpst_codegen::{CodegenError, generate};
use mpst_fsm::{Action, Fsm, Message, Payload};

/// The code generated for protocol `P` of the one machine `a`, asserted to contain every
/// one of `needles`.
fn generated_with(a: Fsm, needles: &[&str]) -> String {
    let code = generate("P", &[a]).unwrap();
    crate::support::assert_contains_all(&code, needles);
    code
}

fn fsm(role: &str, edges: &[(usize, Action, usize)]) -> Fsm {
    let mut m = Fsm::new(role);
    let states = edges
        .iter()
        .map(|(a, _, b)| (*a).max(*b))
        .max()
        .unwrap_or(0);
    for _ in 0..states {
        m.add_state();
    }
    for (from, action, to) in edges {
        m.add_transition(*from, action.clone(), *to).unwrap();
    }
    m
}

#[test]
fn mixed_states_have_no_session_type() {
    let a = fsm(
        "a",
        &[
            (0, Action::send("b", Message::new("x")), 1),
            (0, Action::receive("b", Message::new("y")), 1),
        ],
    );
    let err = generate("P", &[a]).unwrap_err();
    assert_eq!(
        err,
        CodegenError::MixedState {
            role: "a".into(),
            state: 0
        }
    );
    assert!(err.to_string().contains("both sends and receives"));
}

#[test]
fn branches_from_several_peers_are_an_offer() {
    let a = fsm(
        "a",
        &[
            (0, Action::receive("b", Message::new("x")), 1),
            (0, Action::receive("c", Message::new("y")), 1),
            (0, Action::receive("b", Message::new("quit")), 1),
            (0, Action::receive("c", Message::new("quit")), 1),
        ],
    );
    generated_with(
        a,
        &[
            "pub type ASession = Offer<ASessionChoice>;",
            "#[from(B)]\n    X(X, End),",
            "#[from(C)]\n    Y(Y, End),",
            // A label both peers send names its variants after them.
            "#[from(B)]\n    QuitB(Quit, End),",
            "#[from(C)]\n    QuitC(Quit, End),",
        ],
    );
}

#[test]
fn choices_towards_several_peers_are_a_choose() {
    let a = fsm(
        "a",
        &[
            (0, Action::send("b", Message::new("x")), 1),
            (0, Action::send("c", Message::new("y")), 1),
        ],
    );
    generated_with(
        a,
        &[
            "pub type ASession = Choose<ASessionChoice>;",
            "#[to(B)]\n    X(X, End),",
            "#[to(C)]\n    Y(Y, End),",
        ],
    );
}

#[test]
fn a_label_with_two_payload_lists_is_two_types() {
    let a = fsm(
        "a",
        &[
            (0, Action::send("b", Message::new("x")), 1),
            (
                1,
                Action::send("b", Message::with_payloads("x", vec![Payload::new("i32")])),
                2,
            ),
        ],
    );
    // One type per payload list; both report the protocol's label.
    generated_with(
        a,
        &[
            "    /// Label `x()`.\n    X(X),",
            "    #[message(label = \"X\")]\n    XI32(XI32),",
        ],
    );
}

#[test]
fn sorts_must_be_rust_paths() {
    let a = fsm(
        "a",
        &[(
            0,
            Action::send(
                "b",
                Message::with_payloads("x", vec![Payload::new("List<int>")]),
            ),
            1,
        )],
    );
    let err = generate("P", &[a]).unwrap_err();
    assert_eq!(
        err,
        CodegenError::BadSort {
            label: "x".into(),
            sort: "List<int>".into()
        }
    );
}

#[test]
fn names_that_collide_in_rust_are_refused() {
    let a = fsm("a", &[(0, Action::send("A", Message::new("x")), 1)]);
    let err = generate("P", &[a]).unwrap_err();
    assert!(
        matches!(err, CodegenError::NameClash { ref ident, .. } if ident == "A"),
        "{err}"
    );
    let label_as_role = fsm("a", &[(0, Action::send("b", Message::new("b")), 1)]);
    let err = generate("P", &[label_as_role]).unwrap_err();
    assert!(err.to_string().contains("label `b`"), "{err}");
    assert_eq!(generate("P", &[]).unwrap_err(), CodegenError::NoRoles);
}

#[test]
fn the_order_of_the_fsms_does_not_matter() {
    let a = fsm("a", &[(0, Action::send("b", Message::new("x")), 1)]);
    let b = fsm("b", &[(0, Action::receive("a", Message::new("x")), 1)]);
    assert_eq!(
        generate("P", &[a.clone(), b.clone()]).unwrap(),
        generate("P", &[b, a]).unwrap()
    );
}

#[test]
fn a_label_named_like_a_primitive_leaves_the_primitive_to_its_path() {
    // The label `offer` is the type `Offer`; the state receiving from two peers is then
    // written `mpst::Offer`, not imported.
    let a = fsm(
        "a",
        &[
            (0, Action::receive("b", Message::new("offer")), 1),
            (0, Action::receive("c", Message::new("order")), 1),
        ],
    );
    let code = generated_with(
        a,
        &[
            "pub type ASession = mpst::Offer<ASessionChoice>;",
            "    Offer(Offer, End),",
        ],
    );
    let imports = code.lines().find(|l| l.starts_with("use mpst::")).unwrap();
    assert!(!imports.contains("Offer"), "{imports}");
}
