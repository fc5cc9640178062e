//! Where the models' time goes in model serving: each model's busy intervals, and from
//! them how much of the measurement window one model, both at once, or neither was
//! serving (the in-order pipeline's bound is visible here: never both at once).

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

/// The busy intervals of the models of one run.
#[derive(Debug, Default)]
pub struct Busy {
    intervals: Mutex<Vec<(Instant, Instant)>>,
}

/// How the models spent the measurement window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelUse {
    /// Model-seconds of serving per second of window (0 to 2 with two models).
    pub busy_models: f64,
    /// Fraction of the window with both models serving at once.
    pub both_busy: f64,
    /// Fraction of the window with exactly one model serving.
    pub one_busy: f64,
    /// Fraction of the window with no model serving.
    pub none_busy: f64,
    /// Batches that started serving within the window.
    pub batches: u64,
    /// The window's length (seconds).
    pub window_s: f64,
}

impl Busy {
    /// Records that a model served from `start` to `end`.
    pub fn record(&self, start: Instant, end: Instant) {
        if let Ok(mut all) = self.intervals.lock() {
            all.push((start, end));
        }
    }

    /// The models' use of the window `from..to` (intervals are clipped to it).
    pub fn usage(&self, from: Instant, to: Instant) -> ModelUse {
        let all = match self.intervals.lock() {
            Ok(all) => all.clone(),
            Err(_) => return ModelUse::default(),
        };
        let window = to.saturating_duration_since(from).as_secs_f64();
        if window <= 0.0 {
            return ModelUse::default();
        }
        let batches = all.iter().filter(|(s, _)| *s >= from && *s < to).count() as u64;
        // Sweep over the clipped starts (+1) and ends (-1); time spent at each count.
        let mut events: Vec<(Instant, i32)> = Vec::new();
        for &(s, e) in &all {
            let (s, e) = (s.max(from), e.min(to));
            if s < e {
                events.push((s, 1));
                events.push((e, -1));
            }
        }
        events.sort();
        let mut at = [0.0f64; 3];
        let (mut now, mut running) = (from, 0i32);
        for (t, delta) in events {
            at[running.clamp(0, 2) as usize] += t.saturating_duration_since(now).as_secs_f64();
            now = t;
            running += delta;
        }
        at[running.clamp(0, 2) as usize] += to.saturating_duration_since(now).as_secs_f64();
        ModelUse {
            busy_models: (at[1] + 2.0 * at[2]) / window,
            both_busy: at[2] / window,
            one_busy: at[1] / window,
            none_busy: at[0] / window,
            batches,
            window_s: window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn overlapping_intervals_are_counted_once_per_model_and_clipped() {
        let t0 = Instant::now();
        let ms = |m| t0 + Duration::from_millis(m);
        let busy = Busy::default();
        busy.record(ms(0), ms(60)); // clipped to 10..60
        busy.record(ms(40), ms(80)); // both busy 40..60
        busy.record(ms(100), ms(150)); // clipped to 100..110
        let u = busy.usage(ms(10), ms(110));
        assert!((u.both_busy - 0.2).abs() < 1e-9, "{u:?}");
        assert!((u.one_busy - 0.6).abs() < 1e-9, "{u:?}");
        assert!((u.none_busy - 0.2).abs() < 1e-9, "{u:?}");
        assert!((u.busy_models - 1.0).abs() < 1e-9, "{u:?}");
        assert_eq!(u.batches, 2);
    }
}
