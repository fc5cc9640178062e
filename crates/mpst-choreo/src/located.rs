//! Located values and located futures: data that only one role holds, readable only
//! through that role's [`Unwrapper`], so reading it at another role fails to compile.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use futures::future::BoxFuture;

use crate::error::Result;
use crate::exchange::{Destination, Receive};
use crate::role::Role;
use crate::run::Pending;

/// A value of type `T` held by role `R` (the paper's `T@R`). At every other role it is
/// empty; only `R`'s [`Unwrapper`] can read it.
pub struct Located<T, R> {
    value: Option<T>,
    role: PhantomData<R>,
}

impl<T, R: Role> Located<T, R> {
    /// A value held by `R`. Use it for inputs that the process playing `R` has; other
    /// processes compute theirs with [`crate::Op::locally`], which leaves it empty.
    pub fn local(value: T) -> Self {
        Self {
            value: Some(value),
            role: PhantomData,
        }
    }

    pub(crate) fn remote() -> Self {
        Self {
            value: None,
            role: PhantomData,
        }
    }

    pub(crate) fn take(self) -> Option<T> {
        self.value
    }

    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// Whether this copy holds the value (true exactly at role `R`).
    pub fn is_here(&self) -> bool {
        self.value.is_some()
    }

    /// The value, outside a choreography (e.g. from a run's result): `Some` exactly at
    /// role `R`.
    pub fn into_local(self) -> Option<T> {
        self.value
    }
}

impl<T: Clone, R> Clone for Located<T, R> {
    fn clone(&self) -> Self {
        Self {
            value: self.value.clone(),
            role: PhantomData,
        }
    }
}

impl<T: fmt::Debug, R: Role> fmt::Debug for Located<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{v:?}@{}", R::NAME),
            None => write!(f, "<remote>@{}", R::NAME),
        }
    }
}

/// The key to values located at `R`, given to closures that run at `R` only.
pub struct Unwrapper<R> {
    role: PhantomData<R>,
}

impl<R: Role> Unwrapper<R> {
    pub(crate) fn new() -> Self {
        Self { role: PhantomData }
    }

    /// Reads a value located at `R`. A value located at another role is a type error.
    ///
    /// # Panics
    ///
    /// Only if the located value was smuggled out of another role's run (e.g. through a
    /// side channel between tasks): values made by the choreography always hold their
    /// value at their role.
    pub fn unwrap<'a, T>(&self, located: &'a Located<T, R>) -> &'a T {
        match located.get() {
            Some(v) => v,
            None => panic!(
                "Located<_, {}> read at {} holds no value: it was made at another role",
                R::NAME,
                R::NAME
            ),
        }
    }
}

/// A value of type `T` that role `R` will have once a communication completes (the
/// paper's `CompletableFuture@R`). Empty at every other role. Forward it with
/// [`crate::Op::fcomm`], combine it with [`crate::Op::join`] / [`crate::Op::select`], or
/// wait for it with [`crate::Op::wait`].
pub struct LocatedFuture<T, R> {
    future: Option<Inner<T>>,
    role: PhantomData<R>,
}

/// The future of a [`LocatedFuture`] at its role: complete already, a receive itself
/// (no box), or any other future, boxed.
pub(crate) enum Inner<T> {
    /// Complete already: a receive whose message had arrived, mapped or combined at once.
    Ready(std::future::Ready<Result<T>>),
    /// A receive of `fcomm` still waiting, not yet mapped or combined.
    Receive(Receive<T>),
    /// A receive or other future mapped by [`crate::Op::then`], still waiting: boxed
    /// with room for the forward of its value, so that forwarding it boxes nothing more.
    Then(Box<dyn Later<T>>),
    /// Anything else: a combined future that waits, or an async computation.
    Boxed(BoxFuture<'static, Result<T>>),
}

/// A boxed future of a located value made by [`crate::Op::then`] (see
/// [`Then`](crate::nonblocking::Then)): polled for its value, or turned, in its own
/// box, into the forward of its value when [`crate::Op::fcomm`] sends it on.
pub(crate) trait Later<T>: Send {
    /// Polls for the value.
    fn poll_value(&mut self, cx: &mut Context<'_>) -> Poll<Result<T>>;

    /// This future, sending its value to `to` once it completes, as a future for the
    /// run to drive (in the same box).
    fn forward(self: Box<Self>, to: Destination<T>) -> Pending;
}

impl<T> Inner<T> {
    /// A future complete already with `outcome`.
    pub(crate) fn ready(outcome: Result<T>) -> Self {
        Inner::Ready(std::future::ready(outcome))
    }

    /// The outcome, if it is known without waiting (the value had arrived, or the
    /// receive had failed), taken; `None` while it waits, the future left as it was.
    pub(crate) fn now(&mut self) -> Option<Result<T>> {
        match self {
            Inner::Ready(ready) => {
                match Pin::new(ready).poll(&mut Context::from_waker(Waker::noop())) {
                    Poll::Ready(outcome) => Some(outcome),
                    Poll::Pending => None,
                }
            }
            Inner::Receive(receive) => receive.now(),
            Inner::Then(_) | Inner::Boxed(_) => None,
        }
    }
}

impl<T> Future for Inner<T> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        match self.get_mut() {
            Inner::Ready(ready) => Pin::new(ready).poll(cx),
            Inner::Receive(receive) => Pin::new(receive).poll(cx),
            Inner::Then(then) => then.poll_value(cx),
            Inner::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T, R: Role> LocatedFuture<T, R> {
    pub(crate) fn here(future: BoxFuture<'static, Result<T>>) -> Self {
        Self {
            future: Some(Inner::Boxed(future)),
            role: PhantomData,
        }
    }

    /// The future `inner` at `R`.
    pub(crate) fn of(inner: Inner<T>) -> Self {
        Self {
            future: Some(inner),
            role: PhantomData,
        }
    }

    pub(crate) fn remote() -> Self {
        Self {
            future: None,
            role: PhantomData,
        }
    }

    pub(crate) fn take(self) -> Option<Inner<T>> {
        self.future
    }

    /// Whether this copy is the one at role `R`.
    pub fn is_here(&self) -> bool {
        self.future.is_some()
    }
}

impl<T, R: Role> fmt::Debug for LocatedFuture<T, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.is_here() { "pending" } else { "remote" };
        write!(
            f,
            "LocatedFuture<{}>({state})@{}",
            std::any::type_name::<T>(),
            R::NAME
        )
    }
}
#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use std::mem::size_of;

    /// Located futures (and the receives they hold) are moved by value at every operator
    /// and await; above 128 bytes every move is a call of `memcpy`.
    #[test]
    fn a_receive_and_a_located_future_stay_small() {
        assert!(size_of::<crate::exchange::Receive<u64>>() <= 112);
        assert!(size_of::<super::Inner<String>>() <= 112);
        assert!(size_of::<super::LocatedFuture<String, crate::HNil>>() <= 112);
        assert!(size_of::<crate::op::Comm<String, crate::HNil>>() <= 128);
        assert!(size_of::<crate::nonblocking::Wait<String, crate::HNil>>() <= 112);
    }
}
