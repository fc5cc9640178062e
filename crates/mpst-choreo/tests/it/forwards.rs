//! A forward left pending alone once its body has completed (a responder's, a stage's):
//! the run polls it with the session task's own waker, outside its set of pending
//! futures. Counted here: one delivery wakes the session once and the forward is sent on
//! that very poll; a forward whose message never comes fails the run with its time-out.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Poll, Waker};
use std::time::Duration;

use crate::inline::{Wakes, poll_once};
use mpst_choreo::transport::InMemory;
use mpst_choreo::{
    ChoreoError, Choreography, Endpoint, EndpointConfig, Op, Result, RoleName, RoleSet, Transport,
    roles,
};

roles! {
    /// The initiator.
    pub struct A;
    /// The responder, which forwards what it gets back, plus one.
    pub struct B;
}

/// `A` sends 7 to `B`, which forwards 7 + 1 back: `B`'s body completes at once, with the
/// forward waiting for `A`'s message.
#[derive(Clone, Copy)]
struct Echo;

impl Choreography<Option<u64>> for Echo {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<u64>> {
        let seven = op.locally(A, |_| 7u64);
        let at_b = op.fcomm(A, B, &seven);
        let back = op.fcomm(B, A, op.then(B, at_b, |v| v + 1));
        Ok(op.wait(A, back).await?.into_local())
    }
}

/// `B` maps what it gets twice (a `then` of a `then`, both waiting) and forwards the
/// result; `A` maps the answer (a `then` of a waiting receive, not forwarded) and waits.
#[derive(Clone, Copy)]
struct TwiceMapped;

impl Choreography<Option<u64>> for TwiceMapped {
    type Roles = RoleSet![A, B];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Option<u64>> {
        let seven = op.locally(A, |_| 7u64);
        let at_b = op.fcomm(A, B, &seven);
        let mapped = op.then(B, op.then(B, at_b, |v| v * 2), |v| v + 1);
        let back = op.fcomm(B, A, mapped);
        Ok(op.wait(A, op.then(A, back, |v| v * 10)).await?.into_local())
    }
}

fn endpoints(config: EndpointConfig) -> (Endpoint, Endpoint) {
    let net: Arc<dyn Transport> = Arc::new(InMemory::new(<RoleSet![A, B]>::names()));
    let a = Endpoint::with_config(net.clone(), RoleName::new("A"), config, None).unwrap();
    let b = Endpoint::with_config(net, RoleName::new("B"), config, None).unwrap();
    (a, b)
}

#[tokio::test]
async fn a_lone_forward_is_woken_once_by_its_delivery_and_sends_on_that_poll() {
    let (a, b) = endpoints(EndpointConfig::default());
    let (at_a, at_b) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
    let (wa, wb) = (Waker::from(at_a.clone()), Waker::from(at_b.clone()));
    let mut responder = Box::pin(b.run(Echo));
    let mut initiator = Box::pin(a.run(Echo));
    assert!(poll_once(&mut responder, &wb).is_pending());
    assert_eq!(at_b.0.load(Ordering::SeqCst), 0, "nothing woke B yet");
    // A's send is inline: it files 7 into B's mailbox and wakes B, once.
    assert!(poll_once(&mut initiator, &wa).is_pending());
    assert_eq!(
        at_b.0.load(Ordering::SeqCst),
        1,
        "one delivery, one wake-up"
    );
    let Poll::Ready(done) = poll_once(&mut responder, &wb) else {
        panic!("B forwards on the poll its delivery woke");
    };
    assert_eq!(done.unwrap(), None);
    assert_eq!(at_a.0.load(Ordering::SeqCst), 1, "the forward woke A once");
    let Poll::Ready(done) = poll_once(&mut initiator, &wa) else {
        panic!("A binds the answer on the poll the forward woke");
    };
    assert_eq!(done.unwrap(), Some(8));
    assert_eq!(at_b.0.load(Ordering::SeqCst), 1, "no extra wake-up of B");
}

#[tokio::test(start_paused = true)]
async fn a_lone_forward_whose_message_never_comes_fails_the_run_with_its_timeout() {
    let config = EndpointConfig {
        recv_timeout: Duration::from_secs(3),
        ..EndpointConfig::default()
    };
    let (_a, b) = endpoints(config);
    let started = tokio::time::Instant::now();
    match b.run(Echo).await {
        Err(ChoreoError::Timeout(timeout)) => {
            assert_eq!((timeout.role.as_str(), timeout.from.as_str()), ("B", "A"));
        }
        other => panic!("expected B's time-out, got {other:?}"),
    }
    assert_eq!(started.elapsed(), Duration::from_secs(3));
}

#[tokio::test]
async fn a_then_of_a_then_is_forwarded_and_a_then_of_a_receive_is_waited_for() {
    let (a, b) = endpoints(EndpointConfig::default());
    let wb = Waker::from(Arc::new(Wakes::default()));
    let mut responder = Box::pin(b.run(TwiceMapped));
    // B's receive waits: its `then`s map a future that waits, and its forward waits.
    assert!(poll_once(&mut responder, &wb).is_pending());
    let (at_a, at_b) = tokio::join!(a.run(TwiceMapped), responder);
    assert_eq!(at_a.unwrap(), Some((7 * 2 + 1) * 10));
    assert_eq!(at_b.unwrap(), None);
}
