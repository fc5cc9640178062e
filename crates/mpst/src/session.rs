//! Session states, the terminal [`End`] and [`try_session`], which runs one session on a
//! role.

use std::future::Future;
use std::marker::PhantomData;

use crate::{Error, Role};

/// The run-time state every session type carries: the exclusive borrow of the role.
///
/// It has no public constructor: the only way to obtain one is through [`try_session`],
/// which is what keeps users from building session values by hand (and so from skipping
/// or repeating protocol steps).
///
/// Steps move it from one session value to the next. When it is *dropped* instead — the
/// session failed, or was dropped or cancelled before `End` — it aborts every route of the
/// role ([`Role::abort`]), so the peers' receives fail at once rather than wait forever.
#[must_use = "a session state must be passed on to the continuation"]
pub struct State<'r, R: Role> {
    pub(crate) role: &'r mut R,
}

impl<'r, R: Role> State<'r, R> {
    #[inline]
    pub(crate) fn new(role: &'r mut R) -> Self {
        Self { role }
    }
}

impl<R: Role> Drop for State<'_, R> {
    #[inline]
    fn drop(&mut self) {
        abort(self.role);
    }
}

/// Aborts `role`, out of line: it only runs when a session fails, and inlining every
/// route's abort into each place a session state may be dropped would bloat the steps.
#[cold]
#[inline(never)]
fn abort<R: Role>(role: &mut R) {
    role.abort();
}

/// A session type that can be built from a [`State`].
///
/// Implemented by every primitive and by the named types `#[session]` generates. Only code
/// holding a `State` can call [`FromState::from_state`], and user code never holds one.
pub trait FromState<'r>: Sized {
    /// The role that runs this session type.
    type Role: Role;

    /// Builds the session from the state of the previous step.
    fn from_state(state: State<'r, Self::Role>) -> Self;
}

/// A named (usually recursive) session type defined with `#[session] struct Name(...)`.
///
/// `into_session` unfolds it to the session type it wraps. The macro also generates an
/// inherent `into_session` method, so this trait need not be imported; it exists so the
/// structure of a session type can be walked without running it (serialisation).
pub trait IntoSession<'r>: FromState<'r> {
    /// The session type the struct wraps.
    type Session: FromState<'r, Role = Self::Role>;

    /// Unfolds one level of recursion.
    fn into_session(self) -> Self::Session;
}

/// The end of a session: nothing more may be sent or received.
///
/// The closure given to [`try_session`] must return it, which proves every step of the
/// protocol was taken.
#[must_use = "an `End` must be returned from the `try_session` closure"]
pub struct End<'r, R: Role> {
    state: State<'r, R>,
    _end: PhantomData<()>,
}

impl<'r, R: Role> FromState<'r> for End<'r, R> {
    type Role = R;

    #[inline]
    fn from_state(state: State<'r, R>) -> Self {
        Self {
            state,
            _end: PhantomData,
        }
    }
}

/// Runs one session of type `S` on `role`.
///
/// `f` receives the initial session and must return a future of `Ok((value, end))`; the
/// `End` proves the protocol ran to completion (a loop that never ends has type `!`, which
/// coerces to it). The exclusive borrow of `role` forbids two sessions on one role at once;
/// once this returns `Ok`, the role can run another session. At `End` the role's routes are
/// flushed ([`Role::poll_flush`]) before this returns.
///
/// # Failures and cancellation
///
/// A session that does not reach `End` — the closure returns `Err`, a step fails, or the
/// future of this function is dropped (a timeout, a `select!`, a dropped task) — *aborts*
/// its role at that moment: every route is closed ([`Role::abort`],
/// [`channel::Abort`](crate::channel::Abort)). What it leaves behind:
///
/// * its peers' pending and later receives from it fail promptly with
///   [`ReceiveErrorKind::Disconnected`](crate::ReceiveErrorKind::Disconnected) naming it,
///   and their sends to it fail with
///   [`SendErrorKind::Disconnected`](crate::SendErrorKind::Disconnected); so a failure
///   spreads to every role that depends on it instead of hanging them. With the in-memory
///   channels, messages it sent that its peers had not yet received are dropped (a
///   transport may deliver them first);
/// * the role itself is spent: with the in-memory channels every later send or receive on
///   it fails with [`ChannelError::Aborted`](crate::channel::ChannelError::Aborted), and
///   its peers' later sessions fail with `Disconnected` at their first step with it. A
///   message of the dead session is never taken for one of a new session: a later session
///   gives a right answer or a clear error, never a wrong answer. Build new roles
///   (`Roles::default()`) to start again;
/// * a message is never half-sent or duplicated: a send whose future is dropped either
///   handed the whole message to the route or did not touch it.
///
/// Dropping the session value inside the closure (instead of passing it on) aborts as
/// well, at once.
///
/// ```
/// # use mpst::{try_session, End, Role};
/// # #[derive(mpst::Role)] #[message(Label)] struct A(#[route(A)] mpst::channel::Unbounded<Label>);
/// # #[derive(mpst::Message)] enum Label { Unit(()) }
/// # futures::executor::block_on(async {
/// let mut role = A(mpst::channel::unbounded().0);
/// let n = try_session(&mut role, |end: End<'_, A>| async move { Ok((7, end)) }).await?;
/// assert_eq!(n, 7);
/// # Ok::<(), mpst::Error>(()) }).unwrap();
/// ```
#[inline]
pub fn try_session<'r, R, S, T, F, Fut>(
    role: &'r mut R,
    f: F,
) -> impl Future<Output = Result<T, Error>> + Captures<'r>
where
    R: Role,
    S: FromState<'r, Role = R>,
    F: FnOnce(S) -> Fut,
    Fut: Future<Output = Result<(T, End<'r, R>), Error>>,
{
    // The session begins now, not at the first poll: a peer that fails from here on
    // failed during this session, and what it sent is for this session.
    role.begin();
    #[cfg(feature = "tracing")]
    let run = tracing::Instrument::instrument(run(role, f), crate::observe::session::<R, S>());
    #[cfg(not(feature = "tracing"))]
    let run = run(role, f);
    run
}

/// The body of [`try_session`], once the session has begun.
async fn run<'r, R, S, T, F, Fut>(role: &'r mut R, f: F) -> Result<T, Error>
where
    R: Role,
    S: FromState<'r, Role = R>,
    F: FnOnce(S) -> Fut,
    Fut: Future<Output = Result<(T, End<'r, R>), Error>>,
{
    let session = S::from_state(State::new(role));
    let (output, end) = f(session).await?;
    // Sends may still be buffered: deliver them before calling the session done. On an
    // error `end` is dropped, which aborts the role.
    futures::future::poll_fn(|cx| end.state.role.poll_flush(cx))
        .await
        .map_err(|mut error| {
            error.state = std::any::type_name::<End<'r, R>>();
            error
        })?;
    // Reached `End` with everything sent: disarm the abort of `State`'s destructor.
    std::mem::forget(end);
    Ok(output)
}

/// Names the lifetime of the role borrow in [`try_session`]'s return type (which holds it)
/// without requiring the other parameters to outlive it.
#[doc(hidden)]
pub trait Captures<'a> {}

impl<T: ?Sized> Captures<'_> for T {}
