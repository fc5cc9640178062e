//! Ozone's non-blocking operators: `fcomm` returns a located future at once, located
//! futures can be forwarded when they complete, combined with `join`/`select` at one
//! role, mapped, awaited, or left to the endpoint to drive.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::FutureExt;
use futures::future::Either;

use crate::Portable;
use crate::error::Result;
use crate::exchange::{Destination, encode};
use crate::key::{Key, Site};
use crate::located::{Inner, Later, Located, LocatedFuture};
use crate::op::{Op, type_label};
use crate::role::{Member, Role, RoleName, RoleSet};
use crate::run::Pending;

mod sealed {
    pub trait Sealed {}
}

/// Context for encoding a payload: the sending role and the key, borrowed from the
/// operator's call. Only the library constructs it.
pub struct PayloadContext<'a> {
    role: &'a RoleName,
    key: &'a Key,
}

/// What [`Op::fcomm`] can send from role `S`: a located value (`&Located<T, S>`, sent at
/// once) or a located future (`LocatedFuture<T, S>`, forwarded when it completes).
pub trait Source<T, S>: sealed::Sealed {
    /// The payload at the sender (`None` at other roles).
    #[doc(hidden)]
    fn payload(self, cx: PayloadContext<'_>) -> Option<Payload<T>>;
}

/// A payload to send: encoded already (a ready value, sent with no boxed future) or
/// still to come (a located future, forwarded when it completes). Only the library
/// makes and reads it.
#[doc(hidden)]
pub enum Payload<T> {
    /// The encoded bytes, or the encoding error.
    Ready(Result<Vec<u8>>),
    /// The value once the forwarded future completes.
    Later(Forward<T>),
}

/// A forwarded located future still waiting. Only the library makes it (and sends its
/// value with [`Forwarding`] when it completes).
#[doc(hidden)]
pub struct Forward<T>(Inner<T>);

impl<T, S> sealed::Sealed for &Located<T, S> {}
impl<T, S> sealed::Sealed for LocatedFuture<T, S> {}

impl<T: Portable, S: Role> Source<T, S> for &Located<T, S> {
    fn payload(self, cx: PayloadContext<'_>) -> Option<Payload<T>> {
        Some(Payload::Ready(encode(cx.role, cx.key, self.get()?)))
    }
}

impl<T: Portable, S: Role> Source<T, S> for LocatedFuture<T, S> {
    fn payload(self, cx: PayloadContext<'_>) -> Option<Payload<T>> {
        let mut future = self.take()?;
        Some(match future.now() {
            // Complete already (its message had arrived): sent at once, like a value.
            Some(Ok(value)) => Payload::Ready(encode(cx.role, cx.key, &value)),
            Some(Err(e)) => Payload::Ready(Err(e)),
            None => Payload::Later(Forward(future)),
        })
    }
}

impl<L: RoleSet> Op<L> {
    /// Non-blocking communication (Ozone's `fcom`): `S.value -> R`, returning at once a
    /// future located at `R` that completes when the message with this call's integrity
    /// key arrives, whatever the arrival order. `value` is a located value or a located
    /// future; a future is forwarded when it completes (the paper's Figure 15). The send
    /// is driven by the endpoint: the body need not await anything, and the run completes
    /// only once it has been sent (its error, if any, is the run's). A ready value is
    /// sent here, inline, on every transport of this crate (in memory, chaos, TCP, QUIC
    /// all take envelopes at once), and so is a forwarded future that has completed
    /// already (its message had arrived); a forwarded future still waiting is polled
    /// beside the body in the session's own task, never in a task of its own.
    #[track_caller]
    pub fn fcomm<S, R, T, I1, I2>(
        &self,
        _from: S,
        _to: R,
        value: impl Source<T, S>,
    ) -> LocatedFuture<T, R>
    where
        S: Role + Member<L, I1>,
        R: Role + Member<L, I2>,
        T: Portable,
    {
        let (at_s, at_r) = (self.is::<S>(), self.is::<R>());
        if !(at_s || at_r) {
            // Not this role's communication: no key to make (keys are pure functions of
            // the site and the token, so skipping one changes no other).
            return LocatedFuture::remote();
        }
        let key = self.key(Site::here());
        if at_s {
            let cx = PayloadContext {
                role: &self.shared.role,
                key: &key,
            };
            let (to, label) = (R::name(), type_label::<T>);
            match value.payload(cx) {
                // A ready value: sent here, with nothing boxed, on every transport that
                // takes envelopes at once (all of this crate's).
                Some(Payload::Ready(bytes)) => self.send_ready(to, key.clone(), bytes, label),
                // A future: polled beside the body when the session's task next polls
                // it (right after this poll of the body), with its real waker, so the
                // delivery of what it waits for wakes that task once.
                Some(Payload::Later(Forward(future))) => self.forward(R::name, key.clone(), future),
                None => self.send_ready(to, key.clone(), Err(self.absent(&key)), label),
            }
        }
        if at_r {
            let mut receive = self.receive::<T>(S::name, key);
            LocatedFuture::of(match receive.now() {
                Some(outcome) => Inner::ready(outcome),
                None => Inner::Receive(receive),
            })
        } else {
            LocatedFuture::remote()
        }
    }

    /// Waits at `R` for a located future; other roles return at once with an empty value.
    pub fn wait<R, T, I>(
        &self,
        _role: R,
        future: LocatedFuture<T, R>,
    ) -> impl Future<Output = Result<Located<T, R>>> + Send + use<R, T, I, L>
    where
        R: Role + Member<L, I>,
        T: Send + 'static,
    {
        Wait {
            future: future.take(),
            role: PhantomData,
        }
    }

    /// Both futures at `R`, once both have completed (fails as soon as one fails).
    pub fn join<R, A, B, I>(
        &self,
        _role: R,
        a: LocatedFuture<A, R>,
        b: LocatedFuture<B, R>,
    ) -> LocatedFuture<(A, B), R>
    where
        R: Role + Member<L, I>,
        A: Send + 'static,
        B: Send + 'static,
    {
        let (Some(mut a), Some(mut b)) = (a.take(), b.take()) else {
            return LocatedFuture::remote();
        };
        LocatedFuture::of(match (a.now(), b.now()) {
            (Some(x), Some(y)) => Inner::ready(x.and_then(|x| y.map(|y| (x, y)))),
            (x, y) => Inner::Boxed(futures::future::try_join(again(x, a), again(y, b)).boxed()),
        })
    }

    /// Whichever future at `R` completes first (the other is dropped; its message, if it
    /// comes, stays unclaimed in the mailbox).
    pub fn select<R, A, B, I>(
        &self,
        _role: R,
        a: LocatedFuture<A, R>,
        b: LocatedFuture<B, R>,
    ) -> LocatedFuture<Either<A, B>, R>
    where
        R: Role + Member<L, I>,
        A: Send + 'static,
        B: Send + 'static,
    {
        match (a.take(), b.take()) {
            (Some(a), Some(b)) => LocatedFuture::here(
                async move {
                    match futures::future::select(a, b).await {
                        Either::Left((a, _)) => a.map(Either::Left),
                        Either::Right((b, _)) => b.map(Either::Right),
                    }
                }
                .boxed(),
            ),
            _ => LocatedFuture::remote(),
        }
    }

    /// Applies `f` at `R` when the future completes (Java's `thenApply`): at once, here,
    /// if it has completed already (its message had arrived when `fcomm` claimed its
    /// key), with nothing boxed.
    pub fn then<R, T, U, I>(
        &self,
        _role: R,
        future: LocatedFuture<T, R>,
        f: impl FnOnce(T) -> U + Send + 'static,
    ) -> LocatedFuture<U, R>
    where
        R: Role + Member<L, I>,
        T: Send + 'static,
        U: Send + 'static,
    {
        let Some(mut future) = future.take() else {
            return LocatedFuture::remote();
        };
        match future.now() {
            // Complete already: `f` is applied now, with nothing boxed.
            Some(outcome) => LocatedFuture::of(Inner::ready(outcome.map(f))),
            // Boxed with room for a forward of its value (see `Then`).
            None => LocatedFuture::of(Inner::Then(Box::new(Then {
                future,
                f: Some(f),
                forward: None,
            }))),
        }
    }

    /// Runs the asynchronous `f` at `R` when the future completes (an async local
    /// computation, e.g. a service's work, in whichever order the inputs arrive).
    pub fn then_async<R, T, U, F, I>(
        &self,
        _role: R,
        future: LocatedFuture<T, R>,
        f: impl FnOnce(T) -> F + Send + 'static,
    ) -> LocatedFuture<U, R>
    where
        R: Role + Member<L, I>,
        T: Send + 'static,
        U: Send + 'static,
        F: Future<Output = U> + Send + 'static,
    {
        match future.take() {
            Some(future) => LocatedFuture::here(async move { Ok(f(future.await?).await) }.boxed()),
            None => LocatedFuture::remote(),
        }
    }

    /// Hands a future at `R` to the endpoint, which drives it to completion beside the
    /// body, in the session's task (no task is spawned for it); the run completes only
    /// after it has, and fails with its error.
    pub fn detach<R, I>(&self, _role: R, future: LocatedFuture<(), R>)
    where
        R: Role + Member<L, I>,
    {
        let Some(mut future) = future.take() else {
            return;
        };
        match future.now() {
            Some(Ok(())) => {}
            Some(Err(e)) => self.fail(e),
            None => self.defer(future),
        }
    }

    /// A located future that is already complete.
    pub fn ready<R, T, I>(&self, _role: R, value: Located<T, R>) -> LocatedFuture<T, R>
    where
        R: Role + Member<L, I>,
        T: Send + 'static,
    {
        match value.take() {
            Some(v) => LocatedFuture::of(Inner::ready(Ok(v))),
            None => LocatedFuture::remote(),
        }
    }
}

/// The future of [`Op::wait`]: the located future at its role, or nothing elsewhere.
/// Named, so that it is no larger than the located future (an `async` block held it twice
/// and every move of it into a body's state called `memcpy`).
pub(crate) struct Wait<T, R> {
    future: Option<Inner<T>>,
    role: PhantomData<fn() -> R>,
}

impl<T, R: Role> Future for Wait<T, R> {
    type Output = Result<Located<T, R>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.get_mut().future {
            Some(future) => Pin::new(future).poll(cx).map(|got| got.map(Located::local)),
            None => Poll::Ready(Ok(Located::remote())),
        }
    }
}

/// A located future whose outcome [`Inner::now`] took (`Some`) as a future again,
/// complete; else (`None`) the future itself.
fn again<T>(now: Option<Result<T>>, future: Inner<T>) -> Inner<T> {
    match now {
        Some(outcome) => Inner::ready(outcome),
        None => future,
    }
}

/// The future of [`Op::then`] on a future that waits: `f` applied to its value. Boxed
/// (as an [`Inner::Then`]) with room for where [`Op::fcomm`] forwards the result, so that
/// forwarding it is this box driven by the run, not a second box around it.
pub(crate) struct Then<T, U, F> {
    future: Inner<T>,
    /// Taken when applied.
    f: Option<F>,
    /// Set when the result is forwarded (then this is driven as the run's future).
    forward: Option<Destination<U>>,
}

// `f` is only ever called by value and `future` is `Unpin`: nothing of a `Then` is pinned.
impl<T, U, F> Unpin for Then<T, U, F> {}

impl<T, U, F: FnOnce(T) -> U> Then<T, U, F> {
    /// Polls the future, and applies `f` to its value once it completes.
    fn poll_mapped(
        future: &mut Inner<T>,
        f: &mut Option<F>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<U>> {
        let outcome = std::task::ready!(Pin::new(future).poll(cx));
        let f = f
            .take()
            .expect("a located future is not polled after it completed");
        Poll::Ready(outcome.map(f))
    }
}

impl<T, U, F> Later<U> for Then<T, U, F>
where
    T: Send + 'static,
    U: Send + 'static,
    F: FnOnce(T) -> U + Send + 'static,
{
    fn poll_value(&mut self, cx: &mut Context<'_>) -> Poll<Result<U>> {
        Self::poll_mapped(&mut self.future, &mut self.f, cx)
    }

    fn forward(mut self: Box<Self>, to: Destination<U>) -> Pending {
        self.forward = Some(to);
        Box::into_pin(self)
    }
}

impl<T, U, F> Future for Then<T, U, F>
where
    T: Send + 'static,
    U: Send + 'static,
    F: FnOnce(T) -> U + Send + 'static,
{
    type Output = Result<()>;

    /// Polled by the run only once forwarded: the forward of the mapped value.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let Then { future, f, forward } = self.get_mut();
        match forward {
            Some(to) => {
                let encode = to.encode;
                to.poll_send(cx, |cx| Self::poll_mapped(future, f, cx), encode)
            }
            // Not forwarded: nothing to send (`forward` sets it before the run has it).
            None => Poll::Ready(Ok(())),
        }
    }
}
