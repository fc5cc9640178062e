//! From recorded events to a global trace: each role's steps (sends and binds, in its own
//! order) matched by integrity key and ordered into one sequence of communications.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

use super::{Communication, ConformanceError};
use crate::transport::{Event, EventKind};

/// One step of one role, as its endpoint reported it: the sender handing a message over,
/// or the receiver binding it. Steps from separate processes can be merged: only each
/// role's own order matters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Step {
    /// `true` for the sender's step, `false` for the receiver's.
    pub sent: bool,
    /// The sending role.
    pub from: String,
    /// The receiving role.
    pub to: String,
    /// The label (see [`Step::from_event`]).
    pub label: String,
    /// The integrity key, as text that is equal at both ends.
    pub key: String,
}

impl Step {
    /// The step an endpoint reported, or `None` for a refused duplicate (not a step of
    /// the choreography).
    ///
    /// The label is the last path segment of the communicated value's type without its
    /// generic arguments (`my_app::Key` gives `Key`), or the choice of a selection
    /// (`select:More` gives `More`): name message types after the protocol's labels.
    pub fn from_event(event: &Event) -> Option<Self> {
        let sent = match event.kind {
            EventKind::Sent => true,
            EventKind::Received => false,
            EventKind::DuplicateRefused => return None,
        };
        Some(Step {
            sent,
            from: event.from.to_string(),
            to: event.to.to_string(),
            label: label(&event.label),
            key: format!("{:016x}{}", event.key.site.id(), event.key.token),
        })
    }

    /// The steps of `events`, in order, without refused duplicates.
    pub fn from_events(events: &[Event]) -> Vec<Self> {
        events.iter().filter_map(Step::from_event).collect()
    }

    /// One line of text (`sent KS S <key> Key`), for a process to report its steps.
    pub fn to_line(&self) -> String {
        let kind = if self.sent { "sent" } else { "received" };
        format!(
            "{kind} {} {} {} {}",
            self.from, self.to, self.key, self.label
        )
    }

    /// Reads a line written by [`Step::to_line`].
    pub fn from_line(line: &str) -> Option<Self> {
        let mut words = line.trim().splitn(5, ' ');
        let sent = match words.next()? {
            "sent" => true,
            "received" => false,
            _ => return None,
        };
        let (from, to, key) = (words.next()?, words.next()?, words.next()?);
        let label = words.next()?;
        Some(Step {
            sent,
            from: from.to_string(),
            to: to.to_string(),
            label: label.to_string(),
            key: key.to_string(),
        })
    }

    /// The role that took this step.
    pub fn role(&self) -> &str {
        if self.sent { &self.from } else { &self.to }
    }

    fn communication(&self) -> (&str, &str, &str, &str) {
        (&self.from, &self.to, &self.label, &self.key)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let did = if self.sent { "sent" } else { "bound" };
        write!(
            f,
            "{} {did} {} -> {} : {} (key {})",
            self.role(),
            self.from,
            self.to,
            self.label,
            self.key
        )
    }
}

fn label(raw: &str) -> String {
    if let Some(choice) = raw.strip_prefix("select:") {
        return choice.trim().to_string();
    }
    let base = raw.split('<').next().unwrap_or(raw);
    base.rsplit("::").next().unwrap_or(base).trim().to_string()
}

/// Orders the steps of a run into its global trace: a communication is next when it is
/// the next step of its sender and the next step of its receiver. Fails if a role bound
/// a message no role sent, or if the steps cannot be ordered so (a receiver bound
/// messages in an order its senders did not send them in, as out-of-order runs may).
///
/// Taking any communication that is next never prevents another, so when an order
/// exists this finds one.
pub fn global_trace(steps: &[Step]) -> Result<Vec<Communication>, ConformanceError> {
    let mut sent: HashMap<_, usize> = HashMap::new();
    for step in steps.iter().filter(|s| s.sent) {
        *sent.entry(step.communication()).or_default() += 1;
    }
    for step in steps.iter().filter(|s| !s.sent) {
        match sent.get_mut(&step.communication()) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                return Err(ConformanceError::Unmatched {
                    step: Box::new(step.clone()),
                });
            }
        }
    }
    let mut queues: BTreeMap<&str, VecDeque<&Step>> = BTreeMap::new();
    for step in steps {
        queues.entry(step.role()).or_default().push_back(step);
    }
    let mut trace = Vec::with_capacity(steps.len() / 2);
    loop {
        let ready = queues.values().find_map(|queue| {
            let send = queue.front().filter(|s| s.sent)?;
            let receive = queues.get(send.to.as_str())?.front()?;
            (!receive.sent && receive.communication() == send.communication()).then_some(*send)
        });
        let Some(send) = ready else { break };
        for role in [send.from.as_str(), send.to.as_str()] {
            if let Some(queue) = queues.get_mut(role) {
                queue.pop_front();
            }
        }
        trace.push(Communication::new(&send.from, &send.to, &send.label));
    }
    let waiting: Vec<Step> = queues
        .values()
        .filter_map(|q| q.front().map(|s| (*s).clone()))
        .collect();
    if waiting.is_empty() {
        Ok(trace)
    } else {
        Err(ConformanceError::Stuck { waiting })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(sent: bool, from: &str, to: &str, label: &str, key: &str) -> Step {
        Step {
            sent,
            from: from.into(),
            to: to.into(),
            label: label.into(),
            key: key.into(),
        }
    }

    #[test]
    fn labels_are_short_type_names_or_choices() {
        assert_eq!(label("my_app::demo::Key"), "Key");
        assert_eq!(label("alloc::vec::Vec<my::Item>"), "Vec");
        assert_eq!(label("select:More"), "More");
        assert_eq!(label("u32"), "u32");
    }

    #[test]
    fn lines_round_trip() {
        let s = step(true, "KS", "S", "Key", "00ffτ[]");
        assert_eq!(Step::from_line(&s.to_line()), Some(s));
        let s = step(false, "KS", "S", "select More", "00ffτ[0.1]");
        assert_eq!(Step::from_line(&s.to_line()), Some(s));
        assert_eq!(Step::from_line("nonsense"), None);
    }

    #[test]
    fn steps_of_concurrent_roles_are_ordered_into_communications() {
        // P2 sent first, but Q bound P1's message first: the trace follows Q.
        let steps = [
            step(true, "P2", "Q", "Item", "2"),
            step(true, "P1", "Q", "Item", "1"),
            step(false, "P1", "Q", "Item", "1"),
            step(false, "P2", "Q", "Item", "2"),
        ];
        let trace = global_trace(&steps).unwrap();
        assert_eq!(trace[0], Communication::new("P1", "Q", "Item"));
        assert_eq!(trace[1], Communication::new("P2", "Q", "Item"));
    }

    #[test]
    fn an_unsent_bind_and_a_crossed_order_are_rejected() {
        let unsent = [step(false, "A", "B", "X", "1")];
        assert!(matches!(
            global_trace(&unsent),
            Err(ConformanceError::Unmatched { .. })
        ));
        // S sent key then txt; C bound txt then key: no synchronous order.
        let crossed = [
            step(true, "S", "C", "Key", "3"),
            step(true, "S", "C", "Txt", "4"),
            step(false, "S", "C", "Txt", "4"),
            step(false, "S", "C", "Key", "3"),
        ];
        let err = global_trace(&crossed).unwrap_err();
        assert!(matches!(&err, ConformanceError::Stuck { waiting } if waiting.len() == 2));
        assert!(err.to_string().contains("C bound S -> C : Txt"), "{err}");
    }
}
