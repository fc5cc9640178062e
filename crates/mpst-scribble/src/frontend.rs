//! The front end's one entry point: a Scribble source (text and a file name for
//! diagnostics) -> parse -> select a protocol -> well-formedness -> one FSM per role.
//!
//! Every tool that starts from Scribble goes through here (the CLI, code generation and
//! its build-script helper, `mpst::verify`'s hybrid checks, `mpst-choreo`'s
//! conformance), so they select protocols, check them and report problems alike.
//!
//! ```
//! use mpst_scribble::frontend::{load, FrontendError};
//!
//! let source = "global protocol P(role A, role B) { m(int) from A to B; }";
//! let loaded = load("p.scr", source, None)?;
//! assert_eq!(loaded.protocol.name.text, "P");
//! assert_eq!(loaded.projections.len(), 2);
//! // Sorts are normalised where FSMs are made: `int` is `i32`.
//! assert!(loaded.projections[0].fsm.to_string().contains("m(i32)"));
//!
//! let err = load("p.scr", source, Some("Q")).unwrap_err();
//! assert_eq!(err.to_string(), "p.scr: no protocol `Q`; the file defines `P`");
//! # Ok::<(), FrontendError>(())
//! ```

use crate::diagnostic::line_column;
use crate::project::{Projection, project_all};
use crate::{Diagnostic, ErrorKind, GlobalProtocol};

/// Why a Scribble source yields no protocol or no projections.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontendError {
    /// The source does not parse, or the protocol is ill-formed or cannot be projected.
    #[error("{}", located.join("\n"))]
    Diagnostics {
        /// The file name given for diagnostics.
        file: String,
        /// Each problem as `file:line:column: kind: message`, in source order.
        located: Vec<String>,
        /// The problems, with their byte spans, for rendering against the source.
        diagnostics: Vec<Diagnostic>,
    },
    /// The source has no protocol of the name asked for, or several and none was named.
    #[error("{file}: {}", no_such_protocol(wanted.as_deref(), available))]
    NoSuchProtocol {
        /// The file name given for diagnostics.
        file: String,
        /// The name asked for, if any.
        wanted: Option<String>,
        /// The protocols the source defines, in source order.
        available: Vec<String>,
    },
}

impl FrontendError {
    /// `diagnostics` about `text`, the source called `file`. Locating them all takes one
    /// pass over `text`, however many there are.
    pub fn diagnostics(file: &str, text: &str, diagnostics: Vec<Diagnostic>) -> Self {
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let located = diagnostics
            .iter()
            .map(|d| {
                let line = line_starts.partition_point(|&s| s <= d.span.start).max(1);
                let start = line_starts[line - 1];
                // The line alone, so the column costs no more than the line is long.
                let end = line_starts.get(line).copied().unwrap_or(text.len());
                let (_, column) = line_column(&text[start..end], d.span.start - start);
                format!("{file}:{line}:{column}: {}: {}", d.kind.name(), d.message)
            })
            .collect();
        FrontendError::Diagnostics {
            file: file.to_string(),
            located,
            diagnostics,
        }
    }

    /// Whether the source is malformed (not Scribble, or a construct that is not
    /// supported) rather than a protocol that is invalid.
    pub fn is_malformed(&self) -> bool {
        match self {
            FrontendError::Diagnostics { diagnostics, .. } => is_malformed(diagnostics),
            FrontendError::NoSuchProtocol { .. } => false,
        }
    }
}

/// Whether any of `diagnostics` says the input is malformed (a syntax error or an
/// unsupported construct) rather than an invalid protocol.
pub fn is_malformed(diagnostics: &[Diagnostic]) -> bool {
    diagnostics
        .iter()
        .any(|d| matches!(d.kind, ErrorKind::Syntax | ErrorKind::Unsupported))
}

/// `` `a`, `b` `` or `no protocol`.
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        return "no protocol".into();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

/// What [`FrontendError::NoSuchProtocol`] says after the file name.
fn no_such_protocol(wanted: Option<&str>, available: &[String]) -> String {
    match wanted {
        Some(name) => format!(
            "no protocol `{name}`; the file defines {}",
            listed(available)
        ),
        None => format!(
            "the file defines {} protocols ({}); name the one to use",
            available.len(),
            listed(available)
        ),
    }
}

/// Every protocol of a parsed source, with (a copy of) the source for diagnostics.
#[derive(Debug, Clone)]
pub struct Parsed {
    file: String,
    text: String,
    protocols: Vec<GlobalProtocol>,
}

/// Parses `text`, the source called `file` (for diagnostics), and lowers every global
/// protocol in it ([`crate::parse`]). A leading UTF-8 byte-order mark is dropped first;
/// spans are offsets into [`Parsed::text`], the text without it.
///
/// # Errors
/// [`FrontendError::Diagnostics`] with every syntax, unsupported-construct and binding
/// error (at most [`crate::diagnostic::MAX_DIAGNOSTICS`] and a count of the rest).
pub fn parse_source(file: &str, text: &str) -> Result<Parsed, FrontendError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let protocols = crate::parse(text).map_err(|d| FrontendError::diagnostics(file, text, d))?;
    Ok(Parsed {
        file: file.to_string(),
        text: text.to_string(),
        protocols,
    })
}

impl Parsed {
    /// The file name given for diagnostics.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every protocol of the source, in source order.
    pub fn protocols(&self) -> &[GlobalProtocol] {
        &self.protocols
    }

    /// The protocol named `wanted`, or, when none is named, the only one.
    ///
    /// # Errors
    /// [`FrontendError::NoSuchProtocol`], listing the protocols the source defines.
    pub fn select(&self, wanted: Option<&str>) -> Result<&GlobalProtocol, FrontendError> {
        let found = match wanted {
            Some(name) => self.protocols.iter().find(|p| p.name.text == name),
            None if self.protocols.len() == 1 => self.protocols.first(),
            None => None,
        };
        found.ok_or_else(|| FrontendError::NoSuchProtocol {
            file: self.file.clone(),
            wanted: wanted.map(str::to_string),
            available: self.protocols.iter().map(|p| p.name.text.clone()).collect(),
        })
    }

    /// The protocol named `wanted`, or every protocol when none is named.
    ///
    /// # Errors
    /// [`FrontendError::NoSuchProtocol`] if no protocol has that name.
    pub fn select_all(&self, wanted: Option<&str>) -> Result<Vec<&GlobalProtocol>, FrontendError> {
        match wanted {
            None => Ok(self.protocols.iter().collect()),
            Some(_) => self.select(wanted).map(|p| vec![p]),
        }
    }

    /// Checks `protocol` (one of [`Parsed::protocols`]) for well-formedness and projects
    /// it onto every declared role, in declaration order.
    ///
    /// # Errors
    /// [`FrontendError::Diagnostics`] with every well-formedness error (structural ones
    /// first; projection errors only when there is none), in source order.
    pub fn project(&self, protocol: &GlobalProtocol) -> Result<Vec<Projection>, FrontendError> {
        project_all(protocol).map_err(|mut diagnostics| {
            diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
            diagnostics.dedup();
            FrontendError::diagnostics(&self.file, &self.text, diagnostics)
        })
    }

    /// The projection of one `role` of `protocol`, even when another role of it cannot be
    /// projected (what `mpst project` prints), but never when the projections race: a
    /// role receiving from several peers at once that k-MC does not prove safe as the
    /// runtime runs it (the check of [`Parsed::project`]), whichever role has it.
    ///
    /// # Errors
    /// [`FrontendError::Diagnostics`] with the first structural well-formedness error of
    /// the protocol, the reason why `role` cannot be projected (an unknown role is
    /// [`ErrorKind::UnboundRole`]), or the race.
    pub fn project_role(
        &self,
        protocol: &GlobalProtocol,
        role: &str,
    ) -> Result<mpst_fsm::Fsm, FrontendError> {
        let fail = |d| FrontendError::diagnostics(&self.file, &self.text, vec![d]);
        let fsm = crate::project::project_fsm(protocol, role).map_err(fail)?;
        // A race between senders is the whole system's: checked whichever role is asked.
        match crate::project::race_error(protocol) {
            Some(race) => Err(fail(race)),
            None => Ok(fsm),
        }
    }
}

/// A selected, well-formed protocol and its projections.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The protocol.
    pub protocol: GlobalProtocol,
    /// The projection of every declared role, in declaration order.
    pub projections: Vec<Projection>,
}

/// The whole front end in one call: parses `text` (the source called `file`), selects
/// protocol `wanted` (or the only one), checks it and projects it onto every role.
///
/// # Errors
/// As [`parse_source`], [`Parsed::select`] and [`Parsed::project`].
pub fn load(file: &str, text: &str, wanted: Option<&str>) -> Result<Loaded, FrontendError> {
    let parsed = parse_source(file, text)?;
    let protocol = parsed.select(wanted)?;
    let projections = parsed.project(protocol)?;
    Ok(Loaded {
        protocol: protocol.clone(),
        projections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "global protocol P(role A, role B) { m() from A to B; }\n\
                       global protocol Q(role A, role B) { n() from B to A; }\n";

    #[test]
    fn selects_by_name_or_the_only_protocol() {
        let parsed = parse_source("two.scr", TWO).unwrap();
        assert_eq!(parsed.select(Some("Q")).unwrap().name.text, "Q");
        assert_eq!(parsed.select_all(None).unwrap().len(), 2);
        assert_eq!(parsed.select_all(Some("P")).unwrap()[0].name.text, "P");
        let one = load(
            "one.scr",
            "global protocol R(role A, role B) { m() from A to B; }",
            None,
        );
        assert_eq!(one.unwrap().protocol.name.text, "R");
    }

    #[test]
    fn no_such_protocol_lists_the_available_ones() {
        let parsed = parse_source("two.scr", TWO).unwrap();
        let err = parsed.select(Some("X")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "two.scr: no protocol `X`; the file defines `P`, `Q`"
        );
        assert!(matches!(
            &err,
            FrontendError::NoSuchProtocol { wanted: Some(w), available, .. }
                if w == "X" && available == &["P", "Q"]
        ));
        let err = parsed.select(None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "two.scr: the file defines 2 protocols (`P`, `Q`); name the one to use"
        );
        assert!(parsed.select_all(Some("X")).is_err());
        assert!(!err.is_malformed());
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let source = "\u{feff}global protocol P(role A, role B) { m() from A to B; }";
        let parsed = parse_source("bom.scr", source).unwrap();
        assert!(parsed.text().starts_with("global"));
        assert_eq!(parsed.select(None).unwrap().name.text, "P");
    }

    #[test]
    fn diagnostics_carry_file_line_and_column() {
        let err = load(
            "bad.scr",
            "global protocol P(role A, role B) {\n  m( from A to B;\n}",
            None,
        )
        .unwrap_err();
        assert!(err.is_malformed());
        let FrontendError::Diagnostics {
            located,
            diagnostics,
            ..
        } = &err
        else {
            panic!("expected diagnostics, got {err:?}");
        };
        assert_eq!(located.len(), diagnostics.len());
        assert!(located[0].starts_with("bad.scr:2:"), "{located:?}");
        // Located as the one-diagnostic rule does.
        let (line, column) = line_column(
            "global protocol P(role A, role B) {\n  m( from A to B;\n}",
            diagnostics[0].span.start,
        );
        assert!(located[0].starts_with(&format!("bad.scr:{line}:{column}: ")));
        assert!(located[0].contains("syntax error"), "{located:?}");

        // Ill-formed but well-formed syntax: invalid, not malformed.
        let err = load(
            "self.scr",
            "global protocol P(role A, role B) {\n m() from A to A;\n}",
            None,
        )
        .unwrap_err();
        assert!(!err.is_malformed(), "{err}");
        assert!(err.to_string().starts_with("self.scr:2:2: "), "{err}");
    }

    #[test]
    fn projections_follow_the_declared_roles() {
        let loaded = load("two.scr", TWO, Some("Q")).unwrap();
        let roles: Vec<&str> = loaded.projections.iter().map(|p| p.role.as_str()).collect();
        assert_eq!(roles, ["A", "B"]);
        assert_eq!(loaded.projections[1].fsm.transition_count(), 1);
    }

    #[test]
    fn one_role_projects_even_if_another_cannot() {
        // C cannot merge its branches (it is told in one only); B can be projected on
        // its own.
        let source = "global protocol P(role A, role B, role C) {\n\
                      choice at A { l() from A to B; x() from A to C; }\n\
                      or { r() from A to B; } }";
        let parsed = parse_source("m.scr", source).unwrap();
        let protocol = parsed.select(None).unwrap();
        assert!(parsed.project(protocol).is_err());
        assert_eq!(parsed.project_role(protocol, "B").unwrap().role(), "B");
        let err = parsed.project_role(protocol, "C").unwrap_err();
        assert!(err.to_string().starts_with("m.scr:"), "{err}");
    }
}
