//! How sure a comparison of two medians is: a seeded bootstrap 95 % interval of the
//! ratio (or difference) of the medians of two samples of concurrent send's `key`, paired
//! by session (the same session of two implementations has the same seeded service costs,
//! so resampling sessions, not latencies, keeps that pairing), and the verdict it allows:
//! met, missed, or level within the run's resolution.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 2000;

/// An estimate and its bootstrap 95 % interval (2.5th and 97.5th percentiles of the
/// resampled estimates).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The estimate on the whole sample.
    pub estimate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl Interval {
    /// Where the interval lies against `bound`: wholly at or below it, wholly above it,
    /// or across it.
    pub fn against(&self, bound: f64) -> Side {
        if self.high <= bound {
            Side::AtOrBelow
        } else if self.low > bound {
            Side::Above
        } else {
            Side::Across
        }
    }

    /// `1.01× (0.99–1.03)` with `unit` and `digits` decimals.
    pub fn show(&self, digits: usize, unit: &str) -> String {
        format!(
            "{:.digits$}{unit} ({:.digits$}–{:.digits$})",
            self.estimate, self.low, self.high
        )
    }
}

/// Where an [`Interval`] lies against a bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Every plausible value is at or below the bound.
    AtOrBelow,
    /// Every plausible value is above it.
    Above,
    /// The bound is inside the interval: the run cannot tell.
    Across,
}

/// What a goal's comparison allows one to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Verdict {
    /// The goal holds beyond the run's resolution.
    Met,
    /// Neither holds nor fails within the run's resolution.
    Level,
    /// The goal fails beyond the run's resolution.
    Missed,
}

impl Verdict {
    /// The words in the goals table.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Met => "yes",
            Verdict::Level => "level within the run's resolution",
            Verdict::Missed => "**no**",
        }
    }
}

/// The median of `v` (the mean of the two middle values of an even count); `NaN` when
/// empty. An unanswered session is `f64::INFINITY`.
pub fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let (_, &mut upper, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return upper;
    }
    let lower = v[..n / 2].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lower + upper) / 2.0
}

/// `f(median(a), median(b))` and its seeded bootstrap 95 % interval, `a[i]` and `b[i]`
/// resampled together (one session of each implementation). `a` and `b` must be as long
/// as each other (the same sessions); an empty pair gives `NaN`s.
pub fn paired(a: &[f64], b: &[f64], f: fn(f64, f64) -> f64, seed: u64) -> Interval {
    paired_with(a, b, f, seed, RESAMPLES)
}

fn paired_with(
    a: &[f64],
    b: &[f64],
    f: fn(f64, f64) -> f64,
    seed: u64,
    resamples: usize,
) -> Interval {
    assert_eq!(a.len(), b.len(), "paired samples are of the same sessions");
    let n = a.len();
    let estimate = f(median(&mut a.to_vec()), median(&mut b.to_vec()));
    if n == 0 {
        return Interval {
            estimate,
            low: f64::NAN,
            high: f64::NAN,
        };
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut ra, mut rb) = (vec![0.0; n], vec![0.0; n]);
    let mut estimates: Vec<f64> = (0..resamples.max(1))
        .map(|_| {
            for j in 0..n {
                let i = rng.random_range(0..n);
                ra[j] = a[i];
                rb[j] = b[i];
            }
            f(median(&mut ra), median(&mut rb))
        })
        .collect();
    estimates.sort_by(f64::total_cmp);
    let last = estimates.len() - 1;
    let at = |q: f64| estimates[((q * estimates.len() as f64) as usize).min(last)];
    Interval {
        estimate,
        low: at(0.025),
        high: at(0.975),
    }
}

/// The ratio of medians `a / b`, paired ([`paired`]).
pub fn ratio(a: &[f64], b: &[f64], seed: u64) -> Interval {
    paired(a, b, |x, y| x / y, seed)
}

/// The difference of medians `a - b`, paired ([`paired`]).
pub fn difference(a: &[f64], b: &[f64], seed: u64) -> Interval {
    paired(a, b, |x, y| x - y, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_even_and_unanswered_samples() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut [1.0, f64::INFINITY, 2.0]), 2.0);
        assert!(median(&mut []).is_nan());
    }

    /// A sample whose median is known: 1..=n scaled.
    fn ramp(n: usize, scale: f64) -> Vec<f64> {
        (1..=n).map(|i| i as f64 * scale).collect()
    }

    #[test]
    fn a_known_ratio_has_a_tight_interval_around_it() {
        // b is a exactly doubled, session by session: every resample has ratio 0.5.
        let a = ramp(401, 1.0);
        let b = ramp(401, 2.0);
        let r = ratio(&a, &b, 1);
        assert_eq!(r.estimate, 0.5);
        assert_eq!((r.low, r.high), (0.5, 0.5));
        assert_eq!(r.against(1.0), Side::AtOrBelow);
        assert_eq!(r.against(0.4), Side::Above);
    }

    /// `n` sessions of independent noise around 10 and 10.5 (true medians 10.5, 11).
    fn noisy(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let a: Vec<f64> = (0..n).map(|_| 10.0 + rng.random::<f64>()).collect();
        let b: Vec<f64> = (0..n).map(|_| 10.5 + rng.random::<f64>()).collect();
        (a, b)
    }

    #[test]
    fn the_interval_covers_the_truth_about_95_times_in_100() {
        let truth = 10.5 / 11.0;
        let repeats = 80;
        let covered = (0..repeats)
            .filter(|&k| {
                let (a, b) = noisy(100, 1000 + k);
                let r = paired_with(&a, &b, |x, y| x / y, k, 500);
                assert!(r.low <= r.estimate && r.estimate <= r.high, "{r:?}");
                r.low <= truth && truth <= r.high
            })
            .count();
        // 95 % of 80 is 76, with a standard deviation of about 2.
        assert!(covered >= 68, "covered {covered} of {repeats}");
    }

    #[test]
    fn the_interval_narrows_as_the_sessions_grow() {
        // Four times the sessions: about half the width.
        let width = |n| {
            let (a, b) = noisy(n, 3);
            let r = ratio(&a, &b, 9);
            r.high - r.low
        };
        let (small, large) = (width(400), width(1600));
        assert!(
            large < 0.75 * small && large > 0.3 * small,
            "{small} {large}"
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_interval() {
        let a = ramp(101, 1.0);
        let b: Vec<f64> = a.iter().rev().map(|x| x + 0.5).collect();
        assert_eq!(difference(&a, &b, 5), difference(&a, &b, 5));
        let d = difference(&a, &b, 5);
        assert_eq!(d.estimate, -0.5);
        assert_eq!(d.against(0.0), Side::Across);
    }

    #[test]
    fn verdicts_order_from_met_to_missed() {
        assert!(Verdict::Met < Verdict::Level && Verdict::Level < Verdict::Missed);
        assert_eq!(Verdict::Level.words(), "level within the run's resolution");
    }
}
