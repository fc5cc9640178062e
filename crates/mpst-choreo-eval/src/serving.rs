//! Benchmark c, model serving (the paper's Figures 20–21, after Wang et al.): images
//! arrive at the `gateway` at the offered rate; it sends even images to `worker1`, odd
//! ones to `worker2` (preprocessing, 1 ms each); the `batcher` gathers `batch` tensors
//! and sends the batch to `model1` or `model2` alternately; a model serves one batch at a
//! time for 15 + 5·batch ms; the predictions go back through the batcher to the gateway.
//! Latency: from an image's intended arrival to its prediction at the gateway.
//!
//! `mpst_choreo::paper::pipeline` has the same roles but processes a fixed set of images
//! that exist at the start; under open-loop load images arrive over time, so here one
//! session is one batch and the gateway sends each image when it is due.

use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::paper::compute_at;
use mpst_choreo::{Choreography, Located, LocatedFuture, Member, Op, Result, Role};
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::busy::{Busy, ModelUse};
use crate::drive::{Implementation, start_roles};
use crate::load::{Recorder, Schedule, Spec, Summary, run_bounded, until_answered};

mpst_choreo::roles! {
    /// Receives the images and collects the predictions.
    pub struct Gateway;
    /// Preprocesses the even-numbered images.
    pub struct Worker1;
    /// Preprocesses the odd-numbered images.
    pub struct Worker2;
    /// Gathers tensors into batches.
    pub struct Batcher;
    /// Serves the even-numbered batches.
    pub struct Model1;
    /// Serves the odd-numbered batches.
    pub struct Model2;
}

type Roles = mpst_choreo::RoleSet![Gateway, Worker1, Worker2, Batcher, Model1, Model2];

/// The benchmark's role names.
pub fn roles() -> Vec<mpst_choreo::RoleName> {
    <Roles as mpst_choreo::RoleSet>::names()
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

    /// The two models' theoretical maximum throughput (images per second).
    pub fn models_limit_rps(&self) -> f64 {
        2.0 * self.batch as f64 / self.model_time().as_secs_f64()
    }
}

/// An image (label `Image`): its number.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Image(pub u64);

/// A preprocessed image (label `Tensor`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Tensor(pub u64);

/// A batch's predictions (label `Predictions`): the images classified.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Predictions(pub Vec<u64>);

/// One lock per model (a model serves one batch at a time), and their busy intervals.
#[derive(Default)]
struct ModelState {
    locks: [Mutex<()>; 2],
    busy: Busy,
}

type Models = Arc<ModelState>;

/// Session `k`: batch `k`, images `k·batch ..`, served by model `k % 2 + 1`.
pub struct Serving {
    k: u64,
    costs: Costs,
    schedule: Schedule,
    models: Models,
    recorder: Recorder,
    in_order: bool,
}

impl Choreography for Serving {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<()> {
        if self.k % 2 == 0 {
            self.batch(op, Model1, 0).await
        } else {
            self.batch(op, Model2, 1).await
        }
    }
}

async fn serve(models: Models, index: usize, costs: Costs, tensors: Vec<Tensor>) -> Predictions {
    let _serving = models.locks[index].lock().await;
    let start = Instant::now();
    crate::clock::sleep(costs.model_base + costs.model_per_image * tensors.len() as u32).await;
    models.busy.record(start, Instant::now());
    Predictions(tensors.into_iter().map(|t| t.0).collect())
}

async fn preprocess(cost: Duration, image: Image) -> Tensor {
    crate::clock::sleep(cost).await;
    Tensor(image.0)
}

impl Serving {
    async fn batch<M: Role + Member<Roles, I>, I>(
        self,
        op: &Op<Roles>,
        model: M,
        index: usize,
    ) -> Result<()> {
        let Serving {
            k,
            costs,
            schedule,
            models,
            recorder,
            in_order,
        } = self;
        let images = k * costs.batch..(k + 1) * costs.batch;
        let pre = costs.preprocess;
        let record = move |p: &Predictions| p.0.iter().for_each(|&i| recorder.answer("image", i));
        // Each image is its own procedure call (token `next(site, j)`), so the keys of
        // the batch's images differ.
        let image = |j: u64| ImageStep {
            i: images.start + j,
            pre,
            schedule,
        };
        if in_order {
            let mut tensors = Vec::new();
            for j in 0..costs.batch {
                let tensor: Located<Tensor, Batcher> =
                    op.call_indexed(j, image(j).in_order()).await?;
                tensors.extend(tensor.into_local());
            }
            let batch = op.locally(Batcher, |_| tensors);
            let batch = op.comm(Batcher, model, &batch).await?;
            let predictions = compute_at(batch, |b| serve(models, index, costs, b)).await;
            let predictions = op.comm(model, Batcher, &predictions).await?;
            let predictions = op.comm(Batcher, Gateway, &predictions).await?;
            op.locally(Gateway, |u| record(u.unwrap(&predictions)));
            return Ok(());
        }
        let mut batch: LocatedFuture<Vec<Tensor>, Batcher> =
            op.ready(Batcher, op.locally(Batcher, |_| Vec::new()));
        for j in 0..costs.batch {
            let tensor: LocatedFuture<Tensor, Batcher> = op.call_indexed(j, image(j)).await?;
            batch = op.then(Batcher, op.join(Batcher, batch, tensor), |(mut all, t)| {
                all.push(t);
                all
            });
        }
        let batch = op.fcomm(Batcher, model, batch);
        let predictions = op.then_async(model, batch, move |b| serve(models, index, costs, b));
        let predictions = op.fcomm(Batcher, Gateway, op.fcomm(model, Batcher, predictions));
        op.wait(Gateway, op.then(Gateway, predictions, move |p| record(&p)))
            .await?;
        Ok(())
    }
}

/// One image of a batch: it arrives at the gateway when due, goes to its worker (even
/// images to `worker1`) and, preprocessed, to the batcher.
#[derive(Clone, Copy)]
struct ImageStep {
    i: u64,
    pre: Duration,
    schedule: Schedule,
}

impl ImageStep {
    fn in_order(self) -> InOrderImage {
        InOrderImage(self)
    }
}

/// The in-order form of [`ImageStep`] (blocking communication).
struct InOrderImage(ImageStep);

async fn arrive(schedule: Schedule, i: u64) -> Image {
    crate::clock::sleep_until(schedule.at(i)).await;
    Image(i)
}

impl Choreography<LocatedFuture<Tensor, Batcher>> for ImageStep {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<LocatedFuture<Tensor, Batcher>> {
        let ImageStep { i, pre, schedule } = self;
        let image = op.locally(Gateway, |_| i);
        let image = op.then_async(Gateway, op.ready(Gateway, image), move |i| {
            arrive(schedule, i)
        });
        Ok(if i % 2 == 0 {
            let image = op.fcomm(Gateway, Worker1, image);
            let tensor = op.then_async(Worker1, image, move |im| preprocess(pre, im));
            op.fcomm(Worker1, Batcher, tensor)
        } else {
            let image = op.fcomm(Gateway, Worker2, image);
            let tensor = op.then_async(Worker2, image, move |im| preprocess(pre, im));
            op.fcomm(Worker2, Batcher, tensor)
        })
    }
}

impl Choreography<Located<Tensor, Batcher>> for InOrderImage {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Located<Tensor, Batcher>> {
        let ImageStep { i, pre, schedule } = self.0;
        let image = compute_at(op.locally(Gateway, |_| i), |i| arrive(schedule, i)).await;
        if i % 2 == 0 {
            let image = op.comm(Gateway, Worker1, &image).await?;
            let tensor = compute_at(image, |im| preprocess(pre, im)).await;
            op.comm(Worker1, Batcher, &tensor).await
        } else {
            let image = op.comm(Gateway, Worker2, &image).await?;
            let tensor = compute_at(image, |im| preprocess(pre, im)).await;
            op.comm(Worker2, Batcher, &tensor).await
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
        let models = Models::default();
        let busy = if imp == Implementation::Actors {
            let busy = Arc::new(Busy::default());
            if spec.net == crate::drive::Net::Hosts {
                crate::impaired::actors::start_serving(costs, &recorder, n, &busy).await;
            } else {
                start_actors(costs, &recorder, n, &busy).await;
            }
            Some(busy)
        } else {
            let in_order = imp == Implementation::InOrder;
            let models = models.clone();
            let rec = recorder.clone();
            let make = move |k: u64| Serving {
                k,
                costs,
                schedule,
                models: models.clone(),
                recorder: rec.clone(),
                in_order,
            };
            let due = move |k: u64| schedule.at(k * costs.batch);
            failures = Some(start_roles(spec.net, batches, in_order, make, due).await);
            None
        };
        until_answered(&recorder, deadline).await;
        let busy = busy.as_deref().unwrap_or(&models.busy);
        let window = |s: f64| schedule.start + Duration::from_secs_f64(s);
        let used = busy.usage(window(spec.warmup), window(spec.duration));
        result = Some((recorder, failures.map_or(0, |f| f.count()), used));
    });
    let (recorder, failures, used) = result.expect("the run finished");
    (recorder.summary(&["image"], spec, end), failures, used)
}
