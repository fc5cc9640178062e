//! Supplier info, top-down: a choice whose branches start with messages to different
//! receivers. The session API is generated at build time from `supplier_info.scr`
//! (`examples/build.rs`): the front end's choice is a `Choose` whose variants each name
//! their peer (`#[to(S)] Supplier(..)`, `#[to(K)] Contract(..)`), and each role below is
//! a hand-written process against it.
//!
//! The front end `F` looks up suppliers at `S` and contracts at `K`; the back end not
//! asked is told so, so both follow every round. `optimised.rs` has `F` send that notice
//! before it waits for the answer.
//!
//! `cargo run -p mpst-examples --example supplier_info` makes a few lookups and prints
//! the answers.

mod protocol;

use mpst::{Error, try_session};
use protocol::*;

/// The front end: makes each lookup in turn and collects the answers.
async fn front(role: &mut F, lookups: &[Lookup]) -> Result<Vec<i32>, Error> {
    try_session(role, |mut s: FSession<'_, F>| async move {
        let mut answers = Vec::new();
        for lookup in lookups {
            s = match *lookup {
                Lookup::Supplier(id) => {
                    let s = s.choose(Supplier(id)).await?;
                    let (SupplierInfo(info), s) = s.receive().await?;
                    answers.push(info);
                    s.send(NoContract).await?
                }
                Lookup::Contract(id) => {
                    let s = s.choose(Contract(id)).await?;
                    let (ContractInfo(info), s) = s.receive().await?;
                    answers.push(info);
                    s.send(NoSupplier).await?
                }
            };
        }
        let end = s.choose(Quit).await?.send(Quit).await?;
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
    fn every_lookup_is_answered_by_its_back_end() {
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

/// The workflows of PPoPP 2022 §2 on this example: each generated session type
/// serialises to its role's projection, and the serialised system is k-MC.
#[cfg(test)]
mod workflows {
    use super::*;

    mpst_examples::projection_workflows! {
        include_str!("supplier_info.scr");
        FSession<'static, F>, SSession<'static, S>, KSession<'static, K>
    }

    #[test]
    fn the_front_ends_first_state_sends_to_both_back_ends() {
        let f = mpst::serialize::serialize::<FSession<'static, F>>().unwrap();
        let mut peers: Vec<&str> = f
            .transitions(f.initial())
            .iter()
            .map(|t| t.action.peer.as_str())
            .collect();
        peers.sort_unstable();
        assert_eq!(peers, ["K", "S", "S"], "{f}");
    }
}
