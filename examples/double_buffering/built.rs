//! Double buffering top-down from a build script, the optimised kernel beside the
//! projections: no generated code is committed and no session type is written by hand.
//!
//! `examples/build.rs` generates one module from `double_buffering.scr`:
//! ```text
//! Build::scribble("double_buffering/double_buffering.scr")
//!     .optimised("K", "double_buffering/kernel_optimised.dot")
//!     .options(..) // serde derives, routes in memory or over TCP
//!     .generate()
//! ```
//! It holds every role's projection (`SSession`, `KSession`, `TSession`) and, once
//! asynchronous subtyping proves it safe against the projection of `K`, the kernel of
//! PPoPP 2022 Listing 3 (one `ready` ahead) as `KOptimised`; a kernel that could deadlock
//! fails the build with the place in the DOT file and the run that goes wrong. Roles and
//! labels are generated once, so the source and the sink of `protocol.rs`, written against
//! `SSession` and `TSession`, run unchanged beside either kernel below: optimising `K`
//! changes only `K`'s code.
//!
//! `cargo run -p mpst-examples --example built_double_buffering` moves 10 values through
//! each kernel and prints what the sink read.

mod protocol;

use std::convert::Infallible;

use mpst::{Error, try_session};
use protocol::api::{KOptimised, KSession};
use protocol::{K, Ready, Value, kernel_work, run};

/// The kernel against its generated projection: one buffer at a time.
async fn kernel(mut role: K) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: KSession<'_, K>| async move {
        loop {
            let t = s.into_session().send(Ready).await?;
            let (Value(value), t) = t.receive().await?;
            let (Ready, t) = t.receive().await?;
            s = t.send(Value(kernel_work(value))).await?;
        }
    })
    .await
}

/// The kernel against the generated optimised type: a `ready` to the source up front, so
/// the source fills the second buffer while the sink reads the first; then the loop.
async fn kernel_optimised(mut role: K) -> Result<Infallible, Error> {
    try_session(&mut role, |s: KOptimised<'_, K>| async move {
        let mut s = s.send(Ready).await?;
        loop {
            let t = s.into_session().send(Ready).await?;
            let (Value(value), t) = t.receive().await?;
            let (Ready, t) = t.receive().await?;
            s = t.send(Value(kernel_work(value))).await?;
        }
    })
    .await
}

fn main() -> Result<(), Error> {
    let values = futures::executor::block_on(run(10, kernel))?;
    println!("beside the projected kernel, the sink read {values:?}");
    let values = futures::executor::block_on(run(10, kernel_optimised))?;
    println!("beside the optimised kernel, the sink read {values:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_examples::workflows::System;
    use protocol::{S, SSession, T, TSession};

    /// The issue's promise: the optimised kernel is swapped into the running system while
    /// the source and the sink (`protocol::source`, `protocol::sink`, the same functions
    /// for both runs) stay as they are.
    #[test]
    fn the_optimised_kernel_swaps_in_beside_unchanged_peers() {
        protocol::assert_moves_values(kernel);
        protocol::assert_moves_values(kernel_optimised);
    }

    /// The generated optimised kernel beside the generated source and sink.
    fn optimised() -> System {
        System::new(include_str!("double_buffering.scr"))
            .optimised::<KOptimised<'static, K>>(include_str!("kernel_optimised.dot"))
            .role::<SSession<'static, S>>()
            .role::<TSession<'static, T>>()
    }

    #[test]
    fn the_generated_types_are_the_projections_and_the_optimised_kernel() {
        let generated = mpst_examples::system![
            include_str!("double_buffering.scr");
            KSession<'static, K>, SSession<'static, S>, TSession<'static, T>
        ];
        generated.assert_every_role_is_its_projection();
        optimised().assert_optimised_roles_are_subtypes_of_their_projections();
        optimised().assert_dot_files_record_the_optimised_roles();
    }

    #[test]
    fn the_system_with_the_optimised_kernel_is_k_mc() {
        optimised().assert_least_k(1);
    }
}
