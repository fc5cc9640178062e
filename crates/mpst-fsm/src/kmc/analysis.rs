//! The "eventually" parts of k-MC, decided on the explored graph by backward
//! reachability: progress (a waiting role eventually receives), eventual reception
//! (a queued message is eventually received) and exhaustivity (a full queue is
//! eventually read without its sender moving).

use crate::{Direction, StateKind};

use super::explore::Graph;
use super::paths::Paths;
use super::queue;
use super::scc::{Adjacency, components};
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
    analyse_in(sys, k, graph, paths, MAX_WORDS)
}

/// [`analyse`] holding at most `max_words` words of reachability bits at once.
fn analyse_in(
    sys: &System<'_>,
    k: usize,
    graph: &Graph,
    paths: &Paths,
    max_words: usize,
) -> Option<(u32, ViolationKind)> {
    let n = sys.machines.len();
    let nq = sys.queues.len();
    let mut best: Option<(u32, ViolationKind)> = None;
    let mut consider = |c: u32, kind: &dyn Fn() -> ViolationKind| match &best {
        Some((b, _)) if paths.depth[*b as usize] <= paths.depth[c as usize] => {}
        _ => best = Some((c, kind())),
    };
    safety(sys, graph, max_words, &mut consider);
    // Exhaustivity: the candidates, then one restricted backward search per queue.
    let mut receives_on_queue: Vec<Vec<u32>> = vec![Vec::new(); nq];
    for e in &graph.edges {
        let tr = sys.machines[e.machine as usize].trans[e.trans as usize];
        if tr.dir == Direction::Receive {
            receives_on_queue[tr.queue as usize].push(e.src);
        }
    }
    let mut full: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nq];
    let mut offs = Vec::with_capacity(nq);
    for c in 0..graph.store.len() as u32 {
        let config = graph.store.get(c);
        queue::offsets(n, nq, config, &mut offs);
        for (m, machine) in sys.machines.iter().enumerate() {
            for t in machine.outgoing(config[m]) {
                let tr = machine.trans[t];
                if tr.dir == Direction::Send
                    && queue::len(config, offs[tr.queue as usize]) as usize >= k
                {
                    full[tr.queue as usize].push((c, t as u32));
                }
            }
        }
    }
    let mut reverse = Reverse::new(graph);
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
            consider(c, &|| ViolationKind::NotExhaustive {
                role: sys.role(from).to_string(),
                to: sys.role(to).to_string(),
                action: sys.action(from, t as usize).clone(),
            });
        }
    }
    best
}

/// Most words of reachability bits held at once (128 MiB); beyond that the events
/// are processed in several passes.
const MAX_WORDS: usize = 1 << 24;

/// Progress and eventual reception: which receive events (machine `m` receives,
/// for `m < n`; a receive on queue `q`, numbered `n + q`) each configuration can
/// reach, as bit sets per strongly connected component propagated from sinks up.
fn safety(
    sys: &System<'_>,
    graph: &Graph,
    max_words: usize,
    consider: &mut dyn FnMut(u32, &dyn Fn() -> ViolationKind),
) {
    let n = sys.machines.len();
    let nq = sys.queues.len();
    let nodes = graph.store.len();
    let adj = Adjacency::new(nodes, &graph.edges);
    let (comp, count) = components(nodes, &graph.edges, &adj);
    let count = count as usize;
    // Edges grouped by source component, in increasing order (counting sort).
    let mut start = vec![0usize; count + 1];
    for e in &graph.edges {
        start[comp[e.src as usize] as usize + 1] += 1;
    }
    for c in 0..count {
        start[c + 1] += start[c];
    }
    let mut by_comp = vec![0u32; graph.edges.len()];
    for (i, e) in graph.edges.iter().enumerate() {
        let c = comp[e.src as usize] as usize;
        by_comp[start[c]] = i as u32;
        start[c] += 1;
    }
    let events = n + nq;
    let total = events.div_ceil(64);
    let per_pass = (max_words / count.max(1)).clamp(1, total.max(1));
    let mut offs = Vec::with_capacity(nq);
    for first in (0..total).step_by(per_pass) {
        let w = per_pass.min(total - first);
        let (lo, hi) = (first * 64, (first * 64 + w * 64).min(events));
        let mut bits = vec![0u64; count * w];
        let set = |bits: &mut [u64], c: usize, event: usize| {
            if (lo..hi).contains(&event) {
                let i = event - lo;
                bits[c * w + i / 64] |= 1 << (i % 64);
            }
        };
        for e in &graph.edges {
            let tr = sys.machines[e.machine as usize].trans[e.trans as usize];
            if tr.dir == Direction::Receive {
                let c = comp[e.src as usize] as usize;
                set(&mut bits, c, e.machine as usize);
                set(&mut bits, c, n + tr.queue as usize);
            }
        }
        for &i in &by_comp {
            let e = graph.edges[i as usize];
            let (cs, cd) = (comp[e.src as usize] as usize, comp[e.dst as usize] as usize);
            if cs != cd {
                for j in 0..w {
                    bits[cs * w + j] |= bits[cd * w + j];
                }
            }
        }
        let has = |c: usize, event: usize| {
            let i = event - lo;
            bits[c * w + i / 64] & (1 << (i % 64)) != 0
        };
        for v in 0..nodes as u32 {
            let c = comp[v as usize] as usize;
            let config = graph.store.get(v);
            let machines = lo.min(n)..hi.min(n);
            for (m, &state) in config
                .iter()
                .enumerate()
                .take(machines.end)
                .skip(machines.start)
            {
                let kind = sys.machines[m].kinds[state as usize];
                if kind == StateKind::Receive && !has(c, m) {
                    consider(v, &|| ViolationKind::Starvation {
                        role: sys.role(m as u32).to_string(),
                    });
                }
            }
            if hi <= n {
                continue;
            }
            queue::offsets(n, nq, config, &mut offs);
            for (q, &o) in offs.iter().enumerate().take(hi - n).skip(lo.max(n) - n) {
                match queue::head(config, o) {
                    Some(head) if !has(c, n + q) => {
                        let (from, to) = sys.queues[q];
                        consider(v, &|| ViolationKind::Orphan {
                            from: sys.role(from).to_string(),
                            to: sys.role(to).to_string(),
                            message: sys.messages[head as usize].clone(),
                        });
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalType;
    use crate::families;
    use crate::kmc::explore::{Explored, Explorer};

    #[test]
    fn events_processed_in_several_passes_give_the_same_answer() {
        // 71 roles: 142 events, so one word per component means three passes; the
        // starving role's event is in the second.
        let mut system = families::ring(70).optimised_system();
        let waiting = LocalType::parse("r0?hello(). end").unwrap();
        system.push(waiting.to_fsm("zz").unwrap());
        let sys = System::compile(&system).unwrap();
        let Explored::Complete(graph) = Explorer::new(&sys, 1, true, 1 << 20)
            .run(&mut |_| {})
            .unwrap()
        else {
            panic!("no local violation expected");
        };
        let paths = Paths::new(&graph);
        let one_pass = analyse_in(&sys, 1, &graph, &paths, MAX_WORDS);
        let passes = analyse_in(&sys, 1, &graph, &paths, 1);
        let starving = ViolationKind::Starvation { role: "zz".into() };
        assert_eq!(one_pass.as_ref().map(|v| &v.1), Some(&starving));
        assert_eq!(one_pass, passes);
    }
}
