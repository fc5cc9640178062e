//! A protocol label carried with two payload lists (`correct()` and `correct(i32)` in
//! `plus_minus.scr`) is two Rust types; `#[message(label = "..")]` makes both report the
//! protocol's label, so serialisation and the hybrid check see one label.

#![cfg(feature = "serialize")]

use mpst::serialize::serialize;
use mpst::{End, Labelled, Message, Payload, Send, session};

use crate::support::declare_roles;

declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B, C), B(A, C), C(A, B));

#[derive(Message)]
enum Label {
    Correct(Correct),
    #[message(label = "Correct")]
    CorrectI32(CorrectI32),
}

#[derive(Payload)]
struct Correct;
#[derive(Payload)]
struct CorrectI32(#[allow(dead_code)] i32);

/// B tells C and A that the guess was right, A learning the number too.
#[session]
type Announce = Send<C, Correct, Send<A, CorrectI32, End>>;

#[test]
fn both_types_report_the_protocols_label() {
    assert_eq!(<Label as Message<Correct>>::NAME, "Correct");
    assert_eq!(<Label as Message<CorrectI32>>::NAME, "Correct");
    assert_eq!(Label::LABELS, ["Correct", "Correct"]);
    assert_eq!(Label::from(CorrectI32(7)).label(), "Correct");
    assert_eq!(
        Label::name_of(std::any::TypeId::of::<CorrectI32>()),
        Some("Correct")
    );
}

#[test]
fn serialisation_names_both_with_the_protocols_label() {
    let fsm = serialize::<Announce<'static, B>>().unwrap();
    assert_eq!(
        fsm.to_string(),
        "fsm B (initial 0)\n  0 --C!Correct()--> 1\n  1 --A!Correct(i32)--> 2\n"
    );
}

#[cfg(feature = "scribble")]
#[test]
fn the_overloaded_label_matches_the_projection() {
    #[session]
    type Learn = mpst::Receive<B, CorrectI32, End>;
    let scr = "global protocol P(role A, role B, role C) {
        correct() from B to C;
        correct(i32) from B to A;
    }";
    mpst::verify::assert_equals_projection::<Announce<'static, B>>(scr, "B");
    mpst::verify::assert_equals_projection::<Learn<'static, A>>(scr, "A");
}
