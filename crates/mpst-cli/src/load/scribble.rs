//! Scribble files for `check`, `project`, `chart`, `generate` and `report`: read with the
//! one reader, parsed, selected and projected by the front end
//! ([`mpst_scribble::frontend`]); its errors rendered with codespan-reporting and turned
//! into the exit status (malformed input 2, an invalid protocol 1, no such protocol 2).

use std::path::Path;

use mpst_scribble::frontend::{FrontendError, Parsed, parse_source};
use mpst_scribble::{GlobalProtocol, Projection};

use crate::diagnostics::emit;
use crate::{Outcome, UsageError, output};

/// How a command ends early on a front-end error: a usage error (exit 2) or an outcome
/// already reported (an invalid protocol: exit 1).
pub type Stop = Result<Outcome, UsageError>;

/// A parsed Scribble file.
pub struct Scribble {
    /// The path as given, for messages.
    pub path: String,
    /// The front end's result: the text and every protocol of the file.
    pub parsed: Parsed,
}

/// A file read but not parsed: its text and the front end's error, not yet reported
/// (see [`Unparsed::report`]).
pub struct Unparsed {
    /// The source text.
    pub text: String,
    /// Why it did not parse (always diagnostics: parsing selects nothing).
    pub error: FrontendError,
}

impl Unparsed {
    /// Reports the error (see [`report`]).
    pub fn report(&self) -> Stop {
        report(&self.text, &self.error)
    }
}

/// Reads and parses `file`, leaving a parse error unreported, for a command that shows
/// the source even when it does not parse (`mpst report`).
pub fn parse(file: &Path) -> Result<Result<Scribble, Unparsed>, UsageError> {
    let path = file.display().to_string();
    let text = super::read(file)?;
    Ok(match parse_source(&path, &text) {
        Ok(parsed) => Ok(Scribble { path, parsed }),
        Err(error) => Err(Unparsed { text, error }),
    })
}

/// Reads and parses `file`. Diagnostics are printed to stderr (see [`report`]).
pub fn load(file: &Path) -> Result<Scribble, Stop> {
    parse(file)
        .map_err(Err)?
        .map_err(|unparsed| unparsed.report())
}

impl Scribble {
    /// The source text.
    pub fn source(&self) -> &str {
        self.parsed.text()
    }

    /// The file as a source of diagnostics.
    pub fn source_file(&self) -> mpst_diagnostics::Source {
        mpst_diagnostics::Source::new(self.path.clone(), self.source())
    }

    /// The protocol named `wanted`, or every protocol.
    pub fn select_all(&self, wanted: Option<&str>) -> Result<Vec<&GlobalProtocol>, UsageError> {
        self.parsed.select_all(wanted).map_err(usage)
    }

    /// The protocol named `wanted`, or the only one.
    pub fn select(&self, wanted: Option<&str>) -> Result<&GlobalProtocol, UsageError> {
        self.parsed.select(wanted).map_err(usage)
    }

    /// The projections of `protocol`, or its well-formedness errors as the front end's
    /// error (not yet reported: see [`Scribble::report`]).
    pub fn project(&self, protocol: &GlobalProtocol) -> Result<Vec<Projection>, FrontendError> {
        self.parsed.project(protocol)
    }

    /// The projection of `role` of `protocol` alone (see
    /// [`Parsed::project_role`]).
    pub fn project_role(
        &self,
        protocol: &GlobalProtocol,
        role: &str,
    ) -> Result<mpst_fsm::Fsm, FrontendError> {
        self.parsed.project_role(protocol, role)
    }

    /// Reports `error` about this file (see [`report`]).
    pub fn report(&self, error: &FrontendError) -> Stop {
        report(self.source(), error)
    }
}

/// A selection error as a usage error: `--protocol` names none, or several and none named.
fn usage(error: FrontendError) -> UsageError {
    match &error {
        FrontendError::NoSuchProtocol {
            file, available, ..
        } if available.is_empty() => UsageError::Plain(format!("{file}: no protocol found")),
        FrontendError::NoSuchProtocol {
            file,
            wanted: None,
            available,
        } => UsageError::Plain(format!(
            "{file}: the file has {} protocols ({}); choose one with --protocol",
            available.len(),
            available.join(", ")
        )),
        _ => UsageError::Plain(error.to_string()),
    }
}

/// Reports `error` about `text`: diagnostics rendered on stderr, then exit 2 if the input
/// is malformed (a syntax error or an unsupported construct), else `invalid` and exit 1;
/// no such protocol is a usage error.
pub fn report(text: &str, error: &FrontendError) -> Stop {
    let FrontendError::Diagnostics {
        file, diagnostics, ..
    } = error
    else {
        return Err(usage(error.clone()));
    };
    emit(&mpst_diagnostics::Report::scribble(file, text, diagnostics));
    let n = diagnostics.len();
    let errors = if n == 1 { "error" } else { "errors" };
    if error.is_malformed() {
        Err(UsageError::Plain(format!(
            "{file}: malformed input ({n} {errors})"
        )))
    } else {
        output::err(&format!("{file}: invalid ({n} {errors})\n"));
        Ok(Outcome::Fails)
    }
}
