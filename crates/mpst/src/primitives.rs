//! The session primitives `Send`, `Receive`, `Select`, `Choose` and `Branch`, and the
//! traits that connect choice enums to `Select`, `Choose` and `Branch`.
//!
//! Each primitive is a pointer-sized wrapper around the role borrow ([`State`]); running a
//! step consumes it and returns the continuation, so Rust's move checking enforces
//! linearity. Labels travel as the role's message enum, straight over the route: no boxing,
//! no dynamic dispatch, no allocation beyond what the channel itself does.

use std::marker::PhantomData;

use crate::future::{BranchFuture, ReceiveFuture, SendFuture};
use crate::role::{Labelled, Message, Role, Route};
use crate::session::{sealed, step, FromState, State};

macro_rules! primitive {
    ($(#[$doc:meta])* $name:ident<$($param:ident),*>) => {
        $(#[$doc])*
        #[must_use = "a session must be used until it reaches `End`"]
        pub struct $name<'r, R: Role, $($param),*> {
            state: State<'r, R>,
            _types: PhantomData<fn() -> ($($param,)*)>,
        }

        impl<R: Role, $($param),*> sealed::Sealed for $name<'_, R, $($param),*> {}

        impl<'r, R: Role, $($param),*> FromState<'r> for $name<'r, R, $($param),*> {
            type Role = R;

            #[inline]
            fn from_state(state: State<'r, R>, _: sealed::Token) -> Self {
                Self { state, _types: PhantomData }
            }
        }
    };
}

primitive! {
    /// Send the label `L` to the peer `P`, then continue as `S`.
    ///
    /// Written `Send<P, L, S>` inside `#[session]`; the full type is
    /// `Send<'r, R, P, L, S>` where `R` is the role running the session.
    Send<P, L, S>
}

primitive! {
    /// Receive the label `L` from the peer `P`, then continue as `S`.
    ///
    /// Written `Receive<P, L, S>` inside `#[session]`.
    Receive<P, L, S>
}

primitive! {
    /// Internal choice: send one label of the choice enum `C` to `P`, then continue as that
    /// label's continuation.
    ///
    /// Written `Select<P, C>` inside `#[session]`, with `C` a `#[session] enum`.
    Select<P, C>
}

primitive! {
    /// Internal choice among several peers: send one label of the choice enum `C` to the
    /// peer that label's variant names, then continue as that label's continuation.
    ///
    /// Written `Choose<C>` inside `#[session]`, with `C` a `#[session] enum` whose every
    /// variant names its peer: `#[to(B)] Left(Left, Send<C, Tell, End>)`. This is the
    /// projection of a choice whose branches start with messages to different receivers;
    /// when every variant goes to one peer, write `Select<P, C>` instead.
    Choose<C>
}

primitive! {
    /// External choice: receive one label of the choice enum `C` from `P` and get the enum
    /// variant (label and continuation) to `match` on.
    ///
    /// Written `Branch<P, C>` inside `#[session]`, with `C` a `#[session] enum`.
    Branch<P, C>
}

/// A choice enum that offers the label `L`: [`Select::select`] with `L` continues as
/// [`Choice::Session`].
///
/// Implemented by `#[session]` on enums, once per variant.
pub trait Choice<'r, L>: Choices<'r> {
    /// The continuation after the label `L`.
    type Session: FromState<'r, Role = Self::Role>;
}

/// A choice enum whose variants name their peers (`#[to(Peer)]`) offers the label `L`
/// to [`ChoiceTo::Peer`]: [`Choose::choose`] with `L` sends it there and continues as
/// [`ChoiceTo::Session`].
///
/// Implemented by `#[session]` on enums whose variants carry `#[to(Peer)]`, once per
/// variant. Such an enum implements neither [`Choice`] nor [`Choices`], so it cannot be
/// used with [`Select`] (one peer) or [`Branch`].
pub trait ChoiceTo<'r, L> {
    /// The role running the session.
    type Role: Role;
    /// The peer the label `L` goes to.
    type Peer: Role;
    /// The continuation after the label `L`.
    type Session: FromState<'r, Role = Self::Role>;
}

/// A choice enum: the variants a [`Branch`] can receive.
///
/// Implemented by `#[session]` on enums such as
/// `enum Choice { Continue(Continue, Branch<A, Self>), Stop(Stop, End) }`.
pub trait Choices<'r>: Sized {
    /// The role running the session.
    type Role: Role;

    /// The variants at type level, for walking a session type without running it: a
    /// right-nested list of `(Label, Continuation)` pairs ended by `()`, in declaration
    /// order, e.g. `((Continue, Branch<'r, R, A, Self>), ((Stop, End<'r, R>), ()))`.
    type Variants;

    /// The label names of the variants, in declaration order.
    const LABELS: &'static [&'static str];

    /// Turns a received message into the matching variant, building its continuation
    /// with [`Continuation::into_session`], or gives the message back when its label is
    /// not one of the choice's.
    fn downcast(
        next: Continuation<'r, Self>,
        message: <Self::Role as Role>::Message,
    ) -> Result<Self, <Self::Role as Role>::Message>;
}

/// The session state of a [`Branch`] whose label is being matched: it can only become the
/// continuation the choice `C` declares for that label ([`Choice::Session`]), so an
/// implementation of [`Choices`] never holds a [`State`]. Dropping it aborts the role.
#[must_use = "a continuation must become the chosen variant's session"]
pub struct Continuation<'r, C: Choices<'r>> {
    state: State<'r, C::Role>,
}

impl<'r, C: Choices<'r>> Continuation<'r, C> {
    #[inline]
    pub(crate) fn new(state: State<'r, C::Role>) -> Self {
        Self { state }
    }

    /// The continuation after the label `L`.
    #[inline]
    pub fn into_session<L>(self) -> <C as Choice<'r, L>>::Session
    where
        C: Choice<'r, L>,
    {
        step(self.state)
    }
}

impl<'r, R, P, L, S> Send<'r, R, P, L, S>
where
    R: Route<P>,
    P: Role,
    R::Message: Message<L>,
    R::Route: futures::Sink<R::Message> + Unpin,
    <R::Route as futures::Sink<R::Message>>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
    S: FromState<'r, Role = R>,
{
    /// Sends `label` to `P`; the future resolves to the continuation.
    #[inline]
    pub fn send(self, label: L) -> SendFuture<'r, R, P, L, S> {
        SendFuture::new(self.state, <R::Message as Message<L>>::upcast(label))
    }
}

impl<'r, R, P, L, S> Receive<'r, R, P, L, S>
where
    R: Route<P>,
    P: Role,
    R::Message: Message<L> + Labelled,
    R::Route: futures::TryStream<Ok = R::Message> + Unpin,
    <R::Route as futures::TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    S: FromState<'r, Role = R>,
{
    /// Waits for the label `L` from `P`; the future resolves to it and the continuation.
    ///
    /// Fails with [`ReceiveErrorKind::UnexpectedLabel`](crate::ReceiveErrorKind) when
    /// another label arrives, with `Disconnected` when `P` is gone (or its session failed)
    /// and with `Transport` when the route yields an error.
    #[inline]
    pub fn receive(self) -> ReceiveFuture<'r, R, P, L, S> {
        ReceiveFuture::new(self.state)
    }
}

impl<'r, R, P, C> Select<'r, R, P, C>
where
    R: Route<P>,
    P: Role,
    R::Route: futures::Sink<R::Message> + Unpin,
    <R::Route as futures::Sink<R::Message>>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
{
    /// Sends `label`, one of the labels of the choice `C`, to `P`; the future resolves to
    /// that label's continuation.
    #[inline]
    pub fn select<L>(self, label: L) -> SendFuture<'r, R, P, L, <C as Choice<'r, L>>::Session>
    where
        C: Choice<'r, L, Role = R>,
        R::Message: Message<L>,
    {
        SendFuture::new(self.state, <R::Message as Message<L>>::upcast(label))
    }
}

impl<'r, R: Role, C> Choose<'r, R, C> {
    /// Sends `label`, one of the labels of the choice `C`, to the peer its variant names;
    /// the future resolves to that label's continuation.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn choose<L>(
        self,
        label: L,
    ) -> SendFuture<'r, R, <C as ChoiceTo<'r, L>>::Peer, L, <C as ChoiceTo<'r, L>>::Session>
    where
        C: ChoiceTo<'r, L, Role = R>,
        R: Route<<C as ChoiceTo<'r, L>>::Peer>,
        R::Message: Message<L>,
        <R as Route<<C as ChoiceTo<'r, L>>::Peer>>::Route: futures::Sink<R::Message> + Unpin,
        <<R as Route<<C as ChoiceTo<'r, L>>::Peer>>::Route as futures::Sink<R::Message>>::Error:
            std::error::Error + std::marker::Send + Sync + 'static,
    {
        SendFuture::new(self.state, <R::Message as Message<L>>::upcast(label))
    }
}

impl<'r, R, P, C> Branch<'r, R, P, C>
where
    R: Route<P>,
    P: Role,
    R::Message: Labelled,
    R::Route: futures::TryStream<Ok = R::Message> + Unpin,
    <R::Route as futures::TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    C: Choices<'r, Role = R>,
{
    /// Waits for one of the labels of `C` from `P`; the future resolves to the matching
    /// variant of the choice enum (the label and its continuation).
    #[inline]
    pub fn branch(self) -> BranchFuture<'r, R, P, C> {
        BranchFuture::new(self.state)
    }
}
