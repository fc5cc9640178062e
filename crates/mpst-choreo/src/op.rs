//! The choreographic operators given to a choreography's body: local computation,
//! blocking communication, broadcast, conditionals with knowledge of choice, and
//! procedure calls. Each is projected at run time: the endpoint does its part and skips
//! the rest. The non-blocking operators are in `nonblocking.rs`.

use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use futures::future::BoxFuture;

use crate::Portable;
use crate::choreography::Choreography;
use crate::endpoint::Shared;
use crate::error::{ChoreoError, Result};
use crate::exchange::{Receive, encode};
use crate::key::{Key, Site, Token};
use crate::located::{Located, Unwrapper};
use crate::role::{Member, Role, RoleName, RoleSet, Subset};
use crate::sessions::Set;

/// The state of one top-level run, shared by every [`Op`] of its calls: the sends and
/// forwards that did not complete at once (polled beside the body by [`Op::drive`], in
/// the session's own task, so the body never has to await them and no task is spawned
/// for them) and the first error that nobody awaited.
#[derive(Default)]
pub(crate) struct Run {
    queued: Mutex<Vec<BoxFuture<'static, Result<()>>>>,
    /// Whether `queued` may hold something: set after a push, so that [`Op::drive`]
    /// takes the lock only when the body deferred something since its last poll.
    any_queued: AtomicBool,
    first_error: Mutex<Option<ChoreoError>>,
}

/// A pending send or forward of a run.
pub(crate) type Pending = BoxFuture<'static, Result<()>>;

/// What one run needs beside its body, kept by the endpoint between runs (a few at a
/// time) so that a session allocates neither its shared state nor, when it forwards, the
/// set polling its pending sends and that set's wakers.
#[derive(Default)]
pub(crate) struct Spare {
    run: Arc<Run>,
    pub(crate) pending: Set<Pending>,
}

impl Spare {
    /// Whether nothing of a finished run is left in it, so that another run may use it:
    /// no `Op` of that run remains, nothing is queued or pending, and no error is held.
    pub(crate) fn is_clean(&mut self) -> bool {
        Arc::get_mut(&mut self.run).is_some_and(|run| {
            run.queued.get_mut().is_ok_and(|q| q.is_empty())
                && run.first_error.get_mut().is_ok_and(|e| e.is_none())
        }) && self.pending.len() == 0
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The choreographic operators, for a choreography whose roles are `L`.
///
/// Every operator that communicates is `#[track_caller]`: its source location is the
/// site of its integrity key, and the current token is the invocation's. Every role runs
/// the same calls in the same order of sites, so all agree on every key.
pub struct Op<L> {
    pub(crate) shared: Arc<Shared>,
    pub(crate) token: Token,
    pub(crate) run: Arc<Run>,
    roles: PhantomData<fn() -> L>,
}

impl<L: RoleSet> Op<L> {
    /// The `Op` of a top-level run, with the shared state of `spare` (fresh or left
    /// clean by an earlier run).
    pub(crate) fn root(shared: Arc<Shared>, token: Token, spare: &Spare) -> Self {
        Self {
            shared,
            token,
            run: Arc::clone(&spare.run),
            roles: PhantomData,
        }
    }

    fn sub<M>(&self, token: Token) -> Op<M> {
        Op {
            shared: Arc::clone(&self.shared),
            token,
            run: Arc::clone(&self.run),
            roles: PhantomData,
        }
    }

    /// The role this endpoint plays.
    pub fn role(&self) -> &RoleName {
        &self.shared.role
    }

    /// The session token of this invocation.
    pub fn token(&self) -> &Token {
        &self.token
    }

    /// Whether this endpoint plays role `R`.
    pub fn is<R: Role>(&self) -> bool {
        self.shared.role.as_str() == R::NAME
    }

    pub(crate) fn key(&self, site: Site) -> Key {
        Key::new(site, self.token.clone())
    }

    /// Computes a value at role `R` (the closure runs only there; elsewhere the result is
    /// empty). The closure reads values located at `R` through its [`Unwrapper`].
    pub fn locally<R, T, I>(&self, _role: R, f: impl FnOnce(&Unwrapper<R>) -> T) -> Located<T, R>
    where
        R: Role + Member<L, I>,
    {
        if self.is::<R>() {
            Located::local(f(&Unwrapper::new()))
        } else {
            Located::remote()
        }
    }

    /// `S.value -> R`: sends a value from `S` to `R`; the receiver waits for it (blocking
    /// communication, in order). Other roles skip it. The sender sends when `comm` is
    /// called, in the caller's task (as [`Op::fcomm`] does); the future returns that
    /// send's error, if any. See [`Op::fcomm`] for the non-blocking form.
    #[track_caller]
    pub fn comm<S, R, T, I1, I2>(
        &self,
        _from: S,
        _to: R,
        value: &Located<T, S>,
    ) -> impl Future<Output = Result<Located<T, R>>> + Send + use<S, R, T, I1, I2, L>
    where
        S: Role + Member<L, I1>,
        R: Role + Member<L, I2>,
        T: Portable,
    {
        let key = self.key(Site::here());
        let sent = match (self.is::<S>(), value.get()) {
            (false, _) => Ok(None),
            (true, Some(v)) => encode(&self.shared.role, &key, v).and_then(|bytes| {
                self.noted(self.send_now(R::name(), key.clone(), Ok(bytes), type_label::<T>))
            }),
            (true, None) => Err(self.absent(&key)),
        };
        let receive = self.is::<R>().then(|| self.receive::<T>(S::name, key));
        let (later, failed) = match sent {
            Ok(later) => (later, None),
            Err(e) => (None, Some(Box::new(e))),
        };
        Comm {
            failed,
            later,
            receive,
            role: PhantomData,
        }
    }

    /// `S.value -> *`: sends a value from `S` to every other role of the choreography
    /// (when `broadcast` is called, encoded once); every role returns it.
    #[track_caller]
    pub fn broadcast<S, T, I>(
        &self,
        _from: S,
        value: &Located<T, S>,
    ) -> impl Future<Output = Result<T>> + Send + use<S, T, I, L>
    where
        S: Role + Member<L, I>,
        T: Portable + Clone,
    {
        let key = self.key(Site::here());
        let own = value.get().cloned();
        let mut sent = Ok(Vec::new());
        let mut receive = None;
        if self.is::<S>() {
            sent = self.send_all(L::names(), S::NAME, &key, own.as_ref(), type_label::<T>);
        } else {
            receive = Some(self.receive::<T>(S::name, key.clone()));
        }
        let absent = self.absent_later(key);
        async move {
            for later in sent? {
                later.await?;
            }
            match (receive, own) {
                (Some(receive), _) => receive.await,
                (None, Some(v)) => Ok(v),
                (None, None) => Err(absent()),
            }
        }
    }

    /// A conditional with knowledge of choice: role `D` decides `choice`, sends it (a
    /// keyed selection) to exactly the roles of the branch's set `Sub`, and those roles
    /// run the choreography `body(choice)`. Roles outside `Sub` skip the branch and get
    /// `None`. Using a role outside `Sub` inside the branch does not compile. The
    /// selection is sent when `cond` is called (encoded once, with nothing boxed).
    #[track_caller]
    pub fn cond<D, C, Ch, X, Sub, I1, I2>(
        &self,
        _decider: D,
        choice: &Located<C, D>,
        body: impl FnOnce(C) -> Ch + Send,
    ) -> impl Future<Output = Result<Option<X>>> + Send
    where
        D: Role + Member<Sub, I1>,
        Sub: RoleSet + Subset<L, I2>,
        Ch: Choreography<X, Roles = Sub>,
        C: Portable + Clone + Debug,
    {
        let site = Site::here();
        let key = self.key(site);
        let inside = Sub::contains(&self.shared.role);
        let mut sent = Ok(Vec::new());
        let mut receive = None;
        let own = choice.get().cloned();
        if self.is::<D>() {
            // The observer's label, formatted only when an observer records events.
            let label = match (&own, self.shared.observes()) {
                (Some(v), true) => format!("select:{v:?}"),
                _ => String::new(),
            };
            sent = self.send_all(Sub::names(), D::NAME, &key, own.as_ref(), move || label);
        } else if inside {
            let label = |v: &C| format!("select:{v:?}");
            receive = Some(self.receive_labelled::<C>(D::name, key.clone(), label));
        }
        let sub: Op<Sub> = self.sub(self.token.next(site));
        let absent = self.absent_later(key);
        async move {
            if !inside {
                return Ok(None);
            }
            for later in sent? {
                later.await?;
            }
            let choice = match (receive, own) {
                (Some(receive), _) => receive.await?,
                (None, Some(v)) => v,
                (None, None) => return Err(absent()),
            };
            let run: Pin<Box<dyn Future<Output = Result<X>> + Send + '_>> =
                Box::pin(body(choice).run(&sub));
            run.await.map(Some)
        }
    }

    /// Sends `value` (encoded once) from role `from` to every other role of `to`, now,
    /// in the caller's task (see [`Op::send_now`]): the sends a transport did not take at
    /// once are returned, to be awaited. The first failure (the value not held here, a
    /// key reused, a transport error) is returned; the remaining roles are not sent to.
    fn send_all<T: Portable>(
        &self,
        to: Vec<RoleName>,
        from: &str,
        key: &Key,
        value: Option<&T>,
        label: impl FnOnce() -> String + Clone + Send + 'static,
    ) -> Result<Vec<Pending>> {
        let bytes = match value {
            Some(v) => encode(&self.shared.role, key, v)?,
            None => return Err(self.absent(key)),
        };
        let mut later = Vec::new();
        for to in to.into_iter().filter(|r| r.as_str() != from) {
            let label = label.clone();
            later.extend(self.noted(self.send_now(to, key.clone(), Ok(bytes.clone()), label))?);
        }
        Ok(later)
    }

    /// Calls a sub-choreography (a procedure whose role parameters are instantiated by
    /// the roles of `Ch::Roles`, all roles of this choreography). Its token is
    /// `next(site)` of this call, so concurrent and recursive calls never share keys.
    /// Every role runs the call; roles outside `Ch::Roles` skip all its communications.
    #[track_caller]
    pub fn call<Ch, X, I>(&self, choreography: Ch) -> impl Future<Output = Result<X>> + Send
    where
        Ch: Choreography<X>,
        Ch::Roles: Subset<L, I>,
    {
        self.call_indexed(0, choreography)
    }

    /// Calls a sub-choreography as iteration (or instance) `index` of the call at this
    /// site: token `next(site, index)`. Use it in loops whose bound every role knows.
    #[track_caller]
    pub fn call_indexed<Ch, X, I>(
        &self,
        index: u64,
        choreography: Ch,
    ) -> impl Future<Output = Result<X>> + Send
    where
        Ch: Choreography<X>,
        Ch::Roles: Subset<L, I>,
    {
        let sub: Op<Ch::Roles> = self.sub(self.token.next_indexed(Site::here(), index));
        async move {
            let run: Pin<Box<dyn Future<Output = Result<X>> + Send + '_>> =
                Box::pin(choreography.run(&sub));
            run.await
        }
    }

    /// A loop: iteration `i` of `0..n` runs `body(i)` as [`Op::call_indexed`]`(i, ..)` of
    /// this site, one after another. `n` must be known to every role.
    #[track_caller]
    pub fn iterate<Ch, X, I>(
        &self,
        n: u64,
        mut body: impl FnMut(u64) -> Ch + Send,
    ) -> impl Future<Output = Result<Vec<X>>> + Send
    where
        Ch: Choreography<X>,
        Ch::Roles: Subset<L, I>,
        X: Send,
    {
        let site = Site::here();
        async move {
            let mut out = Vec::new();
            for i in 0..n {
                let sub: Op<Ch::Roles> = self.sub(self.token.next_indexed(site, i));
                let run: Pin<Box<dyn Future<Output = Result<X>> + Send + '_>> =
                    Box::pin(body(i).run(&sub));
                out.push(run.await?);
            }
            Ok(out)
        }
    }

    /// The error [`Op::absent`] of `key`, made only if it is needed.
    fn absent_later(&self, key: Key) -> impl FnOnce() -> ChoreoError + Send + use<L> {
        let role = self.shared.role.clone();
        move || ChoreoError::Encode {
            role,
            key: Box::new(key),
            message: ABSENT.into(),
        }
    }

    pub(crate) fn absent(&self, key: &Key) -> ChoreoError {
        ChoreoError::Encode {
            role: self.shared.role.clone(),
            key: Box::new(key.clone()),
            message: ABSENT.into(),
        }
    }

    /// Records an error no future may be awaited for, so the run reports it.
    pub(crate) fn record(&self, error: &ChoreoError) {
        if let ChoreoError::KeyReused {
            role,
            key,
            first,
            second,
        } = error
        {
            let mut slot = lock(&self.run.first_error);
            if slot.is_none() {
                *slot = Some(ChoreoError::KeyReused {
                    role: role.clone(),
                    key: key.clone(),
                    first: *first,
                    second: *second,
                });
            }
        }
    }

    /// `result`, with its error [recorded](Op::record) too: a reused key is the run's
    /// error even if the future that would return it is never awaited.
    fn noted<T>(&self, result: Result<T>) -> Result<T> {
        if let Err(e) = &result {
            self.record(e);
        }
        result
    }

    /// Runs a session: polls `body` and, beside it in the same task, every send and
    /// forward the body started that did not complete at once; completes when the body
    /// and all of them have. A body that fails ends the run at once (what is pending is
    /// dropped with it); otherwise the run's first error, if any, is its result.
    ///
    /// Everything is polled in the caller's task: a delivery wakes that task once, through
    /// the waker of the one pending future that waits for it (only that one is polled
    /// again), and no task is spawned, scheduled or woken per send, forward or session.
    /// The body is pinned by the caller, where it was made, so that it is not moved
    /// (copied) once more into this future.
    ///
    /// A future deferred after the body completed, when nothing else is pending (a
    /// responder's or a stage's one forward), is polled alone with the task's own waker,
    /// outside the set: nothing else can wake the task then, so no poll is wasted, and
    /// it needs no flag, no waker of its own and no entry in the set.
    pub(crate) async fn drive<X>(
        &self,
        mut body: Pin<&mut impl Future<Output = Result<X>>>,
        pending: &mut Set<Pending>,
    ) -> Result<X> {
        let mut out: Option<X> = None;
        let mut failed: Option<ChoreoError> = None;
        let mut lone: Option<Pending> = None;
        std::future::poll_fn(|cx| {
            if out.is_none() {
                match body.as_mut().poll(cx) {
                    Poll::Ready(Ok(x)) => out = Some(x),
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {}
                }
            }
            if self.run.any_queued.load(Ordering::Acquire) {
                self.take_queued(pending, &mut lone, out.is_some());
            }
            if let Some(future) = &mut lone {
                let Poll::Ready(done) = future.as_mut().poll(cx) else {
                    return Poll::Pending;
                };
                lone = None;
                if let Err(e) = done {
                    failed.get_or_insert(e);
                }
            }
            if pending.len() > 0 {
                pending.poll_woken(cx, |done| {
                    if let Err(e) = done {
                        failed.get_or_insert(e);
                    }
                });
                if pending.len() > 0 {
                    return Poll::Pending;
                }
            }
            match out.take() {
                Some(x) => {
                    Poll::Ready(match lock(&self.run.first_error).take().or(failed.take()) {
                        Some(e) => Err(e),
                        None => Ok(x),
                    })
                }
                None => Poll::Pending,
            }
        })
        .await
    }

    /// Moves what the body queued since the last poll into `pending`, or into `lone`
    /// when it is one future deferred after the body completed (`done`) with nothing
    /// else pending. A lone future still pending when more come joins the set (it is
    /// polled there at once, registering its own waker).
    fn take_queued(&self, pending: &mut Set<Pending>, lone: &mut Option<Pending>, done: bool) {
        let mut queued = lock(&self.run.queued);
        self.run.any_queued.store(false, Ordering::Release);
        if done && queued.len() == 1 && lone.is_none() && pending.len() == 0 {
            *lone = queued.pop();
            return;
        }
        if let Some(future) = lone.take() {
            pending.push(future);
        }
        for task in queued.drain(..) {
            pending.push(task);
        }
    }

    /// Drives `task` until the run finishes, without the body awaiting it: it is polled
    /// beside the body in the session's task (see [`Op::drive`]), first right after the
    /// body's current poll.
    pub(crate) fn defer(&self, task: impl Future<Output = Result<()>> + Send + 'static) {
        let mut queued = lock(&self.run.queued);
        queued.push(Box::pin(task));
        // Under the lock, like the store that clears it: set whenever anything is queued.
        self.run.any_queued.store(true, Ordering::Release);
    }

    /// Sends a ready payload now, in the caller's task: claims the key, hands the
    /// envelope to the transport and polls its send once. Every transport of this crate
    /// takes envelopes at once, so that completes the send here with nothing allocated,
    /// queued, polled again or woken; only a send still pending (another transport's) is
    /// boxed and deferred (its next poll, in the session's task, registers the real
    /// waker, so the no-op one used here is never needed). A failure, at once or later,
    /// is the run's, as a deferred send's would be.
    pub(crate) fn send_ready(
        &self,
        to: RoleName,
        key: Key,
        payload: Result<Vec<u8>>,
        label: impl FnOnce() -> String + Send + 'static,
    ) {
        match self.send_now(to, key, payload, label) {
            Ok(None) => {}
            Ok(Some(later)) => self.defer(later),
            Err(e) => self.fail(e),
        }
    }

    /// Sends a ready payload now (see [`Op::send_ready`]) and returns what is left of
    /// it: nothing when the transport took it at once, else the boxed rest of the send
    /// for the caller to await or defer. A failure to claim the key, to encode or to
    /// send at once is returned, not recorded.
    pub(crate) fn send_now(
        &self,
        to: RoleName,
        key: Key,
        payload: Result<Vec<u8>>,
        label: impl FnOnce() -> String + Send + 'static,
    ) -> Result<Option<Pending>> {
        let shared = &self.shared;
        shared.claim_send(&to, &key)?;
        let (envelope, seen) = shared.envelope(to, key, payload?);
        let mut sending = shared.transport.send(envelope);
        let sent = move |shared: &Shared| shared.sent(seen, label);
        match sending
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(Ok(())) => {
                sent(shared);
                Ok(None)
            }
            Poll::Ready(Err(e)) => Err(e.into()),
            Poll::Pending => {
                let shared = Arc::clone(shared);
                Ok(Some(Box::pin(async move {
                    sending.await?;
                    sent(&shared);
                    Ok(())
                })))
            }
        }
    }

    /// Makes `error` the run's, unless it has one already.
    pub(crate) fn fail(&self, error: ChoreoError) {
        lock(&self.run.first_error).get_or_insert(error);
    }
}

/// The future of [`Op::comm`]: the sender's error or the rest of its send (when the
/// transport did not take it at once), then the receiver's receive. Named, and small
/// (the error boxed), since a body holds it across its await and moves it.
struct Comm<T, R> {
    failed: Option<Box<ChoreoError>>,
    later: Option<Pending>,
    receive: Option<Receive<T>>,
    role: PhantomData<fn() -> R>,
}

impl<T, R: Role> Future for Comm<T, R> {
    type Output = Result<Located<T, R>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(e) = this.failed.take() {
            return Poll::Ready(Err(*e));
        }
        if let Some(later) = &mut this.later {
            let Poll::Ready(sent) = later.as_mut().poll(cx) else {
                return Poll::Pending;
            };
            this.later = None;
            sent?;
        }
        match &mut this.receive {
            Some(receive) => Pin::new(receive)
                .poll(cx)
                .map(|got| got.map(Located::local)),
            None => Poll::Ready(Ok(Located::remote())),
        }
    }
}

/// Why a value could not be sent: its located copy is empty at its own role.
const ABSENT: &str = "the value is not held at its own role (moved between roles' runs?)";

/// The label of a value in observer events: its type name.
pub(crate) fn type_label<T>() -> String {
    std::any::type_name::<T>().to_string()
}
