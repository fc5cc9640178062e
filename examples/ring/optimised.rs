//! Optimised ring (CAMP; PPoPP 2022 Section 4.2 and Table 1): the ring of `ring.scr` with
//! `B` and `C` optimised by asynchronous message reordering.
//!
//! In the projection, `B` and `C` receive from their predecessor before sending to their
//! successor. Here they send first — the value they received in the previous round
//! (`SEED_B` / `SEED_C` in the first round) — and receive after, so the three roles work
//! at once instead of one after the other: `B` is `mu x. C!value. A?value. x`, an
//! asynchronous subtype of its projection `mu x. A?value. C!value. x` (the output moves
//! before the input), and likewise `C`. `A` is unchanged (`protocol.rs`).
//!
//! The values are pipelined: what comes back to `A` in a round started two rounds
//! earlier. The tests check exactly that against a sequential model.
//!
//! `cargo run -p mpst-examples --example optimised_ring` runs 10 rounds and prints what
//! `A` got.

mod protocol;

use std::convert::Infallible;

use mpst::{Error, Receive, Send, session, try_session};
use protocol::{A, B, C, Value, run, step_b, step_c};

/// What `B` sends in the first round, before it has received anything.
const SEED_B: i32 = 10;
/// What `C` sends in the first round, before it has received anything.
const SEED_C: i32 = 100;

/// The optimised `B`: `mu x. C!value. A?value. x`.
#[session]
struct OptimisedB(Send<C, Value, Receive<A, Value, Self>>);

/// The optimised `C`: `mu x. A!value. B?value. x`.
#[session]
struct OptimisedC(Send<A, Value, Receive<B, Value, Self>>);

async fn ring_b(mut role: B) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: OptimisedB<'_, B>| async move {
        let mut held = SEED_B;
        loop {
            let t = s.into_session().send(Value(step_b(held))).await?;
            let (Value(x), t) = t.receive().await?;
            held = x;
            s = t;
        }
    })
    .await
}

async fn ring_c(mut role: C) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: OptimisedC<'_, C>| async move {
        let mut held = SEED_C;
        loop {
            let t = s.into_session().send(Value(step_c(held))).await?;
            let (Value(x), t) = t.receive().await?;
            held = x;
            s = t;
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

    /// The values `A` receives, from a sequential model of the pipelined ring: in each
    /// round `B` and `C` pass on what they held, then take what their predecessor sent.
    fn expected(rounds: usize) -> Vec<i32> {
        let (mut a, mut held_b, mut held_c) = (SEED_A, SEED_B, SEED_C);
        let mut received = Vec::new();
        for _ in 0..rounds {
            let from_b = held_b.wrapping_add(1);
            let from_c = held_c.wrapping_mul(2);
            received.push(from_c);
            (held_b, held_c, a) = (a, from_b, from_c);
        }
        received
    }

    #[test]
    fn futures_executor() {
        let run = run(40, ring_b, ring_c);
        let got = futures::executor::block_on(run).unwrap();
        assert_eq!(got[..3], [200, 22, 4]);
        assert_eq!(got, expected(40));
    }

    #[test]
    fn tokio_multi_thread() {
        let got = run_tasks(100, ring_b, ring_c);
        assert_eq!(got.unwrap(), expected(100));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised `B` and `C` is an
/// asynchronous subtype of its projection from `ring.scr` (hybrid: serialised session type
/// against the projection), every other role is its projection, and the whole optimised
/// system is k-MC (bottom-up). The DOT files beside this one record the optimised roles for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("ring.scr"), k = 1;
        OptimisedB<'static, B> => include_str!("b_optimised.dot"),
        OptimisedC<'static, C> => include_str!("c_optimised.dot");
        protocol::RingA<'static, A>
    }
}
