//! Ring with choice (CAMP; PPoPP 2022 Table 1 and Appendix B.4): three roles, choice and
//! infinite recursion.
//!
//! Protocol (`ring_choice.scr`): forever, `A` sends `add` to `B`; `B` chooses to send
//! `add` or `sub` to `C`; `C` sends `add` back to `A`.
//!
//! Roles: `A` sends a value derived from what came back (`3 * total + 1`); `B` tells `C`
//! to add even values to its running total and to subtract odd ones; `C` sends the total
//! to `A`. The session types are the projections of `ring_choice.scr` (top-down
//! workflow); `optimised.rs` has `B` choose before it receives.
//!
//! The protocol never ends: `A` reports each total on a side channel and the run stops
//! after a given number of rounds.
//!
//! `cargo run -p mpst-examples --example ring_choice` runs 10 rounds and prints the
//! totals.

mod protocol;

use std::convert::Infallible;

use mpst::{Error, Receive, Select, session, try_session};
use protocol::{A, Add, B, C, Sub, adds, run};

/// `B`'s projection: `mu x. A?add. C!{add. x, sub. x}`.
#[session]
struct RingB(Receive<A, Add, Select<C, ChoiceB>>);

#[session]
enum ChoiceB {
    Add(Add, RingB),
    Sub(Sub, RingB),
}

/// `B`: forwards each value from `A` to `C` as `add` when even, as `sub` when odd.
async fn ring_b(mut role: B) -> Result<Infallible, Error> {
    try_session(&mut role, |mut s: RingB<'_, B>| async move {
        loop {
            let (Add(x), t) = s.into_session().receive().await?;
            s = if adds(x) {
                t.select(Add(x)).await?
            } else {
                t.select(Sub(x)).await?
            };
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

    /// The totals `A` receives, computed sequentially.
    fn expected(rounds: usize) -> Vec<i32> {
        let (mut x, mut total) = (1i32, 0i32);
        let mut totals = Vec::new();
        for _ in 0..rounds {
            total = if x % 2 == 0 {
                total.wrapping_add(x)
            } else {
                total.wrapping_sub(x)
            };
            totals.push(total);
            x = total.wrapping_mul(3).wrapping_add(1);
        }
        totals
    }

    #[test]
    fn futures_executor() {
        let run = run(40, ring_b);
        let got = futures::executor::block_on(run).unwrap();
        assert_eq!(got[..3], [-1, -3, -11]);
        assert_eq!(got, expected(40));
    }

    #[test]
    fn tokio_multi_thread() {
        let got = run_tasks(100, ring_b);
        assert_eq!(got.unwrap(), expected(100));
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `ring_choice.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("ring_choice.scr");
        protocol::RingA<'static, A>, RingB<'static, B>, protocol::RingC<'static, C>
    }
}
