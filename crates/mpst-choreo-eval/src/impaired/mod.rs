//! The Ozone evaluation on impaired links (issue 23, item 4): in-order, out-of-order
//! and actors with every role on its own `mpst-testbed` host (its own network
//! namespace), every link through the bed's seeded impairment relay, at several one-way
//! delays with jitter. Two benchmarks make the point: concurrent send (the `key`
//! median at the client) and model serving (the highest throughput over a few offered
//! loads). `cargo run --release -p mpst-choreo-eval -- --impaired` (root) merges the
//! result into `evaluation/results.json` as `impaired_links` ([`report`]).
//!
//! The roles' traffic crosses the relay; the stopwatch does not: every role runs in
//! this one process (each on a runtime whose threads live in its host), so the
//! recorder of answers and the models' busy log are shared memory with one clock.

pub mod actors;
pub mod cli;
pub mod hosts;
pub mod model;
pub mod report;
mod report_text;

use std::collections::BTreeMap;
use std::time::Duration;

use mpst_choreo::RoleSet;
use serde::{Deserialize, Serialize};

use crate::drive::{Implementation, Net};
use crate::load::{Spec, Summary};
use crate::{send, serving};
use hosts::Placement;

/// What to run.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// One-way delays of every link (ms).
    pub delays_ms: Vec<u64>,
    /// Jitter as a fraction of the delay (each chunk's delay uniform in `delay ± jitter`).
    pub jitter: f64,
    /// Concurrent send: requests per second.
    pub send_rate: f64,
    /// Concurrent send: seconds of sending per run.
    pub send_duration: f64,
    /// Model serving: images per second offered (the saturation is the highest
    /// throughput over these).
    pub serving_rates: Vec<f64>,
    /// Model serving: seconds of sending per run.
    pub serving_duration: f64,
    /// Model serving's costs.
    pub costs: serving::Costs,
    /// Seconds after the last send that answers are still awaited.
    pub drain: f64,
    /// The seed of the costs and of the relay's dice.
    pub seed: u64,
    /// Worker threads of each host's runtime.
    pub threads: usize,
}

impl Plan {
    /// The measurement: 0, 5 and 20 ms ± 10 %, concurrent send at 50 requests/s for
    /// 8 s, model serving (batch 10, the paper's costs) at 150 and 300 images/s for 3 s
    /// (a few minutes in all).
    pub fn full(seed: u64) -> Self {
        Plan {
            delays_ms: vec![0, 5, 20],
            jitter: 0.1,
            send_rate: 50.0,
            send_duration: 8.0,
            serving_rates: vec![150.0, 300.0],
            serving_duration: 3.0,
            costs: serving::Costs::paper(10),
            drain: 2.0,
            seed,
            threads: 1,
        }
    }

    /// The CI smoke run: one small delay, a fraction of a second of each, small
    /// batches and a tenth of the paper's model costs.
    pub fn smoke(seed: u64) -> Self {
        Plan {
            delays_ms: vec![2],
            send_rate: 20.0,
            send_duration: 0.5,
            serving_rates: vec![80.0],
            serving_duration: 0.5,
            costs: serving::Costs {
                batch: 4,
                preprocess: Duration::from_micros(100),
                model_base: Duration::from_micros(1500),
                model_per_image: Duration::from_micros(500),
            },
            drain: 10.0,
            ..Plan::full(seed)
        }
    }

    /// The plan in words (for the report).
    pub fn describe(&self) -> String {
        let list = |v: &[f64]| {
            v.iter()
                .map(|r| format!("{r}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let delays: Vec<f64> = self.delays_ms.iter().map(|&d| d as f64).collect();
        format!(
            "links of {} ms one way ± {:.0} %; concurrent send at {}/s for {} s; model \
             serving, batch {}, at {} images/s for {} s; the first 20 % of each run left \
             out as warm-up, answers awaited {} s after the last send; seed {}; {} worker \
             thread(s) per host",
            list(&delays),
            self.jitter * 100.0,
            self.send_rate,
            self.send_duration,
            self.costs.batch,
            list(&self.serving_rates),
            self.serving_duration,
            self.drain,
            self.seed,
            self.threads
        )
    }

    /// Concurrent send's seeded costs over the sessions its median counts (those due
    /// after the warm-up): the median of the key service's cost and the median of the
    /// larger of the two services' costs (ms). Their difference is what in order's key
    /// waits for the text on a perfect link.
    pub fn send_cost_medians(&self) -> (f64, f64) {
        let costs = self.send_costs_ms();
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        let key = costs.iter().map(|c| c.0).collect();
        (
            median(key),
            median(costs.iter().map(|c| c.0.max(c.1)).collect()),
        )
    }

    /// Concurrent send's seeded costs `(key, text)` (ms) over the sessions its median
    /// counts (those due after the warm-up).
    pub fn send_costs_ms(&self) -> Vec<(f64, f64)> {
        let spec = self.spec(self.send_rate, self.send_duration);
        let costs = send::Costs::uniform(spec.seed, spec.requests());
        let first = (spec.warmup * spec.rate).ceil() as usize;
        let ms = |d: &Duration| d.as_secs_f64() * 1e3;
        let both = costs.key.iter().zip(costs.txt.iter()).skip(first);
        both.map(|(k, t)| (ms(k), ms(t))).collect()
    }

    /// What the cost model expects of concurrent send's key at `delay_ms`: in order minus
    /// out of order, medians (ms), over the measured sessions' costs ([`model`]).
    pub fn send_key_advantage_ms(&self, delay_ms: f64) -> f64 {
        model::key_advantage_ms(&self.send_costs_ms(), delay_ms, self.jitter, self.seed)
    }

    fn spec(&self, rate: f64, duration: f64) -> Spec {
        Spec {
            rate,
            duration,
            warmup: duration * 0.2,
            drain: self.drain,
            seed: self.seed,
            net: Net::Hosts,
            threads: 1,
        }
    }
}

/// One implementation at one delay: the two numbers of `impaired_links`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Concurrent send: median latency of `key` at the client (ms).
    pub key_median_ms: f64,
    /// Model serving: the highest throughput measured over the offered loads
    /// (images per second).
    pub saturation_rps: f64,
}

/// `impaired_links`: delay (ms, as a string) -> implementation name -> [`Cell`].
pub type Links = BTreeMap<String, BTreeMap<String, Cell>>;

/// One run of one benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured {
    /// The links' one-way delay (ms).
    pub delay_ms: u64,
    /// `"concurrent_send"` (the summary of `key`) or `"model_serving"`.
    pub benchmark: String,
    /// Which implementation.
    pub implementation: Implementation,
    /// Its statistics.
    pub summary: Summary,
    /// Sessions that failed (0 expected).
    pub failures: u64,
}

/// Everything measured.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The summary that goes into results.json.
    pub links: Links,
    /// Every run.
    pub runs: Vec<Measured>,
}

fn progress(m: &Measured) {
    let s = &m.summary;
    eprintln!(
        "{:>3} ms {:<16} {:<13} {:>5.0}/s  median {:>8.2} ms  throughput {:>6.1}/s  answered {}/{}  failures {}",
        m.delay_ms,
        m.benchmark,
        m.implementation.name(),
        s.offered_rps,
        s.median_ms,
        s.throughput_rps,
        s.answered,
        s.requests,
        m.failures
    );
}

/// Runs `plan`: two beds (one host per role of each benchmark), every delay, every
/// implementation. [`mpst_testbed::Error::Unavailable`] when this machine cannot host a
/// bed (not root, no `ip`).
pub fn run(plan: &Plan) -> mpst_testbed::Result<Outcome> {
    let send_roles = mpst_choreo_paper::concurrent_send::Roles::names();
    let serving_roles = serving::roles();
    let send_bed = hosts::bed(&send_roles, plan.seed)?;
    let serving_bed = hosts::bed(&serving_roles, plan.seed.wrapping_add(1))?;
    let mut runs = Vec::new();
    for &delay_ms in &plan.delays_ms {
        let delay = Duration::from_millis(delay_ms);
        let jitter = delay.mul_f64(plan.jitter);
        hosts::set_delay(&send_bed, &send_roles, delay, jitter);
        hosts::set_delay(&serving_bed, &serving_roles, delay, jitter);
        for imp in Implementation::ALL {
            let spec = plan.spec(plan.send_rate, plan.send_duration);
            let placed = Placement::new(&send_bed, &send_roles, plan.threads)?.install();
            let (key, _txt, failures) = send::run(imp, &spec);
            drop(placed);
            let m = Measured {
                delay_ms,
                benchmark: "concurrent_send".into(),
                implementation: imp,
                summary: key,
                failures,
            };
            progress(&m);
            runs.push(m);
            for &rate in &plan.serving_rates {
                let spec = plan.spec(rate, plan.serving_duration);
                let placed = Placement::new(&serving_bed, &serving_roles, plan.threads)?;
                let placed = placed.install();
                let (summary, failures) = serving::run(imp, plan.costs, &spec);
                drop(placed);
                let m = Measured {
                    delay_ms,
                    benchmark: "model_serving".into(),
                    implementation: imp,
                    summary,
                    failures,
                };
                progress(&m);
                runs.push(m);
            }
        }
    }
    Ok(Outcome {
        links: summarise(&runs),
        runs,
    })
}

/// The `impaired_links` object of `runs`.
pub fn summarise(runs: &[Measured]) -> Links {
    let mut links = Links::new();
    for m in runs {
        let cell = links
            .entry(m.delay_ms.to_string())
            .or_default()
            .entry(m.implementation.name().to_string())
            .or_insert(Cell {
                key_median_ms: 0.0,
                saturation_rps: 0.0,
            });
        if m.benchmark == "concurrent_send" {
            cell.key_median_ms = m.summary.median_ms;
        } else {
            cell.saturation_rps = cell.saturation_rps.max(m.summary.throughput_rps);
        }
    }
    links
}
