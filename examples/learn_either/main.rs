//! Branches across peers, through the three workflows.
//!
//! - `dispatch.scr`: the desk `D` learns the dispatcher's choice from whichever of `B`
//!   and `P` speaks first. Its projection receives from both in one state, generated
//!   as `Offer<DSessionChoice>` with one `#[from(Peer)]` variant per sender.
//! - `gather.scr` with `gather_optimised.dot`: the projected desk waits for `B`'s part,
//!   then `P`'s; the optimised desk takes them in whichever order they arrive (one state
//!   receiving from both), generated as `DOptimised` beside the projections once
//!   asynchronous subtyping proves it. `B` and `P` run unchanged beside either desk.
//!
//! Top-down: `examples/build.rs` generates both modules; the processes below are written
//! against them and run. Bottom-up: the desk's session type is also written by hand
//! ([`Desk`]) and the system of serialised session types is checked with k-MC. Hybrid:
//! the hand-written and the optimised types are checked against the `.scr` projections
//! (equal, and a subtype).
//!
//! `cargo run -p mpst-examples --example learn_either` runs both protocols.

use mpst::{Error, try_session};

/// The generated API of `dispatch.scr` (`build.rs`).
#[allow(dead_code)]
mod dispatch {
    include!(concat!(env!("OUT_DIR"), "/dispatch.rs"));
}

/// The generated API of `gather.scr` with the optimised desk `DOptimised` (`build.rs`).
#[allow(dead_code)]
mod gather {
    include!(concat!(env!("OUT_DIR"), "/gather.rs"));
}

/// The desk's session type of `dispatch.scr` written by hand (the bottom-up workflow):
/// an `Offer` whose variants name their senders.
mod desk {
    use super::dispatch::{B, Bid, Order, P, Receipt};
    use mpst::{End, Offer, Send, session};

    /// Wait on `B` and `P` at once; answer whoever spoke with a receipt.
    #[session]
    pub type Desk = Offer<Told>;

    /// Who told the desk, and what.
    #[session]
    pub enum Told {
        /// The buyer ordered.
        #[from(B)]
        Order(Order, Send<B, Receipt, End>),
        /// The seller bid.
        #[from(P)]
        Bid(Bid, Send<P, Receipt, End>),
    }
}

use desk::{Desk, Told};

/// One run of `dispatch.scr`: `A` sends the buyer (`buy`) when `to_buyer`, else the
/// seller; returns what the desk learnt and the receipt its peer got.
async fn dispatch(to_buyer: bool, amount: i32) -> Result<(String, i32), Error> {
    use dispatch::*;
    let Roles {
        mut a,
        mut b,
        mut p,
        mut d,
    } = Roles::default();
    let a = try_session(&mut a, |s: ASession<'_, A>| async move {
        let end = if to_buyer {
            s.choose(Buy(amount)).await?.send(Skip).await?
        } else {
            s.choose(Sell(amount)).await?.send(Pass).await?
        };
        Ok(((), end))
    });
    let b = try_session(&mut b, |s: BSession<'_, B>| async move {
        match s.branch().await? {
            BSessionChoice::Buy(Buy(n), s) => {
                let (Receipt(r), end) = s.send(Order(n)).await?.receive().await?;
                Ok((Some(r), end))
            }
            BSessionChoice::Pass(Pass, end) => Ok((None, end)),
        }
    });
    let p = try_session(&mut p, |s: PSession<'_, P>| async move {
        match s.branch().await? {
            PSessionChoice::Sell(Sell(n), s) => {
                let (Receipt(r), end) = s.send(Bid(n)).await?.receive().await?;
                Ok((Some(r), end))
            }
            PSessionChoice::Skip(Skip, end) => Ok((None, end)),
        }
    });
    // The desk runs the hand-written type: it is the projection (see the tests).
    let d = try_session(&mut d, |s: Desk<'_, D>| async move {
        match s.offer().await? {
            Told::Order(Order(n), s) => {
                Ok((format!("order {n} from B"), s.send(Receipt(n)).await?))
            }
            Told::Bid(Bid(n), s) => Ok((format!("bid {n} from P"), s.send(Receipt(n)).await?)),
        }
    });
    let ((), from_b, from_p, learnt) = futures::try_join!(a, b, p, d)?;
    Ok((learnt, from_b.or(from_p).unwrap_or(-1)))
}

/// One run of `gather.scr` with `B` sending `b` and `P` sending `p`, the second of them
/// only once the first was taken when `p_first` says who goes first (so the parts
/// arrive in that order); `optimised` runs the optimised desk. Returns the totals `B`
/// and `P` were told.
async fn gather(b: i32, p: i32, optimised: bool) -> Result<(i32, i32), Error> {
    use gather::*;
    let Roles {
        b: mut rb,
        d: mut rd,
        p: mut rp,
    } = Roles::default();
    // `B` and `P` are the same code beside either desk.
    let b_run = try_session(&mut rb, |s: BSession<'_, B>| async move {
        let (Total(t), end) = s.send(Part(b)).await?.receive().await?;
        Ok((t, end))
    });
    let p_run = try_session(&mut rp, |s: PSession<'_, P>| async move {
        let (Total(t), end) = s.send(Part(p)).await?.receive().await?;
        Ok((t, end))
    });
    let d_run = async {
        if optimised {
            try_session(&mut rd, |s: DOptimised<'_, D>| async move {
                let (sum, s) = match s.offer().await? {
                    DOptimisedChoice::PartB(Part(x), s) => {
                        let (Part(y), s) = s.receive().await?;
                        (x + y, s)
                    }
                    DOptimisedChoice::PartP(Part(y), s) => {
                        let (Part(x), s) = s.receive().await?;
                        (x + y, s)
                    }
                };
                let end = s.send(Total(sum)).await?.send(Total(sum)).await?;
                Ok(((), end))
            })
            .await
        } else {
            try_session(&mut rd, |s: DSession<'_, D>| async move {
                let (Part(x), s) = s.receive().await?;
                let (Part(y), s) = s.receive().await?;
                let end = s.send(Total(x + y)).await?.send(Total(x + y)).await?;
                Ok(((), end))
            })
            .await
        }
    };
    let (tb, tp, ()) = futures::try_join!(b_run, p_run, d_run)?;
    Ok((tb, tp))
}

fn main() -> Result<(), Error> {
    futures::executor::block_on(async {
        for to_buyer in [true, false] {
            let (learnt, receipt) = dispatch(to_buyer, 42).await?;
            println!("the desk learnt: {learnt}; receipt {receipt}");
        }
        for optimised in [false, true] {
            let (tb, tp) = gather(3, 4, optimised).await?;
            let desk = if optimised { "optimised" } else { "projected" };
            println!("the {desk} desk told B {tb} and P {tp}");
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use mpst::serialize::serialize;
    use mpst::verify;

    const DISPATCH: &str = include_str!("dispatch.scr");
    const GATHER: &str = include_str!("gather.scr");

    #[test]
    fn the_desk_learns_from_whichever_peer_the_dispatcher_picked() {
        assert_eq!(
            block_on(dispatch(true, 5)).unwrap(),
            ("order 5 from B".to_string(), 5)
        );
        assert_eq!(
            block_on(dispatch(false, 6)).unwrap(),
            ("bid 6 from P".to_string(), 6)
        );
    }

    #[test]
    fn both_desks_gather_beside_unchanged_peers() {
        assert_eq!(block_on(gather(3, 4, false)).unwrap(), (7, 7));
        assert_eq!(block_on(gather(3, 4, true)).unwrap(), (7, 7));
    }

    /// The optimised desk takes `P`'s part first when it arrives first: `B` sends only
    /// after `P`'s part was sent (a `B` that waits on a channel fired by `P`).
    #[test]
    fn the_optimised_desk_takes_the_part_that_arrives_first() {
        use gather::*;
        block_on(async {
            let Roles {
                b: mut rb,
                d: mut rd,
                p: mut rp,
            } = Roles::default();
            let (sent, go) = futures::channel::oneshot::channel::<()>();
            let b_run = try_session(&mut rb, |s: BSession<'_, B>| async move {
                go.await.expect("P sent its part");
                let (Total(t), end) = s.send(Part(1)).await?.receive().await?;
                Ok((t, end))
            });
            let p_run = try_session(&mut rp, |s: PSession<'_, P>| async move {
                let s = s.send(Part(2)).await?;
                sent.send(()).expect("B waits");
                let (Total(t), end) = s.receive().await?;
                Ok((t, end))
            });
            let d_run = try_session(&mut rd, |s: DOptimised<'_, D>| async move {
                let first = match s.offer().await? {
                    DOptimisedChoice::PartB(_, s) => ("B", s.receive().await?.1),
                    DOptimisedChoice::PartP(_, s) => ("P", s.receive().await?.1),
                };
                let (who, s) = first;
                let end = s.send(Total(3)).await?.send(Total(3)).await?;
                Ok((who, end))
            });
            let (tb, tp, first) = futures::try_join!(b_run, p_run, d_run).unwrap();
            assert_eq!((tb, tp, first), (3, 3, "P"));
        });
    }

    /// Top-down and hybrid: the generated desk is the projection, and so is the
    /// hand-written one; the optimised desk is a subtype of the projection, not equal.
    #[test]
    fn the_desks_types_against_the_projections() {
        verify::assert_equals_projection::<dispatch::DSession<'static, dispatch::D>>(DISPATCH, "D");
        verify::assert_equals_projection::<Desk<'static, dispatch::D>>(DISPATCH, "D");
        verify::assert_subtype_of_projection::<gather::DOptimised<'static, gather::D>>(GATHER, "D");
        assert!(
            verify::check_equals_projection::<gather::DOptimised<'static, gather::D>>(GATHER, "D")
                .is_err(),
            "the optimised desk reorders its receptions"
        );
        let projection = verify::projection(DISPATCH, "D").unwrap();
        let peers: Vec<&str> = projection
            .transitions(projection.initial())
            .iter()
            .map(|t| t.action.peer.as_str())
            .collect();
        assert_eq!(peers, ["B", "P"], "one state receives from both");
    }

    /// Bottom-up: the serialised session types, the hand-written desk among them, form
    /// k-MC systems; so does the system with the optimised desk.
    #[test]
    fn the_serialised_systems_are_k_mc() {
        use dispatch as dp;
        let system = [
            serialize::<dp::ASession<'static, dp::A>>().unwrap(),
            serialize::<dp::BSession<'static, dp::B>>().unwrap(),
            serialize::<dp::PSession<'static, dp::P>>().unwrap(),
            serialize::<Desk<'static, dp::D>>().unwrap(),
        ];
        let report = mpst_fsm::least_k(&system, 2).unwrap();
        assert!(report.is_kmc(), "{report}");
        use gather as g;
        let system = [
            serialize::<g::BSession<'static, g::B>>().unwrap(),
            serialize::<g::PSession<'static, g::P>>().unwrap(),
            serialize::<g::DOptimised<'static, g::D>>().unwrap(),
        ];
        let report = mpst_fsm::least_k(&system, 2).unwrap();
        assert!(report.is_kmc(), "{report}");
    }
}
