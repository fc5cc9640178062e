//! The coinductive part of merging: unfolding a recursion variable met against a
//! reception, and the fresh variables that close a merge met again inside itself.
//!
//! A third party may learn a choice only from the first message after looping back
//! (scribble-java's `Choice11`: B's branches are `X` and `A?2()`, and `X` starts with
//! `A?1()`). Merging `X` with a reception merges the projection of `X`'s `rec` (walked
//! again from where it is bound) with it. That walk meets the same merge again; the
//! pair then stands for a fresh variable, bound around the pair's result, so the merge
//! is a loop. Pairs are hash-consed ids, so this terminates after as many merges as
//! there are distinct pairs.

use super::arena::{LId, Node, Sym};
use super::walk::Projector;
use crate::Global;

/// How many recursion variables may be unfolded one inside another (each unfolding
/// walks the variable's `rec` again, so this bounds the work and the stack).
const MAX_UNFOLDING: u32 = 32;

/// How many recursion variables one projection may unfold in all (each walks its `rec`
/// again): past it, merging a loop back fails as it did before unfolding existed, so
/// adversarial nests of loops are refused rather than projected in exponential time.
pub(super) const UNFOLD_BUDGET: u32 = 256;

impl<'a> Projector<'a> {
    /// Interns the name of every `rec` variable of `g`, so that fresh merge variables
    /// never take a name written in the protocol.
    pub(super) fn intern_rec_vars(&mut self, g: &'a Global) {
        let mut stack = vec![g];
        while let Some(g) = stack.pop() {
            match g {
                Global::End | Global::Continue(_) => {}
                Global::Message { cont, .. } => stack.push(cont),
                Global::Rec { var, body } => {
                    self.arena.sym(&var.text);
                    stack.push(body);
                }
                Global::Choice { branches, .. } => stack.extend(branches.iter()),
            }
        }
    }

    /// The projection of the `rec` that binds the recursion variable `var` in scope,
    /// walked again from where it is bound: a closed type equal to `var`'s unfolding.
    /// `None` when `var` is not a protocol variable in scope, when the walk fails, or
    /// when too many unfoldings are nested.
    pub(super) fn unfold_var(&mut self, var: Sym) -> Option<LId> {
        if self.unfolding >= MAX_UNFOLDING || self.unfold_budget == 0 {
            return None;
        }
        let i = self.env.iter().rposition(|&(v, _, _)| v == var)?;
        let (_, actions, rec) = self.env[i];
        let key = (std::ptr::from_ref(rec) as usize, i);
        if let Some(&u) = self.unfolded.get(&key) {
            if self.reusable(u) {
                return Some(u);
            }
        }
        self.unfold_budget -= 1;
        let saved = self.env.split_off(i);
        self.unfolding += 1;
        let result = self.walk_tail(rec, actions);
        self.unfolding -= 1;
        self.env.truncate(i);
        self.env.extend(saved);
        let u = result.ok()?;
        self.unfolded.insert(key, u);
        Some(u)
    }

    /// Whether a memoised merge or unfolding `m` may be reused here: each of its free
    /// merge variables stands for a merge still in progress, so it will be bound
    /// around the place `m` is used (a merge variable means the same merge wherever it
    /// occurs, so `m` is then the same regular tree as a fresh computation).
    pub(super) fn reusable(&self, m: LId) -> bool {
        self.arena
            .free(m)
            .iter()
            .all(|s| match self.merge_keys.get(s) {
                None => true,
                Some(ids) => match **ids {
                    [a, b] => self.merging.contains(&(a, b)),
                    _ => self.merging_many.contains(ids),
                },
            })
    }

    /// The variable standing for the merge of `ids` met again inside itself, created
    /// on first use.
    pub(super) fn merge_var(&mut self, ids: &[LId]) -> LId {
        let sym = match self.merge_vars.get(ids) {
            Some(&s) => s,
            None => {
                let s = self.fresh_sym();
                self.merge_vars.insert(ids.into(), s);
                self.merge_keys.insert(s, ids.into());
                s
            }
        };
        self.arena.intern(Node::Var(sym))
    }

    /// Closes the merge `m` of `ids`: binds their variable if `m` uses it. `None` if
    /// `m` is the bare variable (the merge loops with no action).
    pub(super) fn close_merge(&mut self, ids: &[LId], m: LId) -> Option<LId> {
        let Some(&sym) = self.merge_vars.get(ids) else {
            return Some(m);
        };
        match *self.arena.node(m) {
            Node::Var(v) if v == sym => None,
            _ => Some(self.arena.rec(sym, m)),
        }
    }

    /// Whether `m` has a free merge variable (its meaning then depends on the merges
    /// in progress, so it is not memoised).
    pub(super) fn open_merge(&self, m: LId) -> bool {
        self.arena
            .free(m)
            .iter()
            .any(|s| self.merge_keys.contains_key(s))
    }

    /// The pair to report when merging `outer` failed on `inner`: `inner`, unless it
    /// names a merge variable (not written in the protocol, so meaningless to the user).
    pub(super) fn blame(&self, inner: (LId, LId), outer: (LId, LId)) -> (LId, LId) {
        if self.open_merge(inner.0) || self.open_merge(inner.1) {
            outer
        } else {
            inner
        }
    }

    /// A recursion-variable name used nowhere yet in the arena.
    fn fresh_sym(&mut self) -> Sym {
        let mut n = self.merge_keys.len();
        loop {
            let name = format!("M{n}");
            if !self.arena.has_name(&name) {
                let s = self.arena.sym(&name);
                self.arena.mark_generated(s);
                return s;
            }
            n += 1;
        }
    }
}
