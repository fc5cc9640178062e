//! Head-of-line blocking, twice.
//!
//! At the transport level: `A` sends four values to `B` with non-blocking communication
//! and `B` records the order in which it binds them. The first value's message is held
//! back (half written, on QUIC) until the test releases it. Over QUIC (a stream per
//! message) and over TCP with several connections the others are bound meanwhile; over
//! one FIFO TCP connection nothing is bound until the held message goes, then all in
//! sending order.
//!
//! At the choreography level (Figure 1's point, measured on tokio's paused clock): when
//! p1's value is delayed, the in-order choreography (blocking `comm`) makes p2 wait for it
//! too; the out-of-order one (`fcomm`) answers p2 as soon as p2's own value arrives.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::LIMIT;
use mpst_choreo::net::Hold;
use mpst_choreo::net::quic::QuicConfig;
use mpst_choreo::net::tcp::TcpConfig;
use mpst_choreo::transport::InMemory;
use mpst_choreo::{
    Choreography, Endpoint, Located, Op, Result, Role as _, RoleSet, Runner, Transport, roles,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, timeout};

roles! {
    /// Sends four values.
    pub struct A;
    /// Binds them.
    pub struct B;
}

/// `A` sends 10, 11, 12, 13; `B` reports each value when it is bound.
#[derive(Clone)]
struct Burst {
    bound: mpsc::UnboundedSender<u64>,
}

impl Choreography for Burst {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let f0 = op.fcomm(A, B, &op.locally(A, |_| 10u64));
        let f1 = op.fcomm(A, B, &op.locally(A, |_| 11u64));
        let f2 = op.fcomm(A, B, &op.locally(A, |_| 12u64));
        let f3 = op.fcomm(A, B, &op.locally(A, |_| 13u64));
        for future in [f0, f1, f2, f3] {
            let bound = self.bound.clone();
            let report = op.then(B, future, move |v| {
                let _ = bound.send(v);
            });
            op.detach(B, report);
        }
        Ok(())
    }
}

/// Holds back the message carrying 10 until the returned sender fires.
fn hold_ten() -> (Hold, oneshot::Sender<()>) {
    let ten = postcard::to_stdvec(&10u64).unwrap();
    common::hold_where(move |e| e.payload == ten)
}

/// Runs the burst over `a` and `b`; the test sees each bound value on the receiver.
fn burst(a: Arc<dyn Transport>, b: Arc<dyn Transport>) -> mpsc::UnboundedReceiver<u64> {
    let (bound, values) = mpsc::unbounded_channel();
    let choreography = Burst { bound };
    for (transport, role) in [(a, A::name()), (b, B::name())] {
        let endpoint = Endpoint::new(transport, role).unwrap();
        let choreography = choreography.clone();
        tokio::spawn(async move { endpoint.run(choreography).await });
    }
    values
}

async fn next(values: &mut mpsc::UnboundedReceiver<u64>) -> u64 {
    timeout(LIMIT, values.recv()).await.unwrap().unwrap()
}

async fn quic_pair(hold: Hold) -> (Arc<dyn Transport>, Arc<dyn Transport>) {
    let held = QuicConfig {
        hold: Some(hold),
        ..QuicConfig::default()
    };
    let (a, b) = common::quic_pair(held, QuicConfig::default()).await;
    (Arc::new(a), Arc::new(b))
}

async fn tcp_pair(hold: Hold, connections: usize) -> (Arc<dyn Transport>, Arc<dyn Transport>) {
    let held = TcpConfig {
        connections_per_peer: connections,
        hold: Some(hold),
        ..TcpConfig::insecure_plaintext()
    };
    let (a, b) = common::tcp_pair(held, TcpConfig::insecure_plaintext()).await;
    (Arc::new(a), Arc::new(b))
}

/// The three values sent after the held 10 are bound first (in any order), then 10 once
/// released.
async fn the_others_overtake_the_held_one(
    a: Arc<dyn Transport>,
    b: Arc<dyn Transport>,
    release: oneshot::Sender<()>,
) {
    let mut values = burst(a, b);
    let mut first = vec![next(&mut values).await, next(&mut values).await];
    first.push(next(&mut values).await);
    first.sort();
    assert_eq!(first, [11, 12, 13]);
    release.send(()).unwrap();
    assert_eq!(next(&mut values).await, 10);
}

#[tokio::test]
async fn over_quic_a_held_message_holds_back_no_other_binding() {
    let (hold, release) = hold_ten();
    let (a, b) = timeout(LIMIT, quic_pair(hold)).await.unwrap();
    the_others_overtake_the_held_one(a, b, release).await;
}

#[tokio::test]
async fn over_several_tcp_connections_the_others_overtake_the_held_one() {
    let (hold, release) = hold_ten();
    let (a, b) = timeout(LIMIT, tcp_pair(hold, 4)).await.unwrap();
    the_others_overtake_the_held_one(a, b, release).await;
}

#[tokio::test]
async fn over_one_fifo_tcp_connection_the_held_message_blocks_every_binding() {
    let (hold, release) = hold_ten();
    let (a, b) = timeout(LIMIT, tcp_pair(hold, 1)).await.unwrap();
    let mut values = burst(a, b);
    // The three later values are on the wire behind the held one: none can be bound.
    let early = timeout(Duration::from_millis(300), values.recv()).await;
    assert!(early.is_err(), "bound {early:?} past the held message");
    release.send(()).unwrap();
    let mut order = Vec::new();
    for _ in 0..4 {
        order.push(next(&mut values).await);
    }
    assert_eq!(order, [10, 11, 12, 13]);
}

// Choreography level: Figure 1, in order against out of order.

roles! {
    pub struct P1;
    pub struct P2;
    pub struct Q;
}

type R = RoleSet![P1, P2, Q];

/// When p2 got its answer, since the start.
type Answer = Located<Duration, P2>;

#[derive(Clone)]
struct InOrder(Instant);

impl Choreography<Answer> for InOrder {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<Answer> {
        let (x1, x2) = (op.locally(P1, |_| 1u64), op.locally(P2, |_| 2u64));
        let x1 = op.comm(P1, Q, &x1).await?;
        let x2 = op.comm(P2, Q, &x2).await?;
        op.comm(Q, P1, &x1).await?;
        let y2 = op.comm(Q, P2, &x2).await?;
        Ok(op.locally(P2, |un| {
            assert_eq!(*un.unwrap(&y2), 2);
            self.0.elapsed()
        }))
    }
}

#[derive(Clone)]
struct OutOfOrder(Instant);

impl Choreography<Answer> for OutOfOrder {
    type Roles = R;

    async fn run(self, op: &Op<R>) -> Result<Answer> {
        let (x1, x2) = (op.locally(P1, |_| 1u64), op.locally(P2, |_| 2u64));
        let x1 = op.fcomm(P1, Q, &x1);
        let x2 = op.fcomm(P2, Q, &x2);
        let y1 = op.fcomm(Q, P1, x1);
        let y2 = op.fcomm(Q, P2, x2);
        let start = self.0;
        let at = op.then(P2, y2, move |y| {
            assert_eq!(y, 2);
            start.elapsed()
        });
        op.wait(P1, y1).await?;
        op.wait(P2, at).await
    }
}

async fn p2_answered_after<Ch: Choreography<Answer> + Clone + 'static>(ch: Ch) -> Duration {
    let net = common::Slow {
        inner: Arc::new(InMemory::new(R::names())),
        slow: "P1",
    };
    let out = Runner::new(Arc::new(net)).run(ch).await;
    let (_, at_p2) = out
        .into_iter()
        .find(|(r, _)| r.as_str() == "P2")
        .expect("P2 ran");
    at_p2
        .expect("P2 succeeded")
        .into_local()
        .expect("held at P2")
}

#[tokio::test(start_paused = true)]
async fn out_of_order_answers_p2_without_waiting_for_the_delayed_p1() {
    let in_order = p2_answered_after(InOrder(Instant::now())).await;
    let out_of_order = p2_answered_after(OutOfOrder(Instant::now())).await;
    assert_eq!(
        in_order,
        Duration::from_secs(1),
        "in order, p2 waits for p1's delay"
    );
    assert_eq!(out_of_order, Duration::ZERO, "out of order, p2 does not");
}
