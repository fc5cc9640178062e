//! The choreographic operators given to a choreography's body: local computation,
//! blocking communication, broadcast, conditionals with knowledge of choice, and
//! procedure calls. Each is projected at run time: the endpoint does its part and skips
//! the rest. The non-blocking operators are in `nonblocking.rs`.

use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::Portable;
use crate::choreography::Choreography;
use crate::endpoint::Shared;
use crate::error::{ChoreoError, Result};
use crate::exchange::{Receive, encode};
use crate::key::{Key, Site, Token};
use crate::located::{Located, Unwrapper};
use crate::role::{Member, Role, RoleName, RoleSet, Subset};
pub(crate) use crate::run::{Pending, Run, Spare};

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
        let (at_s, at_r) = (self.is::<S>(), self.is::<R>());
        if !(at_s || at_r) {
            // Not this role's communication: no key to make (see `fcomm`).
            return Comm {
                failed: None,
                later: None,
                receive: None,
                role: PhantomData,
            };
        }
        let key = self.key(Site::here());
        let sent = match (at_s, value.get()) {
            (false, _) => Ok(None),
            (true, Some(v)) => encode(&self.shared.role, &key, v).and_then(|bytes| {
                self.noted(self.send_now(R::name(), key.clone(), Ok(bytes), type_label::<T>))
            }),
            (true, None) => Err(self.absent(&key)),
        };
        let receive = at_r.then(|| self.receive::<T>(S::name, key));
        let (later, failed) = match sent {
            Ok(later) => (later.map(Box::new), None),
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
        // At `S`, its own value once sent (a value not held fails in `send_all`); at the
        // other roles, the receive. The error boxed, so the future stays small.
        let (later, value) = if self.is::<S>() {
            self.send_own::<L, T>(S::NAME, &key, value.get(), type_label::<T>)
        } else {
            (Vec::new(), Got::Receive(self.receive::<T>(S::name, key)))
        };
        async move {
            for later in later {
                later.await?;
            }
            match value {
                Got::Receive(receive) => receive.await,
                Got::Own(v) => Ok(v),
                Got::Failed(e) => Err(*e),
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
        // At `D`, its own choice once sent (a choice not held fails in `send_all`); at
        // the other roles of `Sub`, the receive. The error boxed, so the future stays
        // small.
        let (later, choice) = if self.is::<D>() {
            let own = choice.get();
            // The observer's label, formatted only when an observer records events.
            let label = match (own, self.shared.observes()) {
                (Some(v), true) => format!("select:{v:?}"),
                _ => String::new(),
            };
            let (later, own) = self.send_own::<Sub, C>(D::NAME, &key, own, move || label);
            (later, Some(own))
        } else if inside {
            let label = |v: &C| format!("select:{v:?}");
            let receive = self.receive_labelled::<C>(D::name, key, label);
            (Vec::new(), Some(Got::Receive(receive)))
        } else {
            (Vec::new(), None)
        };
        async move {
            for later in later {
                later.await?;
            }
            let choice = match choice {
                Some(Got::Receive(receive)) => receive.await?,
                Some(Got::Own(v)) => v,
                Some(Got::Failed(e)) => return Err(*e),
                None => return Ok(None),
            };
            // Made here, not captured: the future stays smaller until the branch runs.
            let sub: Op<Sub> = self.sub(self.token.next(site));
            let run: Pin<Box<dyn Future<Output = Result<X>> + Send + '_>> =
                Box::pin(body(choice).run(&sub));
            run.await.map(Some)
        }
    }

    /// The sender's part of `broadcast` and `cond`: sends its own `value` to the roles of
    /// `To` (see [`Op::send_all`]) and keeps a copy to return; or the error, boxed.
    fn send_own<To: RoleSet, T: Portable + Clone>(
        &self,
        from: &str,
        key: &Key,
        value: Option<&T>,
        label: impl FnOnce() -> String + Clone + Send + 'static,
    ) -> (Vec<Pending>, Got<T>) {
        let sent = match value {
            Some(v) => self
                .send_all::<To, T>(from, key, v, label)
                .map(|later| (later, v.clone())),
            None => Err(self.absent(key)),
        };
        match sent {
            Ok((later, v)) => (later, Got::Own(v)),
            Err(e) => (Vec::new(), Got::Failed(Box::new(e))),
        }
    }

    /// Sends `value` (encoded once) from role `from` to every other role of `To`, in
    /// order, now, in the caller's task (see [`Op::send_now`]): the sends a transport did
    /// not take at once are returned, to be awaited. The first failure (the value not
    /// held here, a key reused, a transport error) is returned; the remaining roles are
    /// not sent to. The recipients are visited without a vector of their names.
    fn send_all<To: RoleSet, T: Portable>(
        &self,
        from: &str,
        key: &Key,
        value: &T,
        label: impl FnOnce() -> String + Clone + Send + 'static,
    ) -> Result<Vec<Pending>> {
        let bytes = encode(&self.shared.role, key, value)?;
        let mut later = Vec::new();
        let mut failed: Option<ChoreoError> = None;
        // Each recipient is sent to once the next is known, with a copy of the encoding;
        // the last, held at the end, takes the encoding itself.
        let mut held: Option<RoleName> = None;
        To::each_name(&mut |recipient| {
            if failed.is_some() || recipient.as_str() == from {
                return;
            }
            if let Some(previous) = held.replace(recipient) {
                let sent = self.send_now(previous, key.clone(), Ok(bytes.clone()), label.clone());
                match self.noted(sent) {
                    Ok(rest) => later.extend(rest),
                    Err(e) => failed = Some(e),
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(last) = held {
            let sent = self.send_now(last, key.clone(), Ok(bytes), label);
            later.extend(self.noted(sent)?);
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

    pub(crate) fn absent(&self, key: &Key) -> ChoreoError {
        ChoreoError::Encode(Box::new(crate::error::Encode {
            role: self.shared.role.clone(),
            key: key.clone(),
            message: ABSENT.into(),
        }))
    }
}

/// The future of [`Op::comm`]: the sender's error or the rest of its send (when the
/// transport did not take it at once), then the receiver's receive. Named, and small
/// (both rare parts behind thin boxes: at most 128 bytes, so that moving it is no call
/// of `memcpy`), since a body holds it across its await and moves it.
pub(crate) struct Comm<T, R> {
    failed: Option<Box<ChoreoError>>,
    later: Option<Box<Pending>>,
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
            let Poll::Ready(sent) = later.as_mut().as_mut().poll(cx) else {
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

/// What `broadcast` and `cond` return at a role, once the sends are complete: what its
/// receive gets, the sender's own value, or the sender's error (boxed: the future stays
/// small).
enum Got<T> {
    Receive(Receive<T>),
    Own(T),
    Failed(Box<ChoreoError>),
}

/// Why a value could not be sent: its located copy is empty at its own role.
const ABSENT: &str = "the value is not held at its own role (moved between roles' runs?)";

/// The label of a value in observer events: its type name.
pub(crate) fn type_label<T>() -> String {
    std::any::type_name::<T>().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::Endpoint;
    use crate::transport::InMemory;

    crate::roles! { struct A; struct B; }

    /// Sends a value that its sender does not hold, by `cond` or by `broadcast`.
    struct Unheld {
        by_cond: bool,
    }

    /// An empty branch.
    struct Nothing;

    impl Choreography for Nothing {
        type Roles = crate::RoleSet![A, B];

        async fn run(self, _: &Op<Self::Roles>) -> Result<()> {
            Ok(())
        }
    }

    impl Choreography for Unheld {
        type Roles = crate::RoleSet![A, B];

        async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
            let unheld: Located<u64, A> = Located::remote();
            if self.by_cond {
                op.cond(A, &unheld, |_| Nothing).await?;
            } else {
                op.broadcast(A, &unheld).await?;
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_value_its_sender_does_not_hold_is_its_error_in_cond_and_broadcast() {
        for by_cond in [true, false] {
            let net = Arc::new(InMemory::new(<crate::RoleSet![A, B]>::names()));
            let a = Endpoint::new(net, RoleName::from("A")).unwrap();
            match a.run(Unheld { by_cond }).await {
                Err(ChoreoError::Encode(e)) => {
                    assert_eq!(e.role.as_str(), "A");
                    assert_eq!(e.message, ABSENT, "by cond: {by_cond}");
                }
                other => panic!("by cond: {by_cond}: expected the sender's error, got {other:?}"),
            }
        }
    }
}
