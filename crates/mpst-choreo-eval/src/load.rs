//! Open-loop load: a schedule of intended send times, latencies measured from the
//! intended time (no coordinated omission) into hdrhistogram, seeded random costs, and
//! runs bounded in time on a fresh tokio runtime.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::drive::Net;

/// How one run is loaded and bounded.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spec {
    /// Offered load: requests per second.
    pub rate: f64,
    /// How long requests are sent (seconds).
    pub duration: f64,
    /// Requests sent in the first `warmup` seconds are left out of the statistics.
    pub warmup: f64,
    /// How long, after the last send, answers are still awaited (seconds).
    pub drain: f64,
    /// The seed of the random costs.
    pub seed: u64,
    /// The choreographies' transport.
    pub net: Net,
    /// Tokio worker threads of the run's runtime (1: a current-thread runtime).
    pub threads: usize,
}

impl Spec {
    /// A short in-memory run for tests: `rate` requests per second for `duration`
    /// seconds, every session counted (no warm-up), 5 s to drain, seed 7, two workers.
    pub fn small(rate: f64, duration: f64) -> Self {
        Spec {
            rate,
            duration,
            warmup: 0.0,
            drain: 5.0,
            seed: 7,
            net: crate::drive::Net::Memory,
            threads: 2,
        }
    }

    /// How many requests the run sends.
    pub fn requests(&self) -> u64 {
        (self.rate * self.duration).round().max(1.0) as u64
    }

    /// The bound of the whole run: sending plus draining.
    pub fn bound(&self) -> Duration {
        Duration::from_secs_f64(self.duration + self.drain)
    }
}

/// Intended send times: request `i` is due at `start + i / rate`.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// When request 0 is due.
    pub start: Instant,
    /// The time between two requests.
    pub interval: Duration,
}

impl Schedule {
    /// A schedule for `spec` starting a little after now (so every role is ready; TCP
    /// connections get half a second).
    pub fn new(spec: &Spec) -> Self {
        let start = match spec.net {
            Net::Memory => Instant::now() + Duration::from_millis(20),
            Net::Tcp => Instant::now() + Duration::from_millis(500),
            // The placement's start, on which its links' jitter may be drawn.
            Net::Hosts => crate::impaired::hosts::Placement::current().start(),
        };
        Schedule {
            start,
            interval: Duration::from_secs_f64(1.0 / spec.rate),
        }
    }

    /// When request `i` is due.
    pub fn at(&self, i: u64) -> Instant {
        self.start + self.interval.mul_f64(i as f64)
    }
}

/// `n` costs drawn uniformly from `0..=max` (microsecond resolution) with `seed`.
pub fn uniform_costs(seed: u64, n: u64, max: Duration) -> Vec<Duration> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let max = max.as_micros() as u64;
    (0..n)
        .map(|_| Duration::from_micros(rng.random_range(0..=max)))
        .collect()
}

/// The latency of every request of one series (e.g. the producers' answers, or `key`),
/// indexed by request number; `None` while unanswered.
#[derive(Debug)]
pub struct Series {
    intended: Vec<Instant>,
    latency: Vec<Option<Duration>>,
}

/// Where the implementations record answers: one [`Series`] per name, shared by tasks.
#[derive(Clone, Debug)]
pub struct Recorder {
    schedule: Schedule,
    series: Arc<Mutex<Vec<(&'static str, Series)>>>,
    answered: Arc<AtomicU64>,
    changed: Arc<tokio::sync::Notify>,
    /// Notified once, by the last answer (the end of a run waits on it, not on a clock).
    complete: Arc<tokio::sync::Notify>,
    total: u64,
}

impl Recorder {
    /// A recorder for `requests` requests of each of the `names` series, due on
    /// `schedule` (request `i` of every series is due at `schedule.at(i)`).
    pub fn new(schedule: Schedule, requests: u64, names: &[&'static str]) -> Self {
        let series = names
            .iter()
            .map(|&name| {
                let intended = (0..requests).map(|i| schedule.at(i)).collect();
                let latency = vec![None; requests as usize];
                (name, Series { intended, latency })
            })
            .collect();
        Recorder {
            schedule,
            series: Arc::new(Mutex::new(series)),
            answered: Arc::new(AtomicU64::new(0)),
            changed: Arc::new(tokio::sync::Notify::new()),
            complete: Arc::new(tokio::sync::Notify::new()),
            total: requests * names.len() as u64,
        }
    }

    /// The schedule the requests are due on.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Records that request `i` of `name` is answered now. A second answer is ignored.
    pub fn answer(&self, name: &str, i: u64) {
        let now = Instant::now();
        let mut all = self.series.lock().expect("recorder lock");
        if let Some((_, s)) = all.iter_mut().find(|(n, _)| *n == name)
            && let Some(slot) = s.latency.get_mut(i as usize)
            && slot.is_none()
        {
            *slot = Some(now.saturating_duration_since(s.intended[i as usize]));
            let answered = self.answered.fetch_add(1, Ordering::Relaxed) + 1;
            self.changed.notify_one();
            if answered == self.total {
                self.complete.notify_one();
            }
        }
    }

    /// The latency recorded for request `i` of `name` (`None` while unanswered).
    pub fn latency(&self, name: &str, i: u64) -> Option<Duration> {
        let all = self.series.lock().expect("recorder lock");
        let (_, s) = all.iter().find(|(n, _)| *n == name)?;
        s.latency.get(i as usize).copied().flatten()
    }

    /// Waits until at least `count` answers (over all series) are recorded.
    pub async fn wait_for_answers(&self, count: u64) {
        while self.answered.load(Ordering::Relaxed) < count {
            self.changed.notified().await;
        }
    }

    /// Whether every request of every series is answered.
    pub fn all_answered(&self) -> bool {
        self.answered.load(Ordering::Relaxed) == self.total
    }

    /// The statistics of the series `names` together, for a run of `spec` that ended
    /// at `end`.
    pub fn summary(&self, names: &[&str], spec: &Spec, end: Instant) -> Summary {
        summary_of_runs([(self, end)], names, spec)
    }
}

/// The statistics of one series in one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Offered load (requests per second).
    pub offered_rps: f64,
    /// Requests sent (over all the series summarised).
    pub requests: u64,
    /// Requests answered before the run's bound.
    pub answered: u64,
    /// Answers completed per second within the measurement window (after the warm-up,
    /// up to the last send).
    pub throughput_rps: f64,
    /// Median latency (ms) of the requests sent after the warm-up; an unanswered request
    /// counts with the latency it had reached at the bound (a lower bound).
    pub median_ms: f64,
    /// 99th percentile latency (ms), same population.
    pub p99_ms: f64,
    /// Mean latency (ms), same population.
    pub mean_ms: f64,
    /// Latency histogram: (upper bound in ms, count) per 0.5 ms bucket up to 20 ms, then
    /// one bucket for the rest (its bound, infinity, is `null` in JSON).
    #[serde(deserialize_with = "buckets_from_json")]
    pub buckets: Vec<(f64, u64)>,
}

/// Reads [`Summary::buckets`] back from JSON, where the last bound (infinity) is `null`.
fn buckets_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(f64, u64)>, D::Error> {
    let raw: Vec<(Option<f64>, u64)> = Deserialize::deserialize(d)?;
    Ok(raw
        .into_iter()
        .map(|(bound, count)| (bound.unwrap_or(f64::INFINITY), count))
        .collect())
}

/// What a [`Summary`] counts, over one run or several.
struct Tally {
    hist: Histogram<u64>,
    completed_in_window: u64,
    answered: u64,
    buckets: Vec<u64>,
    requests: u64,
}

impl Tally {
    fn new() -> Self {
        Tally {
            hist: Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("bounds"),
            completed_in_window: 0,
            answered: 0,
            buckets: vec![0u64; 41],
            requests: 0,
        }
    }

    /// Counts `series` of one run that started at `start` and ended at `end`.
    fn add<'a>(
        &mut self,
        series: impl Iterator<Item = &'a Series>,
        spec: &Spec,
        start: Instant,
        end: Instant,
    ) {
        let warm = start + Duration::from_secs_f64(spec.warmup);
        let window_end = start + Duration::from_secs_f64(spec.duration);
        for (intended, latency) in series.flat_map(|s| s.intended.iter().zip(&s.latency)) {
            self.requests += 1;
            if let Some(l) = latency {
                self.answered += 1;
                let done = *intended + *l;
                if done >= warm && done <= window_end {
                    self.completed_in_window += 1;
                }
            }
            if *intended < warm {
                continue;
            }
            let l = latency.unwrap_or_else(|| end.saturating_duration_since(*intended));
            self.hist.saturating_record((l.as_micros() as u64).max(1));
            let b = ((l.as_secs_f64() * 1000.0 / 0.5).floor() as usize).min(40);
            self.buckets[b] += 1;
        }
    }

    /// The statistics of what was counted over `runs` runs of `spec`.
    fn summary(self, spec: &Spec, runs: usize) -> Summary {
        let ms = |us: u64| us as f64 / 1000.0;
        let window = (spec.duration - spec.warmup).max(1e-9) * runs.max(1) as f64;
        Summary {
            offered_rps: spec.rate,
            requests: self.requests,
            answered: self.answered,
            throughput_rps: self.completed_in_window as f64 / window,
            median_ms: ms(self.hist.value_at_quantile(0.5)),
            p99_ms: ms(self.hist.value_at_quantile(0.99)),
            mean_ms: self.hist.mean() / 1000.0,
            buckets: self
                .buckets
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        if i == 40 {
                            f64::INFINITY
                        } else {
                            (i + 1) as f64 * 0.5
                        },
                        c,
                    )
                })
                .collect(),
        }
    }
}

/// The statistics of the series `names` over several runs of `spec` taken together, as
/// if one run had sent every request (each recorder with the instant its run ended):
/// concurrent send's alternating rounds. Throughput is per run's window.
pub fn summary_of_runs<'a>(
    runs: impl IntoIterator<Item = (&'a Recorder, Instant)>,
    names: &[&str],
    spec: &Spec,
) -> Summary {
    let (mut tally, mut count) = (Tally::new(), 0);
    for (recorder, end) in runs {
        count += 1;
        let all = recorder.series.lock().expect("recorder lock");
        let chosen = all
            .iter()
            .filter(|(n, _)| names.contains(n))
            .map(|(_, s)| s);
        tally.add(chosen, spec, recorder.schedule.start, end);
    }
    tally.summary(spec, count)
}

/// Runs `body` on a fresh runtime with `spec.threads` workers,
/// bounded by `spec.bound()` plus five seconds of slack; returns when the body finishes or
/// the bound passes, whichever is first, and the instant it stopped. Everything the
/// body spawned is dropped with the runtime.
pub fn run_bounded<F, Fut>(spec: &Spec, body: F) -> Instant
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut builder = if spec.threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(spec.threads);
        b
    };
    let runtime = builder.enable_all().build().expect("a tokio runtime");
    let bound = spec.bound() + Duration::from_secs(5);
    let end = runtime.block_on(async move {
        let _ = tokio::time::timeout(bound, body()).await;
        Instant::now()
    });
    runtime.shutdown_background();
    end
}

/// Waits until `recorder` has every answer or `deadline` passes. Woken by the last
/// answer, not by polling: a poll every millisecond woke a worker and the runtime's own
/// thread a thousand times a second, on the cores the precise timer's thread and the
/// implementations measured share (it made the timer fire up to 0.1 ms later, more the
/// longer a sleep, and differently for each implementation).
pub async fn until_answered(recorder: &Recorder, deadline: Instant) {
    let all = async {
        while !recorder.all_answered() {
            recorder.complete.notified().await;
        }
    };
    let _ = tokio::time::timeout_at(deadline, all).await;
}

#[cfg(test)]
mod tests {
    use super::Summary;

    #[test]
    fn a_summary_reads_back_from_its_json_with_the_infinite_bucket() {
        let s = Summary {
            offered_rps: 50.0,
            requests: 3,
            answered: 3,
            throughput_rps: 50.0,
            median_ms: 1.5,
            p99_ms: 30.0,
            mean_ms: 10.0,
            buckets: vec![(0.5, 1), (1.0, 1), (f64::INFINITY, 1)],
        };
        let json = serde_json::to_string(&s).expect("serialises");
        assert!(json.contains("null"), "infinity is written as null: {json}");
        let back: Summary = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back.buckets, s.buckets);
        assert_eq!(back.median_ms, s.median_ms);
    }
}
