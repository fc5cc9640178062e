//! Optimised double buffering (PPoPP 2022 Listings 2 and 3, Fig. 4b): the protocol of
//! `double_buffering.scr` with the kernel optimised by asynchronous message reordering.
//!
//! The kernel sends two `ready`s to the source up front: `S!ready. mu x. S!ready. S?value.
//! T?ready. T!value. x`. The source can then fill the second buffer while the sink reads
//! the first (the second value waits in the kernel's queue from the source). This is an
//! asynchronous subtype of the projection `mu x. S!ready. S?value. T?ready. T!value. x`,
//! so it cannot deadlock. Source and sink are unchanged (`protocol.rs`).
//!
//! `cargo run -p mpst-examples --example optimised_double_buffering` moves 10 values and
//! prints what the sink read.

mod protocol;

use std::convert::Infallible;

use futures::{future::try_join3, TryFutureExt};
use mpst::{session, try_session, Error, Receive, Send};
use mpst_examples::{observe, observer};
use protocol::{kernel_work, sink, source, Ready, Roles, Value, K, S, T};

/// The optimised kernel (Listing 2): one `ready` ahead of the projection.
#[session]
type Kernel = Send<S, Ready, KernelLoop>;

/// The loop of the optimised kernel, `mu x. S!ready. S?value. T?ready. T!value. x`, in two
/// parts (Listing 2 writes it in one; split here only to keep clippy's type-complexity
/// lint quiet on the code `#[session]` generates).
#[session]
struct KernelLoop(Send<S, Ready, Receive<S, Value, ToSink>>);

/// The second part of the kernel's loop: hand the value to the sink.
#[session]
type ToSink = Receive<T, Ready, Send<T, Value, KernelLoop>>;

/// The kernel of Listing 3: both buffers in use.
async fn kernel(role: &mut K) -> Result<Infallible, Error> {
    try_session(role, |s: Kernel<'_, K>| async move {
        let mut t = s.send(Ready).await?;
        loop {
            let s = t.into_session().send(Ready).await?;
            let (Value(value), s) = s.receive().await?;
            let (Ready, s) = s.receive().await?;
            t = s.send(Value(kernel_work(value))).await?;
        }
    })
    .await
}

/// Moves `count` values through the kernel in one future (any executor); returns what the
/// sink read.
async fn run(count: usize) -> Result<Vec<i32>, Error> {
    let Roles(mut s, mut k, mut t) = Roles::default();
    let (reporter, observations) = observer();
    let processes = try_join3(source(&mut s), kernel(&mut k), sink(&mut t, reporter));
    observe(processes.map_ok(|(never, _, _)| never), observations, count).await
}

fn main() -> Result<(), Error> {
    let values = futures::executor::block_on(run(10))?;
    println!("the sink read {values:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expected(count: usize) -> Vec<i32> {
        (0..count as i32).map(|i| 2 * (i * i - 7) + 1).collect()
    }

    #[test]
    fn futures_executor() {
        let got = futures::executor::block_on(run(200)).unwrap();
        assert_eq!(got[..3], [-13, -11, -5]);
        assert_eq!(got, expected(200));
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles(mut s, mut k, mut t) = Roles::default();
        let (reporter, observations) = observer();
        let got = runtime.block_on(async {
            let tasks = vec![
                tokio::spawn(async move { source(&mut s).await }),
                tokio::spawn(async move { kernel(&mut k).await }),
                tokio::spawn(async move { sink(&mut t, reporter).await }),
            ];
            mpst_examples::observe_tasks(tasks, observations, 500).await
        });
        assert_eq!(got.unwrap(), expected(500));
    }
}
