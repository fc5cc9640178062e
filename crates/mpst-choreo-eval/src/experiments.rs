//! The evaluation plan (rates, durations, seeds; a full and a quick version) and its
//! results, including the derived numbers of `results.json`: model-serving maximum
//! throughput, producers' saturation rates, concurrent-send key medians.

use serde::{Deserialize, Serialize};

use crate::busy::ModelUse;
use crate::drive::{Implementation, Net};
use crate::impaired::stats::Interval;
use crate::load::{Spec, Summary};
use crate::profile::{self, SendProfile};
use crate::{producers, send, send_rounds, serving};

/// What to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// Producers: requests per second per producer.
    pub producer_rates: Vec<f64>,
    /// Concurrent send: requests per second.
    pub send_rate: f64,
    /// Model serving: images per second offered.
    pub serving_rates: Vec<f64>,
    /// Model serving: batch sizes (the first is the headline).
    pub batches: Vec<u64>,
    /// Seconds of sending per run (producers, send, serving).
    pub durations: (f64, f64, f64),
    /// The seed of every run's random costs.
    pub seed: u64,
    /// Also run the choreographies of producers and model serving (headline batch) over
    /// loopback TCP.
    pub tcp: bool,
    /// Tokio worker threads per run (1: a current-thread runtime).
    pub threads: usize,
    /// Concurrent send: alternating rounds of every implementation ([`crate::send_rounds`]);
    /// results.json written before rounds existed ran one.
    #[serde(default = "one")]
    pub send_rounds: usize,
}

fn one() -> usize {
    1
}

impl Plan {
    /// The full evaluation (about ten minutes).
    pub fn full(seed: u64) -> Self {
        Plan {
            producer_rates: vec![
                20.0, 40.0, 80.0, 120.0, 160.0, 200.0, 240.0, 280.0, 320.0, 400.0, 480.0,
            ],
            send_rate: 50.0,
            serving_rates: vec![50.0, 100.0, 150.0, 200.0, 250.0, 300.0, 350.0, 400.0],
            batches: vec![10, 5],
            durations: (4.0, 12.0, 5.0),
            seed,
            tcp: true,
            threads: 2,
            send_rounds: 3,
        }
    }

    /// A quick run (under a minute) with the same shape.
    pub fn quick(seed: u64) -> Self {
        Plan {
            producer_rates: vec![20.0, 160.0, 320.0],
            send_rate: 50.0,
            serving_rates: vec![100.0, 300.0],
            batches: vec![10],
            durations: (1.0, 2.0, 2.0),
            seed,
            tcp: true,
            threads: 2,
            send_rounds: 1,
        }
    }

    fn spec(&self, rate: f64, duration: f64, net: Net) -> Spec {
        Spec {
            rate,
            duration,
            warmup: (duration * 0.2).min(1.0),
            drain: 2.0,
            seed: self.seed,
            net,
            threads: self.threads,
        }
    }
}

/// One implementation at one rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    /// Which implementation.
    pub implementation: Implementation,
    /// Its statistics.
    pub summary: Summary,
    /// Sessions that failed (0 expected).
    pub failures: u64,
    /// Model serving only: how the models spent the measurement window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_use: Option<ModelUse>,
}

/// Model serving at one batch size.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServingResults {
    /// Images per batch.
    pub batch: u64,
    /// The highest measured throughput of each implementation (images per second).
    pub in_order_max_rps: f64,
    /// Out of order.
    pub out_of_order_max_rps: f64,
    /// Actors.
    pub actors_max_rps: f64,
    /// The two models' theoretical maximum.
    pub models_limit_rps: f64,
    /// Every run.
    pub points: Vec<Point>,
}

/// Concurrent producers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProducerResults {
    /// The highest offered rate (per producer) whose median stays under 3× the median at
    /// the lowest rate (checked upwards from the lowest rate).
    pub in_order_saturation_rps: f64,
    /// Out of order.
    pub out_of_order_saturation_rps: f64,
    /// Actors.
    pub actors_saturation_rps: f64,
    /// Every run.
    pub points: Vec<Point>,
}

/// Concurrent send.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SendResults {
    /// Requests per second.
    pub rate: f64,
    /// Alternating rounds run (every statistic below pools their sessions; 1 in
    /// results.json written before rounds existed).
    #[serde(default = "one")]
    pub rounds: usize,
    /// Out of order's `key` median minus the actors', paired by session over the rounds,
    /// with its bootstrap 95 % interval (ms); absent in results.json written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_order_minus_actors_key_ms: Option<Interval>,
    /// Median latency of `key` at the client, in order (ms).
    pub in_order_key_median_ms: f64,
    /// Out of order.
    pub out_of_order_key_median_ms: f64,
    /// Actors.
    pub actors_key_median_ms: f64,
    /// The median of `ks`'s simulated cost alone (what an ideal out-of-order `key`
    /// latency would be), ms.
    pub cost_key_median_ms: f64,
    /// The median of the larger of the two costs (an ideal in-order `key`), ms. Both
    /// cost medians are over the sessions due after the warm-up, like the latencies'.
    pub cost_max_median_ms: f64,
    /// How late the precise sleep wakes on this machine now (median, ms): measured
    /// alone, 200 sleeps of 0–5 ms; every delivery pays it at least twice (the scheduled
    /// start and the service's work).
    pub timer_lateness_median_ms: f64,
    /// Its 99th percentile (ms).
    pub timer_lateness_p99_ms: f64,
    /// The profile: `key` of each implementation with zero costs, open loop at the same
    /// rate and duration (so its latency is the implementation's own overhead: the
    /// schedule's wake-up, tasks, hops).
    pub zero_cost_key: Vec<Point>,
    /// The profile: zero-cost sessions one at a time, as fast as they complete
    /// ([`crate::profile`]), on the runs' runtime.
    pub closed_loop: Vec<SendProfile>,
    /// `key` of each implementation.
    pub key: Vec<Point>,
    /// `txt` of each implementation.
    pub txt: Vec<Point>,
}

/// Everything measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// Model serving at the headline batch size.
    pub model_serving: ServingResults,
    /// Model serving at the other batch sizes.
    pub model_serving_other_batches: Vec<ServingResults>,
    /// Concurrent producers.
    pub producers: ProducerResults,
    /// Concurrent send.
    pub concurrent_send: SendResults,
    /// Model serving at the headline batch size, choreographies over loopback TCP
    /// (actors not run: their numbers are 0).
    pub model_serving_tcp: Option<ServingResults>,
    /// Concurrent producers, choreographies over loopback TCP (actors not run).
    pub producers_tcp: Option<ProducerResults>,
    /// The plan that was run.
    pub plan: Plan,
}

/// The saturation rate of one implementation's points (see [`ProducerResults`]).
pub fn saturation(points: &[(f64, f64)]) -> f64 {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some(&(first, base)) = sorted.first() else {
        return 0.0;
    };
    let mut sat = first;
    for &(rate, median) in &sorted {
        if median >= 3.0 * base {
            break;
        }
        sat = rate;
    }
    sat
}

fn of(points: &[Point], imp: Implementation) -> impl Iterator<Item = &Point> {
    points.iter().filter(move |p| p.implementation == imp)
}

fn progress(what: &str, imp: Implementation, s: &Summary, failures: u64) {
    eprintln!(
        "{what:<28} {:<13} {:>6.0}/s  median {:>8.2} ms  p99 {:>8.2} ms  throughput {:>6.1}/s  answered {}/{}  failures {failures}",
        imp.name(),
        s.offered_rps,
        s.median_ms,
        s.p99_ms,
        s.throughput_rps,
        s.answered,
        s.requests
    );
}

fn implementations(net: Net) -> &'static [Implementation] {
    match net {
        Net::Memory => &Implementation::ALL,
        Net::Tcp | Net::Hosts => &Implementation::ALL[..2],
    }
}

fn run_serving(plan: &Plan, batch: u64, net: Net) -> ServingResults {
    let costs = serving::Costs::paper(batch);
    let mut points = Vec::new();
    for &rate in &plan.serving_rates {
        for &imp in implementations(net) {
            let spec = plan.spec(rate, plan.durations.2, net);
            let (summary, failures, model_use) = serving::run_profiled(imp, costs, &spec);
            progress(
                &format!("model serving (batch {batch}, {net:?})"),
                imp,
                &summary,
                failures,
            );
            points.push(Point {
                implementation: imp,
                summary,
                failures,
                model_use: Some(model_use),
            });
        }
    }
    let max = |imp| {
        of(&points, imp)
            .map(|p| p.summary.throughput_rps)
            .fold(0.0, f64::max)
    };
    ServingResults {
        batch,
        in_order_max_rps: max(Implementation::InOrder),
        out_of_order_max_rps: max(Implementation::OutOfOrder),
        actors_max_rps: max(Implementation::Actors),
        models_limit_rps: costs.models_limit_rps(),
        points,
    }
}

fn run_producers(plan: &Plan, net: Net) -> ProducerResults {
    let mut points = Vec::new();
    for &rate in &plan.producer_rates {
        for &imp in implementations(net) {
            let (summary, failures) = producers::run(imp, &plan.spec(rate, plan.durations.0, net));
            progress(&format!("producers ({net:?})"), imp, &summary, failures);
            points.push(Point {
                implementation: imp,
                summary,
                failures,
                model_use: None,
            });
        }
    }
    let sat = |imp| {
        let medians: Vec<(f64, f64)> = of(&points, imp)
            .map(|p| (p.summary.offered_rps, p.summary.median_ms))
            .collect();
        saturation(&medians)
    };
    ProducerResults {
        in_order_saturation_rps: sat(Implementation::InOrder),
        out_of_order_saturation_rps: sat(Implementation::OutOfOrder),
        actors_saturation_rps: sat(Implementation::Actors),
        points,
    }
}

fn run_send(plan: &Plan) -> SendResults {
    let spec = plan.spec(plan.send_rate, plan.durations.1, Net::Memory);
    let rounds = send_rounds::run(&spec, plan.send_rounds, |what, imp, p| {
        progress(what, imp, &p.summary, p.failures)
    });
    let (key, txt) = (rounds.key, rounds.txt);
    let median = |imp| {
        of(&key, imp)
            .map(|p| p.summary.median_ms)
            .next()
            .unwrap_or(0.0)
    };
    let costs = send::Costs::uniform(spec.seed, spec.requests());
    let ms = |c: &std::time::Duration| c.as_secs_f64() * 1e3;
    let cost_median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    // Only the sessions the medians count: those due after the warm-up.
    let first = (spec.warmup * spec.rate).ceil() as usize;
    let max = costs
        .key
        .iter()
        .zip(costs.txt.iter())
        .skip(first)
        .map(|(k, t)| ms(k.max(t)));
    let (timer_lateness_median_ms, timer_lateness_p99_ms) = timer_lateness(&spec);
    let (zero_cost_key, closed_loop) = send_profiles(plan, &spec);
    SendResults {
        zero_cost_key,
        closed_loop,
        timer_lateness_median_ms,
        timer_lateness_p99_ms,
        cost_key_median_ms: cost_median(costs.key.iter().skip(first).map(ms).collect()),
        cost_max_median_ms: cost_median(max.collect()),
        rate: plan.send_rate,
        rounds: plan.send_rounds.max(1),
        out_of_order_minus_actors_key_ms: Some(rounds.out_of_order_minus_actors_key_ms),
        in_order_key_median_ms: median(Implementation::InOrder),
        out_of_order_key_median_ms: median(Implementation::OutOfOrder),
        actors_key_median_ms: median(Implementation::Actors),
        key,
        txt,
    }
}

/// The overhead profiles of concurrent send: zero costs open loop (like the benchmark)
/// and closed loop (one session at a time), for every implementation.
fn send_profiles(plan: &Plan, spec: &Spec) -> (Vec<Point>, Vec<SendProfile>) {
    let mut open = Vec::new();
    let mut closed = Vec::new();
    for imp in Implementation::ALL {
        let costs = send::Costs::zero(spec.requests());
        let (k, _, failures) = send::run_with_costs(imp, spec, costs);
        progress("concurrent send, zero cost", imp, &k, failures);
        open.push(Point {
            implementation: imp,
            summary: k,
            failures,
            model_use: None,
        });
        let sessions = if plan.durations.1 >= 10.0 { 5000 } else { 500 };
        let p = profile::concurrent_send(
            imp,
            sessions,
            plan.threads,
            std::time::Duration::from_secs(10),
        );
        eprintln!("{p:?}");
        closed.push(p);
    }
    (open, closed)
}

/// The lateness of [`crate::clock::sleep`] alone: 200 sleeps of uniform 0–5 ms costs,
/// one every 10 ms, on a runtime like the runs'; (median, p99) in ms.
fn timer_lateness(spec: &Spec) -> (f64, f64) {
    let costs = crate::load::uniform_costs(spec.seed, 200, std::time::Duration::from_millis(5));
    let late = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let probe = Spec {
        duration: 2.0,
        drain: 1.0,
        ..*spec
    };
    crate::load::run_bounded(&probe, || async {
        let mut tasks = Vec::new();
        for (i, cost) in costs.into_iter().enumerate() {
            let late = late.clone();
            tasks.push(tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_millis(10 * i as u64)).await;
                let start = std::time::Instant::now();
                crate::clock::sleep(cost).await;
                let l = start.elapsed().saturating_sub(cost).as_secs_f64() * 1e3;
                late.lock().expect("lateness").push(l);
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
    let mut late = late.lock().expect("lateness").clone();
    late.sort_by(f64::total_cmp);
    let at = |q: f64| {
        late.get(((late.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    (at(0.5), at(0.99))
}

/// Runs the plan (printing progress on standard error).
pub fn run(plan: &Plan) -> Results {
    let producers = run_producers(plan, Net::Memory);
    let concurrent_send = run_send(plan);
    let mut serving: Vec<ServingResults> = plan
        .batches
        .iter()
        .map(|&b| run_serving(plan, b, Net::Memory))
        .collect();
    let model_serving = serving.remove(0);
    let headline = model_serving.batch;
    let model_serving_tcp = plan.tcp.then(|| run_serving(plan, headline, Net::Tcp));
    let producers_tcp = plan.tcp.then(|| run_producers(plan, Net::Tcp));
    Results {
        model_serving,
        model_serving_other_batches: serving,
        producers,
        concurrent_send,
        model_serving_tcp,
        producers_tcp,
        plan: plan.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::saturation;

    #[test]
    fn saturation_is_the_last_rate_under_three_times_the_first_median() {
        assert_eq!(
            saturation(&[(20.0, 2.0), (40.0, 5.9), (80.0, 6.0), (160.0, 3.0)]),
            40.0
        );
        assert_eq!(saturation(&[(40.0, 1.0), (20.0, 2.0)]), 40.0);
        assert_eq!(saturation(&[(20.0, 2.0), (40.0, 2.0)]), 40.0);
        assert_eq!(saturation(&[]), 0.0);
    }
}
