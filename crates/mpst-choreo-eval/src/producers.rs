//! Benchmark a, concurrent producers (the paper's Figure 1 / 19a): the choreography of
//! `mpst_choreo_paper::producers` with this benchmark's work ([`Work`]). Producers
//! `p1` and `p2` each send an item to the server `q` at a fixed rate; `q` computes on
//! each item for a uniformly random 0–5 ms (a sleep on the precise timer: the
//! computation waits, it does not occupy a core) and answers its producer. Latency: from a request's intended send time
//! to its answer at the producer. Session `i` carries request `i` of both producers.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo_paper::producers::{self as figure1, Answer, Item, Producers};
use ractor::{Actor, ActorProcessingErr, ActorRef};

use crate::drive::Implementation;
use crate::load::{Recorder, Spec, Summary};
use crate::open_loop;

/// The series names: answers at `p1` and `p2`.
pub const SERIES: [&str; 2] = ["p1", "p2"];

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

/// Request `i`'s work, the probe of the paper's one concurrent producers
/// (`mpst_choreo_paper::producers::Producers`): the producers' items exist at once, `q`
/// computes on each for its cost on the precise timer, and each producer records its
/// answer as it arrives.
#[derive(Clone)]
pub struct Work {
    i: u64,
    costs: (Duration, Duration),
    recorder: Recorder,
}

impl figure1::Services for Work {
    async fn produce(&self, _producer: figure1::Producer) -> Item {
        Item(self.i)
    }

    async fn compute(&self, producer: figure1::Producer, item: Item) -> Answer {
        let cost = match producer {
            figure1::Producer::P1 => self.costs.0,
            figure1::Producer::P2 => self.costs.1,
        };
        serve(cost, item).await
    }

    fn answered(&self, producer: figure1::Producer, answer: &Answer) {
        let series = match producer {
            figure1::Producer::P1 => SERIES[0],
            figure1::Producer::P2 => SERIES[1],
        };
        self.recorder.answer(series, answer.0);
    }
}

async fn serve(cost: Duration, x: Item) -> Answer {
    crate::clock::sleep(cost).await;
    Answer(x.0)
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
            services: Work {
                i,
                costs: (costs.p1[i as usize], costs.p2[i as usize]),
                recorder: recorder.clone(),
            },
            in_order,
        }
    };
    let run = open_loop::run(imp, spec, (&SERIES, None), actors, sessions);
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
