//! Symmetric roles share one process: in `auction.scr` the bidders `B1` and `B2` have the
//! same projection up to their names, so the generator's `B1…` and `B2…` session types
//! have the same shape. The session types are generic over the role that runs them
//! (`B1Session<'r, R>`), so one process written against `B1`'s types, generic over `R`,
//! runs as `B1` and as `B2`: [`bidder`] below, bounded by the role's label type and its
//! route to the seller.
//!
//! The idiom holds whenever two roles' projections are equal once the roles are renamed
//! and neither talks to the other (their types name the same peers). The test
//! `one_process_is_each_bidders_projection` checks that `B1Session<'_, B2>` is exactly
//! `B2`'s projection.
//!
//! `cargo run -p mpst-examples --example auction` sells three lots.

use futures::executor::block_on;
use futures::future::try_join3;
use mpst::{Error, Role, Route, try_session};

/// The generated API of protocol `Auction` of `auction.scr`.
mod api {
    include!(concat!(env!("OUT_DIR"), "/auction.rs"));
}

use api::{B1Session, B1SessionChoice, Bid, Channel, Close, Label, Lot, Roles, S, SSession};

/// A bidder, as `B1` or as `B2`: bids `offer(lot)` on every lot until the seller closes;
/// returns the lots it saw. Written once against `B1`'s generated types.
async fn bidder<R>(role: &mut R, offer: impl Fn(i32) -> i32) -> Result<Vec<i32>, Error>
where
    R: Role<Message = Label> + Route<S, Route = Channel>,
{
    try_session(role, |mut s: B1Session<'_, R>| async move {
        let mut lots = Vec::new();
        loop {
            match s.branch().await? {
                B1SessionChoice::Lot(Lot(lot), next) => {
                    lots.push(lot);
                    s = next.send(Bid(offer(lot))).await?;
                }
                B1SessionChoice::Close(Close, end) => return Ok((lots, end)),
            }
        }
    })
    .await
}

/// The seller: offers each of `lots` to both bidders and returns the bids as
/// `(from B1, from B2)`.
async fn seller(role: &mut S, lots: &[i32]) -> Result<Vec<(i32, i32)>, Error> {
    try_session(role, |mut s: SSession<'_, S>| async move {
        let mut bids = Vec::new();
        for &lot in lots {
            let next = s.select(Lot(lot)).await?.send(Lot(lot)).await?;
            let (Bid(first), next) = next.receive().await?;
            let (Bid(second), next) = next.receive().await?;
            bids.push((first, second));
            s = next;
        }
        let end = s.select(Close).await?.send(Close).await?;
        Ok((bids, end))
    })
    .await
}

/// Runs an auction of `lots`: `B1` bids the lot's value, `B2` one more.
fn auction(lots: &[i32]) -> (Vec<(i32, i32)>, Vec<i32>, Vec<i32>) {
    let Roles {
        mut s,
        mut b1,
        mut b2,
    } = Roles::default();
    block_on(try_join3(
        seller(&mut s, lots),
        bidder(&mut b1, |lot| lot),
        bidder(&mut b2, |lot| lot + 1),
    ))
    .unwrap_or_else(|error| panic!("auction failed: {error}"))
}

fn main() {
    println!("{:?}", auction(&[10, 20, 30]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::{B1, B2};

    #[test]
    fn both_bidders_run_the_same_process() {
        let (bids, first, second) = auction(&[10, 20, 30]);
        assert_eq!(bids, [(10, 11), (20, 21), (30, 31)]);
        assert_eq!(first, [10, 20, 30]);
        assert_eq!(second, [10, 20, 30]);
    }

    #[test]
    fn one_process_is_each_bidders_projection() {
        let scr = include_str!("auction.scr");
        mpst::verify::assert_equals_projection::<B1Session<'static, B1>>(scr, "B1");
        // B1's types run by B2 are B2's projection: the generic process is right for both.
        mpst::verify::assert_equals_projection::<B1Session<'static, B2>>(scr, "B2");
        mpst::verify::assert_equals_projection::<SSession<'static, S>>(scr, "S");
    }
}
