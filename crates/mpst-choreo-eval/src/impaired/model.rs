//! What the cost model says concurrent send's `key` gains out of order on links of one-way
//! delay `d`: in order minus out of order, key medians, from the seeded costs alone.
//!
//! Out of order, `s` forwards the key as it arrives: key = `k + d₁ + d₃` (the key
//! service's cost, the link `ks` → `s`, the link `s` → `c`). In order, `s` takes the key,
//! then the text, then forwards the key: key = `max(k + d₁, t + d₂) + d₃`, where `t` is
//! the content service's cost and `d₂` the link `cs` → `s`. The text the key waits for
//! crosses one link, as the key itself does, so the delay cancels out of the difference:
//! only the costs and the links' jitter (each `dᵢ` uniform in `d ± jitter`, drawn per
//! message) are left, and the delay itself cannot make the advantage grow. The jitter
//! scales with the delay: the later of two jittered paths adds to in order's median a
//! little more than one path does to out of order's, about a tenth of a millisecond at
//! 20 ms ± 10 % over the evaluation's costs (a choreography whose in-order key waited
//! for a message crossing *more* links than the key would gain one delay per extra
//! link).

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Link draws per session (each form draws its own, as each form has its own run).
pub const DRAWS: usize = 200;

/// In order minus out of order, `key` medians (ms), for the sessions' costs `(k, t)` (ms)
/// on links of `delay_ms` one way ± `jitter` (a fraction of the delay), seeded.
pub fn key_advantage_ms(costs: &[(f64, f64)], delay_ms: f64, jitter: f64, seed: u64) -> f64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let spread = delay_ms * jitter;
    let mut link = || (delay_ms + spread * (2.0 * rng.random::<f64>() - 1.0)).max(0.0);
    let mut in_order = Vec::with_capacity(costs.len() * DRAWS);
    let mut out_of_order = Vec::with_capacity(costs.len() * DRAWS);
    for &(k, t) in costs {
        for _ in 0..DRAWS {
            in_order.push((k + link()).max(t + link()) + link());
            out_of_order.push(k + link() + link());
        }
    }
    median(in_order) - median(out_of_order)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uniform_costs(n: usize) -> Vec<(f64, f64)> {
        let mut rng = SmallRng::seed_from_u64(1);
        (0..n)
            .map(|_| (5.0 * rng.random::<f64>(), 5.0 * rng.random::<f64>()))
            .collect()
    }

    #[test]
    fn on_a_perfect_link_the_advantage_is_the_costs_medians_difference() {
        let costs = uniform_costs(400);
        let advantage = key_advantage_ms(&costs, 0.0, 0.1, 7);
        let key = median(costs.iter().map(|c| c.0).collect());
        let max = median(costs.iter().map(|c| c.0.max(c.1)).collect());
        assert!((advantage - (max - key)).abs() < 1e-9, "{advantage}");
    }

    #[test]
    fn the_delay_cancels_out_and_jitter_moves_the_advantage_by_little() {
        let costs = uniform_costs(400);
        let at = |d| key_advantage_ms(&costs, d, 0.1, 7);
        let (zero, five, twenty) = (at(0.0), at(5.0), at(20.0));
        assert!(zero > 0.5, "{zero}");
        for other in [five, twenty] {
            assert!((other - zero).abs() < 0.25, "{zero} {five} {twenty}");
        }
        // Without jitter the delay cancels exactly (up to rounding).
        let still = key_advantage_ms(&costs, 20.0, 0.0, 7);
        assert!((still - zero).abs() < 1e-6, "{still} {zero}");
    }
}
