//! Sessions cannot be built by hand: `State` has no public constructor, so there is no
//! way to conjure an `End` (or any other step).
#![allow(unused)]

include!("common/adder.rs");


fn forge<'r>(role: &'r mut A) -> End<'r, A> {
    mpst::FromState::from_state(mpst::State { role })
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _end = forge(&mut a);
}
