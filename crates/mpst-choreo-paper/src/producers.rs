//! Figure 1, concurrent producers: `p1` and `p2` each produce a value for `q`, which
//! computes on each and answers its producer. Out of order, `q` handles each value as it
//! arrives; in order, it waits for `x1`, then `x2`, then answers `p1`, then `p2`.

use std::future::Future;
use std::time::Duration;

use mpst_choreo::{Choreography, Located, Op, Result};
use serde::{Deserialize, Serialize};

use crate::{compute_at, work};

mpst_choreo::roles! {
    /// The first producer.
    pub struct P1;
    /// The second producer.
    pub struct P2;
    /// The consumer, which computes on both values.
    pub struct Q;
}

/// The roles of both forms.
pub type Roles = mpst_choreo::RoleSet![P1, P2, Q];

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

/// Which producer a step concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer {
    /// `p1`.
    P1,
    /// `p2`.
    P2,
}

/// Figure 1's work, the probe of this choreography: what each producer produces and how
/// long it takes, what `q` computes on each item and how long that takes (the cost
/// model's delays), and what a producer does when its answer arrives. The examples'
/// are [`Params`]; the evaluation's produce at once, compute on a precise timer and
/// record each answer's latency.
pub trait Services: Clone + Send + Sync + 'static {
    /// `producer`'s work: its item.
    fn produce(&self, producer: Producer) -> impl Future<Output = Item> + Send;

    /// `q`'s work on `producer`'s item: the answer.
    fn compute(&self, producer: Producer, item: Item) -> impl Future<Output = Answer> + Send;

    /// At `producer`, when its answer arrives; by default nothing.
    fn answered(&self, _producer: Producer, _answer: &Answer) {}
}

impl Services for Params {
    async fn produce(&self, producer: Producer) -> Item {
        let (item, cost) = match producer {
            Producer::P1 => (self.items.0, self.costs.produce1),
            Producer::P2 => (self.items.1, self.costs.produce2),
        };
        work(cost).await;
        Item(item)
    }

    async fn compute(&self, _producer: Producer, item: Item) -> Answer {
        work(self.costs.compute).await;
        compute(item)
    }
}

/// The one definition of concurrent producers, both forms: `p1` and `p2` produce, `q`
/// computes on each item and answers its producer. Out of order (Figure 1c) `q` handles
/// each item as it arrives; in order (Figure 1a) it takes `x1`, then `x2`, answers `p1`,
/// then `p2`.
#[derive(Clone, Copy, Debug)]
pub struct Producers<Sv> {
    /// What the roles compute.
    pub services: Sv,
    /// Out of order (`fcomm`) or in order (`comm`).
    pub in_order: bool,
}

impl<Sv: Services> Producers<Sv> {
    /// The choreography with `services`, in order or not.
    pub fn of(services: Sv, in_order: bool) -> Self {
        Producers { services, in_order }
    }
}

impl<Sv: Services> Choreography<Output> for Producers<Sv> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let sv = self.services;
        let x1 = compute_at(op, P1, op.locally(P1, |_| ()), |()| {
            sv.produce(Producer::P1)
        });
        let x2 = compute_at(op, P2, op.locally(P2, |_| ()), |()| {
            sv.produce(Producer::P2)
        });
        let (x1, x2) = futures::join!(x1, x2);
        if self.in_order {
            let x1 = op.comm(P1, Q, &x1).await?;
            let x2 = op.comm(P2, Q, &x2).await?;
            let y1 = compute_at(op, Q, x1, |x| sv.compute(Producer::P1, x)).await;
            let r1 = op.comm(Q, P1, &y1).await?;
            op.locally(P1, |u| sv.answered(Producer::P1, u.unwrap(&r1)));
            let y2 = compute_at(op, Q, x2, |x| sv.compute(Producer::P2, x)).await;
            let r2 = op.comm(Q, P2, &y2).await?;
            op.locally(P2, |u| sv.answered(Producer::P2, u.unwrap(&r2)));
            return Ok((r1, r2));
        }
        let at_q1 = op.fcomm(P1, Q, &x1);
        let at_q2 = op.fcomm(P2, Q, &x2);
        let (q1, q2) = (sv.clone(), sv.clone());
        let y1 = op.then_async(Q, at_q1, move |x| async move {
            q1.compute(Producer::P1, x).await
        });
        let y2 = op.then_async(Q, at_q2, move |x| async move {
            q2.compute(Producer::P2, x).await
        });
        let (p1, p2) = (sv.clone(), sv);
        let r1 = op.then(P1, op.fcomm(Q, P1, y1), move |a| {
            p1.answered(Producer::P1, &a);
            a
        });
        let r2 = op.then(P2, op.fcomm(Q, P2, y2), move |a| {
            p2.answered(Producer::P2, &a);
            a
        });
        Ok((op.wait(P1, r1).await?, op.wait(P2, r2).await?))
    }
}

/// The out-of-order form (Ozone) with the examples' work: `q` computes on each item as
/// it arrives and answers at once.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConcurrentProducers(pub Params);

impl Choreography<Output> for ConcurrentProducers {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        Producers::of(self.0, false).run(op).await
    }
}

/// The in-order twin with the examples' work: blocking communication in the order of
/// Figure 1a.
#[derive(Clone, Copy, Debug, Default)]
pub struct InOrderProducers(pub Params);

impl Choreography<Output> for InOrderProducers {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        Producers::of(self.0, true).run(op).await
    }
}

/// The text of what `role` holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    let (r1, r2) = output;
    r1.into_local()
        .or(r2.into_local())
        .map(|a| format!("{a:?}"))
}
