//! The projection of a global type onto one role, with nuscr's full merging.
//!
//! The walk is linear in the size of the global type: runs of messages are folded in a
//! loop (no call-stack depth per message), local types are hash-consed so identical
//! branches merge in constant time, and merges are memoised.

use std::ops::Range;

use mpst_fsm::Direction;
use rustc_hash::{FxHashMap, FxHashSet};

use super::arena::{Arena, LId, MsgId, Node, Sym};
use crate::wf::first_span;
use crate::{Diagnostic, ErrorKind, Global, Name, Span};

/// Recursion variables in scope, innermost last, with the number of actions of the
/// projected role seen on the path when they were bound and the `rec` that binds them
/// (walked again to unfold the variable in a merge).
pub(super) type Env<'a> = Vec<(Sym, u32, &'a Global)>;

/// Projects global types onto one role into a shared [`Arena`].
pub(crate) struct Projector<'a> {
    pub(super) arena: &'a mut Arena,
    pub(super) role: &'a str,
    pub(super) merged: FxHashMap<(LId, LId), LId>,
    pub(super) merging: FxHashSet<(LId, LId)>,
    pub(super) merged_many: FxHashMap<Box<[LId]>, LId>,
    pub(super) merging_many: FxHashSet<Box<[LId]>>,
    /// The recursion variables in scope at the point being projected.
    pub(super) env: Env<'a>,
    /// The coinductive merge: the variable standing for each merge (of a pair or of
    /// many) that was met again inside itself (see [`Projector::merge`]).
    pub(super) merge_vars: FxHashMap<Box<[LId]>, Sym>,
    /// The merge each variable of `merge_vars` stands for.
    pub(super) merge_keys: FxHashMap<Sym, Box<[LId]>>,
    /// Memoised unfoldings of recursion variables, by `rec` (address) and depth of its
    /// binding (see [`Projector::reusable`]).
    pub(super) unfolded: FxHashMap<(usize, usize), LId>,
    /// How many recursion variables are being unfolded, one inside another.
    pub(super) unfolding: u32,
    /// How many more recursion variables may be unfolded ([`super::loop_back`]).
    pub(super) unfold_budget: u32,
    /// Every `continue` reached without an action of the role since its `rec` (an
    /// unguarded loop for the role, projected as `end`), in walk order: a choice's
    /// diagnostic names the one in a branch it cannot merge.
    pub(super) unguarded: Vec<&'a Name>,
}

impl<'a> Projector<'a> {
    /// A projector onto `role`.
    pub fn new(arena: &'a mut Arena, role: &'a str) -> Self {
        Projector {
            arena,
            role,
            merged: FxHashMap::default(),
            merging: FxHashSet::default(),
            merged_many: FxHashMap::default(),
            merging_many: FxHashSet::default(),
            env: Env::new(),
            merge_vars: FxHashMap::default(),
            merge_keys: FxHashMap::default(),
            unfolded: FxHashMap::default(),
            unfolding: 0,
            unfold_budget: super::loop_back::UNFOLD_BUDGET,
            unguarded: Vec::new(),
        }
    }

    /// The projection of `g`.
    pub fn project(&mut self, g: &'a Global) -> Result<LId, Diagnostic> {
        self.intern_rec_vars(g);
        self.env.clear();
        self.walk(g, 0)
    }

    pub(super) fn walk(&mut self, g: &'a Global, actions: u32) -> Result<LId, Diagnostic> {
        let mut chain = Vec::new();
        let mut node = g;
        while let Global::Message { cont, .. } = node {
            chain.push(node);
            node = cont;
        }
        let acts = chain.iter().any(|m| match m {
            Global::Message { from, to, .. } => from.text == self.role || to.text == self.role,
            _ => false,
        });
        let mut acc = self.walk_tail(node, actions + u32::from(acts))?;
        for m in chain.iter().rev() {
            let Global::Message {
                from,
                to,
                message,
                span,
                ..
            } = m
            else {
                continue;
            };
            let (dir, peer) = if from.text == self.role {
                if to.text == self.role {
                    return Err(reflexive(from, *span));
                }
                (Direction::Send, to)
            } else if to.text == self.role {
                (Direction::Receive, from)
            } else {
                continue;
            };
            let peer = self.arena.sym(&peer.text);
            let msg = self.arena.msg(message);
            acc = self.arena.action(dir, peer, msg, acc);
        }
        Ok(acc)
    }

    pub(super) fn walk_tail(&mut self, g: &'a Global, actions: u32) -> Result<LId, Diagnostic> {
        match g {
            Global::End => Ok(self.arena.end()),
            Global::Message { .. } => self.walk(g, actions),
            Global::Continue(name) => {
                let var = self.arena.sym(&name.text);
                match self.env.iter().rev().find(|(v, _, _)| *v == var) {
                    None => Err(Diagnostic::new(
                        ErrorKind::UnboundVariable,
                        name.span,
                        format!(
                            "`continue {}` has no enclosing `rec {}`",
                            name.text, name.text
                        ),
                    )),
                    // The role did nothing since `rec`: it does not take part in the loop.
                    Some(&(_, bound, _)) if bound == actions => {
                        self.unguarded.push(name);
                        Ok(self.arena.end())
                    }
                    Some(_) => Ok(self.arena.intern(Node::Var(var))),
                }
            }
            Global::Rec { var, body } => {
                let sym = self.arena.sym(&var.text);
                self.env.push((sym, actions, g));
                let body = self.walk(body, actions);
                self.env.pop();
                let body = body?;
                Ok(self.arena.rec(sym, body))
            }
            Global::Choice { at, branches, span } => {
                let mut projections = Vec::with_capacity(branches.len());
                // The unguarded `continue`s of each branch, as a range of `unguarded`.
                let mut unguarded = Vec::with_capacity(branches.len());
                for branch in branches {
                    let before = self.unguarded.len();
                    projections.push(self.walk(branch, actions)?);
                    unguarded.push(before..self.unguarded.len());
                }
                if at.text == self.role {
                    self.select(at, branches, *span, &projections)
                } else {
                    self.merge_branches(at, branches, *span, &projections, &unguarded)
                }
            }
        }
    }

    /// The chooser's internal choice: every branch must start with a send, to one peer
    /// ([`Node::Choice`]) or to several ([`Node::Select`]); labels are pairwise distinct
    /// across all branches.
    fn select(
        &mut self,
        at: &Name,
        branches: &[Global],
        span: Span,
        projections: &[LId],
    ) -> Result<LId, Diagnostic> {
        let mut all: Vec<(Sym, MsgId, LId)> = Vec::new();
        let mut labels: FxHashSet<Sym> = FxHashSet::default();
        for (branch, &p) in branches.iter().zip(projections) {
            let where_ = first_span(branch).unwrap_or(span);
            let head = self.arena.head_normal(p);
            let sends: Vec<(Sym, MsgId, LId)> = match self.arena.node(head) {
                Node::Choice {
                    dir: Direction::Send,
                    peer,
                    branches,
                } => branches.iter().map(|&(m, c)| (*peer, m, c)).collect(),
                Node::Select { branches } => branches.to_vec(),
                _ => {
                    return Err(Diagnostic::new(
                        ErrorKind::UndirectedChoice,
                        where_,
                        format!(
                            "this branch does not start with a message from `{}`",
                            at.text
                        ),
                    )
                    .with_label(at.span, "the choice is made here"));
                }
            };
            for (q, m, c) in sends {
                let label = self.arena.label(m);
                if !labels.insert(label) {
                    return Err(Diagnostic::new(
                        ErrorKind::UndirectedChoice,
                        where_,
                        format!(
                            "label `{}` starts two branches of this choice",
                            self.arena.name(label)
                        ),
                    )
                    .with_label(at.span, "the choice is made here"));
                }
                all.push((q, m, c));
            }
        }
        let Some(&(peer, _, _)) = all.first() else {
            return Err(Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                "a choice needs at least one branch",
            ));
        };
        if all.iter().all(|&(q, _, _)| q == peer) {
            let branches = all.into_iter().map(|(_, m, c)| (m, c)).collect();
            return Ok(self.arena.intern(Node::Choice {
                dir: Direction::Send,
                peer,
                branches,
            }));
        }
        Ok(self.arena.intern(Node::Select {
            branches: all.into(),
        }))
    }

    /// A third party's merge of its projections of every branch; `unguarded` holds the
    /// range of [`Projector::unguarded`] that each branch's walk added.
    fn merge_branches(
        &mut self,
        at: &Name,
        branches: &[Global],
        span: Span,
        projections: &[LId],
        unguarded: &[Range<usize>],
    ) -> Result<LId, Diagnostic> {
        if projections.is_empty() {
            return Ok(self.arena.end());
        }
        if let Ok(merged) = self.merge_many(projections) {
            return Ok(merged);
        }
        // Name the first branch `i` that the branches before it cannot absorb, found by
        // bisection (`O(n log n)` merges of prefixes rather than `n` growing ones), and
        // the earliest branch `j` that, with the ones before it, conflicts with `i`.
        let (mut lo, mut hi) = (1, projections.len() - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.merge_many(&projections[..=mid]).is_ok() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let i = lo;
        let p = projections[i];
        let acc = self.merge_many(&projections[..i]).unwrap_or(projections[0]);
        let (x, y) = self.merge(acc, p).err().unwrap_or((acc, p));
        let (mut lo, mut hi) = (0, i - 1);
        let mut with_i = Vec::with_capacity(i + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            with_i.clear();
            with_i.extend_from_slice(&projections[..=mid]);
            with_i.push(p);
            if self.merge_many(&with_i).is_ok() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let j = lo;
        let here = first_span(&branches[i]).unwrap_or(span);
        let there = first_span(&branches[j]).unwrap_or(span);
        let (x, y) = (self.arena.describe(x, 100), self.arena.describe(y, 100));
        let budget = (self.unfold_budget == 0).then(|| {
            format!(
                "merging unfolded loops {} times, the limit, so this is not proved \
                 either way: the nest of loops may still be well-formed",
                super::loop_back::UNFOLD_BUDGET
            )
        });
        // A side that is `end` because the role reached `continue` without taking part
        // in the loop: say so, rather than that the role ends there.
        let loops = |branch: usize| {
            let range = unguarded.get(branch).cloned().unwrap_or_default();
            self.unguarded
                .get(range)
                .and_then(|names| names.first().copied())
        };
        let idle = match (x.as_str(), y.as_str()) {
            ("end", other) => loops(j).map(|name| (name, other)),
            (other, "end") => loops(i).map(|name| (name, other)),
            _ => None,
        };
        let role = self.role;
        let mut d = Diagnostic::new(
            ErrorKind::Unmergeable,
            here,
            format!(
                "role `{role}` behaves differently in the branches of the choice at `{}` but \
                 cannot tell which was taken",
                at.text
            ),
        )
        .with_label(
            there,
            format!("`{role}` behaves differently in this branch"),
        )
        .with_label(at.span, "the choice is made here");
        d = match idle {
            Some((name, other)) => d
                .with_label(
                    name.span,
                    format!(
                        "`{role}` takes no part in `rec {}` before this `continue`",
                        name.text
                    ),
                )
                .with_note(format!(
                    "in one branch the loop `rec {var}` goes on without `{role}`: `{role}` \
                     reaches `continue {var}` having done nothing since `rec {var}`, so for \
                     `{role}` the loop would repeat no action (it is unguarded for `{role}`) \
                     and is projected as `end`; in another branch `{role}` continues as \
                     `{other}`",
                    var = name.text
                ))
                .with_note(format!(
                    "`{role}` must learn whether the loop goes on: a message to `{role}` in \
                     the branch that continues tells it"
                )),
            None => d
                .with_note(format!(
                    "in one branch `{role}` continues as `{x}`, in another as `{y}`"
                ))
                .with_note(
                    "a role that does not choose may behave differently across branches only \
                     by first receiving a message that tells them apart: a distinct label, or \
                     a distinct sender",
                ),
        };
        Err(match budget {
            Some(note) => d.with_note(note),
            None => d,
        })
    }
}

fn reflexive(role: &Name, span: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::ReflexiveMessage,
        span,
        format!("role `{}` sends a message to itself", role.text),
    )
    .with_note("a message must go from one role to a different role")
}
