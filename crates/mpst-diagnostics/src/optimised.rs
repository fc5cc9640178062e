//! Optimised roles, for `mpst generate --optimised`, `mpst report --optimised` and the
//! build helper's `Build::optimised`: `ROLE=FSM.dot` parsed once ([`parse_spec`]), the
//! role's digraph read with where each part is written ([`read`]), and a refusal by
//! subtyping located there ([`Optimised::not_subtype`], [`Optimised::unknown`]): a caret
//! under the action where the rules stopped, the run that goes wrong in a note.

use std::ops::Range;
use std::path::{Path, PathBuf};

use mpst_fsm::Action;
use mpst_fsm::format::{LocatedFsm, count};
use mpst_fsm::kmc::{self, KmcViolation};
use mpst_fsm::subtype::{self, NotProved, Refutation, Unknown};

use crate::{Diagnostic, Report, Source, dot};

/// `ROLE=FSM.dot` (the argument of `--optimised`) as the role and the file.
///
/// # Errors
/// No `=`, or nothing before it: what was expected and what was given.
pub fn parse_spec(spec: &str) -> Result<(String, PathBuf), String> {
    match spec.split_once('=') {
        Some((role, file)) if !role.is_empty() && !file.is_empty() => {
            Ok((role.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!("expected ROLE=FSM.dot, got `{spec}`")),
    }
}

/// An optimised role: its DOT file and the role's digraph read from it.
#[derive(Debug, Clone)]
pub struct Optimised {
    /// The role.
    pub role: String,
    /// The DOT file's name as given, and its text.
    pub source: Source,
    /// The role's digraph, with its spans.
    pub machine: LocatedFsm,
}

/// Why optimised roles could not be read: `E` is the file reader's error.
#[derive(Debug)]
pub enum ReadFailure<E> {
    /// A DOT file could not be read.
    Read(E),
    /// A role is given twice.
    Twice(String),
    /// Malformed DOT, or no digraph for the role: located in the file.
    Dot(Report),
}

/// Reads the digraph of each `(role, DOT file)` with `read_text`, sorts normalised as
/// projection normalises them (nuscr's `int` is `i32`).
///
/// # Errors
/// A role given twice, a file not read, malformed DOT, a file without a digraph for its
/// role (the digraphs it has are pointed at).
pub fn read<E>(
    specs: &[(String, PathBuf)],
    mut read_text: impl FnMut(&Path) -> Result<Source, E>,
) -> Result<Vec<Optimised>, ReadFailure<E>> {
    for (i, (role, path)) in specs.iter().enumerate() {
        if let Some((_, first)) = specs[..i].iter().find(|(r, _)| r == role) {
            return Err(ReadFailure::Twice(format!(
                "role `{role}` is optimised twice ({} and {}): give one FSM per role",
                first.display(),
                path.display()
            )));
        }
    }
    let mut out: Vec<Optimised> = Vec::new();
    for (role, path) in specs {
        let source = read_text(path).map_err(ReadFailure::Read)?;
        let fail = |d: Diagnostic| ReadFailure::Dot(Report::single(source.clone(), d));
        let machines = dot::parse(&source, 0, true).map_err(fail)?;
        let digraphs: Vec<(Range<usize>, String)> = machines
            .iter()
            .map(|m| {
                let what = format!("the digraph of role `{}`", m.fsm.role());
                (m.spans.digraph.clone(), what)
            })
            .collect();
        let Some(machine) = machines.into_iter().find(|m| m.fsm.role() == role) else {
            let mut d =
                Diagnostic::error(format!("{} has no digraph for role `{role}`", source.name))
                    .with_note(format!(
                        "a digraph's name is the role it is for: name it `{role}`"
                    ));
            for (span, what) in digraphs {
                d = d.with_primary(0, span, what);
            }
            return Err(fail(d));
        };
        out.push(Optimised {
            role: role.clone(),
            source,
            machine,
        });
    }
    Ok(out)
}

impl Optimised {
    fn report(&self, d: Diagnostic) -> Report {
        Report::single(self.source.clone(), d)
    }

    /// The protocol `protocol` has no such role: its roles are `available`.
    pub fn unknown_role(&self, protocol: &str, available: &[String]) -> Report {
        self.report(
            Diagnostic::error(format!("protocol `{protocol}` has no role `{}`", self.role))
                .with_primary(
                    0,
                    self.machine.spans.digraph.clone(),
                    "the digraph of the optimised role",
                )
                .with_note(format!(
                    "the roles of `{protocol}` are: {}",
                    available.join(", ")
                )),
        )
    }

    /// Subtyping refuted the role in `protocol`: where the rules stopped, and the run.
    pub fn not_subtype(&self, protocol: &str, refutation: &Refutation) -> Report {
        self.report(
            Diagnostic::error(format!(
                "the optimised FSM of role `{}` is not an asynchronous subtype of its \
                 projection in protocol `{protocol}`",
                self.role
            ))
            .with_note(refutation.to_string())
            .with_label_at(self.stopped(&refutation.not_proved)),
        )
    }

    /// Subtyping neither proved nor refuted the role in `protocol` under `options`;
    /// `raise` says how to raise the bounds (`with --visits N`).
    pub fn unknown(
        &self,
        protocol: &str,
        unknown: &Unknown,
        options: &subtype::Options,
        raise: &str,
    ) -> Report {
        self.report(
            Diagnostic::error(format!(
                "subtyping neither proves nor refutes that the optimised FSM of role `{}` is \
                 an asynchronous subtype of its projection in protocol `{protocol}`, so it is \
                 not used",
                self.role
            ))
            .with_label_at(self.stopped(&unknown.not_proved))
            .with_note(unknown.to_string())
            .with_note(format!(
                "the check allowed {} per pair of states and {}: raise them {raise}",
                count(options.visits, "visit"),
                count(options.max_steps, "configuration"),
            )),
        )
    }

    /// With this role swapped in, the system of `protocol` can fail at run time: a state
    /// receiving from several peers (an `Offer`) meets a message it does not take. The
    /// label is under this role's state where the run ends (the `Offer` state when the
    /// role is the receiver), the run in a note.
    pub fn offer_refuted(&self, protocol: &str, violation: &KmcViolation) -> Report {
        let receiver = match &violation.kind {
            kmc::ViolationKind::UnspecifiedReception { role, .. } => role.as_str(),
            _ => self.role.as_str(),
        };
        let what = if receiver == self.role {
            "this state waits on several peers and can take a message it does not expect"
                .to_string()
        } else {
            format!("this role is here when `{receiver}` takes a message it does not expect")
        };
        self.report(
            Diagnostic::error(format!(
                "with the optimised FSM of role `{}`, protocol `{protocol}` can fail at run \
                 time (`UnexpectedLabel`): subtyping proves the role, but it models queues \
                 where a message a role does not take yet waits, and the generated `Offer` \
                 takes the first message of any of its peers",
                self.role
            ))
            .with_label_at(self.state_at(violation, what))
            .with_note(run_note(violation))
            .with_note(
                "an optimised role is generated only when the whole system, with it swapped \
                 in, is proved safe as the runtime runs it (k-MC under the `Offer` semantics)",
            ),
        )
    }

    /// With this role swapped in, the system of `protocol` has a state receiving from
    /// several peers and k-MC under the `Offer` semantics does not prove it for bound
    /// `k`, nor refute it: `why` is what it reported.
    pub fn offer_unproved(&self, protocol: &str, k: usize, why: &str) -> Report {
        self.report(
            Diagnostic::error(format!(
                "with the optimised FSM of role `{}`, a role of protocol `{protocol}` waits \
                 on several peers, and k-MC (k = {k}) does not prove the system safe as the \
                 runtime runs it, nor refute it, so the role is not used",
                self.role
            ))
            .with_primary(
                0,
                self.machine.spans.digraph.clone(),
                "the digraph of the optimised role",
            )
            .with_note(format!("not proved: {why}")),
        )
    }

    /// The span of this role's state in the configuration `violation` reaches, or its
    /// digraph's name.
    fn state_at(&self, violation: &KmcViolation, what: String) -> (Range<usize>, String) {
        let state = violation
            .configuration
            .states
            .iter()
            .find(|(role, _)| *role == self.role)
            .and_then(|(_, state)| self.machine.spans.state(*state));
        match state {
            Some((_, span)) => (span, what),
            None => (self.machine.spans.digraph.clone(), what),
        }
    }

    /// Where the rules stopped: under the last action of the candidate's path
    /// (`not_proved.sub_trace`, followed from the initial state), or under the digraph's
    /// name when the path is empty or does not follow the machine.
    fn stopped(&self, not_proved: &NotProved) -> (Range<usize>, String) {
        let reason = not_proved.reason.to_string();
        match last_transition(&self.machine, &not_proved.sub_trace) {
            Some(span) => (span, format!("the rules stop after this action: {reason}")),
            None => (self.machine.spans.digraph.clone(), reason),
        }
    }
}

impl Diagnostic {
    fn with_label_at(self, (span, message): (Range<usize>, String)) -> Self {
        self.with_primary(0, span, message)
    }
}

/// The run of `violation` that goes wrong at run time: what fails, the numbered steps,
/// the configuration reached.
fn run_note(violation: &KmcViolation) -> String {
    let mut note = format!("the run that goes wrong: {}\nexecution:", violation.kind);
    for (i, step) in violation.trace.iter().enumerate() {
        note.push_str(&format!("\n  {:>3}. {step}", i + 1));
    }
    note.push_str(&format!("\nreaching {}", violation.configuration));
    note
}

/// The span of the last transition of `trace` followed from the initial state of the
/// (deterministic) machine, or `None` if the trace is empty or leaves the machine.
fn last_transition(machine: &LocatedFsm, trace: &[Action]) -> Option<Range<usize>> {
    let fsm = &machine.fsm;
    let mut state = fsm.initial();
    let mut last = None;
    for action in trace {
        let index = fsm
            .transitions(state)
            .iter()
            .position(|t| t.action.same_sort(action))?;
        last = Some((state, index));
        state = fsm.transitions(state)[index].target;
    }
    let (state, index) = last?;
    machine.spans.transition(state, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_role_equals_file() {
        assert_eq!(
            parse_spec("K=k.dot"),
            Ok(("K".to_string(), PathBuf::from("k.dot")))
        );
        for bad in ["k.dot", "=k.dot", "K="] {
            let message = parse_spec(bad).unwrap_err();
            assert!(message.contains("expected ROLE=FSM.dot"), "{message}");
        }
    }

    #[test]
    fn a_file_without_the_roles_digraph_points_at_the_digraphs_it_has() {
        let text = "digraph A { 0 -> 1 [label=\"B!m()\"]; }";
        let specs = [("K".to_string(), PathBuf::from("a.dot"))];
        let read_text = |p: &Path| Ok::<_, ()>(Source::new(p.display().to_string(), text));
        let Err(ReadFailure::Dot(report)) = read(&specs, read_text) else {
            panic!("read a digraph for K");
        };
        let shown = report.render(false);
        crate::assert_shows(
            &shown,
            &[
                "a.dot has no digraph for role `K`",
                "the digraph of role `A`",
                "name it `K`",
            ],
        );

        let twice = [specs[0].clone(), specs[0].clone()];
        assert!(matches!(
            read(&twice, read_text),
            Err(ReadFailure::Twice(_))
        ));
        let specs = [("A".to_string(), PathBuf::from("a.dot"))];
        let read = read(&specs, read_text).unwrap();
        assert_eq!(read[0].machine.fsm.role(), "A");
    }
}
