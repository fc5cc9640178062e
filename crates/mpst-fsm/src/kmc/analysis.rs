//! The "eventually" parts of k-MC, decided on the explored graph by backward
//! reachability: progress (a waiting role eventually receives), eventual reception
//! (a queued message is eventually received) and exhaustivity (a full queue is
//! eventually read without its sender moving).

use crate::{Direction, StateKind};

use super::explore::{queue_offsets, Graph};
use super::paths::Paths;
use super::system::System;
use super::violation::ViolationKind;

/// Which configurations can reach an event, computed backwards over the edges.
struct Reverse {
    /// `start[c]..start[c + 1]` index `edges` of the edges entering `c`.
    start: Vec<u32>,
    /// Edge indices, grouped by target.
    edges: Vec<u32>,
    /// `mark[c] == stamp` when `c` can reach the current event.
    mark: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
}

impl Reverse {
    fn new(graph: &Graph) -> Self {
        let n = graph.store.len();
        let mut start = vec![0u32; n + 1];
        for e in &graph.edges {
            start[e.dst as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut edges = vec![0u32; graph.edges.len()];
        for (i, e) in graph.edges.iter().enumerate() {
            edges[fill[e.dst as usize] as usize] = i as u32;
            fill[e.dst as usize] += 1;
        }
        Reverse {
            start,
            edges,
            mark: vec![0; n],
            stamp: 0,
            stack: Vec::new(),
        }
    }

    /// Marks every configuration that reaches one of `sources` (configurations where
    /// the event fires) using only edges whose machine is not `frozen`.
    fn reach(&mut self, graph: &Graph, sources: &[u32], frozen: Option<u32>) {
        self.stamp += 1;
        for &c in sources {
            if self.mark[c as usize] != self.stamp {
                self.mark[c as usize] = self.stamp;
                self.stack.push(c);
            }
        }
        while let Some(c) = self.stack.pop() {
            let range = self.start[c as usize] as usize..self.start[c as usize + 1] as usize;
            for &e in &self.edges[range] {
                let edge = graph.edges[e as usize];
                if Some(edge.machine) == frozen || self.mark[edge.src as usize] == self.stamp {
                    continue;
                }
                self.mark[edge.src as usize] = self.stamp;
                self.stack.push(edge.src);
            }
        }
    }

    /// The candidate closest to the initial configuration that does not reach the
    /// event.
    fn first_miss(&self, candidates: &[u32], paths: &Paths) -> Option<u32> {
        candidates
            .iter()
            .copied()
            .filter(|&c| self.mark[c as usize] != self.stamp)
            .min_by_key(|&c| paths.depth[c as usize])
    }
}

/// Checks progress, eventual reception and exhaustivity on a complete graph; returns
/// the violation with the shortest execution, preferring progress, then eventual
/// reception, then exhaustivity on ties.
pub(crate) fn analyse(
    sys: &System<'_>,
    k: usize,
    graph: &Graph,
    paths: &Paths,
) -> Option<(u32, ViolationKind)> {
    let n = sys.machines.len();
    let nq = sys.queues.len();
    // Configurations where each event fires (source of an explored edge).
    let mut receives_by_machine: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut receives_on_queue: Vec<Vec<u32>> = vec![Vec::new(); nq];
    for e in &graph.edges {
        let tr = sys.machines[e.machine as usize].trans[e.trans as usize];
        if tr.dir == Direction::Receive {
            receives_by_machine[e.machine as usize].push(e.src);
            receives_on_queue[tr.queue as usize].push(e.src);
        }
    }
    // Candidates for each violation, in discovery order.
    let mut waiting: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut queued: Vec<Vec<u32>> = vec![Vec::new(); nq];
    let mut full: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nq];
    let mut offs = Vec::with_capacity(nq);
    for c in 0..graph.store.len() as u32 {
        let config = graph.store.get(c);
        queue_offsets(n, nq, config, &mut offs);
        for (m, machine) in sys.machines.iter().enumerate() {
            let state = config[m];
            match machine.kinds[state as usize] {
                StateKind::Receive => waiting[m].push(c),
                StateKind::End => continue,
                StateKind::Send | StateKind::Mixed => {}
            }
            for t in machine.outgoing(state) {
                let tr = machine.trans[t];
                if tr.dir == Direction::Send && config[offs[tr.queue as usize]] as usize >= k {
                    full[tr.queue as usize].push((c, t as u32));
                }
            }
        }
        for (q, &o) in offs.iter().enumerate() {
            if config[o] > 0 {
                queued[q].push(c);
            }
        }
    }
    let mut reverse = Reverse::new(graph);
    let mut best: Option<(u32, ViolationKind)> = None;
    let mut consider = |c: u32, kind: ViolationKind| match &best {
        Some((b, _)) if paths.depth[*b as usize] <= paths.depth[c as usize] => {}
        _ => best = Some((c, kind)),
    };
    for m in 0..n {
        if waiting[m].is_empty() {
            continue;
        }
        reverse.reach(graph, &receives_by_machine[m], None);
        if let Some(c) = reverse.first_miss(&waiting[m], paths) {
            let role = sys.role(m as u32).to_string();
            consider(c, ViolationKind::Starvation { role });
        }
    }
    for q in 0..nq {
        if queued[q].is_empty() {
            continue;
        }
        reverse.reach(graph, &receives_on_queue[q], None);
        if let Some(c) = reverse.first_miss(&queued[q], paths) {
            let config = graph.store.get(c);
            queue_offsets(n, nq, config, &mut offs);
            let (from, to) = sys.queues[q];
            consider(
                c,
                ViolationKind::Orphan {
                    from: sys.role(from).to_string(),
                    to: sys.role(to).to_string(),
                    message: sys.messages[config[offs[q] + 1] as usize].clone(),
                },
            );
        }
    }
    for q in 0..nq {
        if full[q].is_empty() {
            continue;
        }
        let (from, to) = sys.queues[q];
        reverse.reach(graph, &receives_on_queue[q], Some(from));
        let miss = full[q]
            .iter()
            .filter(|&&(c, _)| reverse.mark[c as usize] != reverse.stamp)
            .min_by_key(|&&(c, _)| paths.depth[c as usize]);
        if let Some(&(c, t)) = miss {
            consider(
                c,
                ViolationKind::NotExhaustive {
                    role: sys.role(from).to_string(),
                    to: sys.role(to).to_string(),
                    action: sys.action(from, t as usize).clone(),
                },
            );
        }
    }
    best
}
