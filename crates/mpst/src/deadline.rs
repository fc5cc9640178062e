//! Deadlines on in-memory (or any) routes, for any executor: a receive that gives up
//! ([`ReceiveFuture::until`](crate::future::ReceiveFuture::until),
//! [`BranchFuture::until`](crate::future::BranchFuture::until)) and a whole session that
//! gives up ([`try_session_until`]). A deadline is any future that completes when time is
//! up — `tokio::time::sleep(d)`, `futures_timer::Delay::new(d)`, a channel fired by a
//! supervisor — so the runtime forces no timer (and no executor) on its users.
//!
//! Giving up drops the session (which aborts the role, see
//! [`try_session`]) and fails with an error naming the role, the peer
//! and the protocol state it was waiting in: [`ReceiveErrorKind::TimedOut`] or
//! [`SendErrorKind::TimedOut`].

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use pin_project_lite::pin_project;

use crate::error::{ReceiveErrorKind, SendErrorKind};
use crate::session::{Captures, End, FromState, try_session};
use crate::{Error, ReceiveError, Role, SendError};

/// What a session is blocked on: a receive (`label` is `None`) or a send.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waiting {
    pub(crate) role: &'static str,
    pub(crate) peer: &'static str,
    pub(crate) state: &'static str,
    pub(crate) label: Option<&'static str>,
}

thread_local! {
    /// Whether a [`SessionUntil`] is polling its session on this thread right now.
    static TRACKING: Cell<bool> = const { Cell::new(false) };
    /// The step the session polled last reported it is blocked on.
    static WAITING: Cell<Option<Waiting>> = const { Cell::new(None) };
}

/// Reports that a step is about to wait (called on the `Pending` path only): one
/// thread-local read unless a session deadline is watching.
#[inline]
pub(crate) fn note(waiting: impl FnOnce() -> Waiting) {
    if TRACKING.with(Cell::get) {
        record(waiting());
    }
}

#[cold]
#[inline(never)]
fn record(waiting: Waiting) {
    WAITING.with(|cell| cell.set(Some(waiting)));
}

/// Polls `poll` while recording which step it blocks on (nested deadlines restore the
/// outer record).
fn tracking<T>(poll: impl FnOnce() -> Poll<T>) -> (Poll<T>, Option<Waiting>) {
    let outer = (
        TRACKING.with(|t| t.replace(true)),
        WAITING.with(|w| w.take()),
    );
    let result = poll();
    let waiting = WAITING.with(|w| w.replace(outer.1));
    TRACKING.with(|t| t.set(outer.0));
    (result, waiting)
}

/// A session that timed out while it was not waiting on a peer (e.g. in its own work).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session of role {role} timed out")]
pub struct SessionTimedOut {
    /// The role whose session timed out.
    pub role: &'static str,
}

/// The error of a session whose deadline passed while blocked on `waiting`.
fn timed_out(role: &'static str, waiting: Option<Waiting>) -> Error {
    match waiting {
        Some(Waiting {
            role,
            peer,
            state,
            label: None,
        }) => Error::Receive(ReceiveError {
            role,
            peer,
            state,
            kind: ReceiveErrorKind::TimedOut,
        }),
        Some(Waiting {
            role,
            peer,
            state,
            label: Some(label),
        }) => Error::Send(SendError {
            role,
            peer,
            label: Some(label),
            state,
            kind: SendErrorKind::TimedOut,
        }),
        None => Error::Other(Box::new(SessionTimedOut { role })),
    }
}

/// A step that can give up: its session state is dropped (aborting the role) and it
/// resolves to a timeout error. Implemented by the receive futures.
pub trait Expire: Future + private::Sealed {
    /// Gives up.
    fn expire(&mut self) -> Self::Output;
}

pub(crate) mod private {
    /// Only the runtime's futures can give up.
    pub trait Sealed {}
}

pin_project! {
    /// A step with a deadline, returned by
    /// [`ReceiveFuture::until`](crate::future::ReceiveFuture::until) and
    /// [`BranchFuture::until`](crate::future::BranchFuture::until): the step's output, or
    /// its timeout error if `deadline` completes first.
    #[must_use = "futures do nothing unless awaited"]
    pub struct Until<F, D> {
        step: F,
        #[pin]
        deadline: D,
    }
}

impl<F, D> Until<F, D> {
    pub(crate) fn new(step: F, deadline: D) -> Self {
        Self { step, deadline }
    }
}

impl<F: Expire + Unpin, D: Future> Future for Until<F, D> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if let Poll::Ready(output) = Pin::new(&mut *this.step).poll(cx) {
            return Poll::Ready(output);
        }
        match this.deadline.poll(cx) {
            Poll::Ready(_) => Poll::Ready(this.step.expire()),
            Poll::Pending => Poll::Pending,
        }
    }
}

pin_project! {
    /// A whole session with a deadline, returned by [`try_session_until`].
    #[must_use = "futures do nothing unless awaited"]
    struct SessionUntil<F, D> {
        #[pin]
        session: Option<F>,
        #[pin]
        deadline: D,
        role: &'static str,
    }
}

impl<T, F: Future<Output = Result<T, Error>>, D: Future> Future for SessionUntil<F, D> {
    type Output = Result<T, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let Some(session) = this.session.as_mut().as_pin_mut() else {
            return Poll::Ready(Err(timed_out(this.role, None)));
        };
        let (result, waiting) = tracking(|| session.poll(cx));
        if result.is_ready() {
            this.session.set(None);
            return result;
        }
        match this.deadline.poll(cx) {
            Poll::Ready(_) => {
                // Dropping the session aborts the role before the error is returned.
                this.session.set(None);
                Poll::Ready(Err(timed_out(this.role, waiting)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// [`try_session`] with a deadline for the whole session: if `deadline` completes first,
/// the session is dropped (aborting the role: its peers' receives fail at once) and this
/// fails with [`ReceiveErrorKind::TimedOut`] or [`SendErrorKind::TimedOut`] naming the peer
/// and the protocol state the session was waiting in, or with [`SessionTimedOut`] (in
/// [`Error::Other`]) if it was not waiting on a peer. Any future can be the deadline.
///
/// ```
/// # use mpst::{session, try_session_until, End, Receive, Role};
/// # #[derive(mpst::Role)] #[message(Label)] struct A(#[route(B)] mpst::channel::Unbounded<Label>);
/// # #[derive(mpst::Role)] #[message(Label)] struct B(#[route(A)] mpst::channel::Unbounded<Label>);
/// # #[derive(mpst::Message)] enum Label { Ping(Ping) }
/// # struct Ping;
/// #[session]
/// type Wait = Receive<B, Ping, End>;
///
/// let (a, _b) = mpst::channel::unbounded();
/// let mut a = A(a);
/// // `B` never sends; the deadline is already due (any future will do, e.g. a timer's).
/// let error = futures::executor::block_on(try_session_until(
///     &mut a,
///     std::future::ready(()),
///     |s: Wait<'_, A>| async move {
///         let (Ping, end) = s.receive().await?;
///         Ok(((), end))
///     },
/// ))
/// .unwrap_err();
/// assert!(error.is_timeout());
/// assert_eq!(
///     error.to_string(),
///     "role A could not receive from B (at Receive<B, Ping, End>): timed out"
/// );
/// ```
pub fn try_session_until<'r, Me, Session, T, F, Fut, D>(
    role: &'r mut Me,
    deadline: D,
    f: F,
) -> impl Future<Output = Result<T, Error>> + Captures<'r>
where
    Me: Role,
    Session: FromState<'r, Role = Me>,
    F: FnOnce(Session) -> Fut,
    Fut: Future<Output = Result<(T, End<'r, Me>), Error>>,
    D: Future,
{
    SessionUntil {
        session: Some(try_session(role, f)),
        deadline,
        role: Me::NAME,
    }
}
