//! A property of `Offer` on the runtime: over any sequence of sessions on the same roles,
//! each with its own order of arrival (`B` first or `P` first, forced by a gate), and
//! whether the late peer's label is already queued when the desk offers, the desk takes
//! the label that arrived first, then the other, and every session runs to `End`.

use futures::channel::oneshot;
use futures::executor::block_on;
use mpst::{End, Message, Offer, Payload, Receive, Send, session, try_session};

use crate::support::declare_roles;
use proptest::prelude::*;

declare_roles!(Label over mpst::channel::Spsc<Label>: B(P, D), P(B, D), D(B, P));

#[derive(Message)]
enum Label {
    Part(Part),
}
#[derive(Payload)]
struct Part(u32);

#[session]
type Sends = Send<D, Part, End>;
#[session]
type Gathers = Offer<First>;
#[session]
enum First {
    #[from(B)]
    FromB(Part, Receive<P, Part, End>),
    #[from(P)]
    FromP(Part, Receive<B, Part, End>),
}

/// One session: the peer `first` (`true`: B) sends at once, the other only after the
/// desk took the first part (`queued`: false) or right after the first peer sent
/// (`queued`: true, so both routes may be ready when the desk looks). Returns who the
/// desk took first and the two parts in the order taken.
async fn session(roles: &mut Roles, round: u32, b_first: bool, queued: bool) -> (bool, [u32; 2]) {
    let Roles(b, p, d) = roles;
    let (first_sent, first_sent_rx) = oneshot::channel::<()>();
    let (taken, taken_rx) = oneshot::channel::<()>();
    let mut first_sent = Some(first_sent);
    let mut first_sent_rx = Some(first_sent_rx);
    let mut taken_rx = Some(taken_rx);
    // The late peer waits for this gate.
    let mut late_gate = if queued {
        first_sent_rx.take()
    } else {
        taken_rx.take()
    };
    let mut b_gate = if b_first { None } else { late_gate.take() };
    let mut p_gate = if b_first { late_gate.take() } else { None };
    let (mut b_done, mut p_done) = (None, None);
    if b_first {
        b_done = first_sent.take();
    } else {
        p_done = first_sent.take();
    }
    let b_run = try_session(b, |s: Sends<'_, B>| async move {
        if let Some(gate) = b_gate.take() {
            gate.await.expect("the gate opens");
        }
        let end = s.send(Part(2 * round)).await?;
        if let Some(done) = b_done.take() {
            let _ = done.send(());
        }
        Ok(((), end))
    });
    let p_run = try_session(p, |s: Sends<'_, P>| async move {
        if let Some(gate) = p_gate.take() {
            gate.await.expect("the gate opens");
        }
        let end = s.send(Part(2 * round + 1)).await?;
        if let Some(done) = p_done.take() {
            let _ = done.send(());
        }
        Ok(((), end))
    });
    let d_run = try_session(d, |s: Gathers<'_, D>| async move {
        // Wait until the first peer's part is in its route, so the order is forced.
        if let Some(rx) = first_sent_rx.take() {
            rx.await.expect("the first peer sent");
        }
        let out = match s.offer().await? {
            First::FromB(Part(x), s) => {
                let _ = taken.send(());
                let (Part(y), end) = s.receive().await?;
                ((true, [x, y]), end)
            }
            First::FromP(Part(x), s) => {
                let _ = taken.send(());
                let (Part(y), end) = s.receive().await?;
                ((false, [x, y]), end)
            }
        };
        Ok(out)
    });
    let ((), (), out) = futures::try_join!(b_run, p_run, d_run).expect("the session ends");
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_desk_takes_the_first_arrival_in_every_session(rounds in prop::collection::vec((any::<bool>(), any::<bool>()), 1..12)) {
        let mut roles = Roles::default();
        block_on(async {
            for (round, &(b_first, queued)) in rounds.iter().enumerate() {
                let round = round as u32;
                let (took_b, parts) = session(&mut roles, round, b_first, queued).await;
                let (b, p) = (2 * round, 2 * round + 1);
                if queued {
                    // Both may be ready: either order is right, each part exactly once.
                    let want = if took_b { [b, p] } else { [p, b] };
                    assert_eq!(parts, want);
                } else {
                    assert_eq!(took_b, b_first);
                    assert_eq!(parts, if b_first { [b, p] } else { [p, b] });
                }
            }
        });
    }
}
