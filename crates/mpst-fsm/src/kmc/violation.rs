//! Counterexamples: which property of k-MC fails, where, and the execution that gets
//! there.

use std::fmt;

use crate::{Action, Message, StateId};

/// The four properties that make up k-multiparty compatibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Property {
    /// k-safety: no reachable configuration where a role waits to receive and can
    /// never do so (this includes global deadlocks).
    Progress,
    /// k-safety: every message in a queue is eventually received.
    EventualReception,
    /// k-safety: no role in a receiving state whose every queue holds a message it
    /// cannot accept there.
    UnspecifiedReception,
    /// k-exhaustivity: every send a role can do locally is reachable within the bound
    /// without that role moving first.
    Exhaustivity,
}

impl Property {
    /// A short name, e.g. `eventual reception`.
    pub fn name(self) -> &'static str {
        match self {
            Property::Progress => "progress",
            Property::EventualReception => "eventual reception",
            Property::UnspecifiedReception => "no unspecified reception",
            Property::Exhaustivity => "k-exhaustivity",
        }
    }

    /// Whether the property is part of k-safety (otherwise it is k-exhaustivity).
    pub fn is_safety(self) -> bool {
        self != Property::Exhaustivity
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What exactly goes wrong in the violating configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViolationKind {
    /// No role can move, yet the system has not terminated: `waiting` roles wait to
    /// receive on empty queues (property [`Property::Progress`]).
    Deadlock {
        /// The roles in a receiving state, in input order.
        waiting: Vec<String>,
    },
    /// `role` waits to receive but can never do so, whatever the other roles do
    /// (property [`Property::Progress`]).
    Starvation {
        /// The role that waits forever.
        role: String,
    },
    /// The message at the head of the queue `from → to` is never received
    /// (property [`Property::EventualReception`]).
    Orphan {
        /// The sender.
        from: String,
        /// The receiver.
        to: String,
        /// The message that is never received.
        message: Message,
    },
    /// `role` is in a receiving state and the head of the queue `from → role` is
    /// `message`, which it cannot accept there, nor anything on its other queues
    /// (property [`Property::UnspecifiedReception`]).
    UnspecifiedReception {
        /// The receiver.
        role: String,
        /// The sender of the unexpected message.
        from: String,
        /// The unexpected message.
        message: Message,
        /// What `role` accepts in its state.
        expected: Vec<Action>,
    },
    /// `role` can send `action` in its state, but the queue `role → to` is full and
    /// no execution in which `role` does not move frees it (property
    /// [`Property::Exhaustivity`]).
    NotExhaustive {
        /// The sender.
        role: String,
        /// The receiver.
        to: String,
        /// The send that can never fire.
        action: Action,
    },
}

impl ViolationKind {
    /// The property this violates.
    pub fn property(&self) -> Property {
        match self {
            ViolationKind::Deadlock { .. } | ViolationKind::Starvation { .. } => Property::Progress,
            ViolationKind::Orphan { .. } => Property::EventualReception,
            ViolationKind::UnspecifiedReception { .. } => Property::UnspecifiedReception,
            ViolationKind::NotExhaustive { .. } => Property::Exhaustivity,
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViolationKind::Deadlock { waiting } => {
                write!(f, "deadlock: no role can move")?;
                if !waiting.is_empty() {
                    write!(f, "; waiting to receive: {}", waiting.join(", "))?;
                }
                Ok(())
            }
            ViolationKind::Starvation { role } => {
                write!(f, "{role} waits to receive but can never do so")
            }
            ViolationKind::Orphan { from, to, message } => write!(
                f,
                "message {message} in queue {from}→{to} is never received"
            ),
            ViolationKind::UnspecifiedReception {
                role,
                from,
                message,
                expected,
            } => {
                write!(
                    f,
                    "{role} cannot receive {message} from {from} (head of queue {from}→{role}); it expects "
                )?;
                for (i, a) in expected.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" or ")?;
                    }
                    write!(f, "{a}")?;
                }
                Ok(())
            }
            ViolationKind::NotExhaustive { role, to, action } => write!(
                f,
                "{role} can send {action} but queue {role}→{to} stays full unless {role} moves first"
            ),
        }
    }
}

/// One step of an execution: `role` performs `action`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The role that moves.
    pub role: String,
    /// What it does.
    pub action: Action,
}

impl fmt::Display for Step {
    /// `a: b!ready()` (a sends ready to b) or `b: a?ready()` (b receives it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.role, self.action)
    }
}

/// A configuration of the system: each role's local state and each queue's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Configuration {
    /// `(role, local state)`, in input order.
    pub states: Vec<(String, StateId)>,
    /// `(sender, receiver, messages head first)` for every non-empty queue.
    pub queues: Vec<(String, String, Vec<Message>)>,
}

impl fmt::Display for Configuration {
    /// `states a=1 b=0; queues a→b [ready(), value(i32)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("states")?;
        for (role, state) in &self.states {
            write!(f, " {role}={state}")?;
        }
        f.write_str("; queues")?;
        if self.queues.is_empty() {
            f.write_str(" empty")?;
        }
        for (i, (from, to, messages)) in self.queues.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, " {from}→{to} [")?;
            for (j, m) in messages.iter().enumerate() {
                if j > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{m}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// A counterexample to k-MC: the execution from the initial configuration to a
/// configuration that violates one property, and what goes wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmcViolation {
    /// The bound the system was checked with.
    pub k: usize,
    /// What goes wrong.
    pub kind: ViolationKind,
    /// The execution, from the initial configuration.
    pub trace: Vec<Step>,
    /// The configuration it reaches.
    pub configuration: Configuration,
}

impl KmcViolation {
    /// The property that fails.
    pub fn property(&self) -> Property {
        self.kind.property()
    }

    /// Whether the violation is a run that goes wrong in the unbounded system too (a
    /// refutation): an unspecified reception (under [`check_kmc_offer`]'s semantics,
    /// also a message an `Offer` state cannot take at the head of one of its queues) is
    /// reached by a real run. The other properties speak of what the k-bounded system
    /// can *eventually* do, so their violations say only that k-MC is not proved for
    /// this `k`.
    ///
    /// [`check_kmc_offer`]: super::check_kmc_offer
    pub fn is_definitive(&self) -> bool {
        self.property() == Property::UnspecifiedReception
    }
}

impl fmt::Display for KmcViolation {
    /// `not k-MC: <property> fails: <reason>`, then the numbered execution and the
    /// configuration it reaches, one item per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "not {}-MC: {} fails: {}",
            self.k,
            self.property(),
            self.kind
        )?;
        if self.trace.is_empty() {
            writeln!(f, "in the initial configuration")?;
        } else {
            writeln!(f, "execution:")?;
            for (i, step) in self.trace.iter().enumerate() {
                writeln!(f, "  {:>3}. {step}", i + 1)?;
            }
        }
        write!(f, "reaching {}", self.configuration)
    }
}

impl std::error::Error for KmcViolation {}
