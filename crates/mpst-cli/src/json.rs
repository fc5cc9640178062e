//! `--format json`: the verdicts of `check`, `subtype` and `kmc` as one JSON document on
//! stdout, in the shape of `schema/verdict.schema.json` (version [`VERSION`]).
//!
//! The commands keep printing their text as usual; in JSON mode [`crate::output::out`]
//! sends that text to stderr, so stdout holds the document alone. The commands add
//! their per-item results with [`result`], the diagnostics printer adds every
//! diagnostic with [`diagnostic`], its place read from the diagnostic's labels (never
//! from rendered text), and `main` writes the document with [`document`] once the exit
//! status is known.

use std::sync::{Mutex, OnceLock};

use mpst_fsm::Direction;
use mpst_fsm::kmc::Step;
use serde_json::{Map, Value, json};

/// The version of the document's shape; it changes only when a field changes meaning
/// or disappears (new fields may be added without a new version).
pub const VERSION: u32 = 1;

/// How verdicts are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// For people (the default).
    #[default]
    Text,
    /// One JSON document on stdout (`check`, `subtype` and `kmc`); text goes to stderr.
    Json,
}

/// The `--format` flag of `check`, `subtype` and `kmc` (flattened into their arguments).
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FormatArg {
    /// How verdicts are printed: `text`, or `json` (one document on stdout, described
    /// by crates/mpst-cli/schema/verdict.schema.json; the text then goes to stderr).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The format chosen on the command line, set once by `main`.
static FORMAT: OnceLock<Format> = OnceLock::new();

/// What the document collects while the command runs.
#[derive(Default)]
struct Collected {
    results: Vec<Value>,
    diagnostics: Vec<Value>,
}

static COLLECTED: Mutex<Collected> = Mutex::new(Collected {
    results: Vec::new(),
    diagnostics: Vec::new(),
});

/// Chooses the format for the whole run (the first choice stays).
pub fn set_format(format: Format) {
    let _ = FORMAT.set(format);
}

/// Whether the document is being collected.
pub fn enabled() -> bool {
    FORMAT.get() == Some(&Format::Json)
}

fn with(f: impl FnOnce(&mut Collected)) {
    if enabled() {
        // A poisoned lock still holds what was collected before the panic.
        let mut collected = COLLECTED.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut collected);
    }
}

/// Adds one result (a protocol, a pair of machines, a k-MC check) to the document.
pub fn result(value: Value) {
    with(|c| c.results.push(value));
}

/// The result of `mpst check` for one protocol: `valid`, `invalid` or `unsupported`,
/// and for a valid one the size of each role's machine.
pub fn protocol(name: &str, verdict: &str, roles: &[(&str, usize, usize)]) {
    result(json!({
        "protocol": name,
        "verdict": verdict,
        "roles": roles.iter().map(|(role, states, transitions)| json!({
            "role": role,
            "states": states,
            "transitions": transitions,
        })).collect::<Vec<_>>(),
    }));
}

/// The result of `mpst subtype` for one pair: `proved`, `refuted` (with the run that
/// goes wrong) or `unknown`, and the verdict as text.
pub fn subtype(sub: &str, sup: &str, verdict: &mpst_fsm::subtype::Verdict) {
    use mpst_fsm::subtype::Verdict;
    let (name, violation) = match verdict {
        Verdict::Subtype(_) => ("proved", Value::Null),
        Verdict::NotSubtype(r) => ("refuted", violation(&r.run.kind, &r.run.trace)),
        Verdict::Unknown(_) => ("unknown", Value::Null),
    };
    result(json!({
        "sub": sub,
        "super": sup,
        "verdict": name,
        "message": verdict.to_string(),
        "violation": violation,
    }));
}

/// The result of `mpst kmc` for one bound: `kmc` or `not kmc` with the counterexample.
pub fn kmc(report: &mpst_fsm::KmcReport) {
    let (name, violation) = match &report.violation {
        None => ("kmc", Value::Null),
        Some(v) => ("not kmc", violation(&v.kind, &v.trace)),
    };
    result(json!({
        "k": report.k,
        "verdict": name,
        "configurations": report.configurations,
        "transitions": report.transitions,
        "message": report.to_string(),
        "violation": violation,
    }));
}

/// The result of `mpst kmc` for a bound at which the budget ran out.
pub fn kmc_gave_up(k: usize, message: &str) {
    result(json!({
        "k": k,
        "verdict": "unknown",
        "configurations": Value::Null,
        "transitions": Value::Null,
        "message": message,
        "violation": Value::Null,
    }));
}

/// What goes wrong and the run that leads there.
fn violation(kind: &mpst_fsm::kmc::ViolationKind, trace: &[Step]) -> Value {
    json!({
        "property": kind.property().name(),
        "message": kind.to_string(),
        "run": run(trace),
    })
}

/// A place in a file: 1-based line and column (in characters), as the presentation
/// layer computes it from a diagnostic's label.
pub use mpst_diagnostics::Place;

/// Adds a diagnostic: `severity` is `error` or `warning`, `kind` a short name of the
/// error (or `null`), `place` where it is if known.
pub fn diagnostic(
    severity: &str,
    kind: Option<&str>,
    message: &str,
    place: Option<Place>,
    notes: &[String],
) {
    with(|c| {
        c.diagnostics
            .push(diagnostic_value(severity, kind, message, place, notes))
    });
}

fn diagnostic_value(
    severity: &str,
    kind: Option<&str>,
    message: &str,
    place: Option<Place>,
    notes: &[String],
) -> Value {
    let (file, line, column) = match place {
        Some(p) => (json!(p.file), json!(p.line), json!(p.column)),
        None => (Value::Null, Value::Null, Value::Null),
    };
    json!({
        "severity": severity,
        "kind": kind,
        "message": message,
        "file": file,
        "line": line,
        "column": column,
        "notes": notes,
    })
}

/// A run (a refutation or a counterexample) as a list of events.
pub fn run(trace: &[Step]) -> Value {
    Value::Array(trace.iter().map(event).collect())
}

/// One step of a run: who does what with whom.
fn event(step: &Step) -> Value {
    let action = &step.action;
    json!({
        "role": step.role,
        "action": match action.direction {
            Direction::Send => "send",
            Direction::Receive => "receive",
        },
        "peer": action.peer,
        "label": action.message.label,
        "payloads": action.message.payloads.iter().map(|p| p.ty.as_str()).collect::<Vec<_>>(),
        "text": step.to_string(),
    })
}

/// The overall verdict named by an exit status.
fn verdict(exit_code: u8) -> &'static str {
    match exit_code {
        0 => "holds",
        1 => "fails",
        3 => "unknown",
        _ => "error",
    }
}

/// The document of a command `command` that ended with `exit_code`; its diagnostics,
/// a usage error's among them, were added as they were printed, each with its place.
pub fn document(command: &str, exit_code: u8) -> String {
    let mut collected = COLLECTED.lock().unwrap_or_else(|e| e.into_inner());
    let diagnostics = std::mem::take(&mut collected.diagnostics);
    let mut doc = Map::new();
    doc.insert("version".into(), json!(VERSION));
    doc.insert("command".into(), json!(command));
    doc.insert("verdict".into(), json!(verdict(exit_code)));
    doc.insert("exit_code".into(), json!(exit_code));
    doc.insert(
        "results".into(),
        Value::Array(std::mem::take(&mut collected.results)),
    );
    doc.insert("diagnostics".into(), Value::Array(diagnostics));
    let mut text = serde_json::to_string_pretty(&Value::Object(doc))
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_exit_statuses() {
        let names: Vec<_> = [0, 1, 2, 3].into_iter().map(verdict).collect();
        assert_eq!(names, ["holds", "fails", "error", "unknown"]);
    }
}
