//! The witness-tree technique of CONCUR 2019 (Bravetti, Carbone, Lange, Yoshida,
//! Zavattaro, "A Sound Algorithm for Asynchronous Session Subtyping"), written from
//! scratch: it proves pairs whose pending receives grow without bound, which the
//! bounded rules of PPoPP 2022 cannot.
//!
//! # How
//!
//! 1. **Simulation tree.** A node pairs a subtype state with an *input context* of the
//!    supertype: the receives it performed ahead of the subtype, as a tree whose leaves
//!    are supertype states ([`input_tree`]). When the subtype sends ahead of receives,
//!    every leaf first performs its receives up to its next send (they are added to the
//!    context) and then must offer the send; when the subtype receives, the root of the
//!    context must offer it. The tree is built depth first.
//! 2. **Cuts.** A branch stops at a success (both ended, no context), at a node equal to
//!    an ancestor (it repeats for ever), or at a node whose context *grows* like an
//!    earlier pair of ancestors with the same subtype state: their leaves are included
//!    in its leaves and the receives between the two ancestors lead both contexts the
//!    same way.
//! 3. **Witnesses.** The subtrees rooted at the ancestors of growing cuts are the
//!    candidates. Each must be finite (only equal repeats and successes) or a *witness*
//!    ([`checks`]): every cycle through the cuts receives, the
//!    accumulation along every path stays at least as high as where it started and
//!    ends in states the cut leaf has, and everything the supertype's leaves produce
//!    along the candidate (a regular language of receives, built as an automaton from
//!    equations) is consumed by the subtype's receives along it (an embedding of
//!    automata). Then the tree extends for ever without failing.
//!
//! If any node of the tree fails, or a candidate is not a witness, nothing is proved;
//! that is **not** a refutation ([`super::check`] looks for a run that goes wrong).
//!
//! # Duality
//!
//! When the pair itself is not proved (its tree is stuck or a candidate is no witness),
//! the same technique tries the pair of duals, `dual(sup) ≤ dual(sub)` (every send made
//! a receive and every receive a send), with what is left of the budget — as the
//! CONCUR'19 tool does in its second pass. The pending receives of one side are the
//! pending sends of the other, and one pattern is often regular where the other is
//! not (`smallinnerloop1 ≤ innerloop2` of the tool's tests: the supertype's receives
//! grow as a tree on the pair, as a single word on the duals).
//!
//! That is sound because subtyping is closed under duality (see `duality`).
//!
//! # Scope
//!
//! The technique is binary: sends may overtake receives, nothing else is reordered.
//! With several peers that is a restriction of the multiparty rules (a send also
//! overtakes sends to other peers, a receive overtakes receives from other peers), so
//! a proof stays a proof. It applies when every state of both machines sends to one
//! peer or receives from one peer (no mixed state); otherwise it is not tried.
//!
//! # Budget
//!
//! [`Budget`]: at most so many tree nodes, so much work (ancestor comparisons,
//! accumulation and automata steps) and input trees of at most so many nodes, for both
//! attempts together (the pair, then the duals); the recursion is capped too. Nothing is
//! allocated in proportion to a bound up front.

mod checks;
mod duality;
mod input_tree;
mod step;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use rustc_hash::FxHasher;

use super::machine::{ActionId, compile};
use crate::{Fsm, StateKind};
use duality::dual;
use input_tree::{Ctx, OutOfBudget, Tree, subset};
use step::one_step;

/// The budget of the witness-tree search (the pair and its duals together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// At most this many simulation-tree nodes.
    pub max_nodes: usize,
    /// At most this many units of work (ancestor comparisons, accumulation steps,
    /// automaton pairs).
    pub max_work: u64,
    /// Input contexts of at most this many nodes.
    pub max_tree: usize,
}

impl Default for Budget {
    /// 5 000 nodes, 1 000 000 units of work, contexts of 65 536 nodes.
    fn default() -> Self {
        Budget {
            max_nodes: 5_000,
            max_work: 1_000_000,
            max_tree: 65_536,
        }
    }
}

/// Why the witness-tree technique did not prove the pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotWitnessed {
    /// The technique does not apply: this state of this machine mixes sends and
    /// receives or talks to several peers.
    NotApplicable {
        /// Whether the state is the subtype's (else the supertype's).
        in_subtype: bool,
        /// The state.
        state: usize,
    },
    /// A node of the simulation tree has no move.
    Stuck {
        /// The subtype's state there.
        sub_state: usize,
        /// The leaf states of the supertype's input context there.
        super_states: Vec<usize>,
        /// Which move is missing.
        why: &'static str,
    },
    /// The subtree below the subtype's state `sub_state` grows in a way the witness
    /// checks cannot show to be regular.
    NotAWitness {
        /// The subtype's state at the root of the candidate subtree.
        sub_state: usize,
    },
    /// The budget ran out after this many tree nodes.
    Budget {
        /// Nodes built.
        nodes: usize,
        /// Units of work spent (at most [`Budget::max_work`]).
        work: u64,
        /// Whether it was the time limit (else the nodes, work or context size).
        time: bool,
    },
}

impl fmt::Display for NotWitnessed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotWitnessed::NotApplicable { in_subtype, state } => write!(
                f,
                "witness trees do not apply: {} state {state} mixes sends and receives or \
                 talks to several peers",
                if *in_subtype { "subtype" } else { "supertype" }
            ),
            NotWitnessed::Stuck {
                sub_state,
                super_states,
                why,
            } => write!(
                f,
                "the simulation tree is stuck at subtype state {sub_state} against supertype \
                 state(s) {super_states:?}: {why}"
            ),
            NotWitnessed::NotAWitness { sub_state } => write!(
                f,
                "the simulation subtree from subtype state {sub_state} is not a witness (its \
                 pending receives do not grow in a pattern the checks recognise)"
            ),
            NotWitnessed::Budget { nodes, time, .. } => write!(
                f,
                "the witness-tree {} ran out ({nodes} simulation-tree nodes)",
                if *time { "time limit" } else { "budget" }
            ),
        }
    }
}

/// What a witness-tree proof built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Proved {
    pub nodes: usize,
    pub candidates: usize,
    pub work: u64,
    /// Proved on the pair of duals.
    pub dual: bool,
}

/// How a branch of the simulation tree ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Not decided yet.
    Open,
    /// Has children.
    Inner,
    /// Both ended with nothing pending.
    Success,
    /// Stopped at an ancestor: `exact` when the node repeats it.
    Cut { ancestor: u32, exact: bool },
}

/// A simulation-tree node.
#[derive(Debug)]
struct Node {
    p: u32,
    tree: Tree,
    leaves: Vec<u32>,
    hash: u64,
    /// `u32::MAX` for the root.
    parent: u32,
    /// The action on the edge from the parent (unused at the root).
    label: ActionId,
    children: Vec<u32>,
    end: End,
}

/// Why a step of the simulation failed.
enum StepError {
    Budget,
    Stuck(&'static str),
}

impl From<OutOfBudget> for StepError {
    fn from(_: OutOfBudget) -> Self {
        StepError::Budget
    }
}

/// Tries to prove `sub ≤ sup` with witness trees (both machines deterministic): on
/// the pair itself, and when its simulation tree is stuck or not a witness, on the
/// pair of duals `dual(sup) ≤ dual(sub)` with what is left of the budget (see the
/// module's "Duality"). When both fail, the answer is the first attempt's reason,
/// unless the second ran out of budget.
pub(crate) fn prove(
    sub: &Fsm,
    sup: &Fsm,
    budget: &Budget,
    deadline: Option<Instant>,
) -> Result<Proved, NotWitnessed> {
    for (in_subtype, fsm) in [(true, sub), (false, sup)] {
        for s in 0..fsm.state_count() {
            let ts = fsm.transitions(s);
            if fsm.kind(s) == StateKind::Mixed
                || ts.iter().any(|t| t.action.peer != ts[0].action.peer)
            {
                return Err(NotWitnessed::NotApplicable {
                    in_subtype,
                    state: s,
                });
            }
        }
    }
    let (first, nodes, work) = attempt(sub, sup, budget, deadline);
    let why = match first {
        Ok(proved) => return Ok(proved),
        Err(why @ NotWitnessed::Budget { .. }) => return Err(why),
        Err(why) => why,
    };
    let rest = Budget {
        max_nodes: budget.max_nodes - nodes,
        max_work: budget.max_work - work,
        max_tree: budget.max_tree,
    };
    let (Some(dual_sup), Some(dual_sub)) = (dual(sup), dual(sub)) else {
        return Err(why);
    };
    let (second, dual_nodes, dual_work) = attempt(&dual_sup, &dual_sub, &rest, deadline);
    match second {
        Ok(proved) => Ok(Proved {
            nodes: nodes + proved.nodes,
            work: work + proved.work,
            dual: true,
            ..proved
        }),
        Err(NotWitnessed::Budget { time, .. }) => Err(NotWitnessed::Budget {
            nodes: nodes + dual_nodes,
            work: work + dual_work,
            time,
        }),
        Err(_) => Err(why),
    }
}

/// One witness-tree attempt on `sub ≤ sup` (both directed and deterministic), with
/// the nodes and work it spent.
fn attempt(
    sub: &Fsm,
    sup: &Fsm,
    budget: &Budget,
    deadline: Option<Instant>,
) -> (Result<Proved, NotWitnessed>, usize, u64) {
    let (table, sub_m, sup_m) = compile(sub, sup);
    let mut ctx = Ctx::new(
        &table,
        &sub_m,
        &sup_m,
        (sub.state_count(), sup.state_count()),
        budget.max_work,
        budget.max_tree,
    );
    ctx.deadline = deadline;
    let mut sim = Sim {
        nodes: Vec::new(),
        max_nodes: budget.max_nodes,
        stuck_at: 0,
    };
    let out_of_budget = |sim: &Sim, ctx: &Ctx| NotWitnessed::Budget {
        nodes: sim.nodes.len(),
        work: ctx.work,
        time: deadline.is_some_and(|at| Instant::now() >= at),
    };
    let result = match sim.build(&mut ctx) {
        Err(StepError::Budget) => Err(out_of_budget(&sim, &ctx)),
        Err(StepError::Stuck(why)) => {
            let node = &sim.nodes[sim.stuck_at as usize];
            Err(NotWitnessed::Stuck {
                sub_state: node.p as usize,
                super_states: node.leaves.iter().map(|&q| q as usize).collect(),
                why,
            })
        }
        Ok(()) => match checks::candidates(&sim.nodes, &mut ctx) {
            Err(OutOfBudget) => Err(out_of_budget(&sim, &ctx)),
            Ok(Err(root)) => Err(NotWitnessed::NotAWitness {
                sub_state: sim.nodes[root as usize].p as usize,
            }),
            Ok(Ok(candidates)) => Ok(Proved {
                nodes: sim.nodes.len(),
                candidates,
                work: ctx.work,
                dual: false,
            }),
        },
    };
    (result, sim.nodes.len(), ctx.work)
}

struct Sim {
    nodes: Vec<Node>,
    max_nodes: usize,
    /// The node being expanded (where a stuck step is).
    stuck_at: u32,
}

impl Sim {
    fn push(&mut self, p: u32, tree: Tree, parent: u32, label: ActionId) -> Result<u32, StepError> {
        if self.nodes.len() >= self.max_nodes {
            return Err(StepError::Budget);
        }
        let mut h = FxHasher::default();
        (p, &tree).hash(&mut h);
        self.nodes.push(Node {
            p,
            leaves: tree.leaves(),
            tree,
            hash: h.finish(),
            parent,
            label,
            children: Vec::new(),
            end: End::Open,
        });
        Ok(self.nodes.len() as u32 - 1)
    }

    /// Builds the whole tree depth first, or stops at the first stuck node.
    fn build(&mut self, ctx: &mut Ctx<'_>) -> Result<(), StepError> {
        let root = self.push(ctx.sub.initial, Tree::Leaf(ctx.sup.initial), u32::MAX, 0)?;
        let mut todo = vec![root];
        while let Some(v) = todo.pop() {
            let path = self.path_to(v);
            ctx.tick(path.len() as u64 + self.nodes[v as usize].tree.size() as u64)?;
            let node = &self.nodes[v as usize];
            if let Some(&a) = path.iter().find(|&&a| {
                let n = &self.nodes[a as usize];
                n.hash == node.hash && n.p == node.p && n.tree == node.tree
            }) {
                self.nodes[v as usize].end = End::Cut {
                    ancestor: a,
                    exact: true,
                };
                continue;
            }
            if let Some(a) = self.growing_ancestor(&path, v, ctx)? {
                self.nodes[v as usize].end = End::Cut {
                    ancestor: a,
                    exact: false,
                };
                continue;
            }
            let (p, tree) = (node.p, node.tree.clone());
            self.stuck_at = v;
            let moves = one_step(ctx, p, &tree)?;
            if moves.is_empty() {
                self.nodes[v as usize].end = End::Success;
                continue;
            }
            self.nodes[v as usize].end = End::Inner;
            for (a, p2, t2) in moves {
                let c = self.push(p2, t2, v, a)?;
                self.nodes[v as usize].children.push(c);
                todo.push(c);
            }
        }
        Ok(())
    }

    /// The ancestors of `v`, root first.
    fn path_to(&self, v: u32) -> Vec<u32> {
        let mut path = Vec::new();
        let mut a = self.nodes[v as usize].parent;
        while a != u32::MAX {
            path.push(a);
            a = self.nodes[a as usize].parent;
        }
        path.reverse();
        path
    }

    /// `b` has `a`'s subtype state and a context that contains `a`'s leaves.
    fn similar(&self, a: u32, b: u32) -> bool {
        let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        x.p == y.p && (x.tree == y.tree || subset(&x.leaves, &y.leaves))
    }

    /// Among the ancestors since the context was last empty, one `ni` similar to `v`
    /// such that a later one `nj`, also similar to `v`, is similar to `ni`, and the
    /// receives from `ni` to `nj` lead `ni`'s and `v`'s contexts alike.
    ///
    /// The condition asks for *some* such pair. The CONCUR'19 tool tries only the
    /// first similar ancestor with the last one similar to it; that pair is tried
    /// first here too (so every tree the tool cuts is cut alike), then the others,
    /// nearest `nj` first: on paths that mix several loops the first ancestor can be
    /// too shallow for the receives up to the last one, while a later pair repeats
    /// (`snewex1 ≤ snewex2` of the tool's tests). A cut is only a claim that the
    /// witness checks of its candidate subtree then verify, so the choice of pair
    /// changes where the tree is cut, never what a proof needs.
    fn growing_ancestor(
        &self,
        path: &[u32],
        v: u32,
        ctx: &mut Ctx<'_>,
    ) -> Result<Option<u32>, OutOfBudget> {
        let start = path
            .iter()
            .rposition(|&a| !self.nodes[a as usize].tree.is_branch())
            .map_or(0, |i| i + 1);
        let suffix = &path[start..];
        let ys: Vec<usize> = (0..suffix.len())
            .filter(|&i| self.similar(suffix[i], v))
            .collect();
        let table = ctx.table;
        let leads_alike = |i: usize, j: usize| {
            let receives: Vec<ActionId> = suffix[i + 1..=j]
                .iter()
                .map(|&n| self.nodes[n as usize].label)
                .filter(|&a| table.is_receive(a))
                .collect();
            extract(
                &receives,
                &self.nodes[suffix[i] as usize].tree,
                &self.nodes[v as usize].tree,
            )
        };
        // The tool's pair: the first similar ancestor and the last similar to it.
        let Some((&first, rest)) = ys.split_first() else {
            return Ok(None);
        };
        let tool = rest
            .iter()
            .rev()
            .find(|&&j| self.similar(suffix[first], suffix[j]));
        if let Some(&last) = tool {
            if leads_alike(first, last) {
                return Ok(Some(suffix[first]));
            }
        }
        // Any other pair, the nearest first.
        ctx.tick((ys.len() * ys.len() + suffix.len()) as u64)?;
        let mut found = None;
        'pairs: for (x, &j) in ys.iter().enumerate().rev() {
            for &i in ys[..x].iter().rev() {
                if (i, Some(&j)) == (first, tool) || !self.similar(suffix[i], suffix[j]) {
                    continue;
                }
                if leads_alike(i, j) {
                    found = Some(suffix[i]);
                    break 'pairs;
                }
            }
        }
        Ok(found)
    }
}

/// Whether the receives `w` lead the two contexts alike: both down the same branches
/// until the first reaches a leaf, or, when `w` is used up, the first is no deeper.
fn extract(w: &[ActionId], first: &Tree, second: &Tree) -> bool {
    match (first, second) {
        (Tree::Leaf(_), Tree::Leaf(_)) => true,
        _ if w.is_empty() => first.min_height() <= second.min_height(),
        (Tree::Branch(_), Tree::Branch(_)) => match (first.next(w[0]), second.next(w[0])) {
            (Some(a), Some(b)) => extract(&w[1..], a, b),
            _ => false,
        },
        _ => false,
    }
}
