//! `#[derive(Roles)]`'s wiring: every pair of roles is connected end to end (also with a
//! route type that is boxed while it waits for its second role), and an end whose role is
//! missing from `Roles` is closed, so its peer's receive fails instead of waiting forever
//! (the `Spsc`/`Unbounded` wiring parks the route's shared state, not a boxed end).

use futures::executor::block_on;
use mpst::channel::{Bounded, Spsc, Unbounded};
use mpst::{
    End, Error, Message, Receive, ReceiveErrorKind, Role, Roles, Send, session, try_session,
};

#[derive(Message)]
enum Label {
    Ping(Ping),
}

struct Ping(u32);

/// Three roles in a triangle, over three kinds of route.
#[derive(Roles)]
struct Triangle(A, B, C);

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Spsc<Label>, #[route(C)] Bounded<Label, 2>);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Spsc<Label>, #[route(C)] Unbounded<Label>);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Bounded<Label, 2>, #[route(B)] Unbounded<Label>);

#[session]
type PassA = Send<B, Ping, Receive<C, Ping, End>>;
#[session]
type PassB = Receive<A, Ping, Send<C, Ping, End>>;
#[session]
type PassC = Receive<B, Ping, Send<A, Ping, End>>;

#[test]
fn every_pair_is_connected_end_to_end() {
    for _ in 0..3 {
        let Triangle(mut a, mut b, mut c) = Triangle::default();
        let (back, (), ()) = block_on(async {
            futures::join!(
                async {
                    try_session(&mut a, |s: PassA<'_, A>| async {
                        let s = s.send(Ping(41)).await?;
                        let (Ping(n), end) = s.receive().await?;
                        Ok((n, end))
                    })
                    .await
                    .unwrap()
                },
                async {
                    try_session(&mut b, |s: PassB<'_, B>| async {
                        let (Ping(n), s) = s.receive().await?;
                        Ok(((), s.send(Ping(n + 1)).await?))
                    })
                    .await
                    .unwrap()
                },
                async {
                    try_session(&mut c, |s: PassC<'_, C>| async {
                        let (Ping(n), s) = s.receive().await?;
                        Ok(((), s.send(Ping(n)).await?))
                    })
                    .await
                    .unwrap()
                },
            )
        });
        assert_eq!(back, 42);
    }
}

/// `P` talks to `Q`, but only `P` is wired: `Q`'s end is parked and never taken.
#[derive(Roles)]
struct Lonely(P);

#[derive(Role)]
#[message(Label)]
struct P(#[route(Q)] Unbounded<Label>);

#[derive(Role)]
#[message(Label)]
struct Q(#[route(P)] Unbounded<Label>);

#[session]
type Wait = Receive<Q, Ping, End>;

#[test]
fn an_end_never_taken_is_closed_so_its_peer_does_not_hang() {
    let Lonely(mut p) = Lonely::default();
    let error = block_on(try_session(&mut p, |s: Wait<'_, P>| async {
        let (Ping(_), end) = s.receive().await?;
        Ok(((), end))
    }))
    .expect_err("the peer's end was dropped with the wiring");
    let Error::Receive(receive) = &error else {
        panic!("expected a receive error, got {error}");
    };
    assert!(
        matches!(receive.kind, ReceiveErrorKind::Disconnected),
        "got {error}"
    );
    assert_eq!(receive.peer, "Q");
}
