//! Double buffering (PPoPP 2022 Section 1, Listing 1, Table 1): three roles, infinite
//! recursion.
//!
//! Protocol (`double_buffering.scr`): forever, the kernel `K` tells the source `S` it is
//! `ready`, receives a `value` (a filled buffer) from `S`, waits until the sink `T` is
//! `ready`, and sends it the `value`.
//!
//! Roles: `S` produces values, `K` transforms each (`2 * v + 1`) on its way, `T` consumes
//! them. The session types are the projections of `double_buffering.scr`: the source's
//! and the sink's generated at build time (top-down workflow, `protocol.rs`), the
//! kernel's written by hand and checked equal to its projection (hybrid workflow). With
//! this kernel only one buffer is in use at a time; `optimised.rs` has the kernel of
//! Listing 3, which uses both, beside the same source and sink.
//!
//! The protocol never ends: `T` reports each value it reads on a side channel and the run
//! stops after a given number of values.
//!
//! `cargo run -p mpst-examples --example double_buffering` moves 10 values and prints
//! what the sink read. The kernel lives in `kernel.rs`, shared with `net.rs`, which runs
//! the same three processes as separate OS processes over TCP.

mod kernel;
mod protocol;

use kernel::kernel;
use mpst::Error;
use protocol::run;

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

/// The workflows of PPoPP 2022 §2 on this example: each session type (the kernel's
/// written by hand) is the projection of its role from `double_buffering.scr` (checked
/// through serialisation, names normalised, payloads compared), and the system of
/// serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;
    use kernel::Kernel;
    use protocol::{K, S, T};

    mpst_examples::projection_workflows! {
        include_str!("double_buffering.scr");
        protocol::SSession<'static, S>, Kernel<'static, K>, protocol::TSession<'static, T>
    }
}
