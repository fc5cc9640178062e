//! Hash-consed local types: the working form of projection.
//!
//! Every distinct local type is stored once and named by an [`LId`], so comparing two
//! projections is comparing two integers and merging identical branches costs nothing.
//! Roles, recursion variables and messages are interned to small integers too.

use mpst_fsm::{Direction, LocalType, Message};
use rustc_hash::FxHashMap;

/// A hash-consed local type.
pub(crate) type LId = u32;
/// An interned role or recursion-variable name.
pub(crate) type Sym = u32;
/// An interned message (label and payloads).
pub(crate) type MsgId = u32;

/// One node of a local type; children are [`LId`]s.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    /// `end`.
    End,
    /// A recursion variable.
    Var(Sym),
    /// `µvar.body`.
    Rec(Sym, LId),
    /// `peer!{...}` or `peer?{...}` with pairwise distinct labels, in source order.
    Choice {
        /// Send or receive.
        dir: Direction,
        /// The peer of every branch.
        peer: Sym,
        /// Message and continuation of each branch.
        branches: Box<[(MsgId, LId)]>,
    },
    /// An internal choice whose branches start with sends to different peers (at least
    /// two distinct ones; one peer is always a [`Node::Choice`]), labels pairwise
    /// distinct, in source order.
    Select {
        /// Peer, message and continuation of each branch.
        branches: Box<[(Sym, MsgId, LId)]>,
    },
    /// An external choice whose branches start with receptions from different peers (at
    /// least two distinct ones; one peer is always a [`Node::Choice`]): a role that learns
    /// a choice from whichever peer speaks first. Branches are pairwise distinct by
    /// (peer, label), in order of first appearance.
    Offer {
        /// Peer, message and continuation of each branch.
        branches: Box<[(Sym, MsgId, LId)]>,
    },
}

/// The store of interned names, messages and local types.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    nodes: Vec<Node>,
    /// Free recursion variables of each node, sorted and deduplicated.
    free: Vec<Box<[Sym]>>,
    index: FxHashMap<Node, LId>,
    names: Vec<String>,
    name_index: FxHashMap<String, Sym>,
    msgs: Vec<Message>,
    /// The interned label of each message.
    msg_labels: Vec<Sym>,
    msg_index: FxHashMap<Message, MsgId>,
    /// Recursion variables the projection made up (not written in the protocol).
    generated: rustc_hash::FxHashSet<Sym>,
}

impl Arena {
    /// The symbol of a name, interning it if needed.
    pub fn sym(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.name_index.get(name) {
            return s;
        }
        let s = self.names.len() as Sym;
        self.names.push(name.to_owned());
        self.name_index.insert(name.to_owned(), s);
        s
    }

    /// Marks `s` as a name the projection made up: no state is named after it.
    pub fn mark_generated(&mut self, s: Sym) {
        self.generated.insert(s);
    }

    /// Whether `s` was made up by the projection rather than written in the protocol.
    pub fn is_generated(&self, s: Sym) -> bool {
        self.generated.contains(&s)
    }

    /// Whether `name` is interned already.
    pub fn has_name(&self, name: &str) -> bool {
        self.name_index.contains_key(name)
    }

    /// The text of a symbol.
    pub fn name(&self, s: Sym) -> &str {
        &self.names[s as usize]
    }

    /// The id of a message, interning it if needed.
    pub fn msg(&mut self, m: &Message) -> MsgId {
        if let Some(&id) = self.msg_index.get(m) {
            return id;
        }
        let label = self.sym(&m.label);
        let id = self.msgs.len() as MsgId;
        self.msgs.push(m.clone());
        self.msg_labels.push(label);
        self.msg_index.insert(m.clone(), id);
        id
    }

    /// The message of an id.
    pub fn message(&self, id: MsgId) -> &Message {
        &self.msgs[id as usize]
    }

    /// The interned label of a message.
    pub fn label(&self, id: MsgId) -> Sym {
        self.msg_labels[id as usize]
    }

    /// The node of an id.
    pub fn node(&self, id: LId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The free variables of a node.
    pub fn free(&self, id: LId) -> &[Sym] {
        &self.free[id as usize]
    }

    /// The id of a node, interning it if needed.
    pub fn intern(&mut self, node: Node) -> LId {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        let free: Box<[Sym]> = match &node {
            Node::End => Box::new([]),
            Node::Var(v) => Box::new([*v]),
            Node::Rec(v, body) => self.free[*body as usize]
                .iter()
                .copied()
                .filter(|x| x != v)
                .collect(),
            Node::Choice { branches, .. } => {
                let mut all: Vec<Sym> = branches
                    .iter()
                    .flat_map(|&(_, c)| self.free[c as usize].iter().copied())
                    .collect();
                all.sort_unstable();
                all.dedup();
                all.into()
            }
            Node::Select { branches } | Node::Offer { branches } => {
                let mut all: Vec<Sym> = branches
                    .iter()
                    .flat_map(|&(_, _, c)| self.free[c as usize].iter().copied())
                    .collect();
                all.sort_unstable();
                all.dedup();
                all.into()
            }
        };
        let id = self.nodes.len() as LId;
        self.nodes.push(node.clone());
        self.free.push(free);
        self.index.insert(node, id);
        id
    }

    /// `end`.
    pub fn end(&mut self) -> LId {
        self.intern(Node::End)
    }

    /// A one-branch choice `peer!m.cont` or `peer?m.cont`.
    pub fn action(&mut self, dir: Direction, peer: Sym, msg: MsgId, cont: LId) -> LId {
        self.intern(Node::Choice {
            dir,
            peer,
            branches: Box::new([(msg, cont)]),
        })
    }

    /// `µvar.body`, simplified: `µX.end` and `µX.X` are `end`, `µX.Y` is `Y`, and a
    /// binder whose variable is not used is dropped.
    pub fn rec(&mut self, var: Sym, body: LId) -> LId {
        match *self.node(body) {
            Node::End => body,
            Node::Var(v) if v == var => self.end(),
            Node::Var(_) => body,
            _ if !self.free(body).contains(&var) => body,
            _ => self.intern(Node::Rec(var, body)),
        }
    }

    /// `body[replacement/var]` for the free occurrences of `var`.
    pub fn substitute(&mut self, body: LId, var: Sym, replacement: LId) -> LId {
        let mut memo = FxHashMap::default();
        self.subst(body, var, replacement, &mut memo)
    }

    fn subst(
        &mut self,
        id: LId,
        var: Sym,
        replacement: LId,
        memo: &mut FxHashMap<LId, LId>,
    ) -> LId {
        if !self.free(id).contains(&var) {
            return id;
        }
        if let Some(&done) = memo.get(&id) {
            return done;
        }
        let result = match self.node(id).clone() {
            Node::End => id,
            Node::Var(_) => replacement,
            Node::Rec(v, body) => {
                // `var` is free in `id`, so `v != var`.
                let body = self.subst(body, var, replacement, memo);
                self.intern(Node::Rec(v, body))
            }
            Node::Choice {
                dir,
                peer,
                branches,
            } => {
                let branches = branches
                    .iter()
                    .map(|&(m, c)| (m, self.subst(c, var, replacement, memo)))
                    .collect();
                self.intern(Node::Choice {
                    dir,
                    peer,
                    branches,
                })
            }
            Node::Select { branches } => {
                let branches = self.subst_routed(&branches, var, replacement, memo);
                self.intern(Node::Select { branches })
            }
            Node::Offer { branches } => {
                let branches = self.subst_routed(&branches, var, replacement, memo);
                self.intern(Node::Offer { branches })
            }
        };
        memo.insert(id, result);
        result
    }

    /// Unfolds head recursions (`µX.T` becomes `T[µX.T/X]`) until the head is not a
    /// recursion. Terminates because bodies of recursions are never bare variables.
    pub fn head_normal(&mut self, mut id: LId) -> LId {
        while let Node::Rec(v, body) = *self.node(id) {
            id = self.substitute(body, v, id);
        }
        id
    }

    /// The branches of a [`Node::Select`] or [`Node::Offer`] with `replacement` for the
    /// free occurrences of `var` in their continuations.
    fn subst_routed(
        &mut self,
        branches: &[(Sym, MsgId, LId)],
        var: Sym,
        replacement: LId,
        memo: &mut FxHashMap<LId, LId>,
    ) -> Box<[(Sym, MsgId, LId)]> {
        branches
            .iter()
            .map(|&(p, m, c)| (p, m, self.subst(c, var, replacement, memo)))
            .collect()
    }

    /// The branches of a [`Node::Select`] or [`Node::Offer`] as a [`LocalType`] has them:
    /// (peer, message, continuation), the continuations taken off the end of `built` (the
    /// trees built so far by [`to_local_type`](Self::to_local_type), in branch order).
    fn routed(
        &self,
        branches: &[(Sym, MsgId, LId)],
        built: &mut Vec<LocalType>,
    ) -> Vec<(String, Message, LocalType)> {
        let conts = built.split_off(built.len() - branches.len());
        branches
            .iter()
            .zip(conts)
            .map(|(&(p, m, _), c)| (self.name(p).to_owned(), self.message(m).clone(), c))
            .collect()
    }

    /// The [`LocalType`] tree of `root`, built without recursion on the call stack.
    pub fn to_local_type(&self, root: LId) -> LocalType {
        enum Step {
            Visit(LId),
            Build(LId),
        }
        let mut steps = vec![Step::Visit(root)];
        let mut values: Vec<LocalType> = Vec::new();
        while let Some(step) = steps.pop() {
            match step {
                Step::Visit(id) => {
                    steps.push(Step::Build(id));
                    match self.node(id) {
                        Node::End | Node::Var(_) => {}
                        Node::Rec(_, body) => steps.push(Step::Visit(*body)),
                        Node::Choice { branches, .. } => {
                            for &(_, c) in branches.iter().rev() {
                                steps.push(Step::Visit(c));
                            }
                        }
                        Node::Select { branches } | Node::Offer { branches } => {
                            for &(_, _, c) in branches.iter().rev() {
                                steps.push(Step::Visit(c));
                            }
                        }
                    }
                }
                Step::Build(id) => {
                    let value = match self.node(id) {
                        Node::End => LocalType::End,
                        Node::Var(v) => LocalType::Var(self.name(*v).to_owned()),
                        Node::Rec(v, _) => {
                            let body = values.pop().unwrap_or(LocalType::End);
                            LocalType::Rec(self.name(*v).to_owned(), Box::new(body))
                        }
                        Node::Choice {
                            dir,
                            peer,
                            branches,
                        } => {
                            let conts = values.split_off(values.len() - branches.len());
                            LocalType::Choice {
                                direction: *dir,
                                peer: self.name(*peer).to_owned(),
                                branches: branches
                                    .iter()
                                    .zip(conts)
                                    .map(|(&(m, _), c)| (self.message(m).clone(), c))
                                    .collect(),
                            }
                        }
                        Node::Select { branches } => LocalType::Select {
                            branches: self.routed(branches, &mut values),
                        },
                        Node::Offer { branches } => LocalType::Offer {
                            branches: self.routed(branches, &mut values),
                        },
                    };
                    values.push(value);
                }
            }
        }
        values.pop().unwrap_or(LocalType::End)
    }

    /// A short rendering of `id` for error messages, in [`LocalType`]'s notation, cut
    /// after about `limit` characters (without building the whole type).
    pub fn describe(&self, id: LId, limit: usize) -> String {
        enum Piece {
            Node(LId),
            Text(String),
        }
        let mut out = String::new();
        let mut stack = vec![Piece::Node(id)];
        while let Some(piece) = stack.pop() {
            if out.chars().count() > limit {
                break;
            }
            let id = match piece {
                Piece::Text(t) => {
                    out.push_str(&t);
                    continue;
                }
                Piece::Node(id) => id,
            };
            match self.node(id) {
                Node::End => out.push_str("end"),
                Node::Var(v) => out.push_str(self.name(*v)),
                Node::Rec(v, body) => {
                    out.push_str(&format!("rec {}. ", self.name(*v)));
                    stack.push(Piece::Node(*body));
                }
                Node::Choice {
                    dir,
                    peer,
                    branches,
                } => {
                    out.push_str(self.name(*peer));
                    out.push(dir.symbol());
                    let many = branches.len() != 1;
                    let mut pieces = Vec::new();
                    if many {
                        pieces.push(Piece::Text("{".into()));
                    }
                    for (i, &(m, c)) in branches.iter().enumerate() {
                        let sep = if i > 0 { ", " } else { "" };
                        pieces.push(Piece::Text(format!("{sep}{}. ", self.message(m))));
                        pieces.push(Piece::Node(c));
                    }
                    if many {
                        pieces.push(Piece::Text("}".into()));
                    }
                    stack.extend(pieces.into_iter().rev());
                }
                Node::Select { branches } | Node::Offer { branches } => {
                    let (open, dir) = match self.node(id) {
                        Node::Select { .. } => ("+{", '!'),
                        _ => ("&{", '?'),
                    };
                    let mut pieces = vec![Piece::Text(open.into())];
                    for (i, &(p, m, c)) in branches.iter().enumerate() {
                        let sep = if i > 0 { ", " } else { "" };
                        let (peer, msg) = (self.name(p), self.message(m));
                        pieces.push(Piece::Text(format!("{sep}{peer}{dir}{msg}. ")));
                        pieces.push(Piece::Node(c));
                    }
                    pieces.push(Piece::Text("}".into()));
                    stack.extend(pieces.into_iter().rev());
                }
            }
        }
        if out.chars().count() > limit {
            let cut: String = out.chars().take(limit).collect();
            out = format!("{cut}...");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_types_get_equal_ids_and_rec_simplifies() {
        let mut a = Arena::default();
        let end = a.end();
        let b = a.sym("B");
        let m = a.msg(&Message::new("x"));
        let t1 = a.action(Direction::Send, b, m, end);
        let t2 = a.action(Direction::Send, b, m, end);
        assert_eq!(t1, t2);
        let x = a.sym("X");
        assert_eq!(a.rec(x, t1), t1, "an unused binder is dropped");
        let var = a.intern(Node::Var(x));
        assert_eq!(a.rec(x, var), end);
        let looped = a.action(Direction::Send, b, m, var);
        let r = a.rec(x, looped);
        assert!(matches!(a.node(r), Node::Rec(..)));
        assert!(a.free(r).is_empty());
        let unfolded = a.head_normal(r);
        assert_eq!(
            a.to_local_type(unfolded).to_string(),
            "B!x(). rec X. B!x(). X"
        );
        let y = a.msg(&Message::new("y"));
        let two = a.intern(Node::Choice {
            dir: Direction::Receive,
            peer: b,
            branches: Box::new([(m, r), (y, end)]),
        });
        let text = a.to_local_type(two).to_string();
        assert_eq!(a.describe(two, 100), text);
        assert_eq!(text, "B?{x(). rec X. B!x(). X, y(). end}");
        assert_eq!(a.describe(two, 5), "B?{x(...");
    }
}
