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
#[must_use = "a session state must be passed on to the continuation"]
pub struct State<'r, R> {
    pub(crate) role: &'r mut R,
}

impl<'r, R> State<'r, R> {
    #[inline]
    pub(crate) fn new(role: &'r mut R) -> Self {
        Self { role }
    }
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
pub struct End<'r, R> {
    _state: State<'r, R>,
    _end: PhantomData<()>,
}

impl<'r, R: Role> FromState<'r> for End<'r, R> {
    type Role = R;

    #[inline]
    fn from_state(state: State<'r, R>) -> Self {
        Self {
            _state: state,
            _end: PhantomData,
        }
    }
}

/// Runs one session of type `S` on `role`.
///
/// `f` receives the initial session and must return a future of `Ok((value, end))`; the
/// `End` proves the protocol ran to completion (a loop that never ends has type `!`, which
/// coerces to it). The exclusive borrow of `role` forbids two sessions on one role at once;
/// once this returns, the role can run another session.
///
/// If the closure fails half-way (an `Err` from `?`), messages of the aborted session may
/// remain in the role's channels: do not reuse such a role for a new session with the same
/// peers unless they failed too.
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
pub async fn try_session<'r, R, S, T, F, Fut>(role: &'r mut R, f: F) -> Result<T, Error>
where
    R: Role,
    S: FromState<'r, Role = R>,
    F: FnOnce(S) -> Fut,
    Fut: Future<Output = Result<(T, End<'r, R>), Error>>,
{
    let session = S::from_state(State::new(role));
    let (output, _end) = f(session).await?;
    Ok(output)
}
