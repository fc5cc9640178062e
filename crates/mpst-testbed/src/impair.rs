//! What a link does to traffic ([`Impairment`]) and the seeded dice that decide it for
//! each TCP chunk or UDP datagram ([`Fate`], [`Fates`]).

use std::time::{Duration, Instant};

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
    /// TCP: draw the jitter per time slot of the link's direction instead of per chunk
    /// ([`Impairment::jitter_per_slot`]); `None` draws it per chunk.
    pub slots: Option<Slots>,
}

/// Jitter drawn per time slot: every TCP chunk that enters one direction of a link
/// within the same slot (`slot` long, counted from `epoch`) is delayed alike, by
/// `delay ± jitter` drawn from `seed`, the link, the direction and the slot's number.
///
/// A link so modelled has a delay that changes every `slot` (as the queue ahead of a
/// packet does) and is shared by every connection crossing it then, rather than a fresh
/// draw for each chunk. Its use: *common random numbers*. Two runs whose sessions send
/// the same messages at the same times after `epoch` (an evaluation comparing
/// implementations on one schedule) meet the same delays, so their difference is the
/// implementations', not the dice's; a message sent a little later than its twin may
/// fall into the next slot (a new draw), so the pairing is close, not exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots {
    /// Where slot 0 starts (chunks before it are in slot 0).
    pub epoch: Instant,
    /// How long one slot lasts (at least a microsecond is used).
    pub slot: Duration,
    /// The seed of the draws.
    pub seed: u64,
}

impl Slots {
    /// The jitter's uniform draw in `0..1` for a chunk entering direction `direction` of
    /// link `link` at `at`.
    fn uniform(&self, link: u64, direction: u64, at: Instant) -> f64 {
        let slot = self.slot.as_nanos().max(1_000);
        let number = (at.saturating_duration_since(self.epoch).as_nanos() / slot) as u64;
        let bits = stream_seed(self.seed, &[link, direction, number]);
        (bits >> 11) as f64 / (1u64 << 53) as f64
    }
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
            slots: None,
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

    /// TCP: draws the jitter per slot of `slot` from `epoch` with `seed` ([`Slots`]), so
    /// that runs on the same schedule meet the same delays.
    pub fn jitter_per_slot(mut self, epoch: Instant, slot: Duration, seed: u64) -> Self {
        self.slots = Some(Slots { epoch, slot, seed });
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
    if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
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

    /// The delay of a TCP chunk entering direction `direction` of link `link` at `at`
    /// whose fate is `fate`: `fate.delay`, unless the jitter is drawn per slot
    /// ([`Slots`]), then the slot's draw (plus the stall of a lost chunk, which the
    /// caller adds as before).
    pub(crate) fn delay_at(&self, fate: &Fate, link: u64, direction: u64, at: Instant) -> Duration {
        match &self.impairment.slots {
            Some(slots) => self.jittered(slots.uniform(link, direction, at)),
            None => fate.delay,
        }
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
    fn slotted_jitter_is_shared_within_a_slot_and_drawn_anew_across() {
        let epoch = Instant::now();
        let ms = Duration::from_millis;
        let imp = Impairment::none()
            .delay(ms(20))
            .jitter(ms(2))
            .jitter_per_slot(epoch, ms(1), 9);
        let fates = imp.fates(1);
        let fate = imp.fates(2).next().expect("a fate");
        let at = |link, dir, t: Duration| fates.delay_at(&fate, link, dir, epoch + t);
        let us = Duration::from_micros;
        // The same slot: the same delay, whichever stream (connection) the chunk is on.
        assert_eq!(at(0, 0, us(100)), at(0, 0, us(900)));
        assert_eq!(
            at(0, 0, us(100)),
            imp.fates(77).delay_at(&fate, 0, 0, epoch + us(500))
        );
        // Other slots, directions and links draw anew, within delay ± jitter.
        let draws: Vec<Duration> = (0..200).map(|k| at(0, 0, ms(k))).collect();
        assert!(
            draws.iter().all(|d| *d >= ms(18) && *d <= ms(22)),
            "{draws:?}"
        );
        let distinct: std::collections::BTreeSet<_> = draws.iter().collect();
        assert!(distinct.len() > 190, "{} distinct", distinct.len());
        assert_ne!(at(0, 0, us(100)), at(0, 1, us(100)));
        assert_ne!(at(0, 0, us(100)), at(1, 0, us(100)));
        // Before the epoch is slot 0; without slots the fate's own delay stands.
        assert_eq!(fates.delay_at(&fate, 0, 0, epoch - ms(5)), at(0, 0, us(1)));
        let plain = Impairment::none().delay(ms(20)).jitter(ms(2)).fates(1);
        assert_eq!(plain.delay_at(&fate, 0, 0, epoch), fate.delay);
    }

    #[test]
    fn stream_seeds_differ_by_part() {
        let s = |p: &[u64]| stream_seed(1, p);
        assert_ne!(s(&[0, 0]), s(&[0, 1]));
        assert_ne!(s(&[0, 1]), s(&[1, 0]));
        assert_eq!(s(&[3, 4]), s(&[3, 4]));
    }
}
