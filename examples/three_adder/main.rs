//! Three adder (PPoPP 2022 Table 1): three roles, no choice, no recursion.
//!
//! Protocol (`three_adder.scr`): `A` and `B` each hold a number; they exchange their
//! numbers (`add` from `A` to `B`, then `add` from `B` to `A`), each sends its own number
//! to the adder `C` (`add`), and `C` replies to both with the `sum`.
//!
//! Roles: `A`, `B` (the summands), `C` (the adder). The session types are the
//! projections of `three_adder.scr`, written by hand (top-down workflow), in `protocol.rs`. `A` and `B`
//! also check the adder: each compares `C`'s sum with the sum it computed itself from the
//! exchanged numbers.
//!
//! `cargo run -p mpst-examples --example three_adder` adds two numbers and prints the sum.

mod protocol;

use futures::future::try_join3;
use mpst::{Error, try_session};
use protocol::{A, Add, AdderA, AdderB, AdderC, B, C, Roles, Sum};

/// What a summand learns: the sum `C` sent and the sum it computed itself.
#[derive(Debug, PartialEq, Eq)]
struct Sums {
    /// The sum the adder `C` sent.
    adder: i32,
    /// The sum the summand computed itself.
    own: i32,
}

async fn summand_a(role: &mut A, x: i32) -> Result<Sums, Error> {
    try_session(role, |s: AdderA<'_, A>| async move {
        let s = s.send(Add(x)).await?;
        let (Add(y), s) = s.receive().await?;
        let s = s.send(Add(x)).await?;
        let (Sum(sum), end) = s.receive().await?;
        let own = x.wrapping_add(y);
        Ok((Sums { adder: sum, own }, end))
    })
    .await
}

async fn summand_b(role: &mut B, y: i32) -> Result<Sums, Error> {
    try_session(role, |s: AdderB<'_, B>| async move {
        let (Add(x), s) = s.receive().await?;
        let s = s.send(Add(y)).await?.send(Add(y)).await?;
        let (Sum(sum), end) = s.receive().await?;
        let own = x.wrapping_add(y);
        Ok((Sums { adder: sum, own }, end))
    })
    .await
}

async fn adder(role: &mut C) -> Result<i32, Error> {
    try_session(role, |s: AdderC<'_, C>| async move {
        let (Add(x), s) = s.receive().await?;
        let (Add(y), s) = s.receive().await?;
        let sum = x.wrapping_add(y);
        let end = s.send(Sum(sum)).await?.send(Sum(sum)).await?;
        Ok((sum, end))
    })
    .await
}

/// Runs the three roles in one future (any executor).
async fn run(x: i32, y: i32) -> Result<(Sums, Sums, i32), Error> {
    let Roles(mut a, mut b, mut c) = Roles::default();
    try_join3(summand_a(&mut a, x), summand_b(&mut b, y), adder(&mut c)).await
}

fn main() -> Result<(), Error> {
    let (a, b, c) = futures::executor::block_on(run(20, 22))?;
    println!(
        "A got {} (own {}), B got {} (own {}), C computed {c}",
        a.adder, a.own, b.adder, b.own
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(x: i32, y: i32, (a, b, c): (Sums, Sums, i32)) {
        let expected = x + y;
        assert_eq!(c, expected);
        let sums = || Sums {
            adder: expected,
            own: expected,
        };
        assert_eq!((a, b), (sums(), sums()));
    }

    #[test]
    fn futures_executor() {
        for (x, y) in [(0, 0), (2, 3), (-40, 17), (1_000_000, 999)] {
            check(x, y, futures::executor::block_on(run(x, y)).unwrap());
        }
    }

    #[test]
    fn tokio_multi_thread() {
        let runtime = mpst_examples::tokio_runtime().unwrap();
        let Roles(mut a, mut b, mut c) = Roles::default();
        let result = runtime.block_on(async {
            let a = tokio::spawn(async move { summand_a(&mut a, 123).await });
            let b = tokio::spawn(async move { summand_b(&mut b, -23).await });
            let c = tokio::spawn(async move { adder(&mut c).await });
            (
                mpst_examples::joined(a).await.unwrap(),
                mpst_examples::joined(b).await.unwrap(),
                mpst_examples::joined(c).await.unwrap(),
            )
        });
        check(123, -23, result);
    }
}

/// The workflows of PPoPP 2022 §2 on this example: each hand-written session type is the
/// projection of its role from `three_adder.scr` (checked through serialisation, names
/// normalised, payloads compared), and the system of serialised roles is k-MC (bottom-up).
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("three_adder.scr"); AdderA<'static, A>, AdderB<'static, B>, AdderC<'static, C>
    }
}
