//! A top-level run of a choreography at one role: its state shared by every `Op` of its
//! calls (the keys it has sent, the sends and forwards that did not complete at once,
//! the first error nobody awaited) and its driver, which polls the body and those beside
//! it in the session's own task.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;

use futures::future::BoxFuture;

use crate::endpoint::table::Table;
use crate::error::{ChoreoError, Result};
use crate::key::{Key, Site};
use crate::op::Op;
use crate::role::{RoleName, RoleSet};
use crate::sessions::Set;

/// The state of one top-level run, shared by every [`Op`] of its calls: the keys it has
/// sent, the sends and forwards that did not complete at once (polled beside the body by
/// [`Op::drive`], in the session's own task, so the body never has to await them and no
/// task is spawned for them) and the first error that nobody awaited.
#[derive(Default)]
pub(crate) struct Run {
    /// Every key this run (its sub-runs of `cond`, `call` and `iterate` included, whose
    /// keys extend its token) has claimed for a send, with the roles it was sent to: a
    /// second send of a key to the same role is [`ChoreoError::KeyReused`]. Only the run
    /// sends its session's keys (a session number runs at most once per endpoint), so
    /// the record is the run's own, claimed without the mailbox's lock and emptied for
    /// the next run that reuses this state.
    sends: Mutex<Sends>,
    queued: Mutex<Vec<BoxFuture<'static, Result<()>>>>,
    /// Whether `queued` may hold something: set after a push, so that [`Op::drive`]
    /// takes the lock only when the body deferred something since its last poll.
    any_queued: AtomicBool,
    first_error: Mutex<Option<ChoreoError>>,
    /// Whether `first_error` may hold an error: set under its lock, so that a run that
    /// ends without one takes no lock to find that out.
    any_error: AtomicBool,
}

/// The keys a run has claimed for sends: one entry per key and recipient (a broadcast or
/// a selection sent to several roles records each), scanned while few and hashed beyond,
/// like a session's table. The site of a key's first send is the entry's copy of the key.
#[derive(Default)]
pub(crate) struct Sends(Table<(Key, RoleName), ()>);

impl Sends {
    /// Records a send of `key` to `to`, or returns the site of its first send if the
    /// run has sent `key` to `to` already. One scan while few; nothing else is cloned.
    fn claim(&mut self, key: &Key, to: &RoleName) -> Option<Site> {
        let entry = (key.clone(), to.clone());
        if let Some((first, _)) = self.0.key(&entry) {
            return Some(first.site);
        }
        self.0.insert_new(entry, ());
        None
    }

    /// Forgets every key; whether the table is small enough to keep (see [`Table::clear`]).
    fn clear(&mut self) -> bool {
        self.0.clear()
    }
}

/// A pending send or forward of a run.
pub(crate) type Pending = BoxFuture<'static, Result<()>>;

/// What one run needs beside its body, kept by the endpoint between runs (a few at a
/// time) so that a session allocates neither its shared state nor, when it forwards, the
/// set polling its pending sends and that set's wakers.
#[derive(Default)]
pub(crate) struct Spare {
    pub(crate) run: Arc<Run>,
    pub(crate) pending: Set<Pending>,
}

impl Spare {
    /// Whether nothing of a finished run is left in it, so that another run may use it:
    /// no `Op` of that run remains, nothing is queued or pending, and no error is held.
    /// The keys the run sent are forgotten here (a table grown large is dropped).
    pub(crate) fn is_clean(&mut self) -> bool {
        Arc::get_mut(&mut self.run).is_some_and(|run| {
            run.sends.get_mut().is_ok_and(Sends::clear)
                && run.queued.get_mut().is_ok_and(|q| q.is_empty())
                && run.first_error.get_mut().is_ok_and(|e| e.is_none())
                && !*run.any_error.get_mut()
        }) && self.pending.len() == 0
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl<L: RoleSet> Op<L> {
    /// Claims `key` for a send to `to`; a second claim is [`ChoreoError::KeyReused`],
    /// naming the site of the first. One scan of the run's own record (no mailbox lock,
    /// no session look-up): the first send of a key to `to` is recorded.
    pub(crate) fn claim_send(&self, to: &RoleName, key: &Key) -> Result<()> {
        match lock(&self.run.sends).claim(key, to) {
            None => Ok(()),
            Some(first) => Err(self.shared.reused(key, first)),
        }
    }

    /// Records an error no future may be awaited for, so the run reports it.
    pub(crate) fn record(&self, error: &ChoreoError) {
        if let ChoreoError::KeyReused(reused) = error {
            let mut slot = lock(&self.run.first_error);
            self.run.any_error.store(true, Ordering::Release);
            if slot.is_none() {
                *slot = Some(ChoreoError::KeyReused(reused.clone()));
            }
        }
    }

    /// `result`, with its error [recorded](Op::record) too: a reused key is the run's
    /// error even if the future that would return it is never awaited.
    pub(crate) fn noted<T>(&self, result: Result<T>) -> Result<T> {
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
                    let recorded = if self.run.any_error.load(Ordering::Acquire) {
                        self.take_error()
                    } else {
                        None
                    };
                    Poll::Ready(match recorded.or(failed.take()) {
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
        self.defer_boxed(Box::pin(task));
    }

    /// [`Op::defer`] of a future boxed already (not boxed again).
    pub(crate) fn defer_boxed(&self, task: Pending) {
        let mut queued = lock(&self.run.queued);
        queued.push(task);
        // Under the lock, like the store that clears it: set whenever anything is queued.
        self.run.any_queued.store(true, Ordering::Release);
    }

    /// Makes `error` the run's, unless it has one already.
    pub(crate) fn fail(&self, error: ChoreoError) {
        let mut slot = lock(&self.run.first_error);
        self.run.any_error.store(true, Ordering::Release);
        slot.get_or_insert(error);
    }

    /// The run's recorded error, taken (the run's state is then clean of it).
    fn take_error(&self) -> Option<ChoreoError> {
        let mut slot = lock(&self.run.first_error);
        self.run.any_error.store(false, Ordering::Release);
        slot.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Token;

    #[test]
    fn a_key_is_sent_once_to_each_role() {
        let (b, c) = (RoleName::from("B"), RoleName::from("C"));
        let first = Site::from_id(7);
        let key = Key::new(first, Token::session(3));
        let mut sends = Sends::default();
        assert_eq!(sends.claim(&key, &b), None, "the first send");
        assert_eq!(
            sends.claim(&key, &c),
            None,
            "a broadcast's second recipient"
        );
        let again = Key::new(Site::from_id(7), Token::session(3));
        assert_eq!(sends.claim(&again, &b), Some(first), "a second send to B");
        assert_eq!(sends.claim(&again, &c), Some(first), "a second send to C");
        let other = Key::new(first, Token::session(4));
        assert_eq!(sends.claim(&other, &b), None, "another session's key");
        assert!(sends.clear(), "a small table is kept");
        assert_eq!(sends.claim(&key, &b), None, "forgotten once cleared");
    }

    #[test]
    fn a_run_that_sends_many_keys_finds_each_reuse() {
        let b = RoleName::from("B");
        let key = |i| Key::new(Site::from_id(i), Token::session(0));
        let mut sends = Sends::default();
        assert!((0..100).all(|i| sends.claim(&key(i), &b).is_none()));
        assert!((0..100).all(|i| sends.claim(&key(i), &b) == Some(Site::from_id(i))));
        assert!(sends.clear() && sends.claim(&key(5), &b).is_none());
    }
}
