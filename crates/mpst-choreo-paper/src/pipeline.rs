//! The model-serving pipeline of §5.3 (after Wang et al.): a `gateway` sends images to
//! two `worker`s for preprocessing, a `batcher` gathers their tensors into batches and
//! sends each batch to one of two `model`s (alternately), and the predictions travel back
//! through the batcher to the gateway. A model takes `model_base + model_per_item · batch`
//! (the paper: 15 + 5·batch ms) and serves one batch at a time.
//!
//! A batch's journey is defined once ([`BatchOf::run`]); each image is its own procedure
//! call, so the keys of a batch's images differ whatever the batch size. Two choreographies
//! run it:
//!
//! - [`ModelServing`], the examples': a fixed set of images in rounds, every round
//!   starting with the gateway's choice (which model, or done), sent to every role
//!   (knowledge of choice), so the rounds follow `rec`/`choice` of the in-order twin's
//!   Scribble protocol;
//! - [`BatchSession`], the evaluation's open-loop form: one session per batch, its images
//!   arriving at the gateway over time ([`Stages::arrive`]).
//!
//! Out of order, the batcher never waits: it forwards batches and predictions as they
//! complete, so both models work at once; in order, it waits for each batch's
//! predictions before the next batch begins.

use std::future::Future;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use mpst_choreo::{Choreography, Located, LocatedFuture, Member, Op, Result, Role};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::{compute_at, located, work};

mpst_choreo::roles! {
    /// Receives the requests and collects the predictions.
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

/// The roles of both forms.
pub type Roles = mpst_choreo::RoleSet![Gateway, Worker1, Worker2, Batcher, Model1, Model2];

/// A request: the identifier of an image (label `Image`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image(pub u64);

/// A preprocessed image (label `Tensor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tensor {
    /// The image it comes from.
    pub image: u64,
    /// Its features.
    pub features: u64,
}

/// Tensors for one model invocation (label `Batch`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch(pub Vec<Tensor>);

/// One image's classification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prediction {
    /// The image.
    pub image: u64,
    /// Its class.
    pub class: u64,
    /// The model that classified it (1 or 2).
    pub model: u8,
}

/// A batch's classifications (label `Predictions`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Predictions(pub Vec<Prediction>);

/// The gateway's choice at the start of each round (labels `ToModel1`, `ToModel2`,
/// `Done`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Next {
    /// The round's batch goes to model 1.
    ToModel1,
    /// The round's batch goes to model 2.
    ToModel2,
    /// No more requests.
    Done,
}

/// A worker's preprocessing.
pub fn preprocess(image: Image) -> Tensor {
    Tensor {
        image: image.0,
        features: image.0 * 7 + 3,
    }
}

/// A model's classification of a tensor.
pub fn classify(tensor: &Tensor, model: u8) -> Prediction {
    Prediction {
        image: tensor.image,
        class: tensor.features % 10,
        model,
    }
}

/// The simulated computation times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Costs {
    /// A worker's time per image.
    pub preprocess: Duration,
    /// A model's fixed time per batch.
    pub model_base: Duration,
    /// A model's extra time per image of a batch.
    pub model_per_item: Duration,
}

impl Costs {
    /// The paper's model costs: 15 ms + 5 ms per image; preprocessing 1 ms.
    pub fn paper() -> Self {
        Costs {
            preprocess: Duration::from_millis(1),
            model_base: Duration::from_millis(15),
            model_per_item: Duration::from_millis(5),
        }
    }
}

/// The parameters of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// How many images the gateway receives.
    pub requests: u64,
    /// Images per batch (at least 1).
    pub batch: u64,
    /// The costs.
    pub costs: Costs,
}

impl Params {
    /// The examples' parameters: eight requests in batches of two, with costs a tenth of
    /// the paper's so that a run takes milliseconds.
    pub fn example() -> Self {
        Params {
            requests: 8,
            batch: 2,
            costs: Costs {
                preprocess: Duration::from_micros(100),
                model_base: Duration::from_micros(1500),
                model_per_item: Duration::from_micros(500),
            },
        }
    }
}

/// What a run gives: every prediction, at the gateway, in request order.
pub type Output = Located<Vec<Prediction>, Gateway>;

/// The expected predictions of a run with `params`.
pub fn expected(params: &Params) -> Vec<Prediction> {
    let batch = params.batch.max(1);
    (0..params.requests)
        .map(|i| {
            let model = if (i / batch).is_multiple_of(2) { 1 } else { 2 };
            classify(&preprocess(Image(i)), model)
        })
        .collect()
}

/// The pipeline's work, the probe of this choreography: when an image reaches the
/// gateway, the cost model's delays (a worker's preprocessing, a model's serving) and
/// what the roles observe (a model's busy interval, a batch's predictions at the
/// gateway). The defaults are the examples' ([`Example`]): every image there at once,
/// tokio sleeps, nothing observed; the evaluation's images arrive when they are due and
/// its delays run on a precise timer.
pub trait Stages: Clone + Send + Sync + 'static {
    /// At the gateway: image `i`, once it has arrived (by default at once).
    fn arrive(&self, i: u64) -> impl Future<Output = Image> + Send {
        std::future::ready(Image(i))
    }

    /// Simulated work of `cost` (preprocessing, serving); by default [`work`].
    fn work(&self, cost: Duration) -> impl Future<Output = ()> + Send {
        work(cost)
    }

    /// At model `model` (1 or 2): it served a batch from `start` to `end`; by default
    /// nothing.
    fn served(&self, _model: u8, _start: Instant, _end: Instant) {}

    /// At the gateway, when a batch's predictions arrive; by default nothing.
    fn predicted(&self, _predictions: &Predictions) {}
}

/// The examples' stages: every [`Stages`] default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Example;

impl Stages for Example {}

/// The two models' locks: a model serves one batch at a time, across the rounds or
/// sessions that share them.
#[derive(Debug, Default)]
pub struct Models([Mutex<()>; 2]);

/// The batch's predictions, a future at the gateway.
pub type Pending = LocatedFuture<Predictions, Gateway>;

/// What one batch needs besides its model: its images, the costs, the models' locks, the
/// stages and the form.
#[derive(Clone, Debug)]
pub struct BatchOf<St> {
    /// The images of the batch (each its own procedure call, so their keys differ).
    pub images: Range<u64>,
    /// The simulated costs.
    pub costs: Costs,
    /// The models' locks.
    pub models: Arc<Models>,
    /// The probe.
    pub stages: St,
    /// Out of order (`fcomm`) or in order (`comm`).
    pub in_order: bool,
}

impl<St: Stages> BatchOf<St> {
    /// The one definition of a batch's journey: each image from the gateway to its worker
    /// (even images to `worker1`) and, preprocessed, to the batcher; the batch to `model`
    /// (`index` 0 or 1); its predictions back through the batcher to the gateway. Out of
    /// order nothing waits for anything but its own input; in order every step blocks.
    pub async fn run<M, I>(self, op: &Op<Roles>, model: M, index: usize) -> Result<Pending>
    where
        M: Role + Member<Roles, I>,
    {
        let BatchOf {
            images,
            costs,
            models,
            stages,
            in_order,
        } = self;
        let served = stages.clone();
        let serve = move |Batch(tensors): Batch| async move {
            let _serving = models.0[index].lock().await;
            let start = Instant::now();
            let items = u32::try_from(tensors.len()).unwrap_or(u32::MAX);
            let per_items = costs.model_per_item.saturating_mul(items);
            served
                .work(costs.model_base.saturating_add(per_items))
                .await;
            let id = index as u8 + 1;
            served.served(id, start, Instant::now());
            Predictions(tensors.iter().map(|t| classify(t, id)).collect())
        };
        let image = |j: u64| ImageStep {
            i: images.start + j,
            preprocess: costs.preprocess,
            stages: stages.clone(),
        };
        let count = images.end.saturating_sub(images.start);
        if in_order {
            let mut tensors = Vec::new();
            for j in 0..count {
                let tensor = op.call_indexed(j, InOrderImage(image(j))).await?;
                tensors.push(tensor.into_local());
            }
            let tensors: Option<Vec<Tensor>> = tensors.into_iter().collect();
            let batch = located(op, Batcher, tensors.map(Batch));
            let batch = op.comm(Batcher, model, &batch).await?;
            let predictions = compute_at(op, model, batch, serve).await;
            let predictions = op.comm(model, Batcher, &predictions).await?;
            let predictions = op.comm(Batcher, Gateway, &predictions).await?;
            op.locally(Gateway, |u| stages.predicted(u.unwrap(&predictions)));
            return Ok(op.ready(Gateway, predictions));
        }
        let mut batch = op.ready(Batcher, op.locally(Batcher, |_| Vec::new()));
        for j in 0..count {
            let tensor = op.call_indexed(j, image(j)).await?;
            batch = op.then(Batcher, op.join(Batcher, batch, tensor), |(mut all, t)| {
                all.push(t);
                all
            });
        }
        let batch = op.fcomm(Batcher, model, op.then(Batcher, batch, Batch));
        let predictions = op.then_async(model, batch, serve);
        let predictions = op.fcomm(Batcher, Gateway, op.fcomm(model, Batcher, predictions));
        Ok(op.then(Gateway, predictions, move |p| {
            stages.predicted(&p);
            p
        }))
    }
}

/// One image of a batch, out of order: it arrives at the gateway, goes to its worker
/// (even images to `worker1`) and, preprocessed, to the batcher.
#[derive(Clone)]
struct ImageStep<St> {
    i: u64,
    preprocess: Duration,
    stages: St,
}

impl<St: Stages> Choreography<LocatedFuture<Tensor, Batcher>> for ImageStep<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<LocatedFuture<Tensor, Batcher>> {
        let ImageStep {
            i,
            preprocess: cost,
            stages,
        } = self;
        let at = stages.clone();
        let image = op.locally(Gateway, |_| i);
        let image = op.then_async(Gateway, op.ready(Gateway, image), move |i| async move {
            at.arrive(i).await
        });
        let pre = move |image| async move {
            stages.work(cost).await;
            preprocess(image)
        };
        Ok(if i % 2 == 0 {
            let image = op.fcomm(Gateway, Worker1, image);
            let tensor = op.then_async(Worker1, image, pre);
            op.fcomm(Worker1, Batcher, tensor)
        } else {
            let image = op.fcomm(Gateway, Worker2, image);
            let tensor = op.then_async(Worker2, image, pre);
            op.fcomm(Worker2, Batcher, tensor)
        })
    }
}

/// The in-order form of [`ImageStep`] (blocking communication).
struct InOrderImage<St>(ImageStep<St>);

impl<St: Stages> Choreography<Located<Tensor, Batcher>> for InOrderImage<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Located<Tensor, Batcher>> {
        let ImageStep {
            i,
            preprocess: cost,
            stages,
        } = self.0;
        let image = compute_at(op, Gateway, op.locally(Gateway, |_| i), |i| {
            stages.arrive(i)
        })
        .await;
        let pre = |image| async move {
            stages.work(cost).await;
            preprocess(image)
        };
        if i % 2 == 0 {
            let image = op.comm(Gateway, Worker1, &image).await?;
            let tensor = compute_at(op, Worker1, image, pre).await;
            op.comm(Worker1, Batcher, &tensor).await
        } else {
            let image = op.comm(Gateway, Worker2, &image).await?;
            let tensor = compute_at(op, Worker2, image, pre).await;
            op.comm(Worker2, Batcher, &tensor).await
        }
    }
}

/// The pipeline with the examples' stages, in rounds: `in_order` selects the in-order
/// twin (blocking communication).
#[derive(Clone, Debug)]
pub struct ModelServing<St = Example> {
    params: Params,
    stages: St,
    in_order: bool,
    /// One lock per model: a model serves one batch at a time.
    models: Arc<Models>,
}

impl ModelServing {
    /// The out-of-order form (Ozone).
    pub fn out_of_order(params: Params) -> Self {
        Self::new(params, Example, false)
    }

    /// The in-order twin.
    pub fn in_order(params: Params) -> Self {
        Self::new(params, Example, true)
    }
}

impl<St: Stages> ModelServing<St> {
    /// The pipeline with `stages`, out of order or in order.
    pub fn new(params: Params, stages: St, in_order: bool) -> Self {
        ModelServing {
            params,
            stages,
            in_order,
            models: Arc::default(),
        }
    }
}

impl<St: Stages> Choreography<Output> for ModelServing<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Output> {
        let mut pending = Vec::new();
        for round in 0.. {
            let step = Step {
                round,
                serving: self.clone(),
            };
            match op.call_indexed(round, step).await? {
                Some(predictions) => pending.push(predictions),
                None => break,
            }
        }
        let mut all = Vec::new();
        for predictions in pending {
            if let Some(Predictions(ps)) = op.wait(Gateway, predictions).await?.into_local() {
                all.extend(ps);
            }
        }
        Ok(op.locally(Gateway, |_| all))
    }
}

/// One round: the gateway's choice, then (unless done) one batch.
struct Step<St> {
    round: u64,
    serving: ModelServing<St>,
}

impl<St: Stages> Choreography<Option<Pending>> for Step<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Option<Pending>> {
        let params = self.serving.params;
        let batch = params.batch.max(1);
        let first = self.round.saturating_mul(batch);
        let next = op.locally(Gateway, |_| match first < params.requests {
            false => Next::Done,
            true if self.round.is_multiple_of(2) => Next::ToModel1,
            true => Next::ToModel2,
        });
        let serving = self.serving;
        let round = move |next| Round {
            next,
            batch: BatchOf {
                images: first..first.saturating_add(batch).min(params.requests),
                costs: params.costs,
                models: serving.models,
                stages: serving.stages,
                in_order: serving.in_order,
            },
        };
        Ok(op.cond(Gateway, &next, round).await?.flatten())
    }
}

/// The batch of one round, sent to the chosen model.
struct Round<St> {
    next: Next,
    batch: BatchOf<St>,
}

impl<St: Stages> Choreography<Option<Pending>> for Round<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Option<Pending>> {
        match self.next {
            Next::ToModel1 => self.batch.run(op, Model1, 0).await.map(Some),
            Next::ToModel2 => self.batch.run(op, Model2, 1).await.map(Some),
            Next::Done => Ok(None),
        }
    }
}

/// The open-loop form (the evaluation): session `k` is batch `k` alone, images
/// `k·batch ..`, served by model `k % 2 + 1` with no choice sent (images arrive over time,
/// so a session cannot wait for a round's worth); the gateway waits for its predictions.
#[derive(Clone, Debug)]
pub struct BatchSession<St> {
    /// The session's number, which is its batch's.
    pub k: u64,
    /// Images per batch (at least 1).
    pub batch: u64,
    /// What the batch needs besides its images (whose range this session sets).
    pub of: BatchOf<St>,
}

impl<St: Stages> Choreography for BatchSession<St> {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<()> {
        let batch = self.batch.max(1);
        let first = self.k.saturating_mul(batch);
        let of = BatchOf {
            images: first..first.saturating_add(batch),
            ..self.of
        };
        let pending = if self.k.is_multiple_of(2) {
            of.run(op, Model1, 0).await?
        } else {
            of.run(op, Model2, 1).await?
        };
        op.wait(Gateway, pending).await?;
        Ok(())
    }
}

/// The text of what a role holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    output.into_local().map(|ps| format!("{ps:?}"))
}
