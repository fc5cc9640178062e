//! From a hash-consed local type to a communicating FSM, without recursion on the
//! call stack.
//!
//! One state per distinct (local type, bindings of its recursion variables); a
//! recursion shares the state of its body and a variable points back at its binder's
//! state. Identical continuations (for instance what follows a choice, which the global
//! type repeats in every branch) therefore become one state. The result is canonical
//! ([`Fsm::canonical`]). A state that a `rec` starts carries the variable's name
//! ([`Fsm::state_name`]; the outermost one when several `rec`s share the state, and
//! none for the variables projection makes up), which the code generator names the
//! state after.

use mpst_fsm::{Action, Direction, Fsm, StateId};
use rustc_hash::FxHashMap;

use super::arena::{Arena, LId, MsgId, Node, Sym};

/// Why a local type has no FSM (cannot happen for projections of checked protocols).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BuildError(pub String);

/// Interned chains of variable bindings; `0` is the empty chain.
#[derive(Default)]
struct Envs {
    /// `(variable, state, parent)` of each chain but the empty one.
    links: Vec<(Sym, StateId, usize)>,
    index: FxHashMap<(Sym, StateId, usize), usize>,
}

impl Envs {
    fn bind(&mut self, var: Sym, state: StateId, parent: usize) -> usize {
        let key = (var, state, parent);
        if let Some(&e) = self.index.get(&key) {
            return e;
        }
        self.links.push(key);
        let e = self.links.len();
        self.index.insert(key, e);
        e
    }

    fn lookup(&self, mut env: usize, var: Sym) -> Option<StateId> {
        while env != 0 {
            let (v, s, parent) = self.links[env - 1];
            if v == var {
                return Some(s);
            }
            env = parent;
        }
        None
    }
}

/// The canonical FSM of `root` for `role`.
pub(crate) fn build(arena: &Arena, root: LId, role: &str) -> Result<Fsm, BuildError> {
    let mut b = Builder {
        arena,
        fsm: Fsm::new(role),
        envs: Envs::default(),
        states: FxHashMap::default(),
        end: None,
        work: Vec::new(),
    };
    let initial = b.state_of(root, 0)?;
    while let Some((id, env, state)) = b.work.pop() {
        let edges: Vec<(Sym, Direction, MsgId, LId)> = match arena.node(id) {
            Node::Choice {
                dir,
                peer,
                branches,
            } => branches.iter().map(|&(m, c)| (*peer, *dir, m, c)).collect(),
            Node::Select { branches } => branches
                .iter()
                .map(|&(p, m, c)| (p, Direction::Send, m, c))
                .collect(),
            Node::Offer { branches } => branches
                .iter()
                .map(|&(p, m, c)| (p, Direction::Receive, m, c))
                .collect(),
            _ => continue,
        };
        for (peer, direction, m, cont) in edges {
            let target = b.state_of(cont, env)?;
            let action = Action {
                peer: arena.name(peer).to_owned(),
                direction,
                message: arena.message(m).clone(),
            };
            b.fsm
                .add_transition(state, action, target)
                .map_err(|e| BuildError(e.to_string()))?;
        }
    }
    b.fsm
        .set_initial(initial)
        .map_err(|e| BuildError(e.to_string()))?;
    Ok(b.fsm.canonical())
}

struct Builder<'a> {
    arena: &'a Arena,
    fsm: Fsm,
    envs: Envs,
    states: FxHashMap<(LId, usize), StateId>,
    end: Option<StateId>,
    /// Choices whose transitions are still to add: (node, bindings, state).
    work: Vec<(LId, usize, StateId)>,
}

impl Builder<'_> {
    /// The state standing for `id` under bindings `env`, creating it if needed.
    fn state_of(&mut self, mut id: LId, mut env: usize) -> Result<StateId, BuildError> {
        // The state of the first recursion met, shared by the recursions that follow
        // and by the choice they guard.
        let mut rec_state: Option<StateId> = None;
        loop {
            if let Some(&s) = self.states.get(&(id, env)) {
                return Ok(s);
            }
            match *self.arena.node(id) {
                Node::Rec(var, body) => {
                    let s = match rec_state {
                        Some(s) => s,
                        None => {
                            // The outermost `rec` names the state (a hint for
                            // generated code, see `Fsm::state_name`).
                            let s = self.fsm.add_state();
                            if !self.arena.is_generated(var) {
                                self.fsm
                                    .set_state_name(s, self.arena.name(var))
                                    .map_err(|e| BuildError(e.to_string()))?;
                            }
                            rec_state = Some(s);
                            s
                        }
                    };
                    self.states.insert((id, env), s);
                    env = self.envs.bind(var, s, env);
                    id = body;
                }
                Node::Var(var) => {
                    return match (rec_state, self.envs.lookup(env, var)) {
                        (None, Some(s)) => Ok(s),
                        (Some(_), Some(_)) => Err(BuildError(format!(
                            "recursion variable `{}` is not guarded",
                            self.arena.name(var)
                        ))),
                        (_, None) => Err(BuildError(format!(
                            "recursion variable `{}` is not bound",
                            self.arena.name(var)
                        ))),
                    };
                }
                Node::End => {
                    if let Some(s) = rec_state {
                        return Ok(s);
                    }
                    let s = match self.end {
                        Some(s) => s,
                        None => {
                            let s = self.fsm.add_state();
                            self.end = Some(s);
                            s
                        }
                    };
                    return Ok(s);
                }
                Node::Choice { .. } | Node::Select { .. } | Node::Offer { .. } => {
                    let s = rec_state.unwrap_or_else(|| self.fsm.add_state());
                    self.states.insert((id, env), s);
                    self.work.push((id, env, s));
                    return Ok(s);
                }
            }
        }
    }
}
