//! `FromState::from_state` cannot be called outside the runtime: it takes a token from a
//! private module, so even code that held a session state could not turn it into `End`.
#![allow(unused)]

include!("common/adder.rs");

fn forge<'r>(state: mpst::State<'r, A>) -> End<'r, A> {
    mpst::FromState::from_state(state, mpst::session::sealed::Token::new())
}

fn main() {}
