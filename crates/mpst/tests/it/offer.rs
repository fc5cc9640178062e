//! `Offer`, the branch across several peers: the role takes the label of whichever peer
//! speaks first, on every in-memory route; a label from a peer the enum does not take it
//! from, a peer that goes away and a deadline are errors naming the peer; peers that
//! always have a label ready are served in turn; the session type serialises to one
//! state receiving from both peers.

use futures::executor::block_on;
use mpst::{End, Offer, ReceiveErrorKind, Send, session, try_session};

/// The protocol of a role `D` told by `B` or by `P`, over the route type `$channel`.
macro_rules! protocol {
    ($module:ident, $channel:ty) => {
        mod $module {
            use mpst::{End, Message, Offer, Payload, Role, Roles, Send, session};

            pub type Channel = $channel;

            #[derive(Roles)]
            pub struct Roles(pub B, pub P, pub D);
            #[derive(Role)]
            #[message(Label)]
            pub struct B(#[route(P)] Channel, #[route(D)] Channel);
            #[derive(Role)]
            #[message(Label)]
            pub struct P(#[route(B)] Channel, #[route(D)] Channel);
            #[derive(Role)]
            #[message(Label)]
            pub struct D(#[route(B)] Channel, #[route(P)] Channel);

            #[derive(Message, serde::Serialize, serde::Deserialize)]
            pub enum Label {
                Left(Left),
                Right(Right),
            }
            #[derive(Payload, serde::Serialize, serde::Deserialize)]
            pub struct Left(pub i32);
            #[derive(Payload, serde::Serialize, serde::Deserialize)]
            pub struct Right(pub String);

            #[session]
            pub type BTells = Send<D, Left, End>;
            #[session]
            pub type PTells = Send<D, Right, End>;
            #[session]
            pub type Learns = Offer<Either>;
            #[session]
            pub enum Either {
                #[from(B)]
                Left(Left, End),
                #[from(P)]
                Right(Right, End),
            }

            /// Runs `D` after `B` (when `from_b`) or `P` told it; what `D` learnt.
            pub async fn run(from_b: bool) -> Result<String, mpst::Error> {
                let Roles(mut b, mut p, mut d) = Roles::default();
                if from_b {
                    mpst::try_session(&mut b, |s: BTells<'_, B>| async move {
                        Ok(((), s.send(Left(7)).await?))
                    })
                    .await?;
                } else {
                    mpst::try_session(&mut p, |s: PTells<'_, P>| async move {
                        Ok(((), s.send(Right("seven".into())).await?))
                    })
                    .await?;
                }
                mpst::try_session(&mut d, |s: Learns<'_, D>| async move {
                    match s.offer().await? {
                        Either::Left(Left(n), end) => Ok((format!("B:{n}"), end)),
                        Either::Right(Right(text), end) => Ok((format!("P:{text}"), end)),
                    }
                })
                .await
            }
        }
    };
}

protocol!(unbounded, mpst::channel::Unbounded<Label>);
protocol!(bounded, mpst::channel::Bounded<Label, 4>);
protocol!(spsc, mpst::channel::Spsc<Label>);
protocol!(any_route, mpst::net::AnyRoute<Label>);

#[test]
fn the_label_of_whichever_peer_speaks_is_taken_on_every_in_memory_route() {
    block_on(async {
        for from_b in [true, false] {
            let want = if from_b { "B:7" } else { "P:seven" };
            assert_eq!(unbounded::run(from_b).await.unwrap(), want);
            assert_eq!(bounded::run(from_b).await.unwrap(), want);
            assert_eq!(spsc::run(from_b).await.unwrap(), want);
            assert_eq!(any_route::run(from_b).await.unwrap(), want);
        }
    });
}

use unbounded::{B, D, Either, Learns, Left, P, Right, Roles};

#[session]
type PSendsLeft = Send<D, Left, End>;

#[test]
fn a_label_from_a_peer_the_enum_does_not_take_it_from_is_refused_naming_that_peer() {
    block_on(async {
        let Roles(_b, mut p, mut d) = Roles::default();
        try_session(&mut p, |s: PSendsLeft<'_, P>| async move {
            Ok(((), s.send(Left(1)).await?))
        })
        .await
        .unwrap();
        let error = try_session(&mut d, |s: Learns<'_, D>| async move {
            let chosen = s.offer().await?;
            Ok(((), end_of(chosen)))
        })
        .await
        .unwrap_err();
        let mpst::Error::Receive(error) = error else {
            panic!("not a receive error: {error}")
        };
        assert_eq!(error.peer, "P");
        match error.kind {
            ReceiveErrorKind::UnexpectedLabel { received, expected } => {
                assert_eq!(received, "Left");
                assert_eq!(expected, ["Right"], "P may only send Right here");
            }
            other => panic!("wrong kind: {other:?}"),
        }
    });
}

fn end_of(chosen: Either<'_, D>) -> End<'_, D> {
    match chosen {
        Either::Left(_, end) | Either::Right(_, end) => end,
    }
}

#[test]
fn a_peer_that_goes_away_fails_the_offer_naming_it() {
    block_on(async {
        let Roles(mut b, _p, mut d) = Roles::default();
        // B's session fails before it says anything: its role aborts.
        let failed = try_session(&mut b, |s: unbounded::BTells<'_, B>| async move {
            drop(s);
            Err::<((), End<'_, B>), _>(mpst::Error::other("B gives up"))
        })
        .await;
        assert!(failed.is_err());
        let error = try_session(&mut d, |s: Learns<'_, D>| async move {
            Ok(((), end_of(s.offer().await?)))
        })
        .await
        .unwrap_err();
        assert!(error.is_disconnected(), "{error}");
        assert_eq!(error.peer(), Some("B"), "{error}");
    });
}

#[test]
fn a_deadline_gives_up_naming_every_peer_of_the_offer() {
    block_on(async {
        let Roles(_b, _p, mut d) = Roles::default();
        let error = try_session(&mut d, |s: Learns<'_, D>| async move {
            Ok((
                (),
                end_of(s.offer().until(futures::future::ready(())).await?),
            ))
        })
        .await
        .unwrap_err();
        assert!(error.is_timeout(), "{error}");
        assert_eq!(error.peer(), Some("B or P"), "{error}");
        assert!(error.to_string().contains("Offer<Either>"), "{error}");
    });
}

#[test]
fn a_desk_that_gives_up_on_its_offer_fails_the_peers_that_would_tell_it() {
    block_on(async {
        let Roles(mut b, _p, mut d) = Roles::default();
        let error = try_session(&mut d, |s: Learns<'_, D>| async move {
            Ok((
                (),
                end_of(s.offer().until(futures::future::ready(())).await?),
            ))
        })
        .await
        .unwrap_err();
        assert!(error.is_timeout(), "{error}");
        // D's routes were aborted: B's send to it fails instead of vanishing.
        let error = try_session(&mut b, |s: unbounded::BTells<'_, B>| async move {
            Ok(((), s.send(Left(1)).await?))
        })
        .await
        .unwrap_err();
        assert!(error.is_disconnected(), "{error}");
        assert_eq!(error.peer(), Some("D"), "{error}");
    });
}

// Fairness: B and P both have three items queued; `D` gathers until P says stop.

#[session]
type BItems = Send<D, Left, Send<D, Left, Send<D, Left, End>>>;
#[session]
type PItems = Send<D, Right, Send<D, Right, Send<D, Right, Send<D, Left, End>>>>;
#[session]
struct Gather(Offer<Items>);
#[session]
enum Items {
    #[from(B)]
    FromB(Left, Gather),
    #[from(P)]
    FromP(Right, Gather),
    #[from(P)]
    Stop(Left, End),
}

#[test]
fn peers_with_labels_ready_are_served_in_turn() {
    block_on(async {
        let Roles(mut b, mut p, mut d) = Roles::default();
        try_session(&mut b, |s: BItems<'_, B>| async move {
            let s = s.send(Left(1)).await?.send(Left(2)).await?;
            Ok(((), s.send(Left(3)).await?))
        })
        .await
        .unwrap();
        try_session(&mut p, |s: PItems<'_, P>| async move {
            let s = s.send(Right("1".into())).await?;
            let s = s.send(Right("2".into())).await?;
            let s = s.send(Right("3".into())).await?;
            Ok(((), s.send(Left(0)).await?))
        })
        .await
        .unwrap();
        let order = try_session(&mut d, |s: Gather<'_, D>| async move {
            let mut order = String::new();
            let mut s = s;
            loop {
                match s.into_session().offer().await? {
                    Items::FromB(Left(n), next) => {
                        order.push_str(&format!("B{n} "));
                        s = next;
                    }
                    Items::FromP(Right(n), next) => {
                        order.push_str(&format!("P{n} "));
                        s = next;
                    }
                    Items::Stop(_, end) => return Ok((order, end)),
                }
            }
        })
        .await
        .unwrap();
        // Only this test uses `Items`, so its rotation starts at B. Without it, B's three
        // items would all come before P's.
        assert_eq!(order, "B1 P1 B2 P2 B3 P3 ");
    });
}

#[test]
fn an_offer_serialises_to_one_state_receiving_from_each_peer() {
    let fsm = mpst::serialize::serialize::<Learns<'static, D>>().unwrap();
    assert_eq!(
        fsm.to_string(),
        "fsm D (initial 0)\n  0 --B?Left(i32)--> 1\n  0 --P?Right(String)--> 1\n"
    );
    let fsm = mpst::serialize::serialize::<Gather<'static, D>>().unwrap();
    let text = fsm.to_string();
    assert!(text.contains("0 --B?Left(i32)--> 0"), "{text}");
    assert!(text.contains("0 --P?Right(String)--> 0"), "{text}");
    assert!(text.contains("0 --P?Left(i32)--> 1"), "{text}");
}
