//! nuscr's merging of a third party's projections of the branches of a choice, extended
//! to receptions from different senders (scribble-java's rule for a role that learns the
//! choice from whichever peer speaks first).
//!
//! [`Projector::merge`] merges two local types; [`Projector::merge_many`] merges all the
//! branches of a choice at once, label by label, so that a `n`-way choice costs `O(n)`
//! rather than the `O(n²)` of folding `n` growing merges. Both are memoised, find
//! cycles through unfolded recursions, and fold long runs of common receptions in a
//! loop instead of recursing once per message.

use mpst_fsm::Direction;
use rustc_hash::{FxHashMap, FxHashSet};

use super::arena::{LId, MsgId, Node, Sym};
use super::walk::Projector;

impl Projector<'_> {
    /// nuscr's merge, extended to several senders: equal types, or receptions whose
    /// common (sender, label) branches carry the same sorts and whose continuations
    /// merge; receptions from different senders become one [`Node::Offer`] (the role
    /// learns the choice from whichever sender speaks first). On failure, the innermost
    /// pair that could not be merged.
    pub(super) fn merge(&mut self, a: LId, b: LId) -> Result<LId, (LId, LId)> {
        if a == b {
            return Ok(a);
        }
        if let Some(&m) = self.merged.get(&(a, b)) {
            if self.reusable(m) {
                return Ok(m);
            }
        }
        if !self.merging.insert((a, b)) {
            // Met again inside its own merge: coinductively, a loop back to it.
            return Ok(self.merge_var(&[a, b]));
        }
        let result = self
            .merge_nodes(a, b)
            .and_then(|m| self.close_merge(&[a, b], m).ok_or((a, b)))
            .map_err(|inner| self.blame(inner, (a, b)));
        self.merging.remove(&(a, b));
        if let Ok(m) = result {
            self.merged.insert((a, b), m);
        }
        result
    }

    fn merge_nodes(&mut self, a: LId, b: LId) -> Result<LId, (LId, LId)> {
        let receive = |n: &Node| {
            matches!(
                n,
                Node::Choice {
                    dir: Direction::Receive,
                    ..
                } | Node::Offer { .. }
            )
        };
        if let (Some(left), Some(right)) = (self.receptions(a), self.receptions(b)) {
            if let ([(p, m, _)], [(q, m2, _)]) = (&*left, &*right) {
                if p == q && self.arena.label(*m) == self.arena.label(*m2) {
                    return self.merge_chain(a, b);
                }
            }
            // Receptions merge branch by branch, a branch named by its sender and label:
            // from one sender as in nuscr, from several into an `Offer`.
            let mut out = left;
            let mut index: FxHashMap<(Sym, Sym), usize> = out
                .iter()
                .enumerate()
                .map(|(i, &(p, m, _))| ((p, self.arena.label(m)), i))
                .collect();
            for (p, m, c) in right {
                let key = (p, self.arena.label(m));
                match index.get(&key).copied() {
                    Some(i) => {
                        let (_, m2, c2) = out[i];
                        if !self.arena.message(m).same_sort(self.arena.message(m2)) {
                            return Err((a, b));
                        }
                        out[i].2 = self.merge(c2, c)?;
                    }
                    None => {
                        index.insert(key, out.len());
                        out.push((p, m, c));
                    }
                }
            }
            return Ok(self.reception_node(out));
        }
        match (self.arena.node(a).clone(), self.arena.node(b).clone()) {
            (Node::Rec(x, left), Node::Rec(y, right)) if x == y => {
                let body = self.merge(left, right)?;
                Ok(self.arena.rec(x, body))
            }
            (Node::Rec(..), other) if receive(&other) => {
                let a = self.arena.head_normal(a);
                self.merge(a, b)
            }
            (other, Node::Rec(..)) if receive(&other) => {
                let b = self.arena.head_normal(b);
                self.merge(a, b)
            }
            // A loop back merged with a reception: unfold the loop.
            (Node::Var(x), other) if receive(&other) || matches!(other, Node::Rec(..)) => {
                let a = self.unfold_var(x).ok_or((a, b))?;
                self.merge(a, b)
            }
            (other, Node::Var(y)) if receive(&other) || matches!(other, Node::Rec(..)) => {
                let b = self.unfold_var(y).ok_or((a, b))?;
                self.merge(a, b)
            }
            _ => Err((a, b)),
        }
    }
}

impl Projector<'_> {
    /// The branches of a reception (from one peer or an `Offer` from several), as
    /// (peer, message, continuation).
    fn receptions(&self, id: LId) -> Option<Vec<(Sym, MsgId, LId)>> {
        match self.arena.node(id) {
            Node::Choice {
                dir: Direction::Receive,
                peer,
                branches,
            } => Some(branches.iter().map(|&(m, c)| (*peer, m, c)).collect()),
            Node::Offer { branches } => Some(branches.to_vec()),
            _ => None,
        }
    }

    /// The reception of `branches` (pairwise distinct by peer and label): a
    /// [`Node::Choice`] when they all come from one peer, an [`Node::Offer`] otherwise.
    fn reception_node(&mut self, branches: Vec<(Sym, MsgId, LId)>) -> LId {
        match branches.first() {
            Some(&(peer, _, _)) if branches.iter().all(|&(p, _, _)| p == peer) => {
                self.arena.intern(Node::Choice {
                    dir: Direction::Receive,
                    peer,
                    branches: branches.into_iter().map(|(_, m, c)| (m, c)).collect(),
                })
            }
            _ => self.arena.intern(Node::Offer {
                branches: branches.into(),
            }),
        }
    }

    /// Merges two runs of single receptions with equal messages in a loop, so that long
    /// common runs do not recurse once per message.
    fn merge_chain(&mut self, a: LId, b: LId) -> Result<LId, (LId, LId)> {
        let mut prefix = Vec::new();
        let (mut x, mut y) = (a, b);
        let tail = loop {
            if x == y {
                break x;
            }
            let step = match (self.arena.node(x), self.arena.node(y)) {
                (
                    Node::Choice {
                        dir: Direction::Receive,
                        peer: p,
                        branches: left,
                    },
                    Node::Choice {
                        dir: Direction::Receive,
                        peer: q,
                        branches: right,
                    },
                ) if p == q && left.len() == 1 && right.len() == 1 => {
                    let ((m, c), (m2, c2)) = (left[0], right[0]);
                    let same = self.arena.label(m) == self.arena.label(m2)
                        && self.arena.message(m).same_sort(self.arena.message(m2));
                    same.then_some((*p, m, c, c2))
                }
                _ => None,
            };
            match step {
                Some((peer, m, c, c2)) => {
                    prefix.push((peer, m));
                    x = c;
                    y = c2;
                }
                // Same label, different sorts.
                None if prefix.is_empty() => return Err((a, b)),
                None => break self.merge(x, y)?,
            }
        };
        let mut acc = tail;
        for (peer, m) in prefix.into_iter().rev() {
            acc = self.arena.action(Direction::Receive, peer, m, acc);
        }
        Ok(acc)
    }
}

impl Projector<'_> {
    /// The merge of every one of `ids` (see [`Self::merge`]). On failure, a pair that
    /// could not be merged.
    pub(super) fn merge_many(&mut self, ids: &[LId]) -> Result<LId, (LId, LId)> {
        let mut ids = distinct(ids);
        let mut prefix: Vec<(Sym, MsgId)> = Vec::new();
        let tail = loop {
            match ids[..] {
                [] => break self.arena.end(),
                [a] => break a,
                [a, b] => break self.merge(a, b)?,
                _ => {}
            }
            match self.common_reception(&ids) {
                Some((peer, m, conts)) => {
                    prefix.push((peer, m));
                    ids = distinct(&conts);
                }
                None => break self.merge_wide(&ids)?,
            }
        };
        let mut acc = tail;
        for (peer, m) in prefix.into_iter().rev() {
            acc = self.arena.action(Direction::Receive, peer, m, acc);
        }
        Ok(acc)
    }

    /// When every one of `ids` is the single reception of one and the same message from
    /// one peer: that peer, the message and the continuations.
    fn common_reception(&self, ids: &[LId]) -> Option<(Sym, MsgId, Vec<LId>)> {
        let mut common: Option<(Sym, MsgId)> = None;
        let mut conts = Vec::with_capacity(ids.len());
        for &id in ids {
            let Node::Choice {
                dir: Direction::Receive,
                peer,
                branches,
            } = self.arena.node(id)
            else {
                return None;
            };
            let [(m, c)] = **branches else {
                return None;
            };
            match common {
                None => common = Some((*peer, m)),
                Some((p, m0)) => {
                    let same = p == *peer
                        && self.arena.label(m0) == self.arena.label(m)
                        && self.arena.message(m0).same_sort(self.arena.message(m));
                    if !same {
                        return None;
                    }
                }
            }
            conts.push(c);
        }
        common.map(|(p, m)| (p, m, conts))
    }

    /// [`Self::merge_many`] of three or more distinct types, memoised.
    fn merge_wide(&mut self, ids: &[LId]) -> Result<LId, (LId, LId)> {
        let key: Box<[LId]> = ids.into();
        if let Some(&m) = self.merged_many.get(&key) {
            if self.reusable(m) {
                return Ok(m);
            }
        }
        if !self.merging_many.insert(key.clone()) {
            // Met again inside its own merge: coinductively, a loop back to it.
            return Ok(self.merge_var(ids));
        }
        let result = self
            .merge_wide_nodes(ids)
            .and_then(|m| self.close_merge(ids, m).ok_or((ids[0], ids[1])))
            .map_err(|inner| self.blame(inner, (ids[0], ids[1])));
        self.merging_many.remove(&key);
        if let Ok(m) = result {
            self.merged_many.insert(key, m);
        }
        result
    }

    fn merge_wide_nodes(&mut self, ids: &[LId]) -> Result<LId, (LId, LId)> {
        // Recursions on one variable: merge their bodies.
        if let Node::Rec(x, _) = *self.arena.node(ids[0]) {
            let bodies: Option<Vec<LId>> = ids
                .iter()
                .map(|&id| match *self.arena.node(id) {
                    Node::Rec(y, body) if y == x => Some(body),
                    _ => None,
                })
                .collect();
            if let Some(bodies) = bodies {
                let body = self.merge_many(&bodies)?;
                return Ok(self.arena.rec(x, body));
            }
        }
        // Loops back (rare): merge pairwise, unfolding them (see `Self::merge`).
        if ids
            .iter()
            .any(|&id| matches!(self.arena.node(id), Node::Var(_)))
        {
            let mut acc = ids[0];
            for &id in &ids[1..] {
                acc = self.merge(acc, id)?;
            }
            return Ok(acc);
        }
        // Otherwise only receptions merge, recursions unfolded.
        let mut heads = Vec::with_capacity(ids.len());
        for &id in ids {
            let head = self.arena.head_normal(id);
            heads.push(head);
        }
        // Per sender and label, in order of first appearance: the message, the type it
        // came from and the continuations to merge.
        let mut groups: Vec<(Sym, MsgId, LId, Vec<LId>)> = Vec::new();
        let mut index: FxHashMap<(Sym, Sym), usize> = FxHashMap::default();
        for &head in &heads {
            let Some(branches) = self.receptions(head) else {
                return Err((heads[0], head));
            };
            for (p, m, c) in branches {
                let key = (p, self.arena.label(m));
                match index.get(&key) {
                    Some(&i) => {
                        let (_, m0, owner, conts) = &mut groups[i];
                        if !self.arena.message(*m0).same_sort(self.arena.message(m)) {
                            return Err((*owner, head));
                        }
                        conts.push(c);
                    }
                    None => {
                        index.insert(key, groups.len());
                        groups.push((p, m, head, vec![c]));
                    }
                }
            }
        }
        if groups.is_empty() {
            return Ok(self.arena.end());
        }
        let mut branches = Vec::with_capacity(groups.len());
        for (p, m, _, conts) in groups {
            branches.push((p, m, self.merge_many(&conts)?));
        }
        Ok(self.reception_node(branches))
    }
}

/// `ids` without repetitions, in order of first appearance.
fn distinct(ids: &[LId]) -> Vec<LId> {
    let mut seen = FxHashSet::default();
    ids.iter().copied().filter(|&id| seen.insert(id)).collect()
}
