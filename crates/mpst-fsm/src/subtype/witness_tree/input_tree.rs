//! Input trees of the CONCUR'19 simulation: the receives the supertype has performed
//! ahead of the subtype (its *input context*), as a tree whose edges are receives and
//! whose leaves are the supertype states reached after them, plus the machine facts
//! the simulation needs (which states can loop sending or receiving forever).

use std::rc::Rc;
use std::time::Instant;

use rustc_hash::FxHashMap;

use super::super::machine::{ActionId, ActionTable, Machine};
use crate::StateKind;

/// The deepest recursion allowed (input trees, accumulation along a path): beyond it
/// the search gives up instead of risking the call stack.
pub(super) const MAX_RECURSION: usize = 2_000;

/// An input context: a supertype state, or receives (sorted by action) each leading to
/// a smaller context. Sizes are bounded by the budget, so comparing and hashing trees
/// costs at most the size cap.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Tree {
    /// No pending receive: the supertype is in this state.
    Leaf(u32),
    /// Pending receives; the size counts every node of the tree.
    Branch(Rc<Branches>),
}

/// The children of a [`Tree::Branch`].
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) struct Branches {
    size: usize,
    kids: Vec<(ActionId, Tree)>,
}

/// The search ran out of its budget (work or tree size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OutOfBudget;

impl Tree {
    fn branch(kids: Vec<(ActionId, Tree)>, cap: usize) -> Result<Tree, OutOfBudget> {
        let size = 1 + kids.iter().map(|(_, t)| t.size()).sum::<usize>();
        if size > cap {
            return Err(OutOfBudget);
        }
        Ok(Tree::Branch(Rc::new(Branches { size, kids })))
    }

    /// How many nodes.
    pub(super) fn size(&self) -> usize {
        match self {
            Tree::Leaf(_) => 1,
            Tree::Branch(b) => b.size,
        }
    }

    /// Whether receives are pending (the paper's non-empty context).
    pub(super) fn is_branch(&self) -> bool {
        matches!(self, Tree::Branch(_))
    }

    /// The receives at the root (empty for a leaf).
    pub(super) fn front(&self) -> impl Iterator<Item = ActionId> + '_ {
        let kids: &[(ActionId, Tree)] = match self {
            Tree::Leaf(_) => &[],
            Tree::Branch(b) => &b.kids,
        };
        kids.iter().map(|(a, _)| *a)
    }

    /// The subtree after the root receive `a`.
    pub(super) fn next(&self, a: ActionId) -> Option<&Tree> {
        match self {
            Tree::Leaf(_) => None,
            Tree::Branch(b) => b.kids.iter().find(|(x, _)| *x == a).map(|(_, t)| t),
        }
    }

    /// Every leaf state with its depth (duplicates removed).
    pub(super) fn heights(&self) -> Vec<(i64, u32)> {
        let mut out = Vec::new();
        let mut stack = vec![(0_i64, self)];
        while let Some((h, t)) = stack.pop() {
            match t {
                Tree::Leaf(q) => out.push((h, *q)),
                Tree::Branch(b) => stack.extend(b.kids.iter().map(|(_, k)| (h + 1, k))),
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The leaf states, sorted, without duplicates.
    pub(super) fn leaves(&self) -> Vec<u32> {
        let mut out: Vec<u32> = self.heights().into_iter().map(|(_, q)| q).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The depth of the shallowest leaf.
    pub(super) fn min_height(&self) -> i64 {
        self.heights().iter().map(|(h, _)| *h).min().unwrap_or(0)
    }

    /// Replaces every leaf `q` by `f(q)`.
    pub(super) fn graft(
        &self,
        f: &mut dyn FnMut(u32) -> Result<Option<Tree>, OutOfBudget>,
        cap: usize,
    ) -> Result<Option<Tree>, OutOfBudget> {
        match self {
            Tree::Leaf(q) => f(*q),
            Tree::Branch(b) => {
                let mut kids = Vec::with_capacity(b.kids.len());
                for (a, k) in &b.kids {
                    match k.graft(f, cap)? {
                        Some(t) => kids.push((*a, t)),
                        None => return Ok(None),
                    }
                }
                Tree::branch(kids, cap).map(Some)
            }
        }
    }
}

/// Whether every element of the sorted `a` is in the sorted `b`.
pub(super) fn subset(a: &[u32], b: &[u32]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

/// Both machines with what the simulation asks of them, and the shared budget.
pub(super) struct Ctx<'a> {
    pub table: &'a ActionTable,
    pub sub: &'a Machine,
    pub sup: &'a Machine,
    /// Sub states from which sends alone can go on forever (no receive ever comes).
    sub_send_loops: Vec<bool>,
    /// Super states from which receives alone can go on forever.
    sup_receive_loops: Vec<bool>,
    in_trees: FxHashMap<u32, Option<Tree>>,
    /// The depth of the recursion of [`Ctx::in_tree`].
    depth: usize,
    /// Work done so far and its budget.
    pub work: u64,
    pub max_work: u64,
    /// The largest input tree allowed, in nodes.
    pub max_tree: usize,
    /// Stop when this instant has passed (checked every 1024 units of work).
    pub deadline: Option<Instant>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(
        table: &'a ActionTable,
        sub: &'a Machine,
        sup: &'a Machine,
        states: (usize, usize),
        max_work: u64,
        max_tree: usize,
    ) -> Self {
        Ctx {
            table,
            sub,
            sup,
            sub_send_loops: loops(sub, states.0, StateKind::Send),
            sup_receive_loops: loops(sup, states.1, StateKind::Receive),
            in_trees: FxHashMap::default(),
            depth: 0,
            work: 0,
            max_work,
            max_tree,
            deadline: None,
        }
    }

    /// Counts `n` units of work against the budget; work that would exceed it is
    /// refused before it is done (and not counted), so `work <= max_work` always.
    pub(super) fn tick(&mut self, n: u64) -> Result<(), OutOfBudget> {
        let before = self.work;
        if n > self.max_work - self.work {
            return Err(OutOfBudget);
        }
        self.work += n;
        if before >> 10 != self.work >> 10 && self.deadline.is_some_and(|at| Instant::now() >= at) {
            return Err(OutOfBudget);
        }
        Ok(())
    }

    /// Whether the action is a receive.
    pub(super) fn is_receive(&self, a: ActionId) -> bool {
        self.table.is_receive(a)
    }

    /// Whether the subtype can keep sending from `p` without ever receiving.
    pub(super) fn sub_sends_forever(&self, p: u32) -> bool {
        self.sub_send_loops[p as usize]
    }

    /// The sorted actions of a state of one machine.
    pub(super) fn barb(m: &Machine, state: u32) -> Vec<u32> {
        let mut v: Vec<u32> = m.edges(state).iter().map(|(a, _)| *a).collect();
        v.sort_unstable();
        v
    }

    /// The target of `state`'s transition `a` in `m`.
    pub(super) fn succ(m: &Machine, state: u32, a: ActionId) -> Option<u32> {
        m.edges(state)
            .iter()
            .find(|(x, _)| *x == a)
            .map(|(_, t)| *t)
    }

    /// The receives the supertype performs from `q` before its next send (or end), as
    /// a tree; `None` when it can receive forever from `q` (no finite tree).
    pub(super) fn in_tree(&mut self, q: u32) -> Result<Option<Tree>, OutOfBudget> {
        if let Some(t) = self.in_trees.get(&q) {
            return Ok(t.clone());
        }
        self.tick(1)?;
        self.depth += 1;
        let tree = self.in_tree_uncached(q);
        self.depth -= 1;
        let tree = tree?;
        self.in_trees.insert(q, tree.clone());
        Ok(tree)
    }

    fn in_tree_uncached(&mut self, q: u32) -> Result<Option<Tree>, OutOfBudget> {
        if self.depth > MAX_RECURSION {
            return Err(OutOfBudget);
        }
        if self.sup_receive_loops[q as usize] {
            return Ok(None);
        }
        if self.sup.kind(q) != StateKind::Receive {
            return Ok(Some(Tree::Leaf(q)));
        }
        // Acyclic below `q` (no receive loop), so the recursion ends.
        let mut kids = Vec::new();
        let sup = self.sup;
        for &(a, t) in sup.edges(q) {
            match self.in_tree(t)? {
                Some(k) => kids.push((a, k)),
                None => return Ok(None),
            }
        }
        kids.sort_by_key(|(a, _)| *a);
        Ok(Some(Tree::branch(kids, self.max_tree)?))
    }

    /// The input tree the supertype accumulates from `q` while the subtype performs the
    /// sends `sends` (and no receive): `None` if the supertype cannot follow them.
    pub(super) fn acc_tree(
        &mut self,
        q: u32,
        sends: &[ActionId],
    ) -> Result<Option<Tree>, OutOfBudget> {
        if sends.len() > MAX_RECURSION {
            return Err(OutOfBudget);
        }
        let Some((&a, rest)) = sends.split_first() else {
            return Ok(Some(Tree::Leaf(q)));
        };
        self.tick(1)?;
        let Some(acc) = self.in_tree(q)? else {
            return Ok(None);
        };
        let cap = self.max_tree;
        acc.graft(
            &mut |leaf| match Ctx::succ(self.sup, leaf, a) {
                None => Ok(None),
                Some(next) => self.acc_tree(next, rest),
            },
            cap,
        )
    }

    /// The least height the accumulation can reach from `height` along `labels` (a path
    /// of the simulation), for the supertype leaf `q` (the paper's `closest`).
    pub(super) fn closest(
        &mut self,
        height: i64,
        q: u32,
        labels: &[ActionId],
    ) -> Result<Option<i64>, OutOfBudget> {
        if labels.len() > MAX_RECURSION {
            return Err(OutOfBudget);
        }
        let Some((&a, rest)) = labels.split_first() else {
            return Ok(Some(height));
        };
        self.tick(1)?;
        if self.is_receive(a) {
            return self.closest(height - 1, q, rest);
        }
        let Some(acc) = self.in_tree(q)? else {
            return Ok(None);
        };
        let mut least: Option<i64> = None;
        for (h, leaf) in acc.heights() {
            let Some(next) = Ctx::succ(self.sup, leaf, a) else {
                return Ok(None);
            };
            match self.closest(height + h, next, rest)? {
                None => return Ok(None),
                Some(c) => least = Some(least.map_or(c, |l| l.min(c))),
            }
        }
        Ok(least)
    }
}

/// For each state, whether transitions of `kind` states alone can go on forever from
/// it (it reaches a cycle of `kind` states). A `kind` state stops for sure when all its
/// successors do; those are peeled off from the states that are not of `kind`, in
/// linear time, and what remains loops.
fn loops(m: &Machine, states: usize, kind: StateKind) -> Vec<bool> {
    let mut looping: Vec<bool> = (0..states as u32).map(|s| m.kind(s) == kind).collect();
    let mut waiting: Vec<usize> = vec![0; states];
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); states];
    for s in 0..states as u32 {
        if looping[s as usize] {
            for &(_, t) in m.edges(s) {
                waiting[s as usize] += 1;
                preds[t as usize].push(s);
            }
        }
    }
    let mut stopped: Vec<u32> = (0..states as u32)
        .filter(|&s| !looping[s as usize])
        .collect();
    while let Some(t) = stopped.pop() {
        for &s in &preds[t as usize] {
            waiting[s as usize] -= 1;
            if waiting[s as usize] == 0 && looping[s as usize] {
                looping[s as usize] = false;
                stopped.push(s);
            }
        }
    }
    looping
}
