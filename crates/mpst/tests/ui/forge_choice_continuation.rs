//! A hand-written `Choices` impl gets a `Continuation`, not a session state: it can only
//! become the continuation the choice's own `Choice<Label>` impl declares, never `End`
//! where the protocol continues with a send.
#![allow(unused)]

include!("common/adder.rs");

enum Skip<'r> {
    Add(Add, End<'r, A>),
}

impl<'r> mpst::Choices<'r> for Skip<'r> {
    type Role = A;
    type Variants = ((Add, Send<'r, A, B, Add, End<'r, A>>), ());
    const LABELS: &'static [&'static str] = &["Add"];

    fn downcast(next: mpst::Continuation<'r, Self>, message: Label) -> Result<Self, Label> {
        match message {
            Label::Add(add) => Ok(Skip::Add(add, next.into_session::<Add>())),
            other => Err(other),
        }
    }
}

impl<'r> mpst::Choice<'r, Add> for Skip<'r> {
    type Session = Send<'r, A, B, Add, End<'r, A>>;
}

fn main() {}
