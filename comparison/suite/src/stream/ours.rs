// Stream run with our `mpst`, included twice by `lib.rs`: as `stream::ours` over `Unbounded`
// and as `stream::ours_spsc` over `Spsc`. The including module defines `WHAT` (the name in
// error messages) and `Channel` (the route type). The roles, labels, projected session
// types, source and sink are the runtime bench's, so that both measure the same code; the
// optimised source, the comparison's own (like its peers'), is here.

// Loaded once per route type (`ours` and `ours_spsc` include this file), on purpose: the
// protocol's roles are defined over the including module's `Channel`.
#[allow(clippy::duplicate_mod)]
#[path = "../../../../crates/mpst/benches/protocols/stream.rs"]
mod protocol;

use mpst::{session, try_session, Receive, Send};
use protocol::{sink, source, source_loop, Label, Ready, Roles, Source, Value, S, T};

use super::{check, value, UNROLL};
use crate::{spawn, Result};

/// The payload of `value`, as the peers send it.
type Number = i32;

/// The optimised source: [`UNROLL`] values first, then the matching `ready`s.
#[session]
#[rustfmt::skip]
type SourceOptimised = Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value, Send<T, Value,
    Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready, Receive<T, Ready,
    Source>>>>>>>>>>;

async fn source_optimised(role: &mut S, n: usize) -> Result<(), mpst::Error> {
    try_session(role, |s: SourceOptimised<'_, S>| async move {
        let s = s.send(Value(value(0))).await?;
        let s = s.send(Value(value(1))).await?;
        let s = s.send(Value(value(2))).await?;
        let s = s.send(Value(value(3))).await?;
        let s = s.send(Value(value(4))).await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        let (Ready, s) = s.receive().await?;
        source_loop(s, (UNROLL..n).map(value)).await
    })
    .await
}

/// The comparison's sink counts the values and adds them up.
fn count_and_add((count, sum): (usize, i64), v: Number) -> (usize, i64) {
    (count + 1, sum + i64::from(v))
}

/// Streams `n` values (source and sink as two tokio tasks) and checks the sum; with
/// `optimised`, the source sends the first [`UNROLL`] values at once (needs `n >= UNROLL`).
pub async fn run(n: usize, optimised: bool) -> Result {
    if optimised && n < UNROLL {
        return Err(format!("{WHAT}: the optimised source needs n >= {UNROLL}").into());
    }
    let Roles(mut s, mut t) = Roles::default();
    let source = async move {
        if optimised {
            Ok(source_optimised(&mut s, n).await?)
        } else {
            Ok(source(&mut s, (0..n).map(value)).await?)
        }
    };
    let source = spawn(WHAT, source);
    let sink = spawn(WHAT, async move {
        Ok(sink(&mut t, (0, 0), count_and_add).await?)
    });
    let (sent, received) = futures::join!(source, sink);
    sent?;
    check(WHAT, n, received?)
}
