//! Roles, routes and messages: the static description of who talks to whom and with which
//! labels.

use std::task::{Context, Poll};

use crate::error::SendError;

/// A participant of a protocol.
///
/// Implemented by `#[derive(Role)]`. A role is a struct that owns one route (channel) per
/// peer it talks to; see [`Route`].
pub trait Role {
    /// The label enum this role sends and receives (the `#[message(Label)]` attribute).
    type Message;

    /// The role's name as written in the source, e.g. `"A"` for `struct A(..)`.
    ///
    /// Errors name peers with it and the `serialize` work reads it to name FSMs.
    const NAME: &'static str;

    /// Flushes the buffered sends of every route of the role, in declaration order.
    ///
    /// The runtime calls it when the role is about to wait on a receive and at `End`
    /// (sends themselves do not flush, see [`channel`](crate::channel)). The error names
    /// the peer whose route failed; its `state` is left empty for the caller to fill in.
    /// `#[derive(Role)]` implements it; the default flushes nothing.
    #[inline]
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        let _ = cx;
        Poll::Ready(Ok(()))
    }

    /// Tells every route of the role that a session begins
    /// ([`channel::Abort::begin`](crate::channel::Abort::begin)): [`try_session`](crate::try_session)
    /// calls it before the session's first step. `#[derive(Role)]` implements it; the
    /// default does nothing.
    #[inline]
    fn begin(&mut self) {}

    /// Aborts every route of the role ([`channel::Abort`](crate::channel::Abort)): the
    /// runtime calls it when a session of the role ends without reaching `End`, unless
    /// the role is [`Role::DETACHED`]. `#[derive(Role)]` implements it; the default does
    /// nothing.
    #[inline]
    fn abort(&mut self) {}

    /// Whether every route of the role can be aborted out of band
    /// ([`channel::Abort::DETACHED`](crate::channel::Abort::DETACHED)). Then
    /// [`try_session`](crate::try_session) takes the role's [`Role::abort_handle`] when a
    /// session begins and aborts through it when the session ends without reaching `End`,
    /// and the session's steps carry no abort code. `#[derive(Role)]` computes it from
    /// the route types; the default is `false` (abort in place, with [`Role::abort`]).
    const DETACHED: bool = false;

    /// Whether some route of the role may hold sent messages until it is flushed
    /// ([`channel::Abort::BUFFERED`](crate::channel::Abort::BUFFERED)). When `false`, the
    /// runtime does not call [`Role::poll_flush`] before a wait or at `End`: there is
    /// nothing to flush. `#[derive(Role)]` computes it from the route types; the default
    /// is `true`.
    const BUFFERED: bool = true;

    /// The handles of every route ([`channel::Abort::handle`](crate::channel::Abort::handle)),
    /// taken when a session of a [`Role::DETACHED`] role begins. `#[derive(Role)]`
    /// implements it; the default aborts nothing.
    #[inline]
    fn abort_handle(&self) -> impl crate::channel::AbortHandle + use<Self> {
        crate::channel::InPlace
    }
}

/// A role that has a route (a channel) to the peer `Peer`.
///
/// Implemented by `#[derive(Role)]` for every field marked `#[route(Peer)]`.
pub trait Route<Peer>: Role {
    /// The channel to `Peer`: a [`futures::Sink`] of messages for sending, a
    /// [`futures::Stream`] of messages for receiving, or both.
    type Route;

    /// Borrows the channel to `Peer`.
    fn route(&mut self) -> &mut Self::Route;
}

/// A label enum that can carry the label type `Label`.
///
/// Implemented by `#[derive(Message)]` for the type each variant wraps: for
/// `enum Label { Add(Add), Sum(Sum) }` there are `Message<Add>` and `Message<Sum>`.
pub trait Message<Label>: Sized {
    /// The label's name: the name of the variant that carries `Label` (e.g. `"Add"`).
    const NAME: &'static str;

    /// Wraps a label into the enum.
    fn upcast(label: Label) -> Self;

    /// Unwraps the label `Label`, or gives the message back when it carries another label.
    fn downcast(self) -> Result<Label, Self>;
}

/// A label enum whose values can tell which label they carry.
///
/// Implemented by `#[derive(Message)]`; used to report the label that arrived when another
/// one was expected.
pub trait Labelled {
    /// The names of every label of the enum, in declaration order.
    const LABELS: &'static [&'static str];

    /// The name of the label this message carries.
    fn label(&self) -> &'static str;

    /// The name of the label whose type has the given `TypeId`, if the enum carries it
    /// (used to name labels when walking a session type, see [`introspect`](crate::introspect)).
    fn name_of(label_type: std::any::TypeId) -> Option<&'static str>;

    /// The payload sorts ([`Payload::SORTS`](crate::Payload::SORTS)) of the label type
    /// with the given `TypeId`, if the enum carries it and it implements
    /// [`Payload`](crate::Payload). `#[derive(Message)]` implements this; the default
    /// knows no payload.
    fn sorts_of(label_type: std::any::TypeId) -> Option<&'static [&'static str]> {
        let _ = label_type;
        None
    }
}

/// One-element list of the name of `Label`, as a `'static` slice for error reports.
pub(crate) trait ExpectOne<Label> {
    /// `[<Self as Message<Label>>::NAME]`.
    const ONE: &'static [&'static str];
}

impl<M: Message<Label>, Label> ExpectOne<Label> for M {
    const ONE: &'static [&'static str] = &[<M as Message<Label>>::NAME];
}
