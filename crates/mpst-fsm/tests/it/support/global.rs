//! Random projectable global types and their projections.
//!
//! A generated protocol has 2–4 roles, at most one recursion `µt`, single messages and
//! choices `p → q: {l0, l1(, l2)}`. Right after a choice every other role is told the
//! branch by `p` or `q` (the same informer in every branch) with the branch's label, so
//! projection only needs nuscr's merging of receive choices from one peer and every
//! generated type is projectable.

use mpst_fsm::{Direction, Fsm, LocalType, Message};

use super::Rng;

/// A global type with a single recursion variable `t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Global {
    /// `end`.
    End,
    /// `from → to: {label_i. G_i}`.
    Msg {
        /// Sender.
        from: usize,
        /// Receiver.
        to: usize,
        /// Branches.
        branches: Vec<(String, Global)>,
    },
    /// `µt. G`.
    Rec(Box<Global>),
    /// `t`.
    Var,
}

/// A generated protocol: role names and the global type.
#[derive(Debug, Clone)]
pub struct Protocol {
    /// Role names, `a`, `b`, ….
    pub roles: Vec<String>,
    /// The global type.
    pub global: Global,
}

const ROLE_NAMES: [&str; 4] = ["a", "b", "c", "d"];
const LABELS: [&str; 3] = ["x", "y", "z"];

struct Gen<'r> {
    rng: &'r mut Rng,
    roles: usize,
}

impl Gen<'_> {
    fn pair(&mut self) -> (usize, usize) {
        let from = self.rng.below(self.roles);
        let to = (from + 1 + self.rng.below(self.roles - 1)) % self.roles;
        (from, to)
    }

    fn leaf(&mut self, in_rec: bool) -> Global {
        if in_rec && self.rng.chance(75) {
            Global::Var
        } else {
            Global::End
        }
    }

    /// A type of at most `depth` interactions on each path; `must_act` forbids a leaf
    /// (the body of `µt` must be guarded).
    fn ty(&mut self, depth: usize, in_rec: bool, must_act: bool) -> Global {
        if depth == 0 || (!must_act && self.rng.chance(12)) {
            return self.leaf(in_rec);
        }
        if !in_rec && depth >= 3 && self.rng.chance(35) {
            return Global::Rec(Box::new(self.ty(depth, true, true)));
        }
        let (from, to) = self.pair();
        if self.rng.chance(30) {
            let count = if self.rng.chance(20) { 3 } else { 2 };
            let others: Vec<usize> = (0..self.roles).filter(|&r| r != from && r != to).collect();
            let informers: Vec<usize> = others
                .iter()
                .map(|_| if self.rng.chance(50) { from } else { to })
                .collect();
            let branches = (0..count)
                .map(|i| {
                    let label = format!("l{i}");
                    let mut cont = self.ty(depth - 1, in_rec, false);
                    for (&other, &informer) in others.iter().zip(&informers).rev() {
                        cont = Global::Msg {
                            from: informer,
                            to: other,
                            branches: vec![(label.clone(), cont)],
                        };
                    }
                    (label, cont)
                })
                .collect();
            Global::Msg { from, to, branches }
        } else {
            let label = LABELS[self.rng.below(LABELS.len())].to_string();
            let cont = self.ty(depth - 1, in_rec, false);
            Global::Msg {
                from,
                to,
                branches: vec![(label, cont)],
            }
        }
    }
}

/// A random protocol.
pub fn protocol(rng: &mut Rng) -> Protocol {
    let roles = 2 + rng.below(3);
    let depth = 3 + rng.below(4);
    let global = Gen { rng, roles }.ty(depth, false, true);
    Protocol {
        roles: ROLE_NAMES[..roles]
            .iter()
            .map(ToString::to_string)
            .collect(),
        global,
    }
}

fn has_action(t: &LocalType) -> bool {
    match t {
        LocalType::Choice { .. } | LocalType::Select { .. } | LocalType::Offer { .. } => true,
        LocalType::Rec(_, body) => has_action(body),
        LocalType::End | LocalType::Var(_) => false,
    }
}

/// nuscr's merge: equal types, or receive choices from one peer merged label-wise.
fn merge(a: LocalType, b: LocalType) -> Option<LocalType> {
    if a == b {
        return Some(a);
    }
    match (a, b) {
        (
            LocalType::Choice {
                direction: Direction::Receive,
                peer,
                mut branches,
            },
            LocalType::Choice {
                direction: Direction::Receive,
                peer: peer2,
                branches: branches2,
            },
        ) if peer == peer2 => {
            for (message, cont) in branches2 {
                match branches.iter().position(|(m, _)| m.label == message.label) {
                    Some(i) => {
                        let merged = merge(branches[i].1.clone(), cont)?;
                        branches[i].1 = merged;
                    }
                    None => branches.push((message, cont)),
                }
            }
            Some(LocalType::Choice {
                direction: Direction::Receive,
                peer,
                branches,
            })
        }
        _ => None,
    }
}

/// The projection of `g` onto role number `role`, or `None` if it cannot be merged.
pub fn project(g: &Global, roles: &[String], role: usize) -> Option<LocalType> {
    Some(match g {
        Global::End => LocalType::End,
        Global::Var => LocalType::var("t"),
        Global::Rec(body) => {
            let body = project(body, roles, role)?;
            if has_action(&body) {
                LocalType::rec("t", body)
            } else {
                LocalType::End
            }
        }
        Global::Msg { from, to, branches } => {
            let conts = branches
                .iter()
                .map(|(l, g)| Some((Message::new(l.clone()), project(g, roles, role)?)))
                .collect::<Option<Vec<_>>>()?;
            if role == *from || role == *to {
                let (direction, peer) = if role == *from {
                    (Direction::Send, *to)
                } else {
                    (Direction::Receive, *from)
                };
                LocalType::Choice {
                    direction,
                    peer: roles[peer].clone(),
                    branches: conts,
                }
            } else {
                let mut conts = conts.into_iter().map(|(_, t)| t);
                let first = conts.next()?;
                conts.try_fold(first, merge)?
            }
        }
    })
}

/// Every role's projection, in role order.
pub fn project_all(p: &Protocol) -> Option<Vec<LocalType>> {
    (0..p.roles.len())
        .map(|r| project(&p.global, &p.roles, r))
        .collect()
}

/// Every role's projection, in role order, as a local type and as an FSM.
pub fn project_all_fsms(p: &Protocol) -> Option<(Vec<LocalType>, Vec<Fsm>)> {
    let types = project_all(p)?;
    let fsms = types
        .iter()
        .zip(&p.roles)
        .map(|(t, r)| t.to_fsm(r.clone()).ok())
        .collect::<Option<Vec<_>>>()?;
    Some((types, fsms))
}
