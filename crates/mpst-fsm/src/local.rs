//! Local session types (PPoPP 2022, Definition 1) and their translation to FSMs.

use std::fmt;

use crate::{Action, Direction, Fsm, Message, StateId};

/// A local session type `T ::= end | ⊕ p!l(S).T | & p?l(S).T | µt.T | t`.
///
/// An internal choice names its receiver per branch (`⊕ pᵢ!lᵢ(Sᵢ).Tᵢ`, as in the
/// generalised calculus of Scribble where a chooser may start its branches with messages
/// to different roles): [`LocalType::Choice`] when every branch goes to one peer (the
/// common case, and the only form projection produces for it), [`LocalType::Select`]
/// when they go to several. An external choice waits on one peer ([`LocalType::Choice`])
/// or, when a role learns a choice from whichever of several peers speaks first, on
/// several ([`LocalType::Offer`]); whether such a race is safe is for k-MC to decide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LocalType {
    /// `end`.
    End,
    /// An internal (`Send`) or external (`Receive`) choice with one peer.
    Choice {
        /// Send for `⊕`, receive for `&`.
        direction: Direction,
        /// The peer of every branch.
        peer: String,
        /// The branches: message and continuation. Labels are pairwise distinct.
        branches: Vec<(Message, LocalType)>,
    },
    /// An internal choice whose branches start with sends to different peers:
    /// `+{b!l1(). T1, c!l2(). T2}`. Labels are pairwise distinct across all branches, so
    /// a choice is still named by its label alone (in Rust, one enum variant per label).
    Select {
        /// Peer, message and continuation of each branch.
        branches: Vec<(String, Message, LocalType)>,
    },
    /// An external choice whose branches start with receptions from different peers:
    /// `&{b?l1(). T1, c?l2(). T2}`. Branches are pairwise distinct by (peer, label): the
    /// role takes the first message to arrive.
    Offer {
        /// Peer, message and continuation of each branch.
        branches: Vec<(String, Message, LocalType)>,
    },
    /// `µt.T`.
    Rec(String, Box<LocalType>),
    /// A recursion variable `t`.
    Var(String),
}

/// Why a local type has no FSM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocalTypeError {
    /// A variable with no enclosing `µ`.
    #[error("recursion variable `{0}` is not bound")]
    UnboundVariable(String),
    /// `µt.t`, or a variable standing where an action is needed.
    #[error("recursion variable `{0}` is not guarded by an action")]
    UnguardedVariable(String),
    /// Two branches of one choice with the same label.
    #[error("label `{0}` appears twice in one choice")]
    DuplicateLabel(String),
    /// A choice without branches.
    #[error("a choice needs at least one branch")]
    EmptyChoice,
}

impl LocalType {
    /// A single send `peer!message.cont`.
    pub fn send(peer: impl Into<String>, message: Message, cont: LocalType) -> Self {
        LocalType::Choice {
            direction: Direction::Send,
            peer: peer.into(),
            branches: vec![(message, cont)],
        }
    }

    /// A single receive `peer?message.cont`.
    pub fn receive(peer: impl Into<String>, message: Message, cont: LocalType) -> Self {
        LocalType::Choice {
            direction: Direction::Receive,
            peer: peer.into(),
            branches: vec![(message, cont)],
        }
    }

    /// `µvar.body`.
    pub fn rec(var: impl Into<String>, body: LocalType) -> Self {
        LocalType::Rec(var.into(), Box::new(body))
    }

    /// The variable `var`.
    pub fn var(var: impl Into<String>) -> Self {
        LocalType::Var(var.into())
    }

    /// The FSM of this type for `role`: one state per choice, recursion variables
    /// pointing back at their binder's state. The result is in canonical form.
    pub fn to_fsm(&self, role: impl Into<String>) -> Result<Fsm, LocalTypeError> {
        let mut fsm = Fsm::new(role);
        let mut env = Vec::new();
        build(self, 0, &mut fsm, &mut env)?;
        Ok(fsm.canonical())
    }
}

fn build<'a>(
    ty: &'a LocalType,
    state: StateId,
    fsm: &mut Fsm,
    env: &mut Vec<(&'a str, StateId)>,
) -> Result<(), LocalTypeError> {
    match ty {
        LocalType::End => Ok(()),
        LocalType::Var(v) => {
            if env.iter().any(|(name, _)| name == v) {
                Err(LocalTypeError::UnguardedVariable(v.clone()))
            } else {
                Err(LocalTypeError::UnboundVariable(v.clone()))
            }
        }
        LocalType::Rec(v, body) => {
            env.push((v.as_str(), state));
            let result = build(body, state, fsm, env);
            env.pop();
            result
        }
        LocalType::Choice {
            direction,
            peer,
            branches,
        } => {
            if branches.is_empty() {
                return Err(LocalTypeError::EmptyChoice);
            }
            for (i, (message, cont)) in branches.iter().enumerate() {
                if branches[..i].iter().any(|(m, _)| m.label == message.label) {
                    return Err(LocalTypeError::DuplicateLabel(message.label.clone()));
                }
                let action = Action {
                    peer: peer.clone(),
                    direction: *direction,
                    message: message.clone(),
                };
                add_branch(state, action, cont, fsm, env)?;
            }
            Ok(())
        }
        LocalType::Select { branches } => {
            if branches.is_empty() {
                return Err(LocalTypeError::EmptyChoice);
            }
            let mut labels = std::collections::HashSet::new();
            for (peer, message, cont) in branches {
                if !labels.insert(message.label.as_str()) {
                    return Err(LocalTypeError::DuplicateLabel(message.label.clone()));
                }
                let action = Action {
                    peer: peer.clone(),
                    direction: Direction::Send,
                    message: message.clone(),
                };
                add_branch(state, action, cont, fsm, env)?;
            }
            Ok(())
        }
        LocalType::Offer { branches } => {
            if branches.is_empty() {
                return Err(LocalTypeError::EmptyChoice);
            }
            let mut keys = std::collections::HashSet::new();
            for (peer, message, cont) in branches {
                if !keys.insert((peer.as_str(), message.label.as_str())) {
                    return Err(LocalTypeError::DuplicateLabel(message.label.clone()));
                }
                let action = Action {
                    peer: peer.clone(),
                    direction: Direction::Receive,
                    message: message.clone(),
                };
                add_branch(state, action, cont, fsm, env)?;
            }
            Ok(())
        }
    }
}

/// Adds `state --action--> cont`, building `cont`'s states (or pointing back at a
/// binder's state when `cont` is a variable).
fn add_branch<'a>(
    state: StateId,
    action: Action,
    cont: &'a LocalType,
    fsm: &mut Fsm,
    env: &mut Vec<(&'a str, StateId)>,
) -> Result<(), LocalTypeError> {
    let target = match cont {
        LocalType::Var(v) => match env.iter().rev().find(|(name, _)| name == v) {
            Some(&(_, s)) => s,
            None => return Err(LocalTypeError::UnboundVariable(v.clone())),
        },
        _ => {
            let next = fsm.add_state();
            build(cont, next, fsm, env)?;
            next
        }
    };
    let label = action.message.label.clone();
    fsm.add_transition(state, action, target)
        .map_err(|_| LocalTypeError::DuplicateLabel(label))
}

impl fmt::Display for LocalType {
    /// ASCII syntax: `rec t. p!{l1(i32). t, l2(). end}`; one branch prints as `p!l(). T`;
    /// a choice to several peers prints as `+{p!l1(). T1, q!l2(). T2}`, one from several
    /// as `&{p?l1(). T1, q?l2(). T2}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocalType::End => f.write_str("end"),
            LocalType::Var(v) => f.write_str(v),
            LocalType::Rec(v, body) => write!(f, "rec {v}. {body}"),
            LocalType::Choice {
                direction,
                peer,
                branches,
            } => {
                write!(f, "{peer}{}", direction.symbol())?;
                if let [(m, cont)] = branches.as_slice() {
                    return write!(f, "{m}. {cont}");
                }
                f.write_str("{")?;
                for (i, (m, cont)) in branches.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{m}. {cont}")?;
                }
                f.write_str("}")
            }
            LocalType::Select { branches } => {
                f.write_str("+{")?;
                for (i, (peer, m, cont)) in branches.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{peer}!{m}. {cont}")?;
                }
                f.write_str("}")
            }
            LocalType::Offer { branches } => {
                f.write_str("&{")?;
                for (i, (peer, m, cont)) in branches.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{peer}?{m}. {cont}")?;
                }
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_buffering_kernel_has_four_states() {
        let kernel = LocalType::rec(
            "t",
            LocalType::send(
                "s",
                Message::new("ready"),
                LocalType::receive(
                    "s",
                    Message::new("value"),
                    LocalType::receive(
                        "t",
                        Message::new("ready"),
                        LocalType::send("t", Message::new("value"), LocalType::var("t")),
                    ),
                ),
            ),
        );
        let fsm = kernel.to_fsm("k").unwrap();
        assert_eq!(fsm.state_count(), 4);
        assert_eq!(fsm.transition_count(), 4);
        assert_eq!(fsm.transitions(3)[0].target, 0);
        assert_eq!(
            kernel.to_string(),
            "rec t. s!ready(). s?value(). t?ready(). t!value(). t"
        );
    }

    #[test]
    fn rejects_unbound_and_unguarded_variables() {
        assert_eq!(
            LocalType::var("x").to_fsm("p"),
            Err(LocalTypeError::UnboundVariable("x".into()))
        );
        assert_eq!(
            LocalType::rec("x", LocalType::var("x")).to_fsm("p"),
            Err(LocalTypeError::UnguardedVariable("x".into()))
        );
        let dup = LocalType::Choice {
            direction: Direction::Send,
            peer: "q".into(),
            branches: vec![
                (Message::new("a"), LocalType::End),
                (Message::new("a"), LocalType::End),
            ],
        };
        assert_eq!(
            dup.to_fsm("p"),
            Err(LocalTypeError::DuplicateLabel("a".into()))
        );
    }
}
