//! Head-of-line blocking, the one home of its tests.
//!
//! On the transports: a message is held back (half written, on QUIC) until the test
//! releases it. Over TCP with several connections (round-robin) only the messages on the
//! held one's connection wait; over QUIC (a stream per message) `A` sends four values to
//! `B` with non-blocking communication and `B` binds the others meanwhile; over one FIFO
//! TCP connection nothing is bound until the held message goes, then all in sending
//! order.
//!
//! In the choreography (Figure 1's point, `mpst_choreo_paper::producers`, on tokio's
//! paused clock): when p1's value is late, because its link is slow or because p1 is
//! slow to produce it, the in-order form (blocking `comm`) makes p2 wait for it too; the
//! out-of-order form (`fcomm`) answers p2 as soon as p2's own value is there.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::LIMIT;
use mpst_choreo::net::Hold;
use mpst_choreo::net::quic::QuicConfig;
use mpst_choreo::net::tcp::TcpConfig;
use mpst_choreo::transport::InMemory;
use mpst_choreo::{
    Choreography, Endpoint, Op, Result, Role as _, RoleName, RoleSet, Runner, Transport, roles,
};
use mpst_choreo_paper::pipeline;
use mpst_choreo_paper::producers::{self, Item, Producer, Producers};
use std::sync::Mutex;
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
async fn over_several_tcp_connections_a_held_message_holds_back_only_its_own() {
    let (hold, release) = common::hold_sites(&[0]);
    let config = TcpConfig {
        hold: Some(hold),
        ..TcpConfig::insecure_plaintext()
    };
    let (a, b) = timeout(
        LIMIT,
        common::tcp_pair(config, TcpConfig::insecure_plaintext()),
    )
    .await
    .unwrap();
    let mut incoming = b.incoming(&common::role("B")).unwrap();
    for site in 0..8 {
        a.send(common::envelope("A", "B", site, 16)).await.unwrap();
    }
    // Four connections, round-robin: site 0 and site 4 share the held connection; the
    // six others arrive while site 0 is still held.
    let first = common::next_sorted(&mut incoming, 6).await;
    assert_eq!(first, [1, 2, 3, 5, 6, 7]);
    release.send(()).unwrap();
    let rest = [
        common::next(&mut incoming).await,
        common::next(&mut incoming).await,
    ];
    assert_eq!(rest, [0, 4]);
    a.close().await;
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

// Choreography level: Figure 1 (`mpst_choreo_paper::producers`), in order against out
// of order.

/// Figure 1's work with no costs, whose probe notes when p2's answer arrived.
#[derive(Clone)]
struct P2Answered {
    start: Instant,
    at: Arc<Mutex<Option<Duration>>>,
}

impl producers::Services for P2Answered {
    async fn produce(&self, producer: Producer) -> Item {
        Item(if producer == Producer::P1 { 1 } else { 2 })
    }

    async fn compute(&self, _: Producer, item: Item) -> producers::Answer {
        producers::compute(item)
    }

    fn answered(&self, producer: Producer, answer: &producers::Answer) {
        if producer == Producer::P2 {
            assert_eq!(*answer, producers::compute(Item(2)));
            *self.at.lock().unwrap() = Some(self.start.elapsed());
        }
    }
}

/// When p2 got its answer in Figure 1 (in order or not) with p1's link a second late.
async fn p2_answered_after(in_order: bool) -> Duration {
    let probe = P2Answered {
        start: Instant::now(),
        at: Arc::default(),
    };
    let net = common::Slow {
        inner: Arc::new(InMemory::new(producers::Roles::names())),
        slow: "P1",
    };
    let ch = Producers {
        services: probe.clone(),
        in_order,
    };
    for (role, result) in Runner::new(Arc::new(net)).run(ch).await {
        result.unwrap_or_else(|e| panic!("{role}: {e}"));
    }
    let at = *probe.at.lock().unwrap();
    at.expect("p2 was answered")
}

#[tokio::test(start_paused = true)]
async fn out_of_order_answers_p2_without_waiting_for_the_delayed_p1() {
    let in_order = p2_answered_after(true).await;
    let out_of_order = p2_answered_after(false).await;
    assert_eq!(
        in_order,
        Duration::from_secs(1),
        "in order, p2 waits for p1's delay"
    );
    assert_eq!(out_of_order, Duration::ZERO, "out of order, p2 does not");
}

/// Runs every role on its own endpoint and returns when each finished (virtual time).
async fn finish_times<Ch, X>(choreography: Ch) -> Vec<(RoleName, Duration)>
where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let transport: Arc<dyn Transport> = Arc::new(InMemory::new(Ch::Roles::names()));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for role in Ch::Roles::names() {
        let endpoint = Endpoint::new(transport.clone(), role.clone()).unwrap();
        let choreography = choreography.clone();
        tasks.push(tokio::spawn(async move {
            let result: Result<X> = endpoint.run(choreography).await;
            result.map(|_| (role, start.elapsed()))
        }));
    }
    let mut times = Vec::new();
    for task in tasks {
        times.push(task.await.unwrap().unwrap());
    }
    times
}

fn time_of(times: &[(RoleName, Duration)], role: &str) -> Duration {
    times.iter().find(|(r, _)| r.as_str() == role).unwrap().1
}

#[tokio::test(start_paused = true)]
async fn out_of_order_q_answers_the_faster_producer_first() {
    // p1 takes 20 ms, p2 2 ms, q 5 ms per item.
    let params = producers::Params::example();
    let ozone = finish_times(producers::ConcurrentProducers(params)).await;
    let in_order = finish_times(producers::InOrderProducers(params)).await;
    assert_eq!(time_of(&ozone, "P2"), Duration::from_millis(7));
    assert_eq!(time_of(&ozone, "P1"), Duration::from_millis(25));
    // In order, q waits for x1 (20 ms), answers p1 (25 ms), then p2 (30 ms).
    assert_eq!(time_of(&in_order, "P1"), Duration::from_millis(25));
    assert_eq!(time_of(&in_order, "P2"), Duration::from_millis(30));
}

/// The model-serving pipeline (`mpst_choreo_paper::pipeline`): a batch is not held
/// behind the other model's.
#[tokio::test(start_paused = true)]
async fn out_of_order_both_models_work_at_once() {
    let params = pipeline::Params {
        requests: 8,
        batch: 2,
        costs: pipeline::Costs::paper(),
    };
    let ozone = finish_times(pipeline::ModelServing::out_of_order(params)).await;
    let in_order = finish_times(pipeline::ModelServing::in_order(params)).await;
    // Four batches of 15 + 2·5 = 25 ms each, plus 1 ms of preprocessing.
    assert_eq!(time_of(&in_order, "Gateway"), Duration::from_millis(4 * 26));
    // Out of order, each model serves two batches back to back.
    assert_eq!(
        time_of(&ozone, "Gateway"),
        Duration::from_millis(2 * 25 + 1)
    )
}
