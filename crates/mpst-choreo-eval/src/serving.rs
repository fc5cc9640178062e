//! Benchmark c, model serving (the paper's Figures 20–21, after Wang et al.): images
//! arrive at the `gateway` at the offered rate; it sends even images to `worker1`, odd
//! ones to `worker2` (preprocessing, 1 ms each); the `batcher` gathers `batch` tensors
//! and sends the batch to `model1` or `model2` alternately; a model serves one batch at a
//! time for 15 + 5·batch ms; the predictions go back through the batcher to the gateway.
//! Latency: from an image's intended arrival to its prediction at the gateway.
//!
//! The choreography is `mpst_choreo_paper::pipeline`'s, in its open-loop form
//! (`BatchSession`): under open-loop load images arrive over time, so one session is one
//! batch and the gateway sends each image when it is due; [`OpenLoop`] is this benchmark's
//! probe.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo_paper::pipeline::{self, BatchOf, BatchSession, Image, Models, Predictions};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::Serialize;
use tokio::time::Instant;

use crate::busy::{Busy, ModelUse};
use crate::drive::{Implementation, start_roles};
use crate::load::{Recorder, Schedule, Spec, Summary, run_bounded, until_answered};

/// The benchmark's role names.
pub fn roles() -> Vec<mpst_choreo::RoleName> {
    <pipeline::Roles as mpst_choreo::RoleSet>::names()
}

/// The simulated costs (tokio sleeps).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Costs {
    /// Images per batch.
    pub batch: u64,
    /// A worker's time per image.
    pub preprocess: Duration,
    /// A model's fixed time per batch.
    pub model_base: Duration,
    /// A model's time per image of a batch.
    pub model_per_image: Duration,
}

impl Costs {
    /// The paper's: batches of `batch`, models at 15 + 5·batch ms, preprocessing 1 ms.
    pub fn paper(batch: u64) -> Self {
        Costs {
            batch,
            preprocess: Duration::from_millis(1),
            model_base: Duration::from_millis(15),
            model_per_image: Duration::from_millis(5),
        }
    }

    /// A model's time for one batch.
    pub fn model_time(&self) -> Duration {
        self.model_base + self.model_per_image * self.batch as u32
    }

    /// The pipeline's costs of a batch (the batch size is the session's).
    pub fn stages(&self) -> pipeline::Costs {
        pipeline::Costs {
            preprocess: self.preprocess,
            model_base: self.model_base,
            model_per_item: self.model_per_image,
        }
    }

    /// The two models' theoretical maximum throughput (images per second).
    pub fn models_limit_rps(&self) -> f64 {
        2.0 * self.batch as f64 / self.model_time().as_secs_f64()
    }
}

/// The benchmark's stages, the probe of the paper's one pipeline
/// (`mpst_choreo_paper::pipeline::BatchSession`): image `i` reaches the gateway when it
/// is due, the delays run on the precise timer, each model's busy intervals are kept and
/// the gateway records each prediction's latency.
#[derive(Clone)]
pub struct OpenLoop {
    schedule: Schedule,
    busy: Arc<Busy>,
    recorder: Recorder,
}

impl pipeline::Stages for OpenLoop {
    async fn arrive(&self, i: u64) -> Image {
        crate::clock::sleep_until(self.schedule.at(i)).await;
        Image(i)
    }

    fn work(&self, cost: Duration) -> impl Future<Output = ()> + Send {
        crate::clock::sleep(cost)
    }

    fn served(&self, _model: u8, start: Instant, end: Instant) {
        self.busy.record(start, end);
    }

    fn predicted(&self, predictions: &Predictions) {
        for p in &predictions.0 {
            self.recorder.answer("image", p.image);
        }
    }
}

/// What the actors exchange.
enum Msg {
    /// An image arrives (to the gateway, then a worker).
    Image(u64),
    /// A preprocessed image (to the batcher).
    Tensor(u64),
    /// A batch (to a model), with where to send its predictions.
    Batch(Vec<u64>, ActorRef<Msg>),
    /// Predictions (to the batcher, then the gateway).
    Predictions(Vec<u64>),
    /// Where the batcher sends predictions (set once, at start).
    Gateway(ActorRef<Msg>),
}

/// The actors' behaviours.
enum Node {
    Gateway {
        workers: [ActorRef<Msg>; 2],
        recorder: Recorder,
    },
    Worker {
        cost: Duration,
        batcher: ActorRef<Msg>,
    },
    Batcher {
        batch: u64,
        models: [ActorRef<Msg>; 2],
    },
    Model {
        time: Duration,
        busy: Arc<Busy>,
    },
}

/// The batcher's state (the other actors have none): the pending batch, the next model
/// and the gateway.
#[derive(Default)]
struct State {
    pending: Vec<u64>,
    next: usize,
    gateway: Option<ActorRef<Msg>>,
}

impl Actor for Node {
    type Msg = Msg;
    type State = State;
    type Arguments = ();

    async fn pre_start(
        &self,
        _: ActorRef<Msg>,
        _: (),
    ) -> std::result::Result<State, ActorProcessingErr> {
        Ok(State::default())
    }

    async fn handle(
        &self,
        me: ActorRef<Msg>,
        msg: Msg,
        state: &mut State,
    ) -> std::result::Result<(), ActorProcessingErr> {
        match (self, msg) {
            (Node::Gateway { workers, .. }, Msg::Image(i)) => {
                workers[(i % 2) as usize].send_message(Msg::Image(i))?
            }
            (Node::Gateway { recorder, .. }, Msg::Predictions(ps)) => {
                ps.iter().for_each(|&i| recorder.answer("image", i))
            }
            (Node::Worker { cost, batcher }, Msg::Image(i)) => {
                let (cost, batcher) = (*cost, batcher.clone());
                tokio::spawn(async move {
                    crate::clock::sleep(cost).await;
                    let _ = batcher.send_message(Msg::Tensor(i));
                });
            }
            (Node::Batcher { .. }, Msg::Gateway(g)) => state.gateway = Some(g),
            (Node::Batcher { batch, models }, Msg::Tensor(i)) => {
                state.pending.push(i);
                if state.pending.len() as u64 == *batch {
                    let b = std::mem::take(&mut state.pending);
                    models[state.next].send_message(Msg::Batch(b, me))?;
                    state.next = 1 - state.next;
                }
            }
            (Node::Batcher { .. }, Msg::Predictions(ps)) => {
                if let Some(g) = &state.gateway {
                    g.send_message(Msg::Predictions(ps))?;
                }
            }
            // A model serves one batch at a time: the actor handles one message at a time.
            (Node::Model { time, busy }, Msg::Batch(b, reply)) => {
                let start = Instant::now();
                crate::clock::sleep(*time).await;
                busy.record(start, Instant::now());
                reply.send_message(Msg::Predictions(b))?;
            }
            _ => {}
        }
        Ok(())
    }
}

async fn start_actors(costs: Costs, recorder: &Recorder, n: u64, busy: &Arc<Busy>) {
    async fn spawn(node: Node) -> ActorRef<Msg> {
        Actor::spawn(None, node, ()).await.expect("spawn").0
    }
    let time = costs.model_time();
    let model = || Node::Model {
        time,
        busy: busy.clone(),
    };
    let models = [spawn(model()).await, spawn(model()).await];
    let batcher = spawn(Node::Batcher {
        batch: costs.batch,
        models,
    })
    .await;
    let worker = |batcher: &ActorRef<Msg>| Node::Worker {
        cost: costs.preprocess,
        batcher: batcher.clone(),
    };
    let workers = [spawn(worker(&batcher)).await, spawn(worker(&batcher)).await];
    let gateway = spawn(Node::Gateway {
        workers,
        recorder: recorder.clone(),
    })
    .await;
    batcher
        .send_message(Msg::Gateway(gateway.clone()))
        .expect("batcher running");
    let schedule = recorder.schedule();
    tokio::spawn(async move {
        for i in 0..n {
            crate::clock::sleep_until(schedule.at(i)).await;
            let _ = gateway.send_message(Msg::Image(i));
        }
    });
}

/// Runs one implementation with `costs` at `spec.rate` images per second (rounded down
/// to whole batches); the summary of the images' latencies and how many sessions failed.
pub fn run(imp: Implementation, costs: Costs, spec: &Spec) -> (Summary, u64) {
    let (summary, failures, _) = run_profiled(imp, costs, spec);
    (summary, failures)
}

/// [`run`], and how the models spent the measurement window (after the warm-up, up to
/// the last send).
pub fn run_profiled(imp: Implementation, costs: Costs, spec: &Spec) -> (Summary, u64, ModelUse) {
    let batches = (spec.requests() / costs.batch).max(1);
    let n = batches * costs.batch;
    let mut result = None;
    let end = run_bounded(spec, || async {
        let schedule = Schedule::new(spec);
        let recorder = Recorder::new(schedule, n, &["image"]);
        let deadline = schedule.start + spec.bound();
        let mut failures = None;
        let busy = Arc::new(Busy::default());
        if imp == Implementation::Actors {
            if spec.net == crate::drive::Net::Hosts {
                crate::impaired::actors::start_serving(costs, &recorder, n, &busy).await;
            } else {
                start_actors(costs, &recorder, n, &busy).await;
            }
        } else {
            let in_order = imp == Implementation::InOrder;
            let of = BatchOf {
                images: 0..0,
                costs: costs.stages(),
                models: Arc::new(Models::default()),
                stages: OpenLoop {
                    schedule,
                    busy: busy.clone(),
                    recorder: recorder.clone(),
                },
                in_order,
            };
            let batch = costs.batch;
            let make = move |k: u64| BatchSession {
                k,
                batch,
                of: of.clone(),
            };
            let due = move |k: u64| schedule.at(k * costs.batch);
            failures = Some(start_roles(spec.net, batches, in_order, make, (due, None)).await);
        }
        until_answered(&recorder, deadline).await;
        let window = |s: f64| schedule.start + Duration::from_secs_f64(s);
        let used = busy.usage(window(spec.warmup), window(spec.duration));
        result = Some((recorder, failures.map_or(0, |f| f.count()), used));
    });
    let (recorder, failures, used) = result.expect("the run finished");
    (recorder.summary(&["image"], spec, end), failures, used)
}
