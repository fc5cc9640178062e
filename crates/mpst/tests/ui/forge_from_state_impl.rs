//! `FromState` is sealed: a user type that implemented it would receive the session state
//! from `try_session` and could turn it into `End`, skipping the whole protocol.
#![allow(unused)]

include!("common/adder.rs");

struct Skip<'r>(End<'r, A>);

impl<'r> mpst::FromState<'r> for Skip<'r> {
    type Role = A;

    fn from_state(state: mpst::State<'r, A>) -> Self {
        Skip(mpst::FromState::from_state(state))
    }
}

async fn skip(role: &mut A) -> Result<(), mpst::Error> {
    try_session(role, |Skip(end): Skip<'_>| async move { Ok(((), end)) }).await
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _ = skip(&mut a);
}
