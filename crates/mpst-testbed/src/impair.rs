//! What a link does to traffic ([`Impairment`]) and the seeded dice that decide it for
//! each TCP chunk or UDP datagram ([`Fate`], [`Fates`]).

use std::time::Duration;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// How a link impairs the traffic crossing it, the same in both directions (each
/// direction, and each TCP connection, draws from its own seeded stream).
///
/// TCP is a byte stream, so "loss" there cannot drop bytes: a lost chunk is *stalled*
/// for [`stall`](Self::stall), as a retransmission after a lost segment would be, and
/// [`reset`](Self::reset) resets the connection. Reordering within one TCP connection is
/// meaningless; jitter reorders messages *across* connections (each has its own delays).
#[derive(Clone, Debug, PartialEq)]
pub struct Impairment {
    /// One-way delay added to every chunk or datagram.
    pub delay: Duration,
    /// Each delay is drawn uniformly from `delay ± jitter` (never below zero).
    pub jitter: Duration,
    /// UDP: probability that a datagram is dropped. TCP: probability that a chunk is
    /// stalled for [`stall`](Self::stall) before it passes.
    pub loss: f64,
    /// TCP: how long a "lost" chunk is held (a retransmission time-out).
    pub stall: Duration,
    /// TCP: probability, per chunk, that the connection is reset (both ends get an RST).
    pub reset: f64,
    /// UDP: probability that a datagram is delivered twice (the copy with its own delay).
    pub duplicate: f64,
    /// UDP: probability that a datagram is held back by [`reorder_gap`](Self::reorder_gap)
    /// more, so that later datagrams overtake it.
    pub reorder: f64,
    /// UDP: the extra delay of a reordered datagram.
    pub reorder_gap: Duration,
    /// Bytes per second per direction (shared by all connections on the link); `None`
    /// is unlimited.
    pub bandwidth: Option<u64>,
}

impl Default for Impairment {
    fn default() -> Self {
        Self::none()
    }
}

impl Impairment {
    /// A perfect link: no delay, no loss.
    pub const fn none() -> Self {
        Impairment {
            delay: Duration::ZERO,
            jitter: Duration::ZERO,
            loss: 0.0,
            stall: Duration::from_millis(200),
            reset: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
            reorder_gap: Duration::from_millis(10),
            bandwidth: None,
        }
    }

    /// Sets the one-way delay.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sets the jitter (delays drawn from `delay ± jitter`).
    pub fn jitter(mut self, jitter: Duration) -> Self {
        self.jitter = jitter;
        self
    }

    /// Sets the loss probability (clamped to 0..=1).
    pub fn loss(mut self, p: f64) -> Self {
        self.loss = clamp(p);
        self
    }

    /// Sets how long a lost TCP chunk stalls.
    pub fn stall(mut self, stall: Duration) -> Self {
        self.stall = stall;
        self
    }

    /// Sets the per-chunk probability of a TCP reset (clamped to 0..=1).
    pub fn reset(mut self, p: f64) -> Self {
        self.reset = clamp(p);
        self
    }

    /// Sets the UDP duplication probability (clamped to 0..=1).
    pub fn duplicate(mut self, p: f64) -> Self {
        self.duplicate = clamp(p);
        self
    }

    /// Sets the UDP reordering probability and the extra delay of a reordered datagram.
    pub fn reorder(mut self, p: f64, gap: Duration) -> Self {
        self.reorder = clamp(p);
        self.reorder_gap = gap;
        self
    }

    /// Limits each direction to `bytes_per_second`.
    pub fn bandwidth(mut self, bytes_per_second: u64) -> Self {
        self.bandwidth = Some(bytes_per_second.max(1));
        self
    }

    /// The fates of successive chunks or datagrams of one stream seeded with `seed`.
    pub fn fates(&self, seed: u64) -> Fates {
        Fates {
            impairment: self.clone(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }
}

fn clamp(p: f64) -> f64 {
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// What happens to one TCP chunk or UDP datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate {
    /// Its delay: `delay ± jitter`, plus the reordering gap if it is held back (a lost
    /// TCP chunk waits the impairment's `stall` on top).
    pub delay: Duration,
    /// UDP: dropped. TCP: stalled (its `delay` includes the stall).
    pub lost: bool,
    /// UDP: the delay of a second copy, if it is duplicated.
    pub duplicate: Option<Duration>,
    /// TCP: the connection is reset instead of passing the chunk.
    pub reset: bool,
}

/// The seeded sequence of [`Fate`]s of one stream: the n-th item depends only on the
/// seed, the impairment and n. Every item draws the same number of random values, so a
/// change of one probability leaves the other decisions of the stream in place.
#[derive(Clone, Debug)]
pub struct Fates {
    impairment: Impairment,
    rng: Xoshiro256PlusPlus,
}

impl Fates {
    /// A delay drawn from `delay ± jitter`.
    fn jittered(&self, u: f64) -> Duration {
        let imp = &self.impairment;
        let base = imp.delay.as_secs_f64();
        let spread = imp.jitter.as_secs_f64();
        Duration::from_secs_f64((base + spread * (2.0 * u - 1.0)).max(0.0))
    }

    /// Changes the impairment for the following items (the stream goes on).
    pub(crate) fn set(&mut self, impairment: &Impairment) {
        self.impairment = impairment.clone();
    }
}

impl Iterator for Fates {
    type Item = Fate;

    fn next(&mut self) -> Option<Fate> {
        let [u_delay, u_loss, u_reset, u_dup, u_dup_delay, u_reorder]: [f64; 6] =
            std::array::from_fn(|_| self.rng.random::<f64>());
        let imp = &self.impairment;
        let lost = u_loss < imp.loss;
        let mut delay = self.jittered(u_delay);
        if u_reorder < imp.reorder {
            delay += imp.reorder_gap;
        }
        Some(Fate {
            delay,
            lost,
            duplicate: (u_dup < imp.duplicate).then(|| self.jittered(u_dup_delay)),
            reset: u_reset < imp.reset,
        })
    }
}

/// Mixes a bed's seed with the numbers naming one stream (link, direction, connection)
/// into that stream's seed (SplitMix64 finalizer over each part).
pub(crate) fn stream_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut h = seed;
    for &p in parts {
        h ^= p.wrapping_add(0x9e37_79b9_7f4a_7c15).wrapping_add(h << 6);
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^= h >> 31;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_fates_other_seed_other_fates() {
        let imp = Impairment::none()
            .delay(Duration::from_millis(20))
            .jitter(Duration::from_millis(5))
            .loss(0.3)
            .duplicate(0.2);
        let a: Vec<Fate> = imp.fates(7).take(200).collect();
        let b: Vec<Fate> = imp.fates(7).take(200).collect();
        let c: Vec<Fate> = imp.fates(8).take(200).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn delays_stay_within_jitter_and_never_negative() {
        let imp = Impairment::none()
            .delay(Duration::from_millis(3))
            .jitter(Duration::from_millis(5));
        for f in imp.fates(1).take(1000) {
            assert!(f.delay <= Duration::from_millis(8), "{f:?}");
        }
        assert!(imp.fates(1).take(1000).any(|f| f.delay.is_zero()));
    }

    #[test]
    fn loss_frequency_follows_probability_and_extremes_are_exact() {
        let lost = |p: f64| {
            Impairment::none()
                .loss(p)
                .fates(42)
                .take(10_000)
                .filter(|f| f.lost)
                .count()
        };
        assert_eq!(lost(0.0), 0);
        assert_eq!(lost(1.0), 10_000);
        // 10,000 trials at p = 0.1: sigma = 30, so 5 sigma is 150.
        assert!((lost(0.1) as i64 - 1000).abs() < 150, "{}", lost(0.1));
    }

    #[test]
    fn stream_seeds_differ_by_part() {
        let s = |p: &[u64]| stream_seed(1, p);
        assert_ne!(s(&[0, 0]), s(&[0, 1]));
        assert_ne!(s(&[0, 1]), s(&[1, 0]));
        assert_eq!(s(&[3, 4]), s(&[3, 4]));
    }
}
