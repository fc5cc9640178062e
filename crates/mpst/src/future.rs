//! The futures returned by the session primitives: hand-written state machines that poll
//! the route directly, with no allocation and no nested `async` layers.
//!
//! Like every future, each must not be polled again after it returned `Ready`.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures::{Sink, Stream};

use crate::error::{ReceiveError, ReceiveErrorKind, SendError, SendErrorKind};
use crate::primitives::Choices;
use crate::role::{ExpectOne, Labelled, Message, Role, Route};
use crate::session::{FromState, State};

/// Marks the type parameters a future resolves with, without owning any.
type Types<T> = PhantomData<fn() -> T>;

const POLLED_AFTER_READY: &str = "an mpst future was polled after it completed";

/// Builds the error of a failed send of `L` from `R` to `P`.
#[cold]
fn send_error<R: Role, P: Role, L, E>(error: E) -> SendError
where
    R::Message: Message<L>,
    E: std::error::Error + std::marker::Send + Sync + 'static,
{
    SendError {
        role: R::NAME,
        peer: P::NAME,
        label: <R::Message as Message<L>>::NAME,
        kind: SendErrorKind::from_sink_error(error),
    }
}

/// Builds the error of a receive at `R` from `P`.
#[cold]
fn receive_error<R: Role, P: Role>(kind: ReceiveErrorKind) -> ReceiveError {
    ReceiveError {
        role: R::NAME,
        peer: P::NAME,
        kind,
    }
}

/// Sends a label to `P`, then resolves to the continuation `S`.
///
/// Returned by [`Send::send`](crate::Send::send) and [`Select::select`](crate::Select::select).
#[must_use = "futures do nothing unless awaited"]
pub struct SendFuture<'r, R: Role, P, L, S> {
    state: Option<State<'r, R>>,
    message: Option<R::Message>,
    _types: Types<(P, L, S)>,
}

// The message is only ever moved out through `&mut`, never pinned.
impl<R: Role, P, L, S> Unpin for SendFuture<'_, R, P, L, S> {}

impl<'r, R: Role, P, L, S> SendFuture<'r, R, P, L, S> {
    #[inline]
    pub(crate) fn new(state: State<'r, R>, message: R::Message) -> Self {
        Self {
            state: Some(state),
            message: Some(message),
            _types: PhantomData,
        }
    }
}

impl<'r, R, P, L, S> Future for SendFuture<'r, R, P, L, S>
where
    R: Route<P>,
    P: Role,
    R::Message: Message<L>,
    R::Route: Sink<R::Message> + Unpin,
    <R::Route as Sink<R::Message>>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    S: FromState<'r, Role = R>,
{
    type Output = Result<S, SendError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let mut route = Pin::new(state.role.route());
        if this.message.is_some() {
            if let Err(error) = ready!(route.as_mut().poll_ready(cx)) {
                this.state = None;
                return Poll::Ready(Err(send_error::<R, P, L, _>(error)));
            }
            if let Some(message) = this.message.take() {
                if let Err(error) = route.as_mut().start_send(message) {
                    this.state = None;
                    return Poll::Ready(Err(send_error::<R, P, L, _>(error)));
                }
            }
        }
        let flushed = ready!(route.poll_flush(cx));
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(match flushed {
            Ok(()) => Ok(S::from_state(state)),
            Err(error) => Err(send_error::<R, P, L, _>(error)),
        })
    }
}

/// Receives the label `L` from `P`, then resolves to it and the continuation `S`.
///
/// Returned by [`Receive::receive`](crate::Receive::receive).
#[must_use = "futures do nothing unless awaited"]
pub struct ReceiveFuture<'r, R, P, L, S> {
    state: Option<State<'r, R>>,
    _types: Types<(P, L, S)>,
}

impl<'r, R, P, L, S> ReceiveFuture<'r, R, P, L, S> {
    #[inline]
    pub(crate) fn new(state: State<'r, R>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, R, P, L, S> Future for ReceiveFuture<'r, R, P, L, S>
where
    R: Route<P>,
    P: Role,
    R::Message: Message<L> + Labelled,
    R::Route: Stream<Item = R::Message> + Unpin,
    S: FromState<'r, Role = R>,
{
    type Output = Result<(L, S), ReceiveError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next = ready!(Pin::new(state.role.route()).poll_next(cx));
        let state = this.state.take().expect(POLLED_AFTER_READY);
        let Some(message) = next else {
            return Poll::Ready(Err(receive_error::<R, P>(ReceiveErrorKind::Disconnected)));
        };
        Poll::Ready(match message.downcast() {
            Ok(label) => Ok((label, S::from_state(state))),
            Err(other) => Err(receive_error::<R, P>(ReceiveErrorKind::UnexpectedLabel {
                received: other.label(),
                expected: <R::Message as ExpectOne<L>>::ONE,
            })),
        })
    }
}

/// Receives one label of the choice `C` from `P`, then resolves to the matching variant.
///
/// Returned by [`Branch::branch`](crate::Branch::branch).
#[must_use = "futures do nothing unless awaited"]
pub struct BranchFuture<'r, R, P, C> {
    state: Option<State<'r, R>>,
    _types: Types<(P, C)>,
}

impl<'r, R, P, C> BranchFuture<'r, R, P, C> {
    #[inline]
    pub(crate) fn new(state: State<'r, R>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, R, P, C> Future for BranchFuture<'r, R, P, C>
where
    R: Route<P>,
    P: Role,
    R::Message: Labelled,
    R::Route: Stream<Item = R::Message> + Unpin,
    C: Choices<'r, Role = R>,
{
    type Output = Result<C, ReceiveError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next = ready!(Pin::new(state.role.route()).poll_next(cx));
        let state = this.state.take().expect(POLLED_AFTER_READY);
        let Some(message) = next else {
            return Poll::Ready(Err(receive_error::<R, P>(ReceiveErrorKind::Disconnected)));
        };
        Poll::Ready(C::downcast(state, message).map_err(|other| {
            receive_error::<R, P>(ReceiveErrorKind::UnexpectedLabel {
                received: other.label(),
                expected: C::LABELS,
            })
        }))
    }
}
