//! Benchmark a, concurrent producers (the paper's Figure 1 / 19a): producers `p1` and
//! `p2` each send an item to the server `q` at a fixed rate; `q` computes on each item
//! for a uniformly random 0–5 ms (a tokio sleep: the computation waits, it does not
//! occupy a core) and answers its producer. Latency: from a request's intended send time
//! to its answer at the producer. Session `i` carries request `i` of both producers.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::paper::compute_at;
use mpst_choreo::{Choreography, Op, Result};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::{Deserialize, Serialize};

use crate::drive::Implementation;
use crate::load::{Recorder, Spec, Summary};
use crate::open_loop;

mpst_choreo::roles! {
    /// The first producer.
    pub struct P1;
    /// The second producer.
    pub struct P2;
    /// The server.
    pub struct Q;
}

/// The series names: answers at `p1` and `p2`.
pub const SERIES: [&str; 2] = ["p1", "p2"];

/// A request (label `Item`): its number.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Item(pub u64);

/// The server's answer (label `Answer`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Answer(pub u64);

/// The server's computation time for each request of `p1` and of `p2`.
#[derive(Clone, Debug)]
pub struct Costs {
    /// Per request of `p1`.
    pub p1: Arc<Vec<Duration>>,
    /// Per request of `p2`.
    pub p2: Arc<Vec<Duration>>,
}

impl Costs {
    /// Uniform 0–5 ms costs for `n` requests of each producer, from `seed`.
    pub fn uniform(seed: u64, n: u64) -> Self {
        let [p1, p2] = open_loop::uniform_pair(seed, n);
        Costs { p1, p2 }
    }
}

/// Session `i` of the choreography (both forms).
pub struct Producers {
    i: u64,
    costs: (Duration, Duration),
    recorder: Recorder,
    in_order: bool,
}

async fn serve(cost: Duration, x: Item) -> Answer {
    crate::clock::sleep(cost).await;
    Answer(x.0)
}

impl Choreography for Producers {
    type Roles = mpst_choreo::RoleSet![P1, P2, Q];

    async fn run(self, op: &Op<Self::Roles>) -> Result<()> {
        let (i, (c1, c2)) = (self.i, self.costs);
        let (rec1, rec2) = (self.recorder.clone(), self.recorder);
        let x1 = op.locally(P1, |_| Item(i));
        let x2 = op.locally(P2, |_| Item(i));
        if self.in_order {
            // Figure 1a: q takes x1, then x2, answers p1, then p2.
            let x1 = op.comm(P1, Q, &x1).await?;
            let x2 = op.comm(P2, Q, &x2).await?;
            let y1 = compute_at(x1, |x| serve(c1, x)).await;
            let r1 = op.comm(Q, P1, &y1).await?;
            op.locally(P1, |u| rec1.answer("p1", u.unwrap(&r1).0));
            let y2 = compute_at(x2, |x| serve(c2, x)).await;
            let r2 = op.comm(Q, P2, &y2).await?;
            op.locally(P2, |u| rec2.answer("p2", u.unwrap(&r2).0));
            return Ok(());
        }
        // Figure 1c: q computes on each item as it arrives and answers at once.
        let at_q1 = op.fcomm(P1, Q, &x1);
        let at_q2 = op.fcomm(P2, Q, &x2);
        let y1 = op.then_async(Q, at_q1, move |x| serve(c1, x));
        let y2 = op.then_async(Q, at_q2, move |x| serve(c2, x));
        let r1 = op.then(P1, op.fcomm(Q, P1, y1), move |a| rec1.answer("p1", a.0));
        let r2 = op.then(P2, op.fcomm(Q, P2, y2), move |a| rec2.answer("p2", a.0));
        op.wait(P1, r1).await?;
        op.wait(P2, r2).await?;
        Ok(())
    }
}

/// The server actor: computes on each item in a task of its own and answers.
struct Server;

/// A request to the server actor.
struct Request {
    item: Item,
    cost: Duration,
    reply: ActorRef<ProducerMsg>,
}

impl Actor for Server {
    type Msg = Request;
    type State = ();
    type Arguments = ();

    async fn pre_start(
        &self,
        _: ActorRef<Request>,
        _: (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn handle(
        &self,
        _: ActorRef<Request>,
        r: Request,
        _: &mut (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        tokio::spawn(async move {
            let answer = serve(r.cost, r.item).await;
            let _ = r.reply.send_message(ProducerMsg::Answer(answer));
        });
        Ok(())
    }
}

/// What a producer actor receives.
enum ProducerMsg {
    /// Request `i` is due: send it.
    Tick(u64),
    /// The server's answer.
    Answer(Answer),
}

struct Producer {
    name: &'static str,
    costs: Arc<Vec<Duration>>,
    server: ActorRef<Request>,
    recorder: Recorder,
}

impl Actor for Producer {
    type Msg = ProducerMsg;
    type State = ();
    type Arguments = ();

    async fn pre_start(
        &self,
        _: ActorRef<ProducerMsg>,
        _: (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        Ok(())
    }

    async fn handle(
        &self,
        me: ActorRef<ProducerMsg>,
        msg: ProducerMsg,
        _: &mut (),
    ) -> std::result::Result<(), ActorProcessingErr> {
        match msg {
            ProducerMsg::Tick(i) => {
                let cost = self.costs[i as usize];
                let request = Request {
                    item: Item(i),
                    cost,
                    reply: me,
                };
                self.server.send_message(request)?;
            }
            ProducerMsg::Answer(a) => self.recorder.answer(self.name, a.0),
        }
        Ok(())
    }
}

/// Runs one implementation at `spec.rate` requests per second per producer; the
/// summary merges both producers' answers. Also returns how many sessions failed.
pub fn run(imp: Implementation, spec: &Spec) -> (Summary, u64) {
    let costs = &Costs::uniform(spec.seed, spec.requests());
    let actors = |recorder: Recorder, n| async move { start_actors(costs, &recorder, n).await };
    let sessions = |recorder: Recorder, in_order| {
        let costs = costs.clone();
        move |i: u64| Producers {
            i,
            costs: (costs.p1[i as usize], costs.p2[i as usize]),
            recorder: recorder.clone(),
            in_order,
        }
    };
    let run = open_loop::run(imp, spec, &SERIES, actors, sessions);
    (run.recorder.summary(&SERIES, spec, run.end), run.failures)
}

async fn start_actors(costs: &Costs, recorder: &Recorder, n: u64) {
    let (server, _) = Actor::spawn(None, Server, ()).await.expect("spawn server");
    let mut producers = Vec::new();
    for (name, costs) in [("p1", &costs.p1), ("p2", &costs.p2)] {
        let producer = Producer {
            name,
            costs: costs.clone(),
            server: server.clone(),
            recorder: recorder.clone(),
        };
        let (actor, _) = Actor::spawn(None, producer, ())
            .await
            .expect("spawn producer");
        producers.push(actor);
    }
    let schedule = recorder.schedule();
    tokio::spawn(async move {
        for i in 0..n {
            crate::clock::sleep_until(schedule.at(i)).await;
            for p in &producers {
                let _ = p.send_message(ProducerMsg::Tick(i));
            }
        }
    });
}
