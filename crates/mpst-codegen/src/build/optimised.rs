//! The optimised roles of a build: their DOT files read with where each part is written,
//! and a refusal by subtyping located there, so the build fails with a caret under the
//! action where the rules stopped and the run that goes wrong in a note.

use std::fs;
use std::ops::Range;
use std::path::PathBuf;

use codespan_reporting::diagnostic::Diagnostic as Report;
use mpst_fsm::format::{count, parse_dot_located, LocatedFsm};
use mpst_fsm::subtype::{self, NotProved};
use mpst_fsm::Action;
use mpst_scribble::sorts::SCRIBBLE;
use mpst_scribble::Loaded;

use super::{BuildError, BuildErrorKind, Input};
use crate::GenerateError;

/// An optimised role: its DOT file and the machine read from it.
pub(super) struct Machine {
    /// The DOT file's name as given.
    name: String,
    /// Its text.
    text: String,
    /// The digraph for the role, with its spans.
    pub machine: LocatedFsm,
}

impl Machine {
    fn input(&self) -> Input<'_> {
        Input {
            name: &self.name,
            text: &self.text,
        }
    }
}

/// Reads the digraph of each `(role, DOT file)`, with the sorts normalised as projection
/// normalises them (nuscr's `int` is `i32`).
pub(super) fn read(optimised: &[(String, PathBuf)]) -> Result<Vec<Machine>, BuildError> {
    let mut machines: Vec<Machine> = Vec::new();
    for (i, (role, path)) in optimised.iter().enumerate() {
        if let Some((_, first)) = optimised[..i].iter().find(|(r, _)| r == role) {
            return Err(BuildError::plain(
                BuildErrorKind::Role,
                format!(
                    "role `{role}` is optimised twice ({} and {}): give one FSM per role",
                    first.display(),
                    path.display()
                ),
            ));
        }
        let name = path.display().to_string();
        let text = fs::read_to_string(path).map_err(|e| BuildError::io(path, e))?;
        let input = Input {
            name: &name,
            text: &text,
        };
        let read = parse_dot_located(&text, true, &SCRIBBLE).map_err(|e| input.dot(e))?;
        let labels: Vec<_> = read
            .iter()
            .map(|m| {
                let what = format!("the digraph of role `{}`", m.fsm.role());
                input.primary(m.spans.digraph.clone(), what)
            })
            .collect();
        let Some(machine) = read.into_iter().find(|m| m.fsm.role() == role) else {
            let report = Report::error()
                .with_message(format!("{name} has no digraph for role `{role}`"))
                .with_labels(labels)
                .with_notes(vec![format!(
                    "a digraph's name is the role it is for: name it `{role}`"
                )]);
            return Err(input.error(BuildErrorKind::Dot, &[report]));
        };
        machines.push(Machine {
            name,
            text,
            machine,
        });
    }
    Ok(machines)
}

/// `error`, from checking the optimised `machines` against the projections of `loaded`
/// under `options`, located in the DOT file of the role refused.
pub(super) fn refused(
    loaded: &Loaded,
    machines: &[Machine],
    error: GenerateError,
    options: &subtype::Options,
) -> BuildError {
    let protocol = &loaded.protocol.name.text;
    let role = match &error {
        GenerateError::UnknownRole { role, .. }
        | GenerateError::NotSubtype { role, .. }
        | GenerateError::Unknown { role, .. } => role,
        _ => return BuildError::plain(BuildErrorKind::NoApi, error.to_string()).with_source(error),
    };
    let Some(m) = machines.iter().find(|m| m.machine.fsm.role() == role) else {
        return BuildError::plain(BuildErrorKind::Role, error.to_string()).with_source(error);
    };
    let input = m.input();
    let (kind, report) = match &error {
        GenerateError::UnknownRole { available, .. } => (
            BuildErrorKind::Role,
            Report::error()
                .with_message(format!("protocol `{protocol}` has no role `{role}`"))
                .with_labels(vec![input.primary(
                    m.machine.spans.digraph.clone(),
                    "the digraph of the optimised role",
                )])
                .with_notes(vec![format!(
                    "the roles of `{protocol}` are: {}",
                    available.join(", ")
                )]),
        ),
        GenerateError::NotSubtype { refutation, .. } => (
            BuildErrorKind::NotSubtype,
            Report::error()
                .with_message(format!(
                    "the optimised FSM of role `{role}` is not an asynchronous subtype of its \
                     projection in protocol `{protocol}`"
                ))
                .with_labels(vec![stopped(m, &refutation.not_proved)])
                .with_notes(vec![refutation.to_string()]),
        ),
        GenerateError::Unknown { unknown, .. } => (
            BuildErrorKind::Unknown,
            Report::error()
                .with_message(format!(
                    "subtyping neither proves nor refutes that the optimised FSM of role \
                     `{role}` is an asynchronous subtype of its projection in protocol \
                     `{protocol}`, so it is not used"
                ))
                .with_labels(vec![stopped(m, &unknown.not_proved)])
                .with_notes(vec![
                    unknown.to_string(),
                    format!(
                        "the check allowed {} per pair of states and {}: raise them with \
                         `.visits(N)` or `.subtyping(SubtypingOptions {{ .. }})` in build.rs (`mpst subtype \
                         --visits N --max-steps M` tries bounds from the command line)",
                        count(options.visits, "visit"),
                        count(options.max_steps, "configuration"),
                    ),
                ]),
        ),
        _ => unreachable!("the other errors returned above"),
    };
    input.error(kind, &[report]).with_source(error)
}

/// A label where the rules stopped: under the last action of the candidate's path
/// (`not_proved.sub_trace`, followed from the initial state), or under the digraph's
/// name when the path is empty or does not follow the machine.
fn stopped(m: &Machine, not_proved: &NotProved) -> codespan_reporting::diagnostic::Label<()> {
    let input = m.input();
    let reason = not_proved.reason.to_string();
    match last_transition(&m.machine, &not_proved.sub_trace) {
        Some(span) => input.primary(span, format!("the rules stop after this action: {reason}")),
        None => input.primary(m.machine.spans.digraph.clone(), reason),
    }
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
