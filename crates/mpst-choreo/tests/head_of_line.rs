//! Figure 1's point, measured on tokio's paused clock: when p1's value is delayed, the
//! in-order choreography (blocking `comm`) makes p2 wait for it too; the out-of-order one
//! (`fcomm`) answers p2 as soon as p2's own value arrives.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use mpst_choreo::transport::{InMemory, Incoming};
use mpst_choreo::{
    Choreography, Envelope, Located, Op, Result, RoleName, RoleSet, Roles, Runner, Transport,
    TransportError, roles,
};
use tokio::time::Instant;

roles! {
    pub struct P1;
    pub struct P2;
    pub struct Q;
}

type R = Roles![P1, P2, Q];

/// Delays every envelope sent by P1 by one second.
struct SlowP1(Arc<InMemory>);

impl Transport for SlowP1 {
    fn send(&self, envelope: Envelope) -> BoxFuture<'_, Result<(), TransportError>> {
        let inner = Arc::clone(&self.0);
        Box::pin(async move {
            if envelope.from.as_str() == "P1" {
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let _ = inner.send(envelope).await;
                });
                Ok(())
            } else {
                inner.send(envelope).await
            }
        })
    }

    fn incoming(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        self.0.incoming(role)
    }
}

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
    let net = SlowP1(Arc::new(InMemory::new(R::names())));
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
