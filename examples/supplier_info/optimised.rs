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

use mpst::{session, try_session, Choose, End, Error, Receive, Send};
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
/// asynchronous subtype of its projection (hybrid) but not equal to it, the system of it
/// and the back ends is k-MC (bottom-up), and `f_optimised.dot` records it for
/// `mpst subtype`, `mpst kmc`, `mpst generate --optimised` and the expressiveness table.
#[cfg(test)]
mod workflows {
    use super::*;
    use mpst::serialize::serialize;
    use mpst::verify;

    const SCR: &str = include_str!("supplier_info.scr");

    #[test]
    fn the_optimised_front_end_is_a_subtype_of_its_projection() {
        verify::assert_subtype_of_projection::<OptimisedF<'static, F>>(SCR, "F");
        let equal = verify::check_equals_projection::<OptimisedF<'static, F>>(SCR, "F");
        assert!(equal.is_err(), "role F is not reordered");
    }

    #[test]
    fn the_optimised_system_is_k_mc() {
        let system = [
            serialize::<OptimisedF<'static, F>>().unwrap(),
            serialize::<SSession<'static, S>>().unwrap(),
            serialize::<KSession<'static, K>>().unwrap(),
        ];
        let report = mpst_fsm::least_k(&system, 8).unwrap();
        assert!(report.is_kmc(), "{report}");
        assert_eq!(report.k, 1);
    }

    #[test]
    fn the_dot_file_records_the_optimised_role() {
        let machine = serialize::<OptimisedF<'static, F>>().unwrap();
        let projection = verify::projection(SCR, "F").unwrap();
        let dot = include_str!("f_optimised.dot");
        assert!(mpst_examples::records_role(dot, &machine, &projection).unwrap());
    }
}
