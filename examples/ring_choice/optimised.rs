//! Optimised ring with choice (CAMP; PPoPP 2022 Table 1 and Appendix B.4): the ring of
//! `ring_choice.scr` with `B` optimised by asynchronous message reordering.
//!
//! In the projection, `B` receives `add` from `A` and then makes its choice for `C`:
//! `mu t. A?add. C!{add. t, sub. t}`. Here `B` makes its choice and sends it first, based
//! on the value it received in the previous round (`SEED_B` in the first), and receives
//! after: `mu t. C!{add. A?add. t, sub. A?add. t}` — the subtype the paper's Appendix B.4
//! checks against the projection. `A` and `C` are unchanged (`protocol.rs`).
//!
//! `cargo run -p mpst-examples --example optimised_ring_choice` runs 10 rounds and
//! prints the totals.

mod protocol;

use std::convert::Infallible;

use mpst::{Error, Receive, Select, session, try_session};
use protocol::{A, Add, B, C, Sub, adds, run};

/// What `B` forwards in the first round, before it has received anything.
const SEED_B: i32 = 4;

/// The optimised `B`: `mu t. C!{add. A?add. t, sub. A?add. t}`.
#[session]
struct OptimisedB(Select<C, ChoiceB>);

#[session]
enum ChoiceB {
    Add(Add, Receive<A, Add, OptimisedB>),
    Sub(Sub, Receive<A, Add, OptimisedB>),
}

/// `B`: forwards the value it holds to `C` (as `add` when even, `sub` when odd), then
/// takes the next value from `A`.
async fn ring_b(mut role: B) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: OptimisedB<'_, B>| async move {
        let mut held = SEED_B;
        loop {
            let t = if adds(held) {
                s.into_session().select(Add(held)).await?
            } else {
                s.into_session().select(Sub(held)).await?
            };
            let (Add(x), t) = t.receive().await?;
            held = x;
            s = t;
        }
    })
    .await
}

fn main() -> Result<(), Error> {
    let run = run(10, ring_b);
    let totals = futures::executor::block_on(run)?;
    println!("A received the totals {totals:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::run_tasks;

    /// The totals `A` receives, from a sequential model: in each round `B` forwards the
    /// value it held, then takes the one `A` sent this round.
    fn expected(rounds: usize) -> Vec<i32> {
        let (mut x, mut held, mut total) = (1i32, SEED_B, 0i32);
        let mut totals = Vec::new();
        for _ in 0..rounds {
            total = if held % 2 == 0 {
                total.wrapping_add(held)
            } else {
                total.wrapping_sub(held)
            };
            totals.push(total);
            held = x;
            x = total.wrapping_mul(3).wrapping_add(1);
        }
        totals
    }

    #[test]
    fn futures_executor() {
        let run = run(40, ring_b);
        let got = futures::executor::block_on(run).unwrap();
        assert_eq!(got[..3], [4, 3, -10]);
        assert_eq!(got, expected(40));
    }

    #[test]
    fn tokio_multi_thread() {
        let got = run_tasks(100, ring_b);
        assert_eq!(got.unwrap(), expected(100));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the optimised `B` is an asynchronous
/// subtype of its projection from `ring_choice.scr` (hybrid: serialised session type
/// against the projection), every other role is its projection, and the whole optimised
/// system is k-MC (bottom-up). The DOT files beside this one record the optimised roles for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("ring_choice.scr"), k = 1;
        OptimisedB<'static, B> => include_str!("b_optimised.dot");
        protocol::RingA<'static, A>, protocol::RingC<'static, C>
    }
}
