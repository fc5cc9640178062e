//! What the runtime does per session, counted rather than timed: a ready `fcomm` is
//! handed to the transport before it returns and spawns no task, on every transport (in
//! memory, chaos, TCP, QUIC); a forward spawns no task either; the runner plays its roles
//! in the caller's task; and a delivery wakes the waiting session exactly once.
//!
//! Tasks are counted with tokio's `num_alive_tasks` on a current-thread runtime, where
//! no task can run or finish between two counts taken without an await.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use common::{Deployment, LIMIT, role};
use futures::future::BoxFuture;
use mpst_choreo::net::quic::QuicConfig;
use mpst_choreo::net::tcp::TcpConfig;
use mpst_choreo::transport::Inbox;
use mpst_choreo::transport::{Chaos, ChaosConfig, InMemory};
use mpst_choreo::{
    Choreography, Endpoint, Envelope, EventKind, Op, Recorder, Result, RoleName, RoleSet, Runner,
    Transport, TransportError, roles,
};
use tokio::time::timeout;

roles! {
    /// The sender.
    pub struct A;
    /// The forwarder.
    pub struct B;
}

fn alive() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// What the roles noted inside their bodies, between two counts with no await between.
#[derive(Default)]
struct Notes {
    /// Tasks spawned by `A`'s `fcomm` of a ready value.
    spawned_by_send: AtomicUsize,
    /// Tasks spawned by `B`'s `fcomm` of a future (a forward).
    spawned_by_forward: AtomicUsize,
    /// Whether `A`'s observer saw the send completed when `fcomm` returned.
    sent_inline: Mutex<Option<bool>>,
}

/// `A` sends 7 to `B` (a ready value), `B` forwards it back to `A` (a future).
#[derive(Clone)]
struct RoundTrip {
    notes: Arc<Notes>,
    recorder: Arc<Recorder>,
}

impl Choreography<Option<u64>> for RoundTrip {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<u64>> {
        let value = op.locally(A, |_| 7u64);
        let before = alive();
        let at_b = op.fcomm(A, B, &value);
        if op.is::<A>() {
            let spawned = alive().saturating_sub(before);
            self.notes.spawned_by_send.store(spawned, Ordering::SeqCst);
            let sent = self
                .recorder
                .events()
                .iter()
                .any(|e| e.kind == EventKind::Sent);
            *self.notes.sent_inline.lock().unwrap() = Some(sent);
        }
        let before = alive();
        let back = op.fcomm(B, A, at_b);
        if op.is::<B>() {
            let spawned = alive().saturating_sub(before);
            self.notes
                .spawned_by_forward
                .store(spawned, Ordering::SeqCst);
        }
        Ok(op.wait(A, back).await?.into_local())
    }
}

/// Runs [`RoundTrip`] with `A` on `a` and `B` on `b`, both polled in this task; what
/// the roles noted.
async fn round_trip(a: Arc<dyn Transport>, b: Arc<dyn Transport>) -> Arc<Notes> {
    let notes = Arc::new(Notes::default());
    let recorder = Arc::new(Recorder::new());
    let observer = Some(recorder.clone() as Arc<dyn mpst_choreo::Observer>);
    let config = mpst_choreo::EndpointConfig::default();
    let ea = Endpoint::with_config(a, role("A"), config, observer).unwrap();
    let eb = Endpoint::new(b, role("B")).unwrap();
    let choreo = RoundTrip {
        notes: notes.clone(),
        recorder,
    };
    let both = async { tokio::join!(ea.run(choreo.clone()), eb.run(choreo)) };
    let (at_a, at_b) = timeout(LIMIT, both).await.expect("the round trip ends");
    assert_eq!(at_a.unwrap(), Some(7), "A got its value back through B");
    assert_eq!(at_b.unwrap(), None);
    notes
}

/// Asserts that the send and the forward spawned nothing and the send was inline.
fn assert_inline(notes: Arc<Notes>, transport: &str) {
    assert_eq!(
        notes.spawned_by_send.load(Ordering::SeqCst),
        0,
        "{transport}: a ready fcomm spawned a task"
    );
    assert_eq!(
        *notes.sent_inline.lock().unwrap(),
        Some(true),
        "{transport}: a ready fcomm returned before the transport took its envelope"
    );
    assert_eq!(
        notes.spawned_by_forward.load(Ordering::SeqCst),
        0,
        "{transport}: a forward spawned a task"
    );
}

fn names() -> Vec<RoleName> {
    <RoleSet![A, B]>::names()
}

#[tokio::test]
async fn a_ready_fcomm_is_sent_inline_in_memory() {
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(names()));
    assert_inline(round_trip(net.clone(), net).await, "in memory");
}

#[tokio::test]
async fn a_ready_fcomm_is_sent_inline_through_chaos_without_delay() {
    let config = ChaosConfig {
        seed: 1,
        max_delay: std::time::Duration::ZERO,
        duplicate: 0.0,
        drop: 0.0,
    };
    let net: Arc<dyn Transport> = Arc::new(Chaos::new(InMemory::new(names()), config));
    assert_inline(round_trip(net.clone(), net).await, "chaos");
}

#[tokio::test]
async fn a_ready_fcomm_is_sent_inline_over_tcp() {
    let deployment = Deployment::new(&names());
    let base = TcpConfig::insecure_plaintext();
    let (a, b) = common::tcp_pair_in(&deployment, base.clone(), base).await;
    assert_inline(round_trip(Arc::new(a), Arc::new(b)).await, "TCP");
}

#[tokio::test]
async fn a_ready_fcomm_is_sent_inline_over_quic() {
    let (a, b) = common::quic_pair(QuicConfig::default(), QuicConfig::default()).await;
    assert_inline(round_trip(Arc::new(a), Arc::new(b)).await, "QUIC");
}

/// A transport that hands every send to a task of its own (what the check must catch).
struct Spawning(Arc<InMemory>);

impl Transport for Spawning {
    fn send(
        &self,
        envelope: Envelope,
    ) -> BoxFuture<'static, std::result::Result<(), TransportError>> {
        let inner = Arc::clone(&self.0);
        tokio::spawn(async move { inner.send(envelope).await });
        Box::pin(std::future::ready(Ok(())))
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> std::result::Result<(), TransportError> {
        self.0.attach(role, inbox)
    }
}

/// A transport whose send completes only at its second poll (a deferred send).
struct Deferring(InMemory);

impl Transport for Deferring {
    fn send(
        &self,
        envelope: Envelope,
    ) -> BoxFuture<'static, std::result::Result<(), TransportError>> {
        let sent = self.0.send(envelope);
        Box::pin(async move {
            tokio::task::yield_now().await;
            sent.await
        })
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> std::result::Result<(), TransportError> {
        self.0.attach(role, inbox)
    }
}

#[tokio::test]
async fn the_checks_catch_a_transport_that_spawns_or_defers_its_sends() {
    let net: Arc<dyn Transport> = Arc::new(Spawning(Arc::new(InMemory::new(names()))));
    let notes = round_trip(net.clone(), net).await;
    assert_eq!(notes.spawned_by_send.load(Ordering::SeqCst), 1);
    let net: Arc<dyn Transport> = Arc::new(Deferring(InMemory::new(names())));
    let notes = round_trip(net.clone(), net).await;
    assert_eq!(*notes.sent_inline.lock().unwrap(), Some(false));
}

/// Counts the roles' tasks from inside the body.
#[derive(Clone)]
struct Count(Arc<Mutex<Vec<usize>>>);

impl Choreography for Count {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let value = op.locally(A, |_| 1u8);
        let got = op.comm(A, B, &value).await?;
        self.0.lock().unwrap().push(alive());
        op.comm(B, A, &got).await?;
        Ok(())
    }
}

#[tokio::test]
async fn the_runner_spawns_no_task_per_role_unless_asked() {
    let counts = Count(Arc::default());
    let net = Arc::new(InMemory::new(names()));
    for (_, result) in Runner::new(net).run(counts.clone()).await {
        result.unwrap();
    }
    // Two endpoints, each with its task expiring unclaimed envelopes (off the delivery
    // path: the transport files what arrives itself): nothing else.
    assert_eq!(*counts.0.lock().unwrap(), [2, 2]);
    let spawned = Count(Arc::default());
    let net = Arc::new(InMemory::new(names()));
    for (_, result) in Runner::new(net).spawning().run(spawned.clone()).await {
        result.unwrap();
    }
    let seen = spawned.0.lock().unwrap().clone();
    assert!(
        seen.iter().all(|&n| n >= 3),
        "the roles' tasks counted: {seen:?}"
    );
}

/// Counts wake-ups.
#[derive(Default)]
pub(crate) struct Wakes(pub(crate) AtomicUsize);

impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls `future` once with `waker` (a counting [`Wakes`] waker), as a task would.
pub(crate) fn poll_once<F: Future + ?Sized>(
    future: &mut std::pin::Pin<Box<F>>,
    waker: &Waker,
) -> Poll<F::Output> {
    future.as_mut().poll(&mut Context::from_waker(waker))
}

roles! {
    /// The key service.
    pub struct KS;
    /// The content service.
    pub struct CS;
    /// The server.
    pub struct S;
    /// The client.
    pub struct C;
}

/// Figure 2: `s` forwards `key` and `txt` to `c` as each arrives.
#[derive(Clone)]
struct Forward;

impl Choreography<Option<(u64, u64)>> for Forward {
    type Roles = RoleSet![KS, CS, S, C];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<(u64, u64)>> {
        let key = op.locally(KS, |_| 3u64);
        let txt = op.locally(CS, |_| 4u64);
        let key = op.fcomm(S, C, op.fcomm(KS, S, &key));
        let txt = op.fcomm(S, C, op.fcomm(CS, S, &txt));
        Ok(op.wait(C, op.join(C, key, txt)).await?.into_local())
    }
}

/// Yields until `wakes` counts `n` (at most 1,000 yields: other tasks run meanwhile),
/// then 20 more, so that a later, extra wake-up would be counted too.
async fn settle(wakes: &Wakes, n: usize) -> usize {
    for _ in 0..1000 {
        if wakes.0.load(Ordering::SeqCst) >= n {
            break;
        }
        tokio::task::yield_now().await;
    }
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    wakes.0.load(Ordering::SeqCst)
}

#[tokio::test]
async fn each_delivery_wakes_the_waiting_session_once_and_forwards_on_that_poll() {
    let names = <RoleSet![KS, CS, S, C]>::names();
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(names.clone()));
    let endpoint = |name: &str| Endpoint::new(net.clone(), RoleName::new(name)).unwrap();
    let (ks, cs, s, c) = (endpoint("KS"), endpoint("CS"), endpoint("S"), endpoint("C"));
    let at_s = Arc::new(Wakes::default());
    let at_c = Arc::new(Wakes::default());
    let (ws, wc) = (Waker::from(at_s.clone()), Waker::from(at_c.clone()));
    let mut server = Box::pin(s.run(Forward));
    let mut client = Box::pin(c.run(Forward));
    assert!(poll_once(&mut server, &ws).is_pending());
    assert!(poll_once(&mut client, &wc).is_pending());

    // ks sends key: one wake-up of s, whose next poll forwards it to c (one wake of c).
    assert_eq!(ks.run(Forward).await.unwrap(), None);
    assert_eq!(
        settle(&at_s, 1).await,
        1,
        "wake-ups of s after one delivery"
    );
    assert!(poll_once(&mut server, &ws).is_pending());
    assert_eq!(
        settle(&at_c, 1).await,
        1,
        "wake-ups of c after one delivery"
    );
    assert!(poll_once(&mut client, &wc).is_pending());

    // cs sends txt: s forwards it and completes on that very poll; c completes too.
    assert_eq!(cs.run(Forward).await.unwrap(), None);
    assert_eq!(
        settle(&at_s, 2).await,
        2,
        "wake-ups of s after two deliveries"
    );
    let Poll::Ready(done) = poll_once(&mut server, &ws) else {
        panic!("s forwards txt on the poll its delivery woke");
    };
    assert_eq!(done.unwrap(), None);
    assert_eq!(
        settle(&at_c, 2).await,
        2,
        "wake-ups of c after two deliveries"
    );
    let Poll::Ready(done) = poll_once(&mut client, &wc) else {
        panic!("c binds txt on the poll its delivery woke");
    };
    assert_eq!(done.unwrap(), Some((3, 4)));
    assert_eq!(at_s.0.load(Ordering::SeqCst), 2);
    assert_eq!(at_c.0.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn in_memory_the_senders_send_itself_files_and_wakes_the_waiting_session() {
    let names = <RoleSet![KS, CS, S, C]>::names();
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(names));
    let endpoint = |name: &str| Endpoint::new(net.clone(), RoleName::new(name)).unwrap();
    let (ks, s) = (endpoint("KS"), endpoint("S"));
    let at_s = Arc::new(Wakes::default());
    let ws = Waker::from(at_s.clone());
    let mut server = Box::pin(s.run(Forward));
    assert!(poll_once(&mut server, &ws).is_pending());
    let janitors = alive();
    // `ks`'s session completes without yielding (its send is inline), so no other task
    // can have run in between: the delivery happened inside its send.
    let sent = ks.run(Forward);
    let polled = futures::FutureExt::now_or_never(sent);
    assert_eq!(
        polled.map(|r| r.unwrap()),
        Some(None),
        "ks finished at once"
    );
    assert_eq!(
        at_s.0.load(Ordering::SeqCst),
        1,
        "s was woken by ks's send, with no task between"
    );
    assert_eq!(alive(), janitors, "nothing was spawned to deliver");
}

/// What `B` saw when the message from `A` had arrived before its `fcomm` was called.
#[derive(Default)]
struct Arrived {
    /// Whether `then`'s closure had run when `then` returned.
    applied_at_once: Mutex<Option<bool>>,
    /// Whether `B`'s observer saw the forward sent when its `fcomm` returned.
    forwarded_at_once: Mutex<Option<bool>>,
}

/// `A` sends 7 to `B`, which adds one and forwards the sum back.
#[derive(Clone)]
struct AddOne {
    seen: Arc<Arrived>,
    recorder: Arc<Recorder>,
}

impl Choreography<Option<u64>> for AddOne {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<u64>> {
        let value = op.locally(A, |_| 7u64);
        let at_b = op.fcomm(A, B, &value);
        let applied = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = applied.clone();
        let plus = op.then(B, at_b, move |v| {
            flag.store(true, Ordering::SeqCst);
            v + 1
        });
        if op.is::<B>() {
            *self.seen.applied_at_once.lock().unwrap() = Some(applied.load(Ordering::SeqCst));
        }
        let back = op.fcomm(B, A, plus);
        if op.is::<B>() {
            let sent = self
                .recorder
                .events()
                .iter()
                .any(|e| e.kind == EventKind::Sent);
            *self.seen.forwarded_at_once.lock().unwrap() = Some(sent);
        }
        Ok(op.wait(A, back).await?.into_local())
    }
}

/// A message that arrived before its `fcomm` is claimed complete: `then` applies its
/// closure at once and the forward is sent before `fcomm` returns (nothing boxed, queued
/// or polled later); the value still goes through the key check and comes back right.
#[tokio::test]
async fn a_forward_of_a_message_already_arrived_is_sent_before_fcomm_returns() {
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(names()));
    let recorder = Arc::new(Recorder::new());
    let observer = Some(recorder.clone() as Arc<dyn mpst_choreo::Observer>);
    let config = mpst_choreo::EndpointConfig::default();
    let ea = Endpoint::new(net.clone(), role("A")).unwrap();
    let eb = Endpoint::with_config(net, role("B"), config, observer).unwrap();
    let seen = Arc::new(Arrived::default());
    let choreo = AddOne {
        seen: seen.clone(),
        recorder,
    };
    // `A` runs first, up to its wait: its 7 is in `B`'s mailbox before `B` starts.
    let mut at_a = std::pin::pin!(ea.run(choreo.clone()));
    let first = std::future::poll_fn(|cx| Poll::Ready(at_a.as_mut().poll(cx))).await;
    assert!(first.is_pending(), "A waits for the answer");
    let both = async { tokio::join!(at_a, eb.run(choreo)) };
    let (at_a, at_b) = timeout(LIMIT, both).await.expect("the session ends");
    assert_eq!(at_a.unwrap(), Some(8), "A got 7 + 1 back through B");
    assert_eq!(at_b.unwrap(), None);
    assert_eq!(
        *seen.applied_at_once.lock().unwrap(),
        Some(true),
        "then applied at once"
    );
    assert_eq!(
        *seen.forwarded_at_once.lock().unwrap(),
        Some(true),
        "the forward was sent before fcomm returned"
    );
}
