// Double buffering run with our `mpst`, included twice by `lib.rs`: as
// `double_buffering::ours` over `Unbounded` and as `double_buffering::ours_spsc` over `Spsc`.
// The including module defines `WHAT` (the name in error messages) and `Channel`
// (the route type). The session-typed code itself (roles, labels, session types, processes)
// is the runtime bench's, so that both measure the same code.

// Loaded once per route type (`ours` and `ours_spsc` include this file), on purpose: the
// protocol's roles are defined over the including module's `Channel`.
#[allow(clippy::duplicate_mod)]
#[path = "../../../../crates/mpst/benches/protocols/double_buffering.rs"]
mod protocol;

use protocol::{kernel, optimised_kernel, sink, source, Label, Roles};

use super::{check_all, fill, BUFFERS};
use crate::{spawn, Result};

/// The comparison's sink keeps every buffer, to check them all after the run.
fn keep(mut buffers: Vec<Vec<i32>>, buffer: Vec<i32>) -> Vec<Vec<i32>> {
    buffers.push(buffer);
    buffers
}

/// Moves two buffers of `n` elements through the kernel (three tokio tasks) and checks
/// them at the sink; `optimised` selects the kernel that sends both `ready`s first.
pub async fn run(n: usize, optimised: bool) -> Result {
    let Roles(mut s, mut k, mut t) = Roles::default();
    let source = spawn(
        WHAT,
        async move { Ok(source(&mut s, |b| fill(b, n)).await?) },
    );
    let kernel = spawn(WHAT, async move {
        if optimised {
            Ok(optimised_kernel(&mut k).await?)
        } else {
            Ok(kernel(&mut k).await?)
        }
    });
    let sink = spawn(WHAT, async move {
        Ok(sink(&mut t, Vec::with_capacity(BUFFERS), keep).await?)
    });
    let (sent, passed, received) = futures::join!(source, kernel, sink);
    sent?;
    passed?;
    check_all(WHAT, n, &received?)
}
