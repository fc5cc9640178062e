//! Ring (CAMP; PPoPP 2022 Section 4.2 and Table 1): three roles, infinite recursion.
//!
//! Protocol (`ring.scr`): forever, `A` sends a `value` to `B`, `B` sends a `value` to
//! `C`, `C` sends a `value` back to `A`.
//!
//! Roles: `A` starts each round with the value that came back; `B` adds 1 and `C` doubles
//! before passing it on. The session types are the projections of `ring.scr` (top-down
//! workflow); `optimised.rs` has `B` and `C` send before they receive.
//!
//! The protocol never ends, so `A` reports each value that comes back on a side channel
//! and the run stops (drops every process) after a given number of rounds.
//!
//! `cargo run -p mpst-examples --example ring` runs 10 rounds and prints what `A` got.

mod protocol;

use std::convert::Infallible;

use mpst::{Error, Receive, Send, session, try_session};
use protocol::{A, B, C, Value, run, step_b, step_c};

/// `B`'s projection: `mu x. A?value. C!value. x`.
#[session]
struct RingB(Receive<A, Value, Send<C, Value, Self>>);

/// `C`'s projection: `mu x. B?value. A!value. x`.
#[session]
struct RingC(Receive<B, Value, Send<A, Value, Self>>);

async fn ring_b(mut role: B) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: RingB<'_, B>| async move {
        loop {
            let (Value(x), t) = s.into_session().receive().await?;
            s = t.send(Value(step_b(x))).await?;
        }
    })
    .await
}

async fn ring_c(mut role: C) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: RingC<'_, C>| async move {
        loop {
            let (Value(x), t) = s.into_session().receive().await?;
            s = t.send(Value(step_c(x))).await?;
        }
    })
    .await
}

fn main() -> Result<(), Error> {
    let run = run(10, ring_b, ring_c);
    let values = futures::executor::block_on(run)?;
    println!("A received {values:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::{SEED_A, run_tasks};

    /// The values `A` receives, computed sequentially.
    fn expected(rounds: usize) -> Vec<i32> {
        let mut x = SEED_A;
        (0..rounds)
            .map(|_| {
                x = x.wrapping_add(1).wrapping_mul(2);
                x
            })
            .collect()
    }

    #[test]
    fn futures_executor() {
        let run = run(40, ring_b, ring_c);
        let got = futures::executor::block_on(run).unwrap();
        assert_eq!(got.len(), 40);
        assert_eq!(got[..3], [4, 10, 22]);
        assert_eq!(got, expected(40));
    }

    #[test]
    fn tokio_multi_thread() {
        let got = run_tasks(100, ring_b, ring_c);
        assert_eq!(got.unwrap(), expected(100));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `ring.scr` (checked through serialisation, names normalised,
/// payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("ring.scr"); protocol::RingA<'static, A>, RingB<'static, B>, RingC<'static, C>
    }
}
