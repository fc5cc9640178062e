//! The futures returned by the session primitives: hand-written state machines that poll
//! the route directly, with no allocation and no nested `async` layers.
//!
//! Like every future, each must not be polled again after it returned `Ready`.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures::{Sink, TryStream};

use crate::deadline::{self, Expire, Until, Waiting};
use crate::error::{ReceiveError, ReceiveErrorKind, SendError, SendErrorKind};
use crate::primitives::{Branch, Choices, Continuation, Receive, Send};
use crate::role::{ExpectOne, Labelled, Message, Role, Route};
use crate::session::{FromState, State, step};

/// Marks the type parameters a future resolves with, without owning any.
type Types<T> = PhantomData<fn() -> T>;

const POLLED_AFTER_READY: &str = "an mpst future was polled after it completed";

/// Builds the error of a failed send of `Label` from `Me` to `Peer` in the state `Here`.
/// Boxed: a send's `?` leaves its error residual alive across the next `.await` of the
/// session closure, and an 88-byte `SendError` there made every role's future (which
/// tokio copies when it spawns it) that much larger (see crates/mpst/BENCHMARKS.md).
#[cold]
fn send_error<Me: Role, Peer: Role, Label, Here, E>(error: E) -> Box<SendError>
where
    Me::Message: Message<Label>,
    E: std::error::Error + std::marker::Send + Sync + 'static,
{
    Box::new(SendError {
        role: Me::NAME,
        peer: Peer::NAME,
        label: Some(<Me::Message as Message<Label>>::NAME),
        state: std::any::type_name::<Here>(),
        kind: SendErrorKind::from_sink_error(error),
    })
}

/// Builds the error of a receive at `Me` from `Peer` in the state `Here`.
#[cold]
fn receive_error<Me: Role, Peer: Role, Here>(kind: ReceiveErrorKind) -> ReceiveError {
    ReceiveError {
        role: Me::NAME,
        peer: Peer::NAME,
        state: std::any::type_name::<Here>(),
        kind,
    }
}

/// The role is about to wait on `Peer`: flushes every route (see [`poll_receive`]) and notes
/// the wait for a session deadline. Out of line, to keep the ready path small.
#[inline]
fn wait<Me, Peer, Here>(
    role: &mut Me,
    cx: &mut Context<'_>,
) -> Poll<Result<Me::Message, ReceiveError>>
where
    Me: Route<Peer>,
    Peer: Role,
{
    // A constant: roles whose routes never buffer have nothing to flush.
    if Me::BUFFERED {
        if let Err(mut error) = ready!(role.poll_flush(cx)) {
            error.state = std::any::type_name::<Here>();
            return Poll::Ready(Err(receive_error::<Me, Peer, Here>(
                ReceiveErrorKind::Flush(Box::new(error)),
            )));
        }
    }
    // Flushing is done; the stream registered the waker when it was polled.
    deadline::note(|| Waiting {
        role: Me::NAME,
        peer: Peer::NAME,
        state: std::any::type_name::<Here>(),
        label: None,
    });
    Poll::Pending
}

/// Polls the next message from `Me`'s route to `Peer`. When none is ready, the role is about
/// to wait: it first flushes every route's buffered sends, so no peer waits for a message
/// that sits in a buffer (which could deadlock the protocol).
#[inline(always)]
fn poll_receive<Me, Peer, Here>(
    role: &mut Me,
    cx: &mut Context<'_>,
) -> Poll<Result<Me::Message, ReceiveError>>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Route: TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
{
    let next = match Pin::new(<Me as Route<Peer>>::route(role)).try_poll_next(cx) {
        Poll::Ready(next) => next,
        Poll::Pending => return wait::<Me, Peer, Here>(role, cx),
    };
    Poll::Ready(match next {
        Some(Ok(message)) => Ok(message),
        Some(Err(error)) => Err(receive_error::<Me, Peer, Here>(
            ReceiveErrorKind::from_stream_error(error),
        )),
        None => Err(receive_error::<Me, Peer, Here>(
            ReceiveErrorKind::Disconnected,
        )),
    })
}

/// Sends a label to `Peer`, then resolves to the continuation `Next`.
///
/// Returned by [`Send::send`](crate::Send::send) and [`Select::select`](crate::Select::select).
#[must_use = "futures do nothing unless awaited"]
pub struct SendFuture<'r, Me: Role, Peer, Label, Next> {
    state: Option<State<'r, Me>>,
    message: Option<Me::Message>,
    _types: Types<(Peer, Label, Next)>,
}

// The message is only ever moved out through `&mut`, never pinned.
impl<Me: Role, Peer, Label, Next> Unpin for SendFuture<'_, Me, Peer, Label, Next> {}

impl<'r, Me: Role, Peer, Label, Next> SendFuture<'r, Me, Peer, Label, Next> {
    #[inline]
    pub(crate) fn new(state: State<'r, Me>, message: Me::Message) -> Self {
        Self {
            state: Some(state),
            message: Some(message),
            _types: PhantomData,
        }
    }
}

impl<'r, Me, Peer, Label, Next> Future for SendFuture<'r, Me, Peer, Label, Next>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Message<Label>,
    Me::Route: Sink<Me::Message> + Unpin,
    <Me::Route as Sink<Me::Message>>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    Next: FromState<'r, Role = Me>,
{
    /// The error is boxed to keep the session's future small; `?` turns it into
    /// [`Error::Send`](crate::Error::Send).
    type Output = Result<Next, Box<SendError>>;

    /// Waits until the route can take the message and hands it over, without flushing
    /// (see [`channel`](crate::channel) for when the runtime flushes).
    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let mut route = Pin::new(state.role.route());
        let ready = match route.as_mut().poll_ready(cx) {
            Poll::Ready(ready) => ready,
            Poll::Pending => {
                deadline::note(|| Waiting {
                    role: Me::NAME,
                    peer: Peer::NAME,
                    state: std::any::type_name::<Send<'r, Me, Peer, Label, Next>>(),
                    label: Some(<Me::Message as Message<Label>>::NAME),
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
                crate::observe::sent::<Me, Peer, Send<'r, Me, Peer, Label, Next>>(
                    <Me::Message as Message<Label>>::NAME,
                );
                Ok(step(state))
            }
            // Dropping `state` aborts the role.
            Err(error) => Err(send_error::<
                Me,
                Peer,
                Label,
                Send<'r, Me, Peer, Label, Next>,
                _,
            >(error)),
        })
    }
}

/// Receives the label `Label` from `Peer`, then resolves to it and the continuation `Next`.
///
/// Returned by [`Receive::receive`](crate::Receive::receive).
#[must_use = "futures do nothing unless awaited"]
pub struct ReceiveFuture<'r, Me: Role, Peer, Label, Next> {
    state: Option<State<'r, Me>>,
    _types: Types<(Peer, Label, Next)>,
}

impl<'r, Me: Role, Peer, Label, Next> ReceiveFuture<'r, Me, Peer, Label, Next> {
    #[inline]
    pub(crate) fn new(state: State<'r, Me>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, Me: Role, Peer, Label, Next> ReceiveFuture<'r, Me, Peer, Label, Next> {
    /// Gives up when `deadline` completes first: the session is dropped (aborting the
    /// role) and the receive fails with
    /// [`ReceiveErrorKind::TimedOut`]. Any future can be
    /// the deadline, e.g. `tokio::time::sleep(d)` (see [`deadline`]).
    #[inline]
    pub fn until<D: Future>(self, deadline: D) -> Until<Self, D> {
        Until::new(self, deadline)
    }
}

impl<Me: Role, Peer, Label, Next> deadline::private::Sealed
    for ReceiveFuture<'_, Me, Peer, Label, Next>
{
}

impl<'r, Me, Peer, Label, Next> Expire for ReceiveFuture<'r, Me, Peer, Label, Next>
where
    Self: Future<Output = Result<(Label, Next), ReceiveError>>,
    Me: Route<Peer>,
    Peer: Role,
{
    #[cold]
    fn expire(&mut self) -> Self::Output {
        self.state = None;
        Err(
            receive_error::<Me, Peer, Receive<'r, Me, Peer, Label, Next>>(
                ReceiveErrorKind::TimedOut,
            ),
        )
    }
}

impl<'r, Me, Peer, Label, Next> Future for ReceiveFuture<'r, Me, Peer, Label, Next>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Message<Label> + Labelled,
    Me::Route: TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    Next: FromState<'r, Role = Me>,
{
    type Output = Result<(Label, Next), ReceiveError>;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next =
            ready!(poll_receive::<Me, Peer, Receive<'r, Me, Peer, Label, Next>>(state.role, cx));
        // On an error, dropping `state` aborts the role.
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(next.and_then(|message| match message.downcast() {
            Ok(label) => {
                #[cfg(feature = "tracing")]
                crate::observe::received::<Me, Peer, Receive<'r, Me, Peer, Label, Next>>(
                    <Me::Message as Message<Label>>::NAME,
                );
                Ok((label, step(state)))
            }
            Err(other) => Err(
                receive_error::<Me, Peer, Receive<'r, Me, Peer, Label, Next>>(
                    ReceiveErrorKind::UnexpectedLabel {
                        received: other.label(),
                        expected: <Me::Message as ExpectOne<Label>>::ONE,
                    },
                ),
            ),
        }))
    }
}

/// Receives one label of the choice `Cases` from `Peer`, then resolves to the matching variant.
///
/// Returned by [`Branch::branch`](crate::Branch::branch).
#[must_use = "futures do nothing unless awaited"]
pub struct BranchFuture<'r, Me: Role, Peer, Cases> {
    state: Option<State<'r, Me>>,
    _types: Types<(Peer, Cases)>,
}

impl<'r, Me: Role, Peer, Cases> BranchFuture<'r, Me, Peer, Cases> {
    #[inline]
    pub(crate) fn new(state: State<'r, Me>) -> Self {
        Self {
            state: Some(state),
            _types: PhantomData,
        }
    }
}

impl<'r, Me: Role, Peer, Cases> BranchFuture<'r, Me, Peer, Cases> {
    /// Gives up when `deadline` completes first (see [`ReceiveFuture::until`]).
    #[inline]
    pub fn until<D: Future>(self, deadline: D) -> Until<Self, D> {
        Until::new(self, deadline)
    }
}

impl<Me: Role, Peer, Cases> deadline::private::Sealed for BranchFuture<'_, Me, Peer, Cases> {}

impl<'r, Me, Peer, Cases> Expire for BranchFuture<'r, Me, Peer, Cases>
where
    Self: Future<Output = Result<Cases, ReceiveError>>,
    Me: Route<Peer>,
    Peer: Role,
{
    #[cold]
    fn expire(&mut self) -> Self::Output {
        self.state = None;
        Err(receive_error::<Me, Peer, Branch<'r, Me, Peer, Cases>>(
            ReceiveErrorKind::TimedOut,
        ))
    }
}

impl<'r, Me, Peer, Cases> Future for BranchFuture<'r, Me, Peer, Cases>
where
    Me: Route<Peer>,
    Peer: Role,
    Me::Message: Labelled,
    Me::Route: TryStream<Ok = Me::Message> + Unpin,
    <Me::Route as TryStream>::Error: std::error::Error + std::marker::Send + Sync + 'static,
    Cases: Choices<'r, Role = Me>,
{
    type Output = Result<Cases, ReceiveError>;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let state = this.state.as_mut().expect(POLLED_AFTER_READY);
        let next = ready!(poll_receive::<Me, Peer, Branch<'r, Me, Peer, Cases>>(
            state.role, cx
        ));
        // On an error, dropping `state` aborts the role.
        let state = this.state.take().expect(POLLED_AFTER_READY);
        Poll::Ready(next.and_then(|message| {
            #[cfg(feature = "tracing")]
            let label = message.label();
            let chosen = Cases::downcast(Continuation::new(state), message).map_err(|other| {
                receive_error::<Me, Peer, Branch<'r, Me, Peer, Cases>>(
                    ReceiveErrorKind::UnexpectedLabel {
                        received: other.label(),
                        expected: Cases::LABELS,
                    },
                )
            })?;
            #[cfg(feature = "tracing")]
            crate::observe::received::<Me, Peer, Branch<'r, Me, Peer, Cases>>(label);
            Ok(chosen)
        }))
    }
}
