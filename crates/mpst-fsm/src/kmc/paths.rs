//! Shortest executions in the explored graph, for counterexamples: the exploration
//! is depth first, so the discovering path of a configuration can be long.

use super::explore::Graph;
use super::scc::Adjacency;

/// No edge: the parent of the initial configuration and of unreachable ones.
pub(crate) const NONE: u32 = u32::MAX;

/// Breadth-first distances from the initial configuration.
pub(crate) struct Paths {
    /// Length of a shortest execution reaching each configuration.
    pub depth: Vec<u32>,
    /// The last edge of that execution ([`NONE`] for the initial configuration).
    pub parent: Vec<u32>,
}

impl Paths {
    /// Shortest executions over the explored edges.
    pub fn new(graph: &Graph) -> Self {
        let n = graph.store.len();
        let adj = Adjacency::new(n, &graph.edges);
        let mut depth = vec![NONE; n];
        let mut parent = vec![NONE; n];
        let mut queue = std::collections::VecDeque::from([0u32]);
        depth[0] = 0;
        while let Some(c) = queue.pop_front() {
            for &e in adj.out(c) {
                let dst = graph.edges[e as usize].dst as usize;
                if depth[dst] == NONE {
                    depth[dst] = depth[c as usize] + 1;
                    parent[dst] = e;
                    queue.push_back(dst as u32);
                }
            }
        }
        Paths { depth, parent }
    }

    /// The edges of a shortest execution reaching `c`, in order.
    pub fn edges_to(&self, graph: &Graph, mut c: u32) -> Vec<u32> {
        let mut edges = Vec::new();
        while self.parent[c as usize] != NONE {
            let e = self.parent[c as usize];
            edges.push(e);
            c = graph.edges[e as usize].src;
        }
        edges.reverse();
        edges
    }
}
