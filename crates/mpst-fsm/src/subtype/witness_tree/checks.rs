//! The witness checks on the candidate subtrees of a simulation tree: finiteness,
//! a receive on every path back to a cut, strict accumulation, and the embedding of
//! what the supertype produces into what the subtype consumes (two automata built
//! from equations over the candidate's nodes).

use rustc_hash::{FxHashMap, FxHashSet};

use super::input_tree::{Ctx, OutOfBudget, Tree, subset};
use super::{End, Node};
use crate::subtype::machine::ActionId;

/// Checks every candidate subtree: `Ok(Ok(count))` when all are finite or witnesses,
/// `Ok(Err(root))` for the first that is neither.
pub(super) fn candidates(
    nodes: &[Node],
    ctx: &mut Ctx<'_>,
) -> Result<Result<usize, u32>, OutOfBudget> {
    let mut targets = FxHashSet::default();
    let mut growing = FxHashSet::default();
    for n in nodes {
        if let End::Cut { ancestor, exact } = n.end {
            targets.insert(ancestor);
            if !exact {
                growing.insert(ancestor);
            }
        }
    }
    // The topmost ancestors of growing cuts.
    let mut roots = Vec::new();
    let mut stack = vec![0_u32];
    while let Some(v) = stack.pop() {
        if growing.contains(&v) {
            roots.push(v);
        } else {
            stack.extend(&nodes[v as usize].children);
        }
    }
    for &root in &roots {
        let inside = subtree(nodes, root);
        let finite = inside.iter().all(|&v| {
            matches!(
                nodes[v as usize].end,
                End::Inner | End::Success | End::Cut { exact: true, .. }
            )
        });
        if finite {
            continue;
        }
        let set: FxHashSet<u32> = inside.iter().copied().collect();
        let witness = receives_on_every_cycle(nodes, &inside, &set, ctx)?
            && strict_accumulation(nodes, &inside, &targets, ctx)?
            && embedding(nodes, root, &set, ctx)?;
        if !witness {
            return Ok(Err(root));
        }
    }
    Ok(Ok(roots.len()))
}

/// The nodes of the subtree rooted at `root`.
fn subtree(nodes: &[Node], root: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        out.push(v);
        stack.extend(&nodes[v as usize].children);
    }
    out
}

/// Every cycle of the candidate performs a receive of the subtype, so each round of
/// it consumes accumulated receives, not only produces them. The cycles are those of
/// the candidate read as a graph: its tree edges, and an edge from each cut back to
/// its ancestor when that ancestor is inside. So the check is that the sends alone
/// (tree edges labelled by a send, and the edges back) form no cycle.
///
/// The CONCUR'19 tool's version of this check accepts every tree (a leaf counts as
/// a path with a receive). An earlier version here asked for a receive on every
/// path from an ancestor to *any* cut below it, also one whose ancestor lies above:
/// such a path is not a round of any loop by itself, and every cycle through it
/// also runs the outer ancestor's path down to it, which the check covers.
fn receives_on_every_cycle(
    nodes: &[Node],
    inside: &[u32],
    set: &FxHashSet<u32>,
    ctx: &mut Ctx<'_>,
) -> Result<bool, OutOfBudget> {
    // Depth-first search over the send edges: 1 on the stack, 2 done.
    let mut colour: FxHashMap<u32, u8> = FxHashMap::default();
    let table = ctx.table;
    let sends_from = |v: u32| -> Vec<u32> {
        let node = &nodes[v as usize];
        match node.end {
            End::Cut { ancestor, .. } if set.contains(&ancestor) => vec![ancestor],
            _ => node
                .children
                .iter()
                .copied()
                .filter(|&c| !table.is_receive(nodes[c as usize].label))
                .collect(),
        }
    };
    for &start in inside {
        if colour.contains_key(&start) {
            continue;
        }
        colour.insert(start, 1);
        let mut stack = vec![(start, sends_from(start), 0_usize)];
        while let Some((v, next, i)) = stack.last_mut() {
            ctx.tick(1)?;
            let Some(&w) = next.get(*i) else {
                colour.insert(*v, 2);
                stack.pop();
                continue;
            };
            *i += 1;
            match colour.get(&w) {
                Some(1) => return Ok(false),
                Some(_) => {}
                None => {
                    colour.insert(w, 1);
                    let after = sends_from(w);
                    stack.push((w, after, 0));
                }
            }
        }
    }
    Ok(true)
}

/// From every ancestor of a cut inside the candidate, along every path to a leaf, each
/// leaf state of the ancestor's context accumulates into states the leaf's context
/// has, and the accumulation never ends lower than it started.
fn strict_accumulation(
    nodes: &[Node],
    inside: &[u32],
    targets: &FxHashSet<u32>,
    ctx: &mut Ctx<'_>,
) -> Result<bool, OutOfBudget> {
    for &n in inside.iter().filter(|v| targets.contains(v)) {
        let start = &nodes[n as usize];
        let height = start.tree.min_height();
        // Depth first with the labels of the current path.
        let mut labels: Vec<ActionId> = Vec::new();
        let mut stack: Vec<(u32, usize)> = start.children.iter().map(|&c| (c, 0)).collect();
        while let Some((v, depth)) = stack.pop() {
            let node = &nodes[v as usize];
            labels.truncate(depth);
            labels.push(node.label);
            if !node.children.is_empty() {
                stack.extend(node.children.iter().map(|&c| (c, depth + 1)));
                continue;
            }
            let sends: Vec<ActionId> = labels
                .iter()
                .copied()
                .filter(|&a| !ctx.is_receive(a))
                .collect();
            for &q in &start.leaves {
                let Some(acc) = ctx.acc_tree(q, &sends)? else {
                    return Ok(false);
                };
                if !subset(&acc.leaves(), &node.leaves) {
                    return Ok(false);
                }
                match ctx.closest(height, q, &labels)? {
                    Some(h) if h >= height => {}
                    _ => return Ok(false),
                }
            }
        }
    }
    Ok(true)
}

/// An automaton whose edges are receives (`Some`) or silent (`None`); every state's
/// edges are all of one sort.
#[derive(Default)]
struct Automaton {
    edges: Vec<Vec<(Option<ActionId>, usize)>>,
}

impl Automaton {
    fn state(&mut self) -> usize {
        self.edges.push(Vec::new());
        self.edges.len() - 1
    }
}

/// Where an edge into `child` of the candidate leads: the child, or the ancestor of a
/// cut, which must be inside the candidate (`None` otherwise, or at a success).
fn successor(nodes: &[Node], child: u32, inside: &FxHashSet<u32>) -> Option<u32> {
    match nodes[child as usize].end {
        End::Inner => Some(child),
        End::Cut { ancestor, .. } if inside.contains(&ancestor) => Some(ancestor),
        _ => None,
    }
}

/// Whether the receives the supertype's leaves produce along the candidate are all
/// consumed by the subtype's receives along it.
fn embedding(
    nodes: &[Node],
    root: u32,
    inside: &FxHashSet<u32>,
    ctx: &mut Ctx<'_>,
) -> Result<bool, OutOfBudget> {
    let Some(producer) = producer(nodes, root, inside, ctx)? else {
        return Ok(false);
    };
    let Some(consumer) = consumer(nodes, root, inside, ctx) else {
        return Ok(false);
    };
    let mut seen = FxHashSet::default();
    let mut todo = vec![(0_usize, 0_usize)];
    while let Some((p, c)) = todo.pop() {
        if !seen.insert((p, c)) {
            continue;
        }
        ctx.tick(1)?;
        let (pe, ce) = (&producer.edges[p], &consumer.edges[c]);
        if pe.first().is_some_and(|(a, _)| a.is_none()) {
            todo.extend(pe.iter().map(|&(_, t)| (t, c)));
        } else if ce.first().is_some_and(|(a, _)| a.is_none()) {
            todo.extend(ce.iter().map(|&(_, t)| (p, t)));
        } else if pe.is_empty() || ce.is_empty() {
            return Ok(false);
        } else {
            for &(a, t) in pe {
                match ce.iter().find(|(b, _)| *b == a) {
                    Some(&(_, u)) => todo.push((t, u)),
                    None => return Ok(false),
                }
            }
        }
    }
    Ok(true)
}

/// The consumer: state 0 is the root; at a node where the subtype sends, silent edges to
/// the children; where it receives, one edge per receive.
fn consumer(
    nodes: &[Node],
    root: u32,
    inside: &FxHashSet<u32>,
    ctx: &Ctx<'_>,
) -> Option<Automaton> {
    let mut aut = Automaton::default();
    let mut index: FxHashMap<u32, usize> = FxHashMap::default();
    index.insert(root, aut.state());
    let mut todo = vec![root];
    while let Some(v) = todo.pop() {
        let from = index[&v];
        for &c in &nodes[v as usize].children {
            let target = successor(nodes, c, inside)?;
            let to = *index.entry(target).or_insert_with(|| {
                todo.push(target);
                aut.state()
            });
            let a = nodes[c as usize].label;
            aut.edges[from].push((ctx.is_receive(a).then_some(a), to));
        }
    }
    Some(aut)
}

/// The producer: state 0 is the candidate root's context with each leaf `q` leading to
/// the variable `(q, root)`; the variable `(q, v)` is what leaf `q` produces from node
/// `v` on: where the subtype sends, `q`'s receives up to its send and then the
/// variables of the children; where it receives, silently any child's.
fn producer(
    nodes: &[Node],
    root: u32,
    inside: &FxHashSet<u32>,
    ctx: &mut Ctx<'_>,
) -> Result<Option<Automaton>, OutOfBudget> {
    let mut aut = Automaton::default();
    let mut vars: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    let mut todo: Vec<(u32, u32)> = Vec::new();
    let start = aut.state();
    let mut var = |aut: &mut Automaton, todo: &mut Vec<(u32, u32)>, key: (u32, u32)| {
        *vars.entry(key).or_insert_with(|| {
            todo.push(key);
            aut.state()
        })
    };
    tree_states(
        &mut aut,
        start,
        &nodes[root as usize].tree,
        &mut |aut, q| var(aut, &mut todo, (q, root)),
    );
    while let Some((q, v)) = todo.pop() {
        ctx.tick(1)?;
        let from = var(&mut aut, &mut todo, (q, v));
        let node = &nodes[v as usize];
        let sends = node
            .children
            .first()
            .is_some_and(|&c| !ctx.is_receive(nodes[c as usize].label));
        if !sends {
            for &c in &node.children {
                let Some(target) = successor(nodes, c, inside) else {
                    return Ok(None);
                };
                let to = var(&mut aut, &mut todo, (q, target));
                aut.edges[from].push((None, to));
            }
            continue;
        }
        let Some(acc) = ctx.in_tree(q)? else {
            return Ok(None);
        };
        for &c in &node.children {
            let a = nodes[c as usize].label;
            let Some(target) = successor(nodes, c, inside) else {
                return Ok(None);
            };
            let mut moved = Vec::new();
            for q2 in acc.leaves() {
                match Ctx::succ(ctx.sup, q2, a) {
                    Some(q3) => moved.push((q2, q3)),
                    None => return Ok(None),
                }
            }
            let branch = aut.state();
            aut.edges[from].push((None, branch));
            tree_states(&mut aut, branch, &acc, &mut |aut, leaf| {
                let q3 = moved.iter().find(|(x, _)| *x == leaf).map(|(_, y)| *y);
                var(aut, &mut todo, (q3.expect("every leaf moved"), target))
            });
        }
    }
    Ok(Some(aut))
}

/// Adds the receives of `tree` below `state`; each leaf goes silently to `leaf(q)`.
fn tree_states(
    aut: &mut Automaton,
    state: usize,
    tree: &Tree,
    leaf: &mut dyn FnMut(&mut Automaton, u32) -> usize,
) {
    match tree {
        Tree::Leaf(q) => {
            let to = leaf(aut, *q);
            aut.edges[state].push((None, to));
        }
        Tree::Branch(_) => {
            for a in tree.front().collect::<Vec<_>>() {
                let next = aut.state();
                aut.edges[state].push((Some(a), next));
                tree_states(aut, next, tree.next(a).expect("in front"), leaf);
            }
        }
    }
}
