//! The one DOT loader: FSMs read from DOT sources with sorts normalised by the rule
//! projection applies (Scribble's table, so nuscr's `int` is `i32`), each machine kept
//! with where it is written; malformed input, a role played twice, an unknown peer (in a
//! closed system) and a state that is not a local session type become located
//! [`Diagnostic`]s.

use mpst_fsm::format::{DotError, LocatedFsm, SystemError, check_system, parse_dot_located};
use mpst_scribble::sorts::SCRIBBLE;

use crate::{Diagnostic, Report, Source};

/// A machine read from source number `file` of its report.
#[derive(Debug, Clone)]
pub struct Machine {
    /// The machine, with where its digraph, states and transitions are written.
    pub located: LocatedFsm,
    /// The index of its source.
    pub file: usize,
}

/// `error` of the DOT reader about source `file` as a diagnostic: `malformed DOT: ...`
/// with a caret at the offending text.
pub fn malformed(file: usize, error: &DotError) -> Diagnostic {
    Diagnostic::error(format!("malformed DOT: {}", error.message)).with_primary(
        file,
        error.span(),
        "",
    )
}

/// Every digraph of the DOT `source` (number `file` of its report); only deterministic
/// machines when `deterministic` (what subtyping and code generation read).
///
/// # Errors
/// Malformed DOT, located.
pub fn parse(
    source: &Source,
    file: usize,
    deterministic: bool,
) -> Result<Vec<LocatedFsm>, Diagnostic> {
    parse_dot_located(&source.text, deterministic, &SCRIBBLE).map_err(|e| malformed(file, &e))
}

/// Every digraph of every source, in order, checked as one system: no role played
/// twice, and, if `closed` (k-MC's systems), every peer played.
///
/// # Errors
/// The first problem as a report over `sources`.
pub fn load(sources: &[Source], deterministic: bool, closed: bool) -> Result<Vec<Machine>, Report> {
    let fail = |d: Diagnostic| Report::new(sources.to_vec(), vec![d]);
    let mut machines = Vec::new();
    for (file, source) in sources.iter().enumerate() {
        let read = parse(source, file, deterministic).map_err(fail)?;
        machines.extend(read.into_iter().map(|located| Machine { located, file }));
    }
    let located: Vec<&LocatedFsm> = machines.iter().map(|m| &m.located).collect();
    if let Err(error) = check_system(&located, closed) {
        return Err(fail(system(&error, |m| machines[m].file)));
    }
    Ok(machines)
}

/// `error` of a system as a diagnostic; `file_of` gives the source of a machine.
pub fn system(error: &SystemError, file_of: impl Fn(usize) -> usize) -> Diagnostic {
    let mut d = Diagnostic::error(&error.message).with_primary(
        file_of(error.machine),
        error.span.clone(),
        "",
    );
    if let Some((machine, span, message)) = &error.related {
        d = d.with_secondary(file_of(*machine), span.clone(), message.clone());
    }
    d
}

/// Checks that every machine is a local session type (no state both sends and
/// receives), as subtyping needs.
///
/// # Errors
/// The first mixed state, located where it is first written.
pub fn session_types(machines: &[Machine]) -> Result<(), Diagnostic> {
    for m in machines {
        if let Some((_, state, span)) = m.located.mixed_state() {
            return Err(Diagnostic::error(format!(
                "state `{state}` of `{}` both sends and receives: it is not a local session \
                 type, so subtyping does not apply (check the system with `mpst kmc`)",
                m.located.fsm.role()
            ))
            .with_primary(m.file, span, ""));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_dot_renders_file_line_column_and_caret() {
        let source = Source::new("k.dot", "digraph k {\n  0 -> 1 [label=\"B#m()\"];\n}\n");
        let Err(report) = load(std::slice::from_ref(&source), true, false) else {
            panic!("malformed DOT was accepted");
        };
        let text = report.render(false);
        assert!(
            text.starts_with("error: malformed DOT: in the label `\"B#m()\"`: expected `!`"),
            "{text}"
        );
        assert!(text.contains("k.dot:2:19"), "{text}");
        assert!(text.contains("2 │   0 -> 1 [label=\"B#m()\"];"), "{text}");
        let place = report.place(&report.diagnostics[0]).unwrap();
        assert_eq!(place.to_string(), "k.dot:2:19");
    }

    #[test]
    fn systems_refuse_a_role_twice_and_name_both_files() {
        let a = Source::new("a.dot", "digraph A { 0 -> 1 [label=\"B!m()\", ]; }");
        let b = Source::new("b.dot", "digraph \"B\" { 0 -> 1 [label=\"A?m\"]; }");
        let read = load(&[a.clone(), b.clone()], true, true).unwrap();
        let roles: Vec<_> = read.iter().map(|m| m.located.fsm.role()).collect();
        assert_eq!(roles, ["A", "B"]);
        assert_eq!(read[1].file, 1);
        let report = load(&[a.clone(), a], true, false).unwrap_err();
        let text = report.render(false);
        assert!(text.contains("a second digraph for role `A`"), "{text}");
        assert_eq!(text.matches("a.dot:1:9").count(), 2, "{text}");
        // Closed: B's peer C is played by nobody.
        let c = Source::new("c.dot", "digraph B { 0 -> 1 [label=\"C?m\"]; }");
        assert!(load(&[c], true, true).is_err());
    }

    #[test]
    fn mixed_states_are_not_session_types() {
        let mixed = Source::new(
            "m.dot",
            "digraph A {\n 0 -> 1 [label=\"B!m()\"];\n 0 -> 2 [label=\"B?n()\"];\n}",
        );
        let machines = load(&[mixed], true, false).unwrap();
        let d = session_types(&machines).unwrap_err();
        assert!(
            d.message.contains("both sends and receives"),
            "{}",
            d.message
        );
        assert_eq!(d.labels[0].file, 0);
    }
}
