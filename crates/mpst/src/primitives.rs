//! The session primitives `Send`, `Receive`, `Select`, `Choose` and `Branch`, and the
//! traits that connect choice enums to `Select`, `Choose` and `Branch`.
//!
//! Each primitive is a pointer-sized wrapper around the role borrow ([`State`]); running a
//! step consumes it and returns the continuation, so Rust's move checking enforces
//! linearity. Labels travel as the role's message enum, straight over the route: no boxing,
//! no dynamic dispatch, no allocation beyond what the channel itself does.
//!
//! # Parameter names
//!
//! rustc prints a type's generic parameters by name when it names the type in general
//! (``no method named `send` found for struct `Receive<'r, Me, Peer, Label, Next>` ``), so
//! they are words no protocol would give a role, the same in every session type and its
//! future ([`SendFuture`], [`ReceiveFuture`], [`BranchFuture`]):
//!
//! | parameter | what it is |
//! |---|---|
//! | `'r` | how long the session borrows the role |
//! | `Me` | the role running the session ([`End<'r, Me>`](crate::End) too) |
//! | `Peer` | the role this step talks to (not in [`Choose`]: each variant names its own) |
//! | `Label` | the label sent or received |
//! | `Next` | the session after this step |
//! | `Cases` | the choice enum of [`Select`], [`Choose`] and [`Branch`] |
//!
//! [`try_session`](crate::try_session) calls its session type `Session`.

use std::marker::PhantomData;

use crate::future::{BranchFuture, ReceiveFuture, SendFuture};
use crate::role::{Labelled, Message, Role, Route};
use crate::session::{FromState, State, sealed, step};

macro_rules! primitive {
    ($(#[$doc:meta])* $name:ident<$($param:ident),*>) => {
        $(#[$doc])*
        #[must_use = "a session must be used until it reaches `End`"]
        pub struct $name<'r, Me: Role, $($param),*> {
            state: State<'r, Me>,
            _types: PhantomData<fn() -> ($($param,)*)>,
        }

        impl<Me: Role, $($param),*> sealed::Sealed for $name<'_, Me, $($param),*> {}

        impl<'r, Me: Role, $($param),*> FromState<'r> for $name<'r, Me, $($param),*> {
            type Role = Me;

            #[inline]
            fn from_state(state: State<'r, Me>, _: sealed::Token) -> Self {
                Self { state, _types: PhantomData }
            }
        }
    };
}

primitive! {
    /// Send the label `Label` to the peer `Peer`, then continue as `Next`.
    ///
    /// Written `Send<Peer, Label, Next>` inside `#[session]`; the full type is
    /// `Send<'r, Me, Peer, Label, Next>` where `Me` is the role running the session.
    Send<Peer, Label, Next>
}

primitive! {
    /// Receive the label `Label` from the peer `Peer`, then continue as `Next`.
    ///
    /// Written `Receive<Peer, Label, Next>` inside `#[session]`.
    Receive<Peer, Label, Next>
}

primitive! {
    /// Internal choice: send one label of the choice enum `Cases` to `Peer`, then continue as that
    /// label's continuation.
    ///
    /// Written `Select<Peer, Cases>` inside `#[session]`, with `Cases` a `#[session] enum`.
    Select<Peer, Cases>
}

primitive! {
    /// Internal choice among several peers: send one label of the choice enum `Cases` to the
    /// peer that label's variant names, then continue as that label's continuation.
    ///
    /// Written `Choose<Cases>` inside `#[session]`, with `Cases` a `#[session] enum` whose every
    /// variant names its peer: `#[to(B)] Left(Left, Send<C, Tell, End>)`. This is the
    /// projection of a choice whose branches start with messages to different receivers;
    /// when every variant goes to one peer, write `Select<Peer, Cases>` instead.
    Choose<Cases>
}

primitive! {
    /// External choice: receive one label of the choice enum `Cases` from `Peer` and get the enum
    /// variant (label and continuation) to `match` on.
    ///
    /// Written `Branch<Peer, Cases>` inside `#[session]`, with `Cases` a `#[session] enum`.
    Branch<Peer, Cases>
}

/// A choice enum that offers the label `Label`: [`Select::select`] with `Label` continues as
/// [`Choice::Session`].
///
/// Implemented by `#[session]` on enums, once per variant.
pub trait Choice<'r, Label>: Choices<'r> {
    /// The continuation after the label `Label`.
    type Session: FromState<'r, Role = Self::Role>;
}

/// A choice enum whose variants name their peers (`#[to(Peer)]`) offers the label `Label`
/// to [`ChoiceTo::Peer`]: [`Choose::choose`] with `Label` sends it there and continues as
/// [`ChoiceTo::Session`].
///
/// Implemented by `#[session]` on enums whose variants carry `#[to(Peer)]`, once per
/// variant. Such an enum implements neither [`Choice`] nor [`Choices`], so it cannot be
/// used with [`Select`] (one peer) or [`Branch`].
pub trait ChoiceTo<'r, Label> {
    /// The role running the session.
    type Role: Role;
    /// The peer the label `Label` goes to.
    type Peer: Role;
    /// The continuation after the label `Label`.
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
    /// order, e.g. `((Continue, Branch<'r, Me, A, Self>), ((Stop, End<'r, Me>), ()))`.
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
/// continuation the choice `Cases` declares for that label ([`Choice::Session`]), so an
/// implementation of [`Choices`] never holds a [`State`]. Dropping it aborts the role.
#[must_use = "a continuation must become the chosen variant's session"]
pub struct Continuation<'r, Cases: Choices<'r>> {
    state: State<'r, Cases::Role>,
}

impl<'r, Cases: Choices<'r>> Continuation<'r, Cases> {
    #[inline]
    pub(crate) fn new(state: State<'r, Cases::Role>) -> Self {
        Self { state }
    }

    /// The continuation after the label `Label`.
    #[inline]
    pub fn into_session<Label>(self) -> <Cases as Choice<'r, Label>>::Session
    where
        Cases: Choice<'r, Label>,
    {
        step(self.state)
    }
}

impl<'r, Me, Peer, Label, Next> Send<'r, Me, Peer, Label, Next>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Message<Label>,
    Me::Route: futures::Sink<Me::Message> + Unpin,
    <Me::Route as futures::Sink<Me::Message>>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
    Next: FromState<'r, Role = Me>,
{
    /// Sends `label` to `Peer`; the future resolves to the continuation, or to a boxed
    /// [`SendError`](crate::SendError) (`?` turns it into [`Error`](crate::Error)).
    #[inline]
    pub fn send(self, label: Label) -> SendFuture<'r, Me, Peer, Label, Next> {
        SendFuture::new(self.state, <Me::Message as Message<Label>>::upcast(label))
    }
}

impl<'r, Me, Peer, Label, Next> Receive<'r, Me, Peer, Label, Next>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Message<Label> + Labelled,
    Me::Route: futures::TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as futures::TryStream>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
    Next: FromState<'r, Role = Me>,
{
    /// Waits for the label `Label` from `Peer`; the future resolves to it and the continuation.
    ///
    /// Fails with [`ReceiveErrorKind::UnexpectedLabel`](crate::ReceiveErrorKind) when
    /// another label arrives, with `Disconnected` when `Peer` is gone (or its session failed)
    /// and with `Transport` when the route yields an error.
    #[inline]
    pub fn receive(self) -> ReceiveFuture<'r, Me, Peer, Label, Next> {
        ReceiveFuture::new(self.state)
    }
}

impl<'r, Me, Peer, Cases> Select<'r, Me, Peer, Cases>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Route: futures::Sink<Me::Message> + Unpin,
    <Me::Route as futures::Sink<Me::Message>>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
{
    /// Sends `label`, one of the labels of the choice `Cases`, to `Peer`; the future resolves to
    /// that label's continuation.
    #[inline]
    pub fn select<Label>(
        self,
        label: Label,
    ) -> SendFuture<'r, Me, Peer, Label, <Cases as Choice<'r, Label>>::Session>
    where
        Cases: Choice<'r, Label, Role = Me>,
        Me::Message: Message<Label>,
    {
        SendFuture::new(self.state, <Me::Message as Message<Label>>::upcast(label))
    }
}

impl<'r, Me: Role, Cases> Choose<'r, Me, Cases> {
    /// Sends `label`, one of the labels of the choice `Cases`, to the peer its variant names;
    /// the future resolves to that label's continuation.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub fn choose<Label>(
        self,
        label: Label,
    ) -> SendFuture<
        'r,
        Me,
        <Cases as ChoiceTo<'r, Label>>::Peer,
        Label,
        <Cases as ChoiceTo<'r, Label>>::Session,
    >
    where
        Cases: ChoiceTo<'r, Label, Role = Me>,
        Me: Route<<Cases as ChoiceTo<'r, Label>>::Peer>,
        Me::Message: Message<Label>,
        <Me as Route<<Cases as ChoiceTo<'r, Label>>::Peer>>::Route:
            futures::Sink<Me::Message> + Unpin,
        <<Me as Route<<Cases as ChoiceTo<'r, Label>>::Peer>>::Route as futures::Sink<
            Me::Message,
        >>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    {
        SendFuture::new(self.state, <Me::Message as Message<Label>>::upcast(label))
    }
}

impl<'r, Me, Peer, Cases> Branch<'r, Me, Peer, Cases>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Labelled,
    Me::Route: futures::TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as futures::TryStream>::Error:
        std::error::Error + std::marker::Send + Sync + 'static,
    Cases: Choices<'r, Role = Me>,
{
    /// Waits for one of the labels of `Cases` from `Peer`; the future resolves to the matching
    /// variant of the choice enum (the label and its continuation).
    #[inline]
    pub fn branch(self) -> BranchFuture<'r, Me, Peer, Cases> {
        BranchFuture::new(self.state)
    }
}
