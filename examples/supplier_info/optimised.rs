//! `supplier_info.scr` with the front end `F` optimised by asynchronous message
//! reordering, bottom-up and hybrid: `F`'s session type is written by hand and tells the
//! back end it does not ask *before* waiting for the other's answer:
//! `rec t. +{S!supplier. K!noContract. S?supplierInfo. t, K!contract. S!noSupplier.
//! K?contractInfo. t, S!quit. K!quit. end}` instead of the projection's
//! `... S!supplier. S?supplierInfo. K!noContract. t ...`.
//!
//! `cargo run -p mpst-examples --example optimised_supplier_info` makes a few lookups and
//! prints the answers.

mod protocol;

use mpst::{Choose, End, Error, Receive, Send, session, try_session};
use protocol::*;

/// The optimised front end: a choice among two peers, each variant naming its own.
#[session]
struct OptimisedF(Choose<OptimisedChoice>);

#[session]
enum OptimisedChoice {
    #[to(S)]
    Supplier(
        Supplier,
        Send<K, NoContract, Receive<S, SupplierInfo, OptimisedF>>,
    ),
    #[to(K)]
    Contract(
        Contract,
        Send<S, NoSupplier, Receive<K, ContractInfo, OptimisedF>>,
    ),
    #[to(S)]
    Quit(Quit, Send<K, Quit, End>),
}

/// The optimised front end: makes each lookup in turn and collects the answers.
async fn front(role: &mut F, lookups: &[Lookup]) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: OptimisedF<'_, F>| async move {
        let mut answers = Vec::new();
        for lookup in lookups {
            s = match *lookup {
                Lookup::Supplier(id) => {
                    let s = s.into_session().choose(Supplier(id)).await?;
                    let s = s.send(NoContract).await?;
                    let (SupplierInfo(info), s) = s.receive().await?;
                    answers.push(info);
                    s
                }
                Lookup::Contract(id) => {
                    let s = s.into_session().choose(Contract(id)).await?;
                    let s = s.send(NoSupplier).await?;
                    let (ContractInfo(info), s) = s.receive().await?;
                    answers.push(info);
                    s
                }
            };
        }
        let end = s.into_session().choose(Quit).await?.send(Quit).await?;
        Ok((answers, end))
    })
    .await
}

fn main() -> Result<(), Error> {
    let lookups = lookups(6);
    let (answers, _, _) = run(|mut f| async move { front(&mut f, &lookups).await })?;
    println!("F received {answers:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_optimised_front_end_gets_the_same_answers() {
        for n in [0, 1, 2, 10] {
            let lookups = lookups(n);
            let got = run(|mut f| {
                let lookups = lookups.clone();
                async move { front(&mut f, &lookups).await }
            })
            .unwrap();
            assert_eq!(got, expected(&lookups), "{n} lookups");
        }
    }
}

/// The workflows of PPoPP 2022 §2 on this example: the hand-written optimised `F` is an
/// asynchronous subtype of its projection (hybrid) but not equal to it, the back ends are
/// their projections, the system of it and the back ends is k-MC (bottom-up), and
/// `f_optimised.dot` records it for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::optimised_workflows! {
        include_str!("supplier_info.scr"), k = 1;
        OptimisedF<'static, F> => include_str!("f_optimised.dot");
        SSession<'static, S>, KSession<'static, K>
    }
}
