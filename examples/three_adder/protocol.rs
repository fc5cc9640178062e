//! The three adder's roles, labels and session types: the projections of
//! `three_adder.scr`, written by hand. Shared by the example (`main.rs`) and the runtime's
//! three-adder bench (`crates/mpst/benches/three_adder.rs`), so the bench measures exactly
//! this protocol.

use mpst::{End, Message, Payload, Receive, Role, Roles, Send, session};

/// The route between two roles: the in-memory `Spsc`, one allocation per pair of roles.
pub type Channel = mpst::channel::Spsc<Label>;

/// The three roles, wired pairwise.
#[derive(Roles)]
pub struct Roles(pub A, pub B, pub C);

/// A summand.
#[derive(Role)]
#[message(Label)]
pub struct A(#[route(B)] Channel, #[route(C)] Channel);

/// The other summand.
#[derive(Role)]
#[message(Label)]
pub struct B(#[route(A)] Channel, #[route(C)] Channel);

/// The adder.
#[derive(Role)]
#[message(Label)]
pub struct C(#[route(A)] Channel, #[route(B)] Channel);

/// The labels of `three_adder.scr`.
#[derive(Message)]
pub enum Label {
    /// `add(i32)`
    Add(Add),
    /// `sum(i32)`
    Sum(Sum),
}

/// `add(i32)`: a summand's number.
#[derive(Payload)]
pub struct Add(pub i32);
/// `sum(i32)`: the adder's answer.
#[derive(Payload)]
pub struct Sum(pub i32);

/// `A`: exchange numbers with `B`, send its own to `C`, receive the sum.
#[session]
pub type AdderA = Send<B, Add, Receive<B, Add, Send<C, Add, Receive<C, Sum, End>>>>;

/// `B`: the mirror of `A`.
#[session]
pub type AdderB = Receive<A, Add, Send<A, Add, Send<C, Add, Receive<C, Sum, End>>>>;

/// `C`: receive both numbers, send the sum to both.
#[session]
pub type AdderC = Receive<A, Add, Receive<B, Add, Send<A, Sum, Send<B, Sum, End>>>>;
