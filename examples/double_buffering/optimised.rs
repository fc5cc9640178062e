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

use mpst::{Error, Receive, Send, session, try_session};
use protocol::{K, Ready, S, T, Value, kernel_work, run};

/// The optimised kernel (Listing 2): one `ready` ahead of the projection.
#[session]
type Kernel = Send<S, Ready, KernelLoop>;

/// The loop of the optimised kernel (Listing 2): `mu x. S!ready. S?value. T?ready.
/// T!value. x`.
#[session]
struct KernelLoop(Send<S, Ready, Receive<S, Value, Receive<T, Ready, Send<T, Value, Self>>>>);

/// The kernel of Listing 3: both buffers in use.
async fn kernel(mut role: K) -> Result<Infallible, Error> {
    try_session(&mut role, |s: Kernel<'_, K>| async move {
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

fn main() -> Result<(), Error> {
    let values = futures::executor::block_on(run(10, kernel))?;
    println!("the sink read {values:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sink_reads_what_the_kernel_made_of_each_value() {
        protocol::assert_moves_values(kernel);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised kernel is an asynchronous
/// subtype of its projection from `double_buffering.scr` (hybrid: serialised session type
/// against the projection), every other role is its projection, and the whole optimised
/// system is k-MC (bottom-up). The DOT files beside this one record the optimised roles for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("double_buffering.scr"), k = 1;
        Kernel<'static, K> => include_str!("kernel_optimised.dot");
        protocol::SSession<'static, S>, protocol::TSession<'static, T>
    }
}
