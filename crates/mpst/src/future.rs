//! The futures returned by the session primitives: hand-written state machines that poll
//! the route directly, with no allocation and no nested `async` layers.
//!
//! Like every future, each must not be polled again after it returned `Ready`.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures::{Sink, TryStream};

use crate::deadline::{self, Expire, Until, Waiting};
use crate::error::{ReceiveError, ReceiveErrorKind, SendError, SendErrorKind};
use crate::primitives::{Branch, Choices, Continuation, Receive, Send};
use crate::role::{ExpectOne, Labelled, Message, Role, Route};
use crate::session::{step, FromState, State};

/// Marks the type parameters a future resolves with, without owning any.
type Types<T> = PhantomData<fn() -> T>;

const POLLED_AFTER_READY: &str = "an mpst future was polled after it completed";

/// Builds the error of a failed send of `L` from `R` to `P` in the state `Here`.
#[cold]
fn send_error<R: Role, P: Role, L, Here, E>(error: E) -> SendError
where
    R::Message: Message<L>,
    E: std::error::Error + std::marker::Send + Sync + 'static,
{
    SendError {
        role: R::NAME,
        peer: P::NAME,
        label: Some(<R::Message as Message<L>>::NAME),
        state: std::any::type_name::<Here>(),
        kind: SendErrorKind::from_sink_error(error),
    }
}

/// Builds the error of a receive at `R` from `P` in the state `Here`.
#[cold]
fn receive_error<R: Role, P: Role, Here>(kind: ReceiveErrorKind) -> ReceiveError {
    ReceiveError {
        role: R::NAME,
        peer: P::NAME,
        state: std::any::type_name::<Here>(),
        kind,
    }
}

/// The role is about to wait on `P`: flushes every route (see [`poll_receive`]) and notes
/// the wait for a session deadline. Out of line, to keep the ready path small.
#[inline]
fn wait<R, P, Here>(role: &mut R, cx: &mut Context<'_>) -> Poll<Result<R::Message, ReceiveError>>
where
    R: Route<P>,
    P: Role,
{
    // A constant: roles whose routes never buffer have nothing to flush.
    if R::BUFFERED {
        if let Err(mut error) = ready!(role.poll_flush(cx)) {
            error.state = std::any::type_name::<Here>();
            return Poll::Ready(Err(receive_error::<R, P, Here>(ReceiveErrorKind::Flush(
                Box::new(error),
            ))));
        }
    }
    // Flushing is done; the stream registered the waker when it was polled.
    deadline::note(|| Waiting {
        role: R::NAME,
        peer: P::NAME,
        state: std::any::type_name::<Here>(),
        label: None,
    });
    Poll::Pending
}

/// Polls the next message from `R`'s route to `P`. When none is ready, the role is about
/// to wait: it first flushes every route's buffered sends, so no peer waits for a message
/// that sits in a buffer (which could deadlock the protocol).
#[inline]
fn poll_receive<R, P, Here>(
    role: &mut R,
    cx: &mut Context<'_>,
) -> Poll<Result<R::Message, ReceiveError>>
where
    R: Route<P>,
    P: Role,
    R::Route: TryStream<Ok = R::Message> + Unpin,
    <R::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
{
    let next = match Pin::new(<R as Route<P>>::route(role)).try_poll_next(cx) {
        Poll::Ready(next) => next,
        Poll::Pending => return wait::<R, P, Here>(role, cx),
    };
    Poll::Ready(match next {
        Some(Ok(message)) => Ok(message),
        Some(Err(error)) => Err(receive_error::<R, P, Here>(
            ReceiveErrorKind::from_stream_error(error),
        )),
        None => Err(receive_error::<R, P, Here>(ReceiveErrorKind::Disconnected)),
    })
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

    /// Waits until the route can take the message and hands it over, without flushing
    /// (see [`channel`](crate::channel) for when the runtime flushes).
    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let mut route = Pin::new(state.role.route());
        let ready = match route.as_mut().poll_ready(cx) {
            Poll::Ready(ready) => ready,
            Poll::Pending => {
                deadline::note(|| Waiting {
                    role: R::NAME,
                    peer: P::NAME,
                    state: std::any::type_name::<Send<'r, R, P, L, S>>(),
                    label: Some(<R::Message as Message<L>>::NAME),
                });
                return Poll::Pending;
            }
        };
        let sent = match ready {
            Ok(()) => {
                let message = this.message.take().expect(POLLED_AFTER_READY);
                route.start_send(message)
            }
            Err(error) => Err(error),
        };
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(match sent {
            Ok(()) => {
                #[cfg(feature = "tracing")]
                crate::observe::sent::<R, P, Send<'r, R, P, L, S>>(
                    <R::Message as Message<L>>::NAME,
                );
                Ok(step(state))
            }
            // Dropping `state` aborts the role.
            Err(error) => Err(send_error::<R, P, L, Send<'r, R, P, L, S>, _>(error)),
        })
    }
}

/// Receives the label `L` from `P`, then resolves to it and the continuation `S`.
///
/// Returned by [`Receive::receive`](crate::Receive::receive).
#[must_use = "futures do nothing unless awaited"]
pub struct ReceiveFuture<'r, R: Role, P, L, S> {
    state: Option<State<'r, R>>,
    _types: Types<(P, L, S)>,
}

impl<'r, R: Role, P, L, S> ReceiveFuture<'r, R, P, L, S> {
    #[inline]
    pub(crate) fn new(state: State<'r, R>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, R: Role, P, L, S> ReceiveFuture<'r, R, P, L, S> {
    /// Gives up when `deadline` completes first: the session is dropped (aborting the
    /// role) and the receive fails with
    /// [`ReceiveErrorKind::TimedOut`]. Any future can be
    /// the deadline, e.g. `tokio::time::sleep(d)` (see [`deadline`]).
    #[inline]
    pub fn until<D: Future>(self, deadline: D) -> Until<Self, D> {
        Until::new(self, deadline)
    }
}

impl<R: Role, P, L, S> deadline::private::Sealed for ReceiveFuture<'_, R, P, L, S> {}

impl<'r, R, P, L, S> Expire for ReceiveFuture<'r, R, P, L, S>
where
    Self: Future<Output = Result<(L, S), ReceiveError>>,
    R: Route<P>,
    P: Role,
{
    #[cold]
    fn expire(&mut self) -> Self::Output {
        self.state = None;
        Err(receive_error::<R, P, Receive<'r, R, P, L, S>>(
            ReceiveErrorKind::TimedOut,
        ))
    }
}

impl<'r, R, P, L, S> Future for ReceiveFuture<'r, R, P, L, S>
where
    R: Route<P>,
    P: Role,
    R::Message: Message<L> + Labelled,
    R::Route: TryStream<Ok = R::Message> + Unpin,
    <R::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    S: FromState<'r, Role = R>,
{
    type Output = Result<(L, S), ReceiveError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next = ready!(poll_receive::<R, P, Receive<'r, R, P, L, S>>(
            state.role, cx
        ));
        // On an error, dropping `state` aborts the role.
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(next.and_then(|message| match message.downcast() {
            Ok(label) => {
                #[cfg(feature = "tracing")]
                crate::observe::received::<R, P, Receive<'r, R, P, L, S>>(
                    <R::Message as Message<L>>::NAME,
                );
                Ok((label, step(state)))
            }
            Err(other) => Err(receive_error::<R, P, Receive<'r, R, P, L, S>>(
                ReceiveErrorKind::UnexpectedLabel {
                    received: other.label(),
                    expected: <R::Message as ExpectOne<L>>::ONE,
                },
            )),
        }))
    }
}

/// Receives one label of the choice `C` from `P`, then resolves to the matching variant.
///
/// Returned by [`Branch::branch`](crate::Branch::branch).
#[must_use = "futures do nothing unless awaited"]
pub struct BranchFuture<'r, R: Role, P, C> {
    state: Option<State<'r, R>>,
    _types: Types<(P, C)>,
}

impl<'r, R: Role, P, C> BranchFuture<'r, R, P, C> {
    #[inline]
    pub(crate) fn new(state: State<'r, R>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, R: Role, P, C> BranchFuture<'r, R, P, C> {
    /// Gives up when `deadline` completes first (see [`ReceiveFuture::until`]).
    #[inline]
    pub fn until<D: Future>(self, deadline: D) -> Until<Self, D> {
        Until::new(self, deadline)
    }
}

impl<R: Role, P, C> deadline::private::Sealed for BranchFuture<'_, R, P, C> {}

impl<'r, R, P, C> Expire for BranchFuture<'r, R, P, C>
where
    Self: Future<Output = Result<C, ReceiveError>>,
    R: Route<P>,
    P: Role,
{
    #[cold]
    fn expire(&mut self) -> Self::Output {
        self.state = None;
        Err(receive_error::<R, P, Branch<'r, R, P, C>>(
            ReceiveErrorKind::TimedOut,
        ))
    }
}

impl<'r, R, P, C> Future for BranchFuture<'r, R, P, C>
where
    R: Route<P>,
    P: Role,
    R::Message: Labelled,
    R::Route: TryStream<Ok = R::Message> + Unpin,
    <R::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    C: Choices<'r, Role = R>,
{
    type Output = Result<C, ReceiveError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next = ready!(poll_receive::<R, P, Branch<'r, R, P, C>>(state.role, cx));
        // On an error, dropping `state` aborts the role.
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(next.and_then(|message| {
            #[cfg(feature = "tracing")]
            let label = message.label();
            let chosen = C::downcast(Continuation::new(state), message).map_err(|other| {
                receive_error::<R, P, Branch<'r, R, P, C>>(ReceiveErrorKind::UnexpectedLabel {
                    received: other.label(),
                    expected: C::LABELS,
                })
            })?;
            #[cfg(feature = "tracing")]
            crate::observe::received::<R, P, Branch<'r, R, P, C>>(label);
            Ok(chosen)
        }))
    }
}
