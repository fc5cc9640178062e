//! The ignoring proviso of the reduction: in every terminal strongly connected
//! component of the explored graph, every transition enabled somewhere in the
//! component must be taken somewhere in it. Otherwise a role could be postponed for
//! ever while the others cycle, and what it can do would never be explored.
//!
//! The components come from our own iterative Tarjan (`components`) rather than
//! petgraph's `TarjanScc`, which we measured on the explored graphs through petgraph's
//! visit traits (no copy of the graph): on the reduced graphs of the four families
//! (stream 100, ring 30, k-buffering 100, nested choice 5) and the unreduced
//! k-buffering 30 and nested choice 5, it ran 61.6M instructions to our 60.2M (+2%,
//! callgrind, 21 runs each), and it recurses once per node of the depth-first path: the
//! unreduced ring 10 (184,756 configurations, a depth-first path of 148,413) overflowed
//! a 2 MiB thread stack, where the exploration itself accepts 5,000,000 configurations.

use super::explore::{Edge, Explorer, FULL, Graph};

/// Forward adjacency of the explored graph in compressed form.
pub(crate) struct Adjacency {
    start: Vec<u32>,
    out: Vec<u32>,
}

impl Adjacency {
    pub(crate) fn new(nodes: usize, edges: &[Edge]) -> Self {
        let mut start = vec![0u32; nodes + 1];
        for e in edges {
            start[e.src as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut out = vec![0u32; edges.len()];
        for (i, e) in edges.iter().enumerate() {
            out[fill[e.src as usize] as usize] = i as u32;
            fill[e.src as usize] += 1;
        }
        Adjacency { start, out }
    }

    fn range(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// The indices (into the edge list) of the edges leaving `v`.
    pub(crate) fn out(&self, v: u32) -> &[u32] {
        &self.out[self.range(v)]
    }
}

const UNSEEN: u32 = u32::MAX;

/// The strongly connected component of every node (Tarjan's algorithm, iterative),
/// and how many components there are.
///
/// Components are numbered in the order Tarjan's algorithm completes them: an edge
/// between two components always goes to the one with the smaller number.
pub(crate) fn components(nodes: usize, edges: &[Edge], adj: &Adjacency) -> (Vec<u32>, u32) {
    let mut index = vec![UNSEEN; nodes];
    let mut low = vec![0u32; nodes];
    let mut comp = vec![UNSEEN; nodes];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    let mut count = 0u32;
    for root in 0..nodes as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        calls.push((root, adj.range(root).start));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            if *pos < adj.range(v).end {
                let w = edges[adj.out[*pos] as usize].dst;
                *pos += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    calls.push((w, adj.range(w).start));
                } else if comp[w as usize] == UNSEEN {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    comp[w as usize] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count)
}

/// Configurations to expand fully so that no terminal component ignores a
/// transition: for each transition enabled in a terminal component but never taken
/// there, one configuration of the component where it is enabled. `chosen` says how
/// each configuration was expanded (`FULL` ones have all their transitions).
pub(crate) fn ignoring(explorer: &Explorer<'_, '_>, graph: &Graph, chosen: &[u32]) -> Vec<u32> {
    let nodes = graph.store.len();
    let adj = Adjacency::new(nodes, &graph.edges);
    let (comp, count) = components(nodes, &graph.edges, &adj);
    let mut terminal = vec![true; count as usize];
    for e in &graph.edges {
        if comp[e.src as usize] != comp[e.dst as usize] {
            terminal[comp[e.src as usize] as usize] = false;
        }
    }
    // Members of each terminal component, skipping those already fully expanded
    // (their transitions are all taken, and stay inside the component).
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count as usize];
    let mut has_reduced = vec![false; count as usize];
    for v in 0..nodes as u32 {
        let c = comp[v as usize] as usize;
        if terminal[c] {
            members[c].push(v);
            has_reduced[c] |= chosen[v as usize] != FULL;
        }
    }
    let mut taken: rustc_hash::FxHashSet<(u32, u32)> = Default::default();
    let mut enabled = Vec::new();
    let mut offs = Vec::new();
    let mut result = Vec::new();
    for c in 0..count as usize {
        if !terminal[c] || !has_reduced[c] {
            continue;
        }
        taken.clear();
        for &v in &members[c] {
            for &e in adj.out(v) {
                let edge = graph.edges[e as usize];
                taken.insert((edge.machine, edge.trans));
            }
        }
        for &v in &members[c] {
            if chosen[v as usize] == FULL {
                continue;
            }
            explorer.enabled_in(graph.store.get(v), &mut offs, &mut enabled);
            let mut expand = false;
            for &t in &enabled {
                // Mark it taken so that one configuration per ignored transition is
                // expanded.
                expand |= taken.insert(t);
            }
            if expand {
                result.push(v);
            }
        }
    }
    result
}
