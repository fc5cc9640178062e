//! Sessions cannot be built by hand: `State` has no public constructor, so there is no
//! way to conjure the state any step (or `End`) is made of.
#![allow(unused)]

include!("common/adder.rs");


fn forge<'r>(role: &'r mut A) -> mpst::State<'r, A> {
    mpst::State { role }
}

fn main() {
    let Roles(mut a, _, _) = Roles::default();
    let _state = forge(&mut a);
}
