//! The model-serving pipeline of §5.3 (after Wang et al.): a `gateway` sends images to
//! two `worker`s for preprocessing, a `batcher` gathers their tensors into batches and
//! sends each batch to one of two `model`s (alternately), and the predictions travel back
//! through the batcher to the gateway. A model takes `model_base + model_per_item · batch`
//! (the paper: 15 + 5·batch ms) and serves one batch at a time.
//!
//! Every round starts with the gateway's choice (which model, or done), sent to every
//! role (knowledge of choice), so the rounds follow `rec`/`choice` of the in-order
//! twin's Scribble protocol. Out of order, the batcher never waits: it forwards batches
//! and predictions as they complete, so both models work at once; in order, it waits for
//! each batch's predictions before the next round begins.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use super::{compute_at, work};
use crate::choreography::Choreography;
use crate::error::Result;
use crate::located::{Located, LocatedFuture};
use crate::op::Op;
use crate::role::{Member, Role};

crate::roles! {
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
pub type Roles = crate::RoleSet![Gateway, Worker1, Worker2, Batcher, Model1, Model2];

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
            let model = if (i / batch) % 2 == 0 { 1 } else { 2 };
            classify(&preprocess(Image(i)), model)
        })
        .collect()
}

/// The pipeline; `in_order` selects the in-order twin (blocking communication).
#[derive(Clone, Debug)]
pub struct ModelServing {
    params: Params,
    in_order: bool,
    /// One lock per model: a model serves one batch at a time.
    models: Arc<[Mutex<()>; 2]>,
}

impl ModelServing {
    /// The out-of-order form (Ozone).
    pub fn out_of_order(params: Params) -> Self {
        Self::new(params, false)
    }

    /// The in-order twin.
    pub fn in_order(params: Params) -> Self {
        Self::new(params, true)
    }

    fn new(params: Params, in_order: bool) -> Self {
        ModelServing {
            params,
            in_order,
            models: Arc::new([Mutex::new(()), Mutex::new(())]),
        }
    }
}

impl Choreography<Output> for ModelServing {
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
struct Step {
    round: u64,
    serving: ModelServing,
}

type Pending = LocatedFuture<Predictions, Gateway>;

impl Choreography<Option<Pending>> for Step {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Option<Pending>> {
        let params = self.serving.params;
        let batch = params.batch.max(1);
        let first = self.round.saturating_mul(batch);
        let next = op.locally(Gateway, |_| match first < params.requests {
            false => Next::Done,
            true if self.round % 2 == 0 => Next::ToModel1,
            true => Next::ToModel2,
        });
        let serving = self.serving;
        let round = move |next| Round {
            next,
            images: first..first.saturating_add(batch).min(params.requests),
            serving,
        };
        Ok(op.cond(Gateway, &next, round).await?.flatten())
    }
}

/// The batch of one round, sent to the chosen model.
struct Round {
    next: Next,
    images: std::ops::Range<u64>,
    serving: ModelServing,
}

impl Choreography<Option<Pending>> for Round {
    type Roles = Roles;

    async fn run(self, op: &Op<Roles>) -> Result<Option<Pending>> {
        match self.next {
            Next::ToModel1 => self.batch(op, Model1, 0).await.map(Some),
            Next::ToModel2 => self.batch(op, Model2, 1).await.map(Some),
            Next::Done => Ok(None),
        }
    }
}

impl Round {
    async fn batch<M, I>(self, op: &Op<Roles>, model: M, index: usize) -> Result<Pending>
    where
        M: Role + Member<Roles, I>,
    {
        let costs = self.serving.params.costs;
        let models = Arc::clone(&self.serving.models);
        let serve = move |Batch(tensors): Batch| async move {
            let _serving = models[index].lock().await;
            let items = u32::try_from(tensors.len()).unwrap_or(u32::MAX);
            let per_items = costs.model_per_item.saturating_mul(items);
            work(costs.model_base.saturating_add(per_items)).await;
            let id = index as u8 + 1;
            Predictions(tensors.iter().map(|t| classify(t, id)).collect())
        };
        let preprocess = move |image| async move {
            work(costs.preprocess).await;
            preprocess(image)
        };
        if self.serving.in_order {
            let mut tensors = Vec::new();
            for i in self.images {
                let image = op.locally(Gateway, |_| Image(i));
                let tensor = if i % 2 == 0 {
                    let image = op.comm(Gateway, Worker1, &image).await?;
                    let tensor = compute_at(image, preprocess).await;
                    op.comm(Worker1, Batcher, &tensor).await?
                } else {
                    let image = op.comm(Gateway, Worker2, &image).await?;
                    let tensor = compute_at(image, preprocess).await;
                    op.comm(Worker2, Batcher, &tensor).await?
                };
                tensors.push(tensor.into_local());
            }
            let tensors: Option<Vec<Tensor>> = tensors.into_iter().collect();
            let batch = tensors.map_or_else(Located::remote, |t| Located::local(Batch(t)));
            let batch = op.comm(Batcher, model, &batch).await?;
            let predictions = compute_at(batch, serve).await;
            let predictions = op.comm(model, Batcher, &predictions).await?;
            let predictions = op.comm(Batcher, Gateway, &predictions).await?;
            return Ok(op.ready(Gateway, predictions));
        }
        let mut batch = op.ready(Batcher, op.locally(Batcher, |_| Vec::new()));
        for i in self.images {
            let image = op.locally(Gateway, |_| Image(i));
            let tensor = if i % 2 == 0 {
                let image = op.fcomm(Gateway, Worker1, &image);
                let tensor = op.then_async(Worker1, image, preprocess);
                op.fcomm(Worker1, Batcher, tensor)
            } else {
                let image = op.fcomm(Gateway, Worker2, &image);
                let tensor = op.then_async(Worker2, image, preprocess);
                op.fcomm(Worker2, Batcher, tensor)
            };
            batch = op.then(Batcher, op.join(Batcher, batch, tensor), |(mut all, t)| {
                all.push(t);
                all
            });
        }
        let batch = op.fcomm(Batcher, model, op.then(Batcher, batch, Batch));
        let predictions = op.then_async(model, batch, serve);
        let predictions = op.fcomm(model, Batcher, predictions);
        Ok(op.fcomm(Batcher, Gateway, predictions))
    }
}

/// The text of what a role holds after a run (for reports), if it holds anything.
pub fn report(output: Output) -> Option<String> {
    output.into_local().map(|ps| format!("{ps:?}"))
}
