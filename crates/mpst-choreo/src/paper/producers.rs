//! Figure 1, concurrent producers: `p1` and `p2` each produce a value for `q`, which
//! computes on each and answers its producer. Out of order, `q` handles each value as it
//! arrives; in order, it waits for `x1`, then `x2`, then answers `p1`, then `p2`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{compute_at, work};
use crate::error::Result;
use crate::located::Located;
use crate::op::Op;

crate::roles! {
    /// The first producer.
    pub struct P1;
    /// The second producer.
    pub struct P2;
    /// The consumer, which computes on both values.
    pub struct Q;
}

/// The roles of both forms.
pub type Roles = crate::RoleSet![P1, P2, Q];

/// A produced value (label `Item`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item(pub u64);

/// `q`'s answer to a producer (label `Answer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer(pub u64);

/// What `q` computes from an item.
pub fn compute(item: Item) -> Answer {
    Answer(item.0 * 3 + 1)
}

/// The simulated computation times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Costs {
    /// How long `p1` takes to produce.
    pub produce1: Duration,
    /// How long `p2` takes to produce.
    pub produce2: Duration,
    /// How long `q` takes to compute on one item.
    pub compute: Duration,
}

/// The parameters: what the producers produce and what it costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// `p1`'s and `p2`'s values.
    pub items: (u64, u64),
    /// The costs.
    pub costs: Costs,
}

impl Params {
    /// The examples' parameters: `p2` produces much faster than `p1`, so out of order
    /// its answer comes first.
    pub fn example() -> Self {
        Params {
            items: (20, 22),
            costs: Costs {
                produce1: Duration::from_millis(20),
                produce2: Duration::from_millis(2),
                compute: Duration::from_millis(5),
            },
        }
    }
}

/// What a run gives: each producer's answer.
pub type Output = (Located<Answer, P1>, Located<Answer, P2>);

/// The expected answers of a run with `params`.
pub fn expected(params: &Params) -> (Answer, Answer) {
    (compute(Item(params.items.0)), compute(Item(params.items.1)))
}

async fn produce(op: &Op<Roles>, params: &Params) -> (Located<Item, P1>, Located<Item, P2>) {
    let Costs {
        produce1, produce2, ..
    } = params.costs;
    let (a, b) = params.items;
    let x1 = compute_at(op.locally(P1, |_| a), |a| async move {
        work(produce1).await;
        Item(a)
    });
    let x2 = compute_at(op.locally(P2, |_| b), |b| async move {
        work(produce2).await;
        Item(b)
    });
    futures::join!(x1, x2)
}

/// The out-of-order form (Ozone): `q` computes on each item as it arrives and answers at
/// once.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConcurrentProducers(pub Params);

impl crate::Choreography<Output> for ConcurrentProducers {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let cost = self.0.costs.compute;
        let (x1, x2) = produce(op, &self.0).await;
        let at_q1 = op.fcomm(P1, Q, &x1);
        let at_q2 = op.fcomm(P2, Q, &x2);
        let y1 = op.then_async(Q, at_q1, move |x| async move {
            work(cost).await;
            compute(x)
        });
        let y2 = op.then_async(Q, at_q2, move |x| async move {
            work(cost).await;
            compute(x)
        });
        let r1 = op.fcomm(Q, P1, y1);
        let r2 = op.fcomm(Q, P2, y2);
        Ok((op.wait(P1, r1).await?, op.wait(P2, r2).await?))
    }
}

/// The in-order twin: blocking communication in the order of Figure 1a.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrderProducers(pub Params);

impl crate::Choreography<Output> for InOrderProducers {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let cost = self.0.costs.compute;
        let (x1, x2) = produce(op, &self.0).await;
        let x1 = op.comm(P1, Q, &x1).await?;
        let x2 = op.comm(P2, Q, &x2).await?;
        let y1 = compute_at(x1, |x| async move {
            work(cost).await;
            compute(x)
        })
        .await;
        let r1 = op.comm(Q, P1, &y1).await?;
        let y2 = compute_at(x2, |x| async move {
            work(cost).await;
            compute(x)
        })
        .await;
        let r2 = op.comm(Q, P2, &y2).await?;
        Ok((r1, r2))
    }
}

/// The text of what `role` holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    let (r1, r2) = output;
    r1.into_local()
        .or(r2.into_local())
        .map(|a| format!("{a:?}"))
}
