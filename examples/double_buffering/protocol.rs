//! The double-buffering protocol's roles, labels, source and sink, shared by every kernel
//! (`main.rs` and `optimised.rs` with hand-written session types, `built.rs` with the
//! generated ones) and by the multi-process run (`net.rs`): the optimisation changes only
//! the kernel. The runs of the protocol take the kernel as a parameter for the same reason.
//!
//! The roles, labels and the session types of the source and the sink are generated at
//! build time from `double_buffering.scr` (`examples/build.rs`), together with the
//! kernel's projection `KSession` and, once subtyping proves it, the optimised kernel of
//! `kernel_optimised.dot` as `KOptimised`: one module, one set of roles and labels, so the
//! source and the sink below run unchanged beside any kernel.

use std::convert::Infallible;
use std::future::Future;

use futures::{TryFutureExt, future::try_join3};
use mpst::{Error, try_session};
use mpst_examples::{Observer, observe, observer};

/// The generated API of `double_buffering.scr`: every role's projection and the optimised
/// kernel `KOptimised`; labels with serde derives and routes that run in memory
/// (`Roles::default()`) or over TCP (`mpst::net::Connections::into_role`). The kernels'
/// types are used by `built.rs` only, hence `dead_code` allowed.
#[allow(dead_code)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/double_buffering.rs"));
}

pub use api::{K, Ready, Roles, S, SSession, T, TSession, Value};

/// The `i`-th value the source produces.
pub fn produce(i: i32) -> i32 {
    i.wrapping_mul(i).wrapping_sub(7)
}

/// What the kernel does to each value on its way from the source to the sink.
pub fn kernel_work(value: i32) -> i32 {
    value.wrapping_mul(2).wrapping_add(1)
}

/// The source: each time the kernel is ready, sends the next value `produce(0)`,
/// `produce(1)`, ...
pub async fn source(role: &mut S) -> Result<Infallible, Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let mut i = 0i32;
        loop {
            let (Ready, t) = s.into_session().receive().await?;
            s = t.send(Value(produce(i))).await?;
            i = i.wrapping_add(1);
        }
    })
    .await
}

/// The sink: tells the kernel it is ready, receives a value and reports it, forever.
pub async fn sink(role: &mut T, observer: Observer<i32>) -> Result<Infallible, Error> {
    try_session(role, |mut s: TSession<'_, T>| async move {
        loop {
            let (Value(value), t) = s.into_session().send(Ready).await?.receive().await?;
            observer.report(value);
            s = t;
        }
    })
    .await
}

/// Moves `count` values from the source through `kernel` (given its role) to the sink in
/// one future (any executor); returns what the sink read.
pub async fn run<F>(count: usize, kernel: impl FnOnce(K) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>>,
{
    let Roles { mut s, k, mut t } = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join3(source(&mut s), kernel(k), sink(&mut t, reporter));
    observe(processes.map_ok(|(never, _, _)| never), observations, count).await
}

/// Like [`run`], with each role a task on the multi-thread tokio runtime of the tests.
#[cfg(test)]
pub fn run_tasks<F>(count: usize, kernel: impl FnOnce(K) -> F) -> Result<Vec<i32>, Error>
where
    F: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let runtime = mpst_examples::tokio_runtime().unwrap();
    let Roles { mut s, k, mut t } = Roles::default();
    let (reporter, observations) = observer();
    runtime.block_on(async {
        let tasks = vec![
            tokio::spawn(async move { source(&mut s).await }),
            tokio::spawn(kernel(k)),
            tokio::spawn(async move { sink(&mut t, reporter).await }),
        ];
        mpst_examples::observe_tasks(tasks, observations, count).await
    })
}

/// What the sink reads from the first `count` values: `2 * (i * i - 7) + 1` for the `i`-th.
#[cfg(test)]
pub fn expected(count: usize) -> Vec<i32> {
    (0..count as i32).map(|i| 2 * (i * i - 7) + 1).collect()
}

/// The test of either kernel (plain or optimised): the sink reads what the kernel made of
/// the source's values, 200 of them on the futures executor and 500 with each role a task
/// on tokio's multi-thread runtime.
#[cfg(test)]
pub fn assert_moves_values<F>(kernel: impl Fn(K) -> F)
where
    F: Future<Output = Result<Infallible, Error>> + std::marker::Send + 'static,
{
    let got = futures::executor::block_on(run(200, &kernel)).unwrap();
    assert_eq!(got[..3], [-13, -11, -5]);
    assert_eq!(got, expected(200));
    assert_eq!(run_tasks(500, kernel).unwrap(), expected(500));
}
