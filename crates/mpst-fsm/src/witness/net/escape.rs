//! Orphans left by choice: the states from which a machine can send for ever without
//! receiving, and the sends it takes to do so, shown with a refutation.

use rustc_hash::FxHashMap;

use super::{Net, Trans};
use crate::kmc::Step;

/// For each state, a transition that stays among the states that can send for ever, or
/// `u32::MAX`: the greatest set of states whose transitions are all sends (at least one)
/// and one of which leads back into the set.
pub(super) fn escapes(states: &[Vec<Trans>]) -> Vec<u32> {
    // Start from the states that only send, and drop those with no transition left into
    // the set, each once: a worklist over reversed transitions, so linear in the machine.
    let mut inside: Vec<bool> = states
        .iter()
        .map(|ts| !ts.is_empty() && ts.iter().all(|t| t.send))
        .collect();
    let mut into: Vec<usize> = states
        .iter()
        .map(|ts| ts.iter().filter(|t| inside[t.target as usize]).count())
        .collect();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); states.len()];
    for (s, ts) in states.iter().enumerate() {
        for t in ts {
            preds[t.target as usize].push(s as u32);
        }
    }
    let mut dropped: Vec<usize> = (0..states.len())
        .filter(|&s| inside[s] && into[s] == 0)
        .collect();
    while let Some(s) = dropped.pop() {
        if !inside[s] {
            continue;
        }
        inside[s] = false;
        // One entry per transition `p → s`, each counted once in `into[p]`.
        for &p in &preds[s] {
            let p = p as usize;
            if inside[p] {
                into[p] -= 1;
                if into[p] == 0 {
                    dropped.push(p);
                }
            }
        }
    }
    states
        .iter()
        .enumerate()
        .map(|(s, ts)| {
            if !inside[s] {
                return u32::MAX;
            }
            ts.iter()
                .position(|t| inside[t.target as usize])
                .map_or(u32::MAX, |i| i as u32)
        })
        .collect()
}

impl Net {
    /// The sends by which machine `m` leaves state `state` for ever without receiving:
    /// the steps up to the loop, and the loop (`state` must be able to).
    pub(in crate::witness) fn escape_lasso(&self, m: u32, state: u32) -> (Vec<Step>, Vec<Step>) {
        let machine = &self.machines[m as usize];
        let mut order: Vec<u32> = Vec::new();
        let mut position: FxHashMap<u32, usize> = FxHashMap::default();
        let mut at = state;
        while let std::collections::hash_map::Entry::Vacant(e) = position.entry(at) {
            e.insert(order.len());
            order.push(at);
            at = machine.states[at as usize][machine.escape[at as usize] as usize].target;
        }
        let step = |s: u32| {
            machine.states[s as usize][machine.escape[s as usize] as usize]
                .step
                .clone()
        };
        let loop_at = position[&at];
        let lead_in = order[..loop_at].iter().map(|&s| step(s)).collect();
        let cycle = order[loop_at..].iter().map(|&s| step(s)).collect();
        (lead_in, cycle)
    }
}
