//! Test support for the subtyping tests: a seeded random generator of projectable
//! global types with their projections, random asynchronous message reorderings (AMR)
//! of a local type, and a small bounded explorer of communicating systems that finds
//! deadlocks, orphan messages and unspecified receptions.
//!
//! Each test binary uses a different part, hence the `dead_code` allowance.
#![allow(dead_code)]

pub mod amr;
pub mod explore;
pub mod global;

use mpst_fsm::subtype::{Options, TreeBudget};
use mpst_fsm::witness::Budget;

/// The subtyping options of the property tests on random machines: `visits` per pair of
/// states and budgets small enough that every case answers quickly.
pub const fn subtyping_options(visits: usize) -> Options {
    Options {
        visits,
        max_steps: 20_000,
        max_depth: 5_000,
        witness: Budget {
            max_configurations: 5_000,
            max_queue: 6,
        },
        trees: TreeBudget {
            max_nodes: 2_000,
            max_work: 100_000,
            max_tree: 4_096,
        },
        time_limit: None,
    }
}

/// SplitMix64: a tiny deterministic generator, seeded by proptest.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}
