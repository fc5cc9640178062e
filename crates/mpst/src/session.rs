//! Session states, the terminal [`End`] and [`try_session`], which runs one session on a
//! role.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use pin_project_lite::pin_project;

use crate::channel::AbortHandle;
use crate::{Error, Role};

/// The run-time state every session type carries: the exclusive borrow of the role.
///
/// It has no public constructor: the only way to obtain one is through [`try_session`],
/// which is what keeps users from building session values by hand (and so from skipping
/// or repeating protocol steps).
///
/// Steps move it from one session value to the next. When it is *dropped* instead — the
/// session failed, or was dropped or cancelled before `End` — the role is aborted, so the
/// peers' receives fail at once rather than wait forever: by this destructor
/// ([`Role::abort`]), or, for a [`Role::DETACHED`] role (the in-memory routes), by
/// [`try_session`] through the handles it took when the session began, so that this
/// destructor is empty and the steps carry no abort code.
#[must_use = "a session state must be passed on to the continuation"]
pub struct State<'r, Me: Role> {
    pub(crate) role: &'r mut Me,
}

impl<'r, Me: Role> State<'r, Me> {
    #[inline]
    pub(crate) fn new(role: &'r mut Me) -> Self {
        Self { role }
    }
}

impl<Me: Role> Drop for State<'_, Me> {
    #[inline]
    fn drop(&mut self) {
        // A constant: for a detached role the destructor compiles to nothing.
        if !Me::DETACHED {
            abort(self.role);
        }
    }
}

/// The abort of a [`Role::DETACHED`] role's session, held by [`try_session`]: aborts
/// through the role's handles when dropped armed (the session failed or its future was
/// dropped), does nothing once disarmed at `End`.
struct Guard<H: AbortHandle>(Option<H>);

impl<H: AbortHandle> Guard<H> {
    /// Reached `End`: releases the handles without aborting.
    #[inline]
    fn disarm(&mut self) {
        drop(self.0.take());
    }
}

impl<H: AbortHandle> Drop for Guard<H> {
    #[inline]
    fn drop(&mut self) {
        if let Some(handle) = &self.0 {
            abort_through(handle);
        }
    }
}

/// Aborts through `handle`, out of line like [`abort`].
#[cold]
#[inline(never)]
fn abort_through<H: AbortHandle>(handle: &H) {
    handle.abort();
}

/// Aborts `role`, out of line: it only runs when a session fails, and inlining every
/// route's abort into each place a session state may be dropped would bloat the steps.
#[cold]
#[inline(never)]
fn abort<Me: Role>(role: &mut Me) {
    role.abort();
}

/// Keeps [`FromState`] to this crate: the module is private, so other crates can neither
/// name [`Sealed`](sealed::Sealed) (and so not implement `FromState`) nor create a
/// [`Token`](sealed::Token) (and so not call [`FromState::from_state`]).
pub(crate) mod sealed {
    /// The supertrait of [`FromState`](super::FromState): implemented by the primitives,
    /// `End` and every [`IntoSession`](super::IntoSession) type, nothing else.
    pub trait Sealed {}

    /// The permission to turn a [`State`](super::State) into a session value.
    pub struct Token(());

    impl Token {
        #[inline]
        pub(crate) const fn new() -> Self {
            Self(())
        }
    }
}

/// A session type that can be built from a [`State`].
///
/// Sealed: implemented by the primitives, [`End`], and every [`IntoSession`] type (the
/// named types `#[session]` generates), and only this crate can call
/// [`FromState::from_state`]. So no user type ever receives a `State`, and no code outside
/// this crate can turn one into `End` or any other session value. Use it as a bound
/// (`Session: FromState<'r, Role = Me>`).
pub trait FromState<'r>: sealed::Sealed + Sized {
    /// The role that runs this session type.
    type Role: Role;

    /// Builds the session from the state of the previous step; the token is this crate's
    /// alone.
    fn from_state(state: State<'r, Self::Role>, token: sealed::Token) -> Self;
}

/// Builds the session value `Session` from `state`: the crate's one way to take a step.
#[inline]
pub(crate) fn step<'r, Session: FromState<'r>>(state: State<'r, Session::Role>) -> Session {
    Session::from_state(state, sealed::Token::new())
}

/// A named (usually recursive) session type defined with `#[session] struct Name(...)`.
///
/// `into_session` unfolds it to the session type it wraps, `from_session` wraps one. Every
/// `IntoSession` type is a [`FromState`] (built by building the session it wraps), which
/// is how user crates get new session types without ever holding a [`State`]. The macro
/// also generates an inherent `into_session` method, so this trait need not be imported;
/// it exists so the structure of a session type can be walked without running it
/// (serialisation).
pub trait IntoSession<'r>: Sized {
    /// The session type the struct wraps.
    type Session: FromState<'r>;

    /// Wraps the session this type names.
    fn from_session(session: Self::Session) -> Self;

    /// Unfolds one level of recursion.
    fn into_session(self) -> Self::Session;
}

impl<'r, T: IntoSession<'r>> sealed::Sealed for T {}

impl<'r, T: IntoSession<'r>> FromState<'r> for T {
    type Role = <T::Session as FromState<'r>>::Role;

    #[inline]
    fn from_state(state: State<'r, Self::Role>, token: sealed::Token) -> Self {
        T::from_session(T::Session::from_state(state, token))
    }
}

/// The end of a session: nothing more may be sent or received.
///
/// The closure given to [`try_session`] must return it, which proves every step of the
/// protocol was taken.
#[must_use = "an `End` must be returned from the `try_session` closure"]
pub struct End<'r, Me: Role> {
    state: State<'r, Me>,
    _end: PhantomData<()>,
}

impl<Me: Role> sealed::Sealed for End<'_, Me> {}

impl<'r, Me: Role> FromState<'r> for End<'r, Me> {
    type Role = Me;

    #[inline]
    fn from_state(state: State<'r, Me>, _: sealed::Token) -> Self {
        Self {
            state,
            _end: PhantomData,
        }
    }
}

/// Runs one session of type `Session` on `role`.
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
/// well: at once for a role aborted in place, and when the closure's future ends (or is
/// dropped) for a [`Role::DETACHED`] role — one whose routes are all aborted out of band,
/// such as the in-memory channels — which `try_session` aborts through the handles it
/// took when the session began, so that the steps of the happy path carry no abort code.
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
pub fn try_session<'r, Me, Session, T, F, Fut>(
    role: &'r mut Me,
    f: F,
) -> impl Future<Output = Result<T, Error>> + Captures<'r>
where
    Me: Role,
    Session: FromState<'r, Role = Me>,
    F: FnOnce(Session) -> Fut,
    Fut: Future<Output = Result<(T, End<'r, Me>), Error>>,
{
    // The session begins now, not at the first poll: a peer that fails from here on
    // failed during this session, and what it sent is for this session.
    role.begin();
    // A detached role is aborted through its handles when the session ends (or its
    // future is dropped) before `End`; any other role by the session state's destructor.
    let guard = Guard(Me::DETACHED.then(|| role.abort_handle()));
    // The closure is called now, so that the future holds only what the session's own
    // future holds, the guard and, at `End`, the flush (no copy of the closure, no layer
    // of `async fn` state: tokio copies a spawned future several times).
    let run = Run {
        stage: Stage::Running {
            session: f(step::<Session>(State::new(role))),
        },
        guard,
    };
    #[cfg(feature = "tracing")]
    let run = tracing::Instrument::instrument(run, crate::observe::session::<Me, Session>());
    run
}

pin_project! {
    /// The future of [`try_session`] once the session has begun.
    struct Run<Fut, Out, H: AbortHandle> {
        #[pin]
        stage: Stage<Fut, Out>,
        guard: Guard<H>,
    }
}

pin_project! {
    /// Where a [`Run`] is.
    #[project = StageProj]
    enum Stage<Fut, Out> {
        /// The closure's future runs the session.
        Running { #[pin] session: Fut },
        /// It reached `End` (the output and the `End`); the routes' buffered sends are
        /// being delivered. Only for a [`Role::BUFFERED`] role.
        Flushing { done: Option<Out> },
    }
}

impl<'r, Me, T, Fut, H> Future for Run<Fut, (T, End<'r, Me>), H>
where
    Me: Role,
    Fut: Future<Output = Result<(T, End<'r, Me>), Error>>,
    H: AbortHandle,
{
    type Output = Result<T, Error>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let (output, end) = match this.stage.as_mut().project() {
            StageProj::Running { session } => match ready!(session.poll(cx)) {
                // On an error the session state was dropped: the guard aborts the role
                // (a detached one; any other was aborted by the state's destructor).
                Err(error) => return Poll::Ready(Err(error)),
                Ok(done) => done,
            },
            StageProj::Flushing { done } => done.take().expect(POLLED_AFTER_READY),
        };
        // Sends may still be buffered: deliver them before calling the session done. On
        // an error `end` is dropped, which aborts the role.
        if Me::BUFFERED {
            match end.state.role.poll_flush(cx) {
                Poll::Pending => {
                    this.stage.set(Stage::Flushing {
                        done: Some((output, end)),
                    });
                    return Poll::Pending;
                }
                Poll::Ready(Err(mut error)) => {
                    error.state = std::any::type_name::<End<'r, Me>>();
                    return Poll::Ready(Err(error.into()));
                }
                Poll::Ready(Ok(())) => {}
            }
        }
        // Reached `End` with everything sent: disarm the abort of `State`'s destructor
        // (and the guard's, for a detached role).
        std::mem::forget(end);
        this.guard.disarm();
        Poll::Ready(Ok(output))
    }
}

const POLLED_AFTER_READY: &str = "a try_session future was polled after it completed";

/// Names the lifetime of the role borrow in [`try_session`]'s return type (which holds it)
/// without requiring the other parameters to outlive it.
#[doc(hidden)]
pub trait Captures<'a> {}

impl<T: ?Sized> Captures<'_> for T {}
