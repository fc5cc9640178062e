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
mod compare;
mod goals;
pub mod hosts;
mod key_text;
pub mod model;
pub mod probe;
pub mod report;
mod report_text;
mod send_run;
pub mod stages;
pub mod stats;

use std::collections::BTreeMap;
use std::time::Duration;

use mpst_choreo::RoleSet;
use serde::{Deserialize, Serialize};

use crate::drive::{Implementation, Net};
use crate::load::{Spec, Summary};
use crate::{send, serving};
pub use compare::{compare, summarise};
use hosts::Placement;
use send_run::{SendRun, send_run};

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
    /// Concurrent send: runs of each implementation per delay, the three
    /// implementations taking turns (round `r` starts with the `r`-th, so drift over
    /// the run hits all alike), each round with its own seeded costs.
    pub send_rounds: usize,
    /// Concurrent send: the links' jitter is drawn per slot of this many ms from the
    /// run's start ([`mpst_testbed::Slots`]), so that the same session meets the same
    /// delays whichever implementation runs (common random numbers); 0 draws it per
    /// chunk.
    pub jitter_slot_ms: f64,
    /// Concurrent send with no service costs (only each implementation's own cost per
    /// hop) at the smallest delay: seconds of sending per run, one run of each
    /// implementation per round; 0 leaves it out.
    pub hop_duration: f64,
    /// Concurrent send: run the actors a second time in every round (the A/A control,
    /// taking its turn with the others), so that the run shows how far two runs of one
    /// implementation differ on this bed ([`Comparison::actors_over_actors`]).
    pub control: bool,
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
    /// three rounds of 5 s, with no service costs too at 0 ms, model serving (batch 10,
    /// the paper's costs) at 150 and 300 images/s for 3 s (about six minutes in all).
    pub fn full(seed: u64) -> Self {
        Plan {
            delays_ms: vec![0, 5, 20],
            jitter: 0.1,
            send_rate: 50.0,
            send_duration: 5.0,
            send_rounds: 3,
            jitter_slot_ms: 2.0,
            hop_duration: 5.0,
            control: true,
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
            send_rounds: 1,
            hop_duration: 0.5,
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
        let hops = if self.hop_duration > 0.0 {
            format!(
                ", and with no service costs at {} ms for {} s per round",
                self.delays_ms.iter().min().copied().unwrap_or(0),
                self.hop_duration
            )
        } else {
            String::new()
        };
        let slots = if self.jitter_slot_ms > 0.0 {
            format!(
                " (for concurrent send drawn per {} ms slot of each link's direction from \
                 the run's start, so every implementation's session meets the same delays; \
                 for model serving per chunk)",
                self.jitter_slot_ms
            )
        } else {
            " (drawn per chunk)".to_string()
        };
        let control = if self.control {
            ", the actors twice per round (the A/A control)"
        } else {
            ""
        };
        format!(
            "links of {} ms one way ± {:.0} %{slots}; concurrent send at {}/s, {} round(s) of {} s \
             per implementation and delay (the implementations taking turns, each round \
             with its own seeded costs{control}){hops}; model serving, batch {}, at {} images/s for \
             {} s; the first 20 % of each run left out as warm-up, answers awaited {} s \
             after the last send; seed {}; {} worker thread(s) per host; intervals are \
             seeded bootstrap 95 % intervals over sessions ({} resamples)",
            list(&delays),
            self.jitter * 100.0,
            self.send_rate,
            self.send_rounds,
            self.send_duration,
            self.costs.batch,
            list(&self.serving_rates),
            self.serving_duration,
            self.drain,
            self.seed,
            self.threads,
            stats::RESAMPLES,
        )
    }

    /// Concurrent send's seeded costs over the sessions its median counts (those due
    /// after the warm-up): the median of the key service's cost and the median of the
    /// larger of the two services' costs (ms). Their difference is what in order's key
    /// waits for the text on a perfect link.
    pub fn send_cost_medians(&self) -> (f64, f64) {
        let costs = self.send_costs_ms();
        let key: Vec<f64> = costs.iter().map(|c| c.0).collect();
        let max: Vec<f64> = costs.iter().map(|c| c.0.max(c.1)).collect();
        (stats::median(&mut { key }), stats::median(&mut { max }))
    }

    /// Concurrent send's seeded costs `(key, text)` (ms) over the sessions its median
    /// counts (those due after the warm-up), every round's.
    pub fn send_costs_ms(&self) -> Vec<(f64, f64)> {
        let ms = |d: &Duration| d.as_secs_f64() * 1e3;
        let mut all = Vec::new();
        for round in 0..self.send_rounds.max(1) {
            let spec = self.send_spec(round);
            let costs = send::Costs::uniform(spec.seed, spec.requests());
            let both = costs
                .key
                .iter()
                .zip(costs.txt.iter())
                .skip(measured_from(&spec));
            all.extend(both.map(|(k, t)| (ms(k), ms(t))));
        }
        all
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

    /// Concurrent send's run of round `round` (its costs seeded apart).
    fn send_spec(&self, round: usize) -> Spec {
        Spec {
            seed: self.seed.wrapping_add(round as u64),
            ..self.spec(self.send_rate, self.send_duration)
        }
    }
}

/// The first request a run's statistics count (those due after the warm-up).
fn measured_from(spec: &Spec) -> usize {
    (spec.warmup * spec.rate).ceil() as usize
}

/// One implementation at one delay: the two numbers of `impaired_links`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Concurrent send: median latency of `key` at the client (ms), over every round.
    pub key_median_ms: f64,
    /// Model serving: the highest throughput measured over the offered loads
    /// (images per second).
    pub saturation_rps: f64,
}

/// `impaired_links`: delay (ms, as a string) -> implementation name -> [`Cell`].
pub type Links = BTreeMap<String, BTreeMap<String, Cell>>;

/// The benchmark name of concurrent send's runs.
pub const SEND: &str = "concurrent_send";
/// The benchmark name of concurrent send's runs with no service costs.
pub const HOPS: &str = "concurrent_send_no_costs";
/// The benchmark name of model serving's runs.
pub const SERVING: &str = "model_serving";

/// One run of one benchmark.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured {
    /// The links' one-way delay (ms).
    pub delay_ms: u64,
    /// [`SEND`] (the summary of `key`), [`HOPS`] or [`SERVING`].
    pub benchmark: String,
    /// Which implementation.
    pub implementation: Implementation,
    /// Concurrent send's round (0 for the others).
    #[serde(default)]
    pub round: usize,
    /// The actors' second run of a round (the A/A control): kept out of
    /// `impaired_links` and of the comparisons with the other implementations.
    #[serde(default)]
    pub control: bool,
    /// Its statistics.
    pub summary: Summary,
    /// Sessions that failed (0 expected).
    pub failures: u64,
    /// Concurrent send: TCP chunks the relay carried over the link between `s` and `c`
    /// during the run, `(s to c, c to s)`. `c` sends no message to `s`, so what goes
    /// back is the transport's own traffic: lane set-up and, for the choreographies,
    /// acknowledgements.
    #[serde(default)]
    pub chunks_s_c: Option<(u64, u64)>,
    /// Concurrent send: the latency of `key` (ms) of every session after the warm-up,
    /// in session order (`INFINITY` when unanswered); not written out.
    #[serde(skip)]
    pub key_ms: Vec<f64>,
}

/// Out of order against the actors, and in order against out of order, on the key at
/// one delay: medians over every round's sessions with their intervals.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// The links' one-way delay (ms).
    pub delay_ms: u64,
    /// [`SEND`] or [`HOPS`].
    pub benchmark: String,
    /// Sessions compared (of each implementation).
    pub sessions: usize,
    /// Out of order's key median over the actors'.
    pub out_of_order_over_actors: stats::Interval,
    /// Out of order's key median minus the actors' (ms).
    pub out_of_order_minus_actors_ms: stats::Interval,
    /// In order's key median minus out of order's (ms).
    pub in_order_minus_out_of_order_ms: stats::Interval,
    /// The A/A control: the actors' key median over their second run's in the same
    /// rounds, when the plan ran one. Two runs of one implementation differ by this
    /// much on the bed: the resolution against which out of order / actors is read.
    #[serde(default)]
    pub actors_over_actors: Option<stats::Interval>,
}

/// Everything measured.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The summary that goes into results.json.
    pub links: Links,
    /// Every run.
    pub runs: Vec<Measured>,
    /// The key's comparisons, by delay (and the runs with no costs).
    pub comparisons: Vec<Comparison>,
}

fn progress(m: &Measured) {
    let s = &m.summary;
    let name = if m.control {
        "actors (A/A)"
    } else {
        m.implementation.name()
    };
    eprintln!(
        "{:>3} ms {:<24} {:<13} {:>5.0}/s  median {:>8.2} ms  throughput {:>6.1}/s  answered {}/{}  failures {}",
        m.delay_ms,
        m.benchmark,
        name,
        s.offered_rps,
        s.median_ms,
        s.throughput_rps,
        s.answered,
        s.requests,
        m.failures
    );
}

/// The links' delay and jitter at `delay_ms`.
fn delay_and_jitter(plan: &Plan, delay_ms: u64) -> (Duration, Duration) {
    let delay = Duration::from_millis(delay_ms);
    (delay, delay.mul_f64(plan.jitter))
}

/// The concurrent send runs of a round: every implementation, and the actors once more
/// when `control` (the A/A control, flagged `true`).
fn turns(control: bool) -> Vec<(Implementation, bool)> {
    let mut all: Vec<_> = Implementation::ALL
        .into_iter()
        .map(|i| (i, false))
        .collect();
    if control {
        all.push((Implementation::Actors, true));
    }
    all
}

/// Run `turn` of round `round` among `turns`: the rounds rotate which goes first.
fn in_turn(round: usize, turn: usize, turns: &[(Implementation, bool)]) -> (Implementation, bool) {
    turns[(round + turn) % turns.len()]
}

/// Runs `plan`: two beds (one host per role of each benchmark), every delay, every
/// implementation. [`mpst_testbed::Error::Unavailable`] when this machine cannot host a
/// bed (not root, no `ip`).
pub fn run(plan: &Plan) -> mpst_testbed::Result<Outcome> {
    let send_roles = mpst_choreo_paper::concurrent_send::Roles::names();
    let serving_roles = serving::roles();
    let send_bed = hosts::bed(&send_roles, plan.seed)?;
    let serving_bed = hosts::bed(&serving_roles, plan.seed.wrapping_add(1))?;
    let smallest = plan.delays_ms.iter().min().copied();
    let mut runs = Vec::new();
    let mut record = |m: Measured| {
        progress(&m);
        runs.push(m);
    };
    for &delay_ms in &plan.delays_ms {
        let (delay, jitter) = delay_and_jitter(plan, delay_ms);
        hosts::set_delay(&send_bed, &send_roles, delay, jitter, None);
        hosts::set_delay(&serving_bed, &serving_roles, delay, jitter, None);
        let rounds = plan.send_rounds.max(1);
        let turns = turns(plan.control);
        for round in 0..rounds {
            for turn in 0..turns.len() {
                let (imp, control) = in_turn(round, turn, &turns);
                let mut jobs = vec![{
                    let spec = plan.send_spec(round);
                    (SEND, spec, send::Costs::uniform(spec.seed, spec.requests()))
                }];
                if plan.hop_duration > 0.0 && Some(delay_ms) == smallest {
                    let spec = plan.spec(plan.send_rate, plan.hop_duration);
                    jobs.push((HOPS, spec, send::Costs::zero(spec.requests())));
                }
                for (benchmark, spec, costs) in jobs {
                    let SendRun {
                        summary,
                        key_ms,
                        failures,
                        chunks,
                    } = send_run(&send_bed, &send_roles, plan, delay_ms, (imp, spec, costs))?;
                    record(Measured {
                        delay_ms,
                        benchmark: benchmark.into(),
                        implementation: imp,
                        round,
                        control,
                        summary,
                        failures,
                        key_ms,
                        chunks_s_c: Some(chunks),
                    });
                }
            }
        }
        for imp in Implementation::ALL {
            for &rate in &plan.serving_rates {
                let spec = plan.spec(rate, plan.serving_duration);
                let placed = Placement::new(&serving_bed, &serving_roles, plan.threads)?;
                let placed = placed.install();
                let (summary, failures) = serving::run(imp, plan.costs, &spec);
                drop(placed);
                record(Measured {
                    delay_ms,
                    benchmark: SERVING.into(),
                    implementation: imp,
                    round: 0,
                    control: false,
                    summary,
                    failures,
                    key_ms: Vec::new(),
                    chunks_s_c: None,
                });
            }
        }
    }
    Ok(Outcome {
        links: summarise(&runs),
        comparisons: compare(&runs, plan.seed),
        runs,
    })
}
