//! Futures polled concurrently in the caller's task, each only when its own waker was
//! woken, and never a wake-up of the caller that nothing asked for: the set under a
//! session's pending sends and forwards, and [`Sessions`], several sessions of one
//! endpoint run at once without a task each.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::Stream;
use futures::future::BoxFuture;
use futures::task::AtomicWaker;

/// One future's waker: marks it to be polled and wakes the task polling the set (once,
/// however many of its futures are woken before it polls again).
struct Flag {
    woken: AtomicBool,
    parent: Arc<AtomicWaker>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.woken.swap(true, Ordering::AcqRel) {
            self.parent.wake();
        }
    }
}

struct Entry<F> {
    future: F,
    flag: Arc<Flag>,
    waker: Waker,
    finished: bool,
}

/// A set of futures polled in the task that polls the set. A future is polled when it
/// is added and then only when its own waker is woken; unlike `FuturesUnordered`, the
/// set never wakes its task by itself (that one yields with a self-wake-up whenever it
/// has polled all its futures, an extra poll of the task per wake-up of a lone future).
pub(crate) struct Set<F> {
    entries: Vec<Entry<F>>,
    parent: Arc<AtomicWaker>,
    /// Flags of finished futures that nothing else refers to any more (no waker of theirs
    /// is held elsewhere), kept for the next futures added, so that a long-lived set (an
    /// endpoint's [`Sessions`]) allocates no flag per future. At most [`SPARE`].
    spare: Vec<Arc<Flag>>,
}

/// The most flags a [`Set`] keeps for reuse.
const SPARE: usize = 16;

impl<F> Default for Set<F> {
    fn default() -> Self {
        Set {
            entries: Vec::new(),
            parent: Arc::default(),
            spare: Vec::new(),
        }
    }
}

impl<F: Future + Unpin> Set<F> {
    /// Adds `future`; it is polled at the set's next poll.
    pub(crate) fn push(&mut self, future: F) {
        let flag = match self.spare.pop() {
            Some(flag) => {
                flag.woken.store(true, Ordering::Release);
                flag
            }
            None => Arc::new(Flag {
                woken: AtomicBool::new(true),
                parent: Arc::clone(&self.parent),
            }),
        };
        let waker = Waker::from(Arc::clone(&flag));
        self.entries.push(Entry {
            future,
            flag,
            waker,
            finished: false,
        });
    }

    /// How many futures are still running.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Polls every woken future once, in the order they were added, calling `done` with
    /// each output (in that order too).
    pub(crate) fn poll_woken(&mut self, cx: &mut Context<'_>, mut done: impl FnMut(F::Output)) {
        self.parent.register(cx.waker());
        let mut finished = false;
        for entry in &mut self.entries {
            if entry.finished || !entry.flag.woken.swap(false, Ordering::AcqRel) {
                continue;
            }
            let mut own = Context::from_waker(&entry.waker);
            if let Poll::Ready(out) = Pin::new(&mut entry.future).poll(&mut own) {
                entry.finished = true;
                finished = true;
                done(out);
            }
        }
        if finished {
            let spare = &mut self.spare;
            self.entries.retain(|entry| {
                // Only the entry's own flag and waker refer to it: nobody can wake it any
                // more, so it can serve another future.
                if entry.finished && spare.len() < SPARE && Arc::strong_count(&entry.flag) == 2 {
                    spare.push(Arc::clone(&entry.flag));
                }
                !entry.finished
            });
        }
    }
}

/// Sessions (or any futures) of one endpoint run concurrently in the caller's task,
/// with no task spawned per session: push each session's future (e.g.
/// [`Endpoint::run_session`](crate::Endpoint::run_session)) and poll the set as a
/// [`Stream`] of their results, in completion order. Each session is polled only when
/// something it waits for wakes it, and the set never wakes the task by itself.
///
/// ```
/// use futures::StreamExt;
/// use mpst_choreo::transport::InMemory;
/// use mpst_choreo::{Choreography, Endpoint, Op, Result, RoleSet, Sessions, roles};
/// use std::sync::Arc;
///
/// roles! { pub struct A; pub struct B; }
///
/// struct Double(u64);
///
/// impl Choreography<Option<u64>> for Double {
///     type Roles = RoleSet![A, B];
///
///     async fn run(self, op: &Op<Self::Roles>) -> Result<Option<u64>> {
///         let x = op.locally(A, |_| self.0);
///         let at_b = op.fcomm(A, B, &x);
///         Ok(op.wait(B, op.then(B, at_b, |x| 2 * x)).await?.into_local())
///     }
/// }
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() {
///     let net = Arc::new(InMemory::new(<RoleSet![A, B]>::names()));
///     let a = Endpoint::new(net.clone(), "A".into()).unwrap();
///     let b = Endpoint::new(net, "B".into()).unwrap();
///     let mut sessions = Sessions::new();
///     for n in 0..3 {
///         sessions.push(a.run_session(n, Double(n)));
///         sessions.push(b.run_session(n, Double(n)));
///     }
///     let mut doubled = Vec::new();
///     while let Some(out) = sessions.next().await {
///         doubled.extend(out.unwrap());
///     }
///     doubled.sort();
///     assert_eq!(doubled, [0, 2, 4]);
/// }
/// ```
pub struct Sessions<'a, T> {
    set: Set<BoxFuture<'a, T>>,
    done: std::collections::VecDeque<T>,
}

// The sessions are boxed and their results are never pinned.
impl<T> Unpin for Sessions<'_, T> {}

impl<T> Default for Sessions<'_, T> {
    fn default() -> Self {
        Sessions {
            set: Set::default(),
            done: std::collections::VecDeque::new(),
        }
    }
}

impl<'a, T> Sessions<'a, T> {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a session; it is first polled at the set's next poll.
    pub fn push(&mut self, session: impl Future<Output = T> + Send + 'a) {
        self.set.push(Box::pin(session));
    }

    /// How many sessions are running or finished but not yet taken.
    pub fn len(&self) -> usize {
        self.set.len() + self.done.len()
    }

    /// Whether no session is running and no result is waiting to be taken.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Stream for Sessions<'_, T> {
    type Item = T;

    /// The next finished session's result; `None` once the set is empty.
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        if let Some(out) = this.done.pop_front() {
            return Poll::Ready(Some(out));
        }
        if this.set.len() == 0 {
            return Poll::Ready(None);
        }
        let done = &mut this.done;
        this.set.poll_woken(cx, |out| done.push_back(out));
        match this.done.pop_front() {
            Some(out) => Poll::Ready(Some(out)),
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use std::sync::atomic::AtomicUsize;

    #[derive(Default)]
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_finished_futures_flag_serves_the_next_unless_its_waker_is_held_elsewhere() {
        let mut set: Set<BoxFuture<'static, u8>> = Set::default();
        let mut cx = Context::from_waker(Waker::noop());
        set.push(Box::pin(async { 1 }));
        set.poll_woken(&mut cx, drop);
        assert_eq!((set.len(), set.spare.len()), (0, 1), "its flag is kept");
        let kept = Arc::as_ptr(&set.spare[0]);
        // The next future gets that flag, woken, and is polled.
        let held = Arc::new(std::sync::Mutex::new(None::<Waker>));
        let holder = Arc::clone(&held);
        let mut first = true;
        set.push(Box::pin(futures::future::poll_fn(move |cx| {
            // Keeps its waker elsewhere, as a channel would.
            *holder.lock().unwrap() = Some(cx.waker().clone());
            if std::mem::take(&mut first) {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(2)
            }
        })));
        assert!(set.spare.is_empty());
        assert_eq!(Arc::as_ptr(&set.entries[0].flag), kept, "reused");
        let mut out = Vec::new();
        set.poll_woken(&mut cx, |v| out.push(v));
        assert!(out.is_empty(), "pending at its first poll");
        set.poll_woken(&mut cx, |v| out.push(v));
        assert_eq!(out, [2], "woken through the reused flag");
        assert!(
            set.spare.is_empty(),
            "a waker of it is still held: not reused"
        );
    }

    #[test]
    fn only_the_woken_future_is_polled_and_the_set_never_wakes_itself() {
        let polls = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let (tx0, rx0) = futures::channel::oneshot::channel::<u8>();
        let (tx1, rx1) = futures::channel::oneshot::channel::<u8>();
        let mut sessions = Sessions::new();
        for (i, rx) in [rx0, rx1].into_iter().enumerate() {
            let polls = Arc::clone(&polls);
            let mut rx = rx;
            sessions.push(futures::future::poll_fn(move |cx| {
                polls[i].fetch_add(1, Ordering::SeqCst);
                Pin::new(&mut rx).poll(cx).map(|r| r.unwrap_or(0))
            }));
        }
        let wakes = Arc::new(Count::default());
        let waker = Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        assert!(sessions.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(wakes.0.load(Ordering::SeqCst), 0, "no self-wake-up");
        tx1.send(7).unwrap();
        assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
        assert_eq!(sessions.poll_next_unpin(&mut cx), Poll::Ready(Some(7)));
        let polled: Vec<usize> = polls.iter().map(|p| p.load(Ordering::SeqCst)).collect();
        assert_eq!(polled, [1, 2], "the first was not polled again");
        assert!(sessions.poll_next_unpin(&mut cx).is_pending());
        tx0.send(3).unwrap();
        assert_eq!(sessions.poll_next_unpin(&mut cx), Poll::Ready(Some(3)));
        assert_eq!(sessions.poll_next_unpin(&mut cx), Poll::Ready(None));
        assert_eq!(wakes.0.load(Ordering::SeqCst), 2);
    }
}
