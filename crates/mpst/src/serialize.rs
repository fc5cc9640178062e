//! Session types to communicating FSMs (feature `serialize`): the bottom-up workflow of
//! PPoPP 2022 §2.2.
//!
//! [`serialize::<S>()`](serialize) walks the session type `S` with the
//! [`introspect`](crate::introspect) visitor, without running anything, and returns the
//! FSM of the role that runs it:
//!
//! * the FSM's role is the running role's [`Role::NAME`], each action's peer is the peer's
//!   [`Role::NAME`];
//! * a label is named by the role's message enum ([`Labelled::name_of`]): the name of the
//!   variant that carries the label type (`Ready` for `Label::Ready(Ready)`);
//! * a message's payload sorts are the field types of its label type, which declares them
//!   with `#[derive(Payload)]` ([`Payload`](crate::Payload)), each path shortened to its
//!   last segment ([`short_type`]: `std::string::String` is `String`). A label type that
//!   does not declare them is an error naming it: without them the checks of
//!   [`verify`](crate::verify) could not compare payloads with the protocol's sorts;
//! * `Select`/`Choose`/`Branch`/`Offer` give one state with one transition per variant of
//!   the choice enum, in declaration order (for `Choose` and `Offer`, each with its
//!   variant's own peer);
//! * recursion closes where a named type (a `#[session]` struct or a choice) is met again,
//!   so every loop head of the type is one state;
//! * every `End` is the same final state.
//!
//! The result is in canonical numbering ([`Fsm::canonical`]). A type alias that is
//! reached along two paths is visited twice, so the FSM may have more states than the
//! projection it was generated from: compare behaviours with
//! [`verify::compare`](crate::verify::compare), not with `==`.
//!
//! ```
//! use mpst::{session, Message, Payload, Receive, Role, Roles, Send};
//!
//! type Channel = mpst::channel::Unbounded<Label>;
//! #[derive(Roles)]
//! struct Roles(K, S);
//! #[derive(Role)]
//! #[message(Label)]
//! struct K(#[route(S)] Channel);
//! #[derive(Role)]
//! #[message(Label)]
//! struct S(#[route(K)] Channel);
//! #[derive(Message)]
//! enum Label {
//!     Ready(Ready),
//!     Value(Value),
//! }
//! #[derive(Payload)]
//! struct Ready;
//! #[derive(Payload)]
//! struct Value(i32);
//!
//! #[session]
//! struct Kernel(Send<S, Ready, Receive<S, Value, Self>>);
//!
//! let fsm = mpst::serialize::serialize::<Kernel<'static, K>>().unwrap();
//! assert_eq!(fsm.to_string(), "fsm K (initial 0)\n  0 --S!Ready()--> 1\n  1 --S?Value(i32)--> 0\n");
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;

use mpst_fsm::ident::short_type;
use mpst_fsm::{Action, Direction, Fsm, FsmError, Message, Payload};

use crate::introspect::{SessionType, Visitor};
use crate::{FromState, Labelled, Role};

/// Why a session type has no FSM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the session type `{session}` of role `{role}` has no FSM: {kind}")]
pub struct SerializeError {
    /// The role whose session type was serialised.
    pub role: &'static str,
    /// The session type, as `std::any::type_name` spells it.
    pub session: &'static str,
    /// What is wrong with it.
    pub kind: SerializeErrorKind,
}

/// What makes a session type have no FSM; it displays as what [`SerializeError`] says
/// after naming the session type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SerializeErrorKind {
    /// What the FSM model rejects: a role talking to itself, or two variants of one
    /// choice with the same label.
    #[error("{0}")]
    Fsm(Box<FsmError>),
    /// A label type does not declare its payload sorts ([`Payload`](crate::Payload)).
    #[error(
        "the type `{label_type}` of label `{label}` does not declare its payload sorts; add \
         `#[derive(mpst::Payload)]` to it"
    )]
    UndeclaredPayload {
        /// The label's name.
        label: &'static str,
        /// The label type, as `std::any::type_name` spells it.
        label_type: &'static str,
    },
    /// A label type is not carried by the role's message enum (the session could not
    /// run).
    #[error(
        "`{label_type}` is not a label of the role's message enum `{message}`; add a variant \
         carrying it"
    )]
    UnknownLabel {
        /// The label type, as `std::any::type_name` spells it.
        label_type: &'static str,
        /// The role's message enum, as `std::any::type_name` spells it.
        message: &'static str,
    },
}

/// The FSM of the role that runs the session type `S`, see the
/// [module documentation](self).
///
/// Write the type with any lifetime, e.g. `serialize::<KernelSession<'static, K>>()`.
/// Fails when a label type does not declare its payload (derive
/// [`Payload`](crate::Payload) for it), or when the type describes something that is not an
/// FSM: a role sending to or receiving from itself, or one choice offering the same label
/// twice.
pub fn serialize<'r, S>() -> Result<Fsm, SerializeError>
where
    S: SessionType + FromState<'r>,
    <S::Role as Role>::Message: Labelled,
{
    let mut builder = Builder::<<S::Role as Role>::Message>::new();
    S::visit(&mut builder);
    let error = |kind| SerializeError {
        role: <S::Role as Role>::NAME,
        session: std::any::type_name::<S>(),
        kind,
    };
    if let Some(kind) = builder.problem.take() {
        return Err(error(kind));
    }
    builder
        .finish(<S::Role as Role>::NAME)
        .map_err(|e| error(SerializeErrorKind::Fsm(Box::new(e))))
}

/// The visitor behind [`serialize`]: states are allocated as the walk goes, and a state
/// where a named type is met again is merged into the state where it was first entered
/// (a union-find over state numbers; merged states never have transitions yet).
struct Builder<M> {
    /// Outgoing transitions of each allocated state.
    transitions: Vec<Vec<(Action, usize)>>,
    /// Union-find parent of each allocated state.
    parent: Vec<usize>,
    /// The state the next step starts from.
    current: usize,
    /// The state where each named type was first entered.
    named: HashMap<&'static str, usize>,
    /// Open choices: the choosing state, direction and peer.
    choices: Vec<(usize, Direction, &'static str)>,
    /// The shared final state, once an `End` was met.
    end: Option<usize>,
    /// The first label type met that is not in the enum or has no payload sorts.
    problem: Option<SerializeErrorKind>,
    _message: PhantomData<fn() -> M>,
}

impl<M: Labelled> Builder<M> {
    fn new() -> Self {
        Builder {
            transitions: vec![Vec::new()],
            parent: vec![0],
            current: 0,
            named: HashMap::new(),
            choices: Vec::new(),
            end: None,
            problem: None,
            _message: PhantomData,
        }
    }

    /// The message of label type `L`, with its payload sorts; a label type that is not in
    /// the enum or has no payload sorts is remembered as the error.
    fn label<L: 'static>(&mut self) -> Message {
        let label_type = std::any::type_name::<L>();
        let Some(name) = M::name_of(TypeId::of::<L>()) else {
            self.problem
                .get_or_insert(SerializeErrorKind::UnknownLabel {
                    label_type,
                    message: std::any::type_name::<M>(),
                });
            return Message::new(label_type);
        };
        let Some(sorts) = M::sorts_of(TypeId::of::<L>()) else {
            self.problem
                .get_or_insert(SerializeErrorKind::UndeclaredPayload {
                    label: name,
                    label_type,
                });
            return Message::new(name);
        };
        let payloads = sorts.iter().map(|sort| Payload::new(short_type(sort)));
        Message::with_payloads(name, payloads.collect())
    }

    fn fresh(&mut self) -> usize {
        self.transitions.push(Vec::new());
        self.parent.push(self.transitions.len() - 1);
        self.transitions.len() - 1
    }

    fn find(&mut self, mut state: usize) -> usize {
        while self.parent[state] != state {
            self.parent[state] = self.parent[self.parent[state]];
            state = self.parent[state];
        }
        state
    }

    /// Makes the current state the same state as `into`.
    fn merge_current(&mut self, into: usize) {
        let (from, into) = (self.find(self.current), self.find(into));
        if from != into {
            let moved = std::mem::take(&mut self.transitions[from]);
            self.transitions[into].extend(moved);
            self.parent[from] = into;
        }
        self.current = into;
    }

    fn step(&mut self, from: usize, action: Action) {
        let to = self.fresh();
        self.transitions[from].push((action, to));
        self.current = to;
    }

    fn finish(mut self, role: &str) -> Result<Fsm, FsmError> {
        let mut fsm = Fsm::new(role);
        let mut number = vec![usize::MAX; self.transitions.len()];
        let root = self.find(0);
        number[root] = 0;
        let mut queue = vec![root];
        while let Some(state) = queue.pop() {
            for (action, target) in std::mem::take(&mut self.transitions[state]) {
                let target = self.find(target);
                if number[target] == usize::MAX {
                    number[target] = fsm.add_state();
                    queue.push(target);
                }
                fsm.add_transition(number[state], action, number[target])?;
            }
        }
        Ok(fsm.canonical())
    }
}

impl<M: Labelled> Visitor for Builder<M> {
    fn send<P: Role, L: 'static>(&mut self) {
        let from = self.find(self.current);
        let message = self.label::<L>();
        self.step(from, Action::send(P::NAME, message));
    }

    fn receive<P: Role, L: 'static>(&mut self) {
        let from = self.find(self.current);
        let message = self.label::<L>();
        self.step(from, Action::receive(P::NAME, message));
    }

    fn select<P: Role>(&mut self) {
        let at = self.find(self.current);
        self.choices.push((at, Direction::Send, P::NAME));
    }

    fn branch<P: Role>(&mut self) {
        let at = self.find(self.current);
        self.choices.push((at, Direction::Receive, P::NAME));
    }

    fn choose(&mut self) {
        // Each variant names its peer (`variant_to`).
        let at = self.find(self.current);
        self.choices.push((at, Direction::Send, ""));
    }

    fn variant_to<P: Role, L: 'static>(&mut self) {
        if let Some(&(at, _, _)) = self.choices.last() {
            let at = self.find(at);
            let action = Action::send(P::NAME, self.label::<L>());
            self.step(at, action);
        }
    }

    fn offer(&mut self) {
        // Each variant names its sender (`variant_from`).
        let at = self.find(self.current);
        self.choices.push((at, Direction::Receive, ""));
    }

    fn variant_from<P: Role, L: 'static>(&mut self) {
        if let Some(&(at, _, _)) = self.choices.last() {
            let at = self.find(at);
            let action = Action::receive(P::NAME, self.label::<L>());
            self.step(at, action);
        }
    }

    fn variant<L: 'static>(&mut self) {
        // `variant` is only called between `select`/`branch` and `choice_end`.
        if let Some(&(at, direction, peer)) = self.choices.last() {
            let at = self.find(at);
            let action = Action {
                peer: peer.to_string(),
                direction,
                message: self.label::<L>(),
            };
            self.step(at, action);
        }
    }

    fn choice_end(&mut self) {
        if let Some((at, _, _)) = self.choices.pop() {
            self.current = at;
        }
    }

    fn end(&mut self) {
        match self.end {
            Some(end) => self.merge_current(end),
            None => self.end = Some(self.find(self.current)),
        }
    }

    fn named(&mut self, name: &'static str) -> bool {
        match self.named.get(name) {
            Some(&state) => {
                self.merge_current(state);
                false
            }
            None => {
                let here = self.find(self.current);
                self.named.insert(name, here);
                true
            }
        }
    }
}
