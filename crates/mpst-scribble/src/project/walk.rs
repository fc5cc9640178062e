//! The projection of a global type onto one role, with nuscr's full merging.
//!
//! The walk is linear in the size of the global type: runs of messages are folded in a
//! loop (no call-stack depth per message), local types are hash-consed so identical
//! branches merge in constant time, and merges are memoised.

use mpst_fsm::Direction;
use rustc_hash::{FxHashMap, FxHashSet};

use super::arena::{Arena, LId, Node, Sym};
use crate::wf::first_span;
use crate::{Diagnostic, ErrorKind, Global, Name, Span};

/// Recursion variables in scope, innermost last, with the number of actions of the
/// projected role seen on the path when they were bound.
type Env = Vec<(Sym, u32)>;

/// Projects global types onto one role into a shared [`Arena`].
pub(crate) struct Projector<'a> {
    arena: &'a mut Arena,
    role: &'a str,
    merged: FxHashMap<(LId, LId), LId>,
    merging: FxHashSet<(LId, LId)>,
}

impl<'a> Projector<'a> {
    /// A projector onto `role`.
    pub fn new(arena: &'a mut Arena, role: &'a str) -> Self {
        Projector {
            arena,
            role,
            merged: FxHashMap::default(),
            merging: FxHashSet::default(),
        }
    }

    /// The projection of `g`.
    pub fn project(&mut self, g: &Global) -> Result<LId, Diagnostic> {
        let mut env = Env::new();
        self.walk(g, &mut env, 0)
    }

    fn walk(&mut self, g: &Global, env: &mut Env, actions: u32) -> Result<LId, Diagnostic> {
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
        let mut acc = self.walk_tail(node, env, actions + u32::from(acts))?;
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

    fn walk_tail(&mut self, g: &Global, env: &mut Env, actions: u32) -> Result<LId, Diagnostic> {
        match g {
            Global::End => Ok(self.arena.end()),
            Global::Message { .. } => self.walk(g, env, actions),
            Global::Continue(name) => {
                let var = self.arena.sym(&name.text);
                match env.iter().rev().find(|(v, _)| *v == var) {
                    None => Err(Diagnostic::new(
                        ErrorKind::UnboundVariable,
                        name.span,
                        format!(
                            "`continue {}` has no enclosing `rec {}`",
                            name.text, name.text
                        ),
                    )),
                    // The role did nothing since `rec`: it does not take part in the loop.
                    Some(&(_, bound)) if bound == actions => Ok(self.arena.end()),
                    Some(_) => Ok(self.arena.intern(Node::Var(var))),
                }
            }
            Global::Rec { var, body } => {
                let sym = self.arena.sym(&var.text);
                env.push((sym, actions));
                let body = self.walk(body, env, actions);
                env.pop();
                let body = body?;
                Ok(self.arena.rec(sym, body))
            }
            Global::Choice { at, branches, span } => {
                let mut projections = Vec::with_capacity(branches.len());
                for branch in branches {
                    projections.push(self.walk(branch, env, actions)?);
                }
                if at.text == self.role {
                    self.select(at, branches, *span, &projections)
                } else {
                    self.merge_branches(at, branches, *span, &projections)
                }
            }
        }
    }

    /// The chooser's internal choice: every branch must start with a send to one peer.
    fn select(
        &mut self,
        at: &Name,
        branches: &[Global],
        span: Span,
        projections: &[LId],
    ) -> Result<LId, Diagnostic> {
        let mut peer: Option<Sym> = None;
        let mut all: Vec<(u32, LId)> = Vec::new();
        for (branch, &p) in branches.iter().zip(projections) {
            let where_ = first_span(branch).unwrap_or(span);
            let head = self.arena.head_normal(p);
            let Node::Choice {
                dir: Direction::Send,
                peer: q,
                branches: sends,
            } = self.arena.node(head).clone()
            else {
                return Err(Diagnostic::new(
                    ErrorKind::UndirectedChoice,
                    where_,
                    format!(
                        "this branch does not start with a message from `{}`",
                        at.text
                    ),
                )
                .with_label(at.span, "the choice is made here"));
            };
            if let Some(first) = peer.filter(|&first| first != q) {
                return Err(Diagnostic::new(
                    ErrorKind::UndirectedChoice,
                    where_,
                    format!(
                        "`{}` starts this branch with a message to `{}` but another with a message to `{}`",
                        at.text,
                        self.arena.name(q),
                        self.arena.name(first)
                    ),
                )
                .with_label(at.span, "the choice is made here")
                .with_note("every branch must start with a message from the chooser to one and the same role"));
            }
            peer = Some(q);
            for &(m, c) in sends.iter() {
                let label = self.arena.label(m);
                if all.iter().any(|&(m2, _)| self.arena.label(m2) == label) {
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
                all.push((m, c));
            }
        }
        let Some(peer) = peer else {
            return Err(Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                "a choice needs at least one branch",
            ));
        };
        Ok(self.arena.intern(Node::Choice {
            dir: Direction::Send,
            peer,
            branches: all.into(),
        }))
    }

    /// A third party's merge of its projections of every branch.
    fn merge_branches(
        &mut self,
        at: &Name,
        branches: &[Global],
        span: Span,
        projections: &[LId],
    ) -> Result<LId, Diagnostic> {
        let Some((&first, rest)) = projections.split_first() else {
            return Ok(self.arena.end());
        };
        let mut acc = first;
        for (i, &p) in rest.iter().enumerate() {
            let i = i + 1;
            match self.merge(acc, p) {
                Ok(m) => acc = m,
                Err((x, y)) => {
                    // Name the earliest branch that conflicts with branch `i` on its own.
                    let j = (0..i)
                        .find(|&j| self.merge(projections[j], p).is_err())
                        .unwrap_or(0);
                    let here = first_span(&branches[i]).unwrap_or(span);
                    let there = first_span(&branches[j]).unwrap_or(span);
                    let (x, y) = (self.arena.describe(x, 100), self.arena.describe(y, 100));
                    return Err(Diagnostic::new(
                        ErrorKind::Unmergeable,
                        here,
                        format!(
                            "role `{}` behaves differently in the branches of the choice at `{}` but cannot tell which was taken",
                            self.role, at.text
                        ),
                    )
                    .with_label(there, format!("`{}` behaves differently in this branch", self.role))
                    .with_label(at.span, "the choice is made here")
                    .with_note(format!(
                        "in one branch `{}` continues as `{x}`, in another as `{y}`",
                        self.role
                    ))
                    .with_note(
                        "a role that does not choose may behave differently across branches only by \
                         first receiving from one and the same role, with distinct labels",
                    ));
                }
            }
        }
        Ok(acc)
    }

    /// nuscr's merge: equal types, or receptions from the same peer whose common labels
    /// carry the same sorts and whose continuations merge. On failure, the innermost
    /// pair that could not be merged.
    fn merge(&mut self, a: LId, b: LId) -> Result<LId, (LId, LId)> {
        if a == b {
            return Ok(a);
        }
        if let Some(&m) = self.merged.get(&(a, b)) {
            return Ok(m);
        }
        if !self.merging.insert((a, b)) {
            return Err((a, b));
        }
        let result = self.merge_nodes(a, b);
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
                }
            )
        };
        match (self.arena.node(a).clone(), self.arena.node(b).clone()) {
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
            ) if p == q => {
                if let ([(m, _)], [(m2, _)]) = (&*left, &*right) {
                    if self.arena.label(*m) == self.arena.label(*m2) {
                        return self.merge_chain(a, b);
                    }
                }
                let mut out = left.to_vec();
                for &(m, c) in right.iter() {
                    let label = self.arena.label(m);
                    match out
                        .iter()
                        .position(|&(m2, _)| self.arena.label(m2) == label)
                    {
                        Some(i) => {
                            let (m2, c2) = out[i];
                            if !self.arena.message(m).same_sort(self.arena.message(m2)) {
                                return Err((a, b));
                            }
                            out[i].1 = self.merge(c2, c)?;
                        }
                        None => out.push((m, c)),
                    }
                }
                Ok(self.arena.intern(Node::Choice {
                    dir: Direction::Receive,
                    peer: p,
                    branches: out.into(),
                }))
            }
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
            _ => Err((a, b)),
        }
    }
}

impl Projector<'_> {
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

fn reflexive(role: &Name, span: Span) -> Diagnostic {
    Diagnostic::new(
        ErrorKind::ReflexiveMessage,
        span,
        format!("role `{}` sends a message to itself", role.text),
    )
    .with_note("a message must go from one role to a different role")
}
