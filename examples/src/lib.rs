//! Shared helpers of the example protocols: the multi-thread tokio runtime the examples are
//! tested on, joining spawned role tasks (one, or all in order), and watching a never-ending
//! protocol (ring, double buffering, alternating bit) for a while before stopping it, and
//! naming an optimised role's serialised FSM as its protocol does (to save it as DOT, and to
//! check a saved DOT file still records the role), and the workflow checks every example's
//! tests run ([`workflows`]).
//!
//! Every example lives in its own directory beside its Scribble protocol
//! (`examples/<name>/<name>.scr`); this library only holds what they share.

#![warn(missing_docs)]

pub mod expressiveness;
mod names;
pub mod net;
pub mod workflows;

pub use names::{RecordError, records_role, scribble_names};

use std::convert::Infallible;
use std::future::Future;

use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::{self, Either};
use futures::stream::FuturesUnordered;
use tokio::task::JoinHandle;

/// Builds the multi-thread tokio runtime (two worker threads) the examples' tests spawn
/// one task per role on, so that roles really run in parallel and wake each other across
/// threads.
pub fn tokio_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
}

/// Waits for a spawned task and returns its output; if the task panicked, the panic is
/// resumed here, so a failing assertion inside a role fails the test that spawned it.
pub async fn joined<T>(task: JoinHandle<T>) -> T {
    match task.await {
        Ok(output) => output,
        Err(error) => std::panic::resume_unwind(error.into_panic()),
    }
}

/// Waits for every task in turn (as [`joined`] does) and returns their outputs in the
/// tasks' order, or the first error in that order.
pub async fn joined_all<T, E>(
    tasks: impl IntoIterator<Item = JoinHandle<Result<T, E>>>,
) -> Result<Vec<T>, E> {
    let mut outputs = Vec::new();
    for task in tasks {
        outputs.push(joined(task).await?);
    }
    Ok(outputs)
}

/// The reporting end of the side channel through which one process of a never-ending
/// protocol tells the outside world what it observed (it is not part of the protocol).
#[derive(Debug, Clone)]
pub struct Observer<T>(mpsc::UnboundedSender<T>);

impl<T> Observer<T> {
    /// Reports one observation. When nobody watches any more (the watcher has seen enough
    /// and is stopping the protocol), the observation is dropped.
    pub fn report(&self, observation: T) {
        // A closed side channel only means the watcher has stopped watching.
        let _ = self.0.unbounded_send(observation);
    }
}

/// The watching end of the side channel; pass it to [`observe`] or [`observe_tasks`].
#[derive(Debug)]
pub struct Observations<T>(mpsc::UnboundedReceiver<T>);

/// Creates a side channel: give the [`Observer`] to the process that observes, keep the
/// [`Observations`] to watch.
pub fn observer<T>() -> (Observer<T>, Observations<T>) {
    let (sender, receiver) = mpsc::unbounded();
    (Observer(sender), Observations(receiver))
}

/// Runs `protocol` (the processes of a never-ending protocol, joined into one future) until
/// `count` observations have arrived, then drops it, which stops every process in it.
///
/// A never-ending session can only stop by failing or by being dropped; this is the second
/// way. If the protocol fails before `count` observations, its error is returned.
pub async fn observe<T, P>(
    protocol: P,
    observations: Observations<T>,
    count: usize,
) -> Result<Vec<T>, mpst::Error>
where
    P: Future<Output = Result<Infallible, mpst::Error>>,
{
    let seen = observations.0.take(count).collect::<Vec<T>>();
    futures::pin_mut!(protocol, seen);
    match future::select(protocol, seen).await {
        Either::Left((Ok(never), _)) => match never {},
        Either::Left((Err(error), _)) => Err(error),
        Either::Right((seen, protocol)) => {
            if seen.len() == count {
                return Ok(seen);
            }
            // The observing process stopped early, so the protocol has failed: say why.
            match protocol.await {
                Ok(never) => match never {},
                Err(error) => Err(error),
            }
        }
    }
}

/// Like [`observe`], for a never-ending protocol whose processes were spawned as tokio
/// tasks: watches until `count` observations arrive or one task fails, then aborts every
/// task.
pub async fn observe_tasks<T>(
    tasks: Vec<JoinHandle<Result<Infallible, mpst::Error>>>,
    observations: Observations<T>,
    count: usize,
) -> Result<Vec<T>, mpst::Error> {
    let aborts: Vec<_> = tasks.iter().map(JoinHandle::abort_handle).collect();
    let first_failure = async move {
        let mut tasks: FuturesUnordered<_> = tasks.into_iter().map(joined).collect();
        match tasks.next().await {
            Some(result) => result,
            // No task at all: nothing can fail, only the observations can end the watch.
            None => future::pending().await,
        }
    };
    let seen = observe(first_failure, observations, count).await;
    for abort in aborts {
        abort.abort();
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns `Pending` once (waking itself), so a loop that awaits it lets others run.
    struct YieldOnce(bool);

    impl Future for YieldOnce {
        type Output = ();

        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            if self.0 {
                return std::task::Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    async fn count_forever(observer: Observer<u32>) -> Result<Infallible, mpst::Error> {
        let mut n = 0;
        loop {
            observer.report(n);
            n += 1;
            YieldOnce(false).await;
        }
    }

    #[test]
    fn observe_stops_a_never_ending_future_after_enough_observations() {
        let (observer, observations) = observer();
        let seen = futures::executor::block_on(observe(count_forever(observer), observations, 5));
        assert_eq!(seen.unwrap(), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn joined_all_keeps_the_order_of_the_tasks_and_returns_the_first_error() {
        let runtime = tokio_runtime().unwrap();
        let (outputs, failed) = runtime.block_on(async {
            let tasks = (0..5).map(|i| tokio::spawn(async move { Ok::<_, u32>(i * 10) }));
            let failing = [
                tokio::spawn(async { Ok(1) }),
                tokio::spawn(async { Err(7u32) }),
                tokio::spawn(async { Err(8u32) }),
            ];
            (joined_all(tasks).await, joined_all(failing).await)
        });
        assert_eq!(outputs, Ok(vec![0, 10, 20, 30, 40]));
        assert_eq!(failed, Err(7));
    }

    #[test]
    fn observe_tasks_aborts_the_tasks() {
        let runtime = tokio_runtime().unwrap();
        let (observer, observations) = observer();
        let seen = runtime.block_on(async move {
            let task = tokio::spawn(count_forever(observer));
            observe_tasks(vec![task], observations, 3).await
        });
        assert_eq!(seen.unwrap(), vec![0, 1, 2]);
    }
}
