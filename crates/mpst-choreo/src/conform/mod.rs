//! Link to the session-type toolchain (feature `scribble`): a recorded run's global trace
//! replayed through the projections of a Scribble protocol, one FSM per role.
//!
//! A run is recorded as each role's own steps ([`Step`]: what it sent and what it bound,
//! in its own order, from an [`Observer`](crate::Observer) such as
//! [`Recorder`](crate::Recorder)); [`global_trace`] matches sends with receives by
//! integrity key and orders them into one sequence of communications, and
//! [`Protocol::check`] replays that through the projections.
//!
//! ```
//! use mpst_choreo::conform::{Communication, ConformanceError, Protocol};
//!
//! let protocol = Protocol::from_scribble(
//!     "global protocol P(role A, role B) { Ping() from A to B; Pong() from B to A; }",
//!     None,
//! )?;
//! let run = [Communication::new("A", "B", "Ping"), Communication::new("B", "A", "Pong")];
//! protocol.check(&run)?;
//! // Answering before being asked is not a run of P.
//! let wrong = [Communication::new("B", "A", "Pong"), Communication::new("A", "B", "Ping")];
//! assert!(matches!(protocol.check(&wrong), Err(ConformanceError::Unexpected { index: 0, .. })));
//! # Ok::<(), ConformanceError>(())
//! ```

mod trace;

pub use trace::{Step, global_trace};

/// The Scribble front end's error, which [`ConformanceError::Frontend`] carries.
pub use mpst_scribble::FrontendError;

use std::collections::BTreeMap;
use std::fmt;

use mpst_fsm::{Direction, Fsm, StateId};

/// One communication of a run, as the global trace records it: `from -> to : label`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Communication {
    /// The sending role.
    pub from: String,
    /// The receiving role.
    pub to: String,
    /// The label of the message.
    pub label: String,
}

impl Communication {
    /// `from -> to : label`.
    pub fn new(from: impl Into<String>, to: impl Into<String>, label: impl Into<String>) -> Self {
        Communication {
            from: from.into(),
            to: to.into(),
            label: label.into(),
        }
    }
}

impl fmt::Display for Communication {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {} : {}", self.from, self.to, self.label)
    }
}

/// Why a trace does not conform to a protocol, or why the protocol cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConformanceError {
    /// The Scribble source does not parse, has no such protocol (or several, and none
    /// was named), is ill-formed, or cannot be projected: the front end's error, each
    /// problem located as `file:line:column`.
    #[error("{}", frontend(.0))]
    Frontend(FrontendError),
    /// A communication names a role the protocol does not have.
    #[error(
        "communication #{index} `{event}`: the protocol has no role `{role}` (it has {})",
        roles.join(", ")
    )]
    UnknownRole {
        /// Position of the communication in the trace (from 0).
        index: usize,
        /// The communication.
        event: Box<Communication>,
        /// The role that is not in the protocol.
        role: String,
        /// The protocol's roles.
        roles: Vec<String>,
    },
    /// A communication is not the next step of one of its two roles.
    #[error(
        "communication #{index} `{event}` is not a step of role `{role}`, which expects {}",
        expecting(expected)
    )]
    Unexpected {
        /// Position of the communication in the trace (from 0).
        index: usize,
        /// The communication.
        event: Box<Communication>,
        /// The role whose projection does not allow it (the sender or the receiver).
        role: String,
        /// What that role's projection allows instead, in nuscr's notation.
        expected: Vec<String>,
    },
    /// A role bound a message that no role sent (or one sent twice).
    #[error("{step}: no role sent this message")]
    Unmatched {
        /// The receive without its send.
        step: Box<Step>,
    },
    /// The steps cannot be ordered into one sequence of communications: each role waits
    /// for a communication that another role has not reached (or sent something never
    /// received).
    #[error(
        "the steps cannot be ordered into communications; next steps: {}",
        waiting.iter().map(Step::to_string).collect::<Vec<_>>().join("; ")
    )]
    Stuck {
        /// The next step of each role that has steps left.
        waiting: Vec<Step>,
    },
    /// The trace ended while a role still had something to do.
    #[error(
        "the trace ended but role `{role}` still expects {}",
        expecting(expected)
    )]
    Unfinished {
        /// The role.
        role: String,
        /// What its projection still expects, in nuscr's notation.
        expected: Vec<String>,
    },
}

/// What a role's projection allows, or `nothing (it has finished)`.
fn expecting(expected: &[String]) -> String {
    if expected.is_empty() {
        "nothing (it has finished)".to_string()
    } else {
        expected.join(", ")
    }
}

/// The front end's message; projection problems are introduced as such.
fn frontend(e: &FrontendError) -> String {
    match e {
        FrontendError::Diagnostics { .. } => format!("the protocol cannot be projected:\n{e}"),
        e => e.to_string(),
    }
}

/// The projections of one global protocol, ready to replay traces.
#[derive(Debug, Clone)]
pub struct Protocol {
    fsms: BTreeMap<String, Fsm>,
}

impl Protocol {
    /// Parses `source`, checks the protocol `name` (or the only one) for well-formedness and
    /// projects it onto every role, with the Scribble front end ([`mpst_scribble::load`];
    /// diagnostics locate problems in `<scribble>`).
    pub fn from_scribble(source: &str, name: Option<&str>) -> Result<Self, ConformanceError> {
        let loaded =
            mpst_scribble::load("<scribble>", source, name).map_err(ConformanceError::Frontend)?;
        Ok(Protocol {
            fsms: (loaded.projections.into_iter())
                .map(|p| (p.role, p.fsm))
                .collect(),
        })
    }

    /// The projection of `role`, if the protocol has that role.
    pub fn fsm(&self, role: &str) -> Option<&Fsm> {
        self.fsms.get(role)
    }

    /// Orders the recorded `steps` of a run into its global trace ([`global_trace`]) and
    /// replays it ([`Protocol::check`]); returns the trace.
    pub fn check_steps(&self, steps: &[Step]) -> Result<Vec<Communication>, ConformanceError> {
        let trace = global_trace(steps)?;
        self.check(&trace)?;
        Ok(trace)
    }

    /// Replays `trace`: every communication must be, in order, a send transition of its
    /// sender's FSM and a receive transition of its receiver's FSM, and at the end every
    /// FSM must be in a final state.
    pub fn check(&self, trace: &[Communication]) -> Result<(), ConformanceError> {
        let mut states: BTreeMap<&str, StateId> = self
            .fsms
            .iter()
            .map(|(role, fsm)| (role.as_str(), fsm.initial()))
            .collect();
        for (index, event) in trace.iter().enumerate() {
            let steps = [
                (&event.from, &event.to, Direction::Send),
                (&event.to, &event.from, Direction::Receive),
            ];
            for (role, peer, direction) in steps {
                let Some(fsm) = self.fsms.get(role.as_str()) else {
                    return Err(ConformanceError::UnknownRole {
                        index,
                        event: Box::new(event.clone()),
                        role: role.clone(),
                        roles: self.fsms.keys().cloned().collect(),
                    });
                };
                let state = states[role.as_str()];
                let next = fsm.transitions(state).iter().find(|t| {
                    t.action.direction == direction
                        && t.action.peer == *peer
                        && t.action.message.label == event.label
                });
                match next {
                    Some(t) => {
                        states.insert(role.as_str(), t.target);
                    }
                    None => {
                        return Err(ConformanceError::Unexpected {
                            index,
                            event: Box::new(event.clone()),
                            role: role.clone(),
                            expected: expected(fsm, state),
                        });
                    }
                }
            }
        }
        for (role, state) in states {
            let fsm = &self.fsms[role];
            if !fsm.is_final(state) {
                return Err(ConformanceError::Unfinished {
                    role: role.to_string(),
                    expected: expected(fsm, state),
                });
            }
        }
        Ok(())
    }
}

fn expected(fsm: &Fsm, state: StateId) -> Vec<String> {
    fsm.transitions(state)
        .iter()
        .map(|t| t.action.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
        global protocol Send(role KS, role CS, role S, role C) {
            Key(String) from KS to S;
            Txt(String) from CS to S;
            Key(String) from S to C;
            Txt(String) from S to C;
        }
        global protocol Clients(role KS, role CS, role S, role C1, role C2) {
            do Send(KS, CS, S, C1);
            do Send(KS, CS, S, C2);
        }
    "#;

    fn clients() -> Vec<Communication> {
        let mut trace = Vec::new();
        for c in ["C1", "C2"] {
            trace.push(Communication::new("KS", "S", "Key"));
            trace.push(Communication::new("CS", "S", "Txt"));
            trace.push(Communication::new("S", c, "Key"));
            trace.push(Communication::new("S", c, "Txt"));
        }
        trace
    }

    #[test]
    fn a_run_of_the_protocol_conforms() {
        let protocol = Protocol::from_scribble(SOURCE, Some("Clients")).unwrap();
        assert_eq!(protocol.check(&clients()), Ok(()));
        assert!(protocol.fsm("C2").is_some());
    }

    #[test]
    fn wrong_order_wrong_label_unknown_role_and_early_end_are_rejected() {
        let protocol = Protocol::from_scribble(SOURCE, Some("Clients")).unwrap();
        let mut swapped = clients();
        swapped.swap(2, 3);
        match protocol.check(&swapped) {
            Err(ConformanceError::Unexpected {
                index: 2,
                role,
                expected,
                ..
            }) => {
                assert_eq!(role, "S");
                assert_eq!(expected, ["C1!Key(String)"]);
            }
            other => panic!("{other:?}"),
        }
        let mut relabelled = clients();
        relabelled[0].label = "Txt".into();
        assert!(matches!(
            protocol.check(&relabelled),
            Err(ConformanceError::Unexpected { index: 0, .. })
        ));
        let mut stranger = clients();
        stranger[0].from = "X".into();
        assert!(matches!(
            protocol.check(&stranger),
            Err(ConformanceError::UnknownRole { index: 0, role, .. }) if role == "X"
        ));
        let mut short = clients();
        short.pop();
        let err = protocol.check(&short).unwrap_err();
        assert!(
            matches!(&err, ConformanceError::Unfinished { role, .. } if role == "C2"),
            "{err}"
        );
        assert!(err.to_string().contains("S?Txt(String)"), "{err}");
    }

    #[test]
    fn bad_protocols_are_reported_not_panicked_on() {
        assert!(matches!(
            Protocol::from_scribble(SOURCE, None),
            Err(ConformanceError::Frontend(FrontendError::NoSuchProtocol {
                wanted: None,
                ..
            }))
        ));
        assert!(matches!(
            Protocol::from_scribble(SOURCE, Some("Nope")),
            Err(ConformanceError::Frontend(
                FrontendError::NoSuchProtocol { .. }
            ))
        ));
        let err = Protocol::from_scribble("global protocol P(role A) { x() from A to }", None);
        assert!(
            matches!(
                err,
                Err(ConformanceError::Frontend(
                    FrontendError::Diagnostics { .. }
                ))
            ),
            "{err:?}"
        );
    }
}
