//! Why a build-time generation failed, rendered for people: a [`BuildError`] carries the
//! whole diagnostic (file:line:col, the source line, carets, notes), so `{error}`,
//! `.unwrap()` and `fn main() -> Result<(), BuildError>` all print it.

use std::error::Error;
use std::fmt;
use std::path::Path;

/// What kind of input or step failed: for programs that react to a failure rather than
/// print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BuildErrorKind {
    /// An input could not be read, or the output written.
    Io,
    /// `OUT_DIR` is not set and no output directory was given: not in a build script.
    NoOutDir,
    /// The Scribble file does not parse, has no such protocol, or the protocol is
    /// ill-formed or cannot be projected.
    Scribble,
    /// A DOT file is malformed, or has no digraph for the optimised role.
    Dot,
    /// An optimised role that the protocol does not have, or one given twice.
    Role,
    /// Subtyping refuted an optimised role: beside its projection's dual it has a run
    /// that goes wrong.
    NotSubtype,
    /// Subtyping neither proved nor refuted an optimised role (a bound or budget was
    /// reached, or the rules cannot decide), or, with it swapped in, a role waits on
    /// several peers (an `Offer`) and k-MC neither proves nor refutes the system as the
    /// runtime runs it: it is refused all the same.
    Unknown,
    /// Subtyping proved an optimised role, but with it swapped in a role waiting on
    /// several peers (an `Offer`) can take a message it does not expect: a run on which
    /// the generated code fails with `UnexpectedLabel`.
    UnsafeOffer,
    /// The FSMs have no Rust API (e.g. a state that both sends and receives).
    NoApi,
}

/// Why [`Build::generate`](super::Build::generate) failed.
///
/// `Display` and `Debug` both print the rendered diagnostic (the first line without a
/// leading `error: `), so `eprintln!("error: {e}")`, `.unwrap()` and a build script's
/// `fn main() -> Result<(), BuildError>` all show where and why. [`BuildError::kind`]
/// tells the kind; [`Error::source`] gives the underlying error.
pub struct BuildError {
    kind: BuildErrorKind,
    /// The rendered diagnostic(s), each starting with `error: `, without colour.
    report: String,
    /// One line for `cargo:warning`: the message and where.
    headline: String,
    source: Option<Box<dyn Error + Send + Sync + 'static>>,
}

impl BuildError {
    /// A failure of `kind` whose rendering is `report` (starting with `error: `) and
    /// whose one-line summary is `headline`.
    pub(super) fn new(kind: BuildErrorKind, report: String, headline: String) -> Self {
        BuildError {
            kind,
            report: report.trim_end().to_owned(),
            headline,
            source: None,
        }
    }

    /// A failure whose report is the single line `message`.
    pub(super) fn plain(kind: BuildErrorKind, message: String) -> Self {
        BuildError::new(kind, format!("error: {message}"), message)
    }

    /// Reading or writing `path` failed.
    pub(super) fn io(path: &Path, error: std::io::Error) -> Self {
        BuildError::plain(BuildErrorKind::Io, format!("{}: {error}", path.display()))
            .with_source(error)
    }

    /// Keeps `source` as the [`Error::source`].
    pub(super) fn with_source(mut self, source: impl Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> BuildErrorKind {
        self.kind
    }

    /// The whole rendered diagnostic as codespan-reporting prints it without colour,
    /// each diagnostic starting with `error: `.
    pub fn report(&self) -> &str {
        &self.report
    }

    /// One line: the message and, when the failure is located, `file:line:col`. Printed
    /// as a `cargo:warning` by [`Build::generate`](super::Build::generate), so Cargo shows
    /// it above the build script's output.
    pub fn headline(&self) -> &str {
        &self.headline
    }

    /// Prints the diagnostic to stderr and exits with status 1, which fails the build
    /// (Cargo shows a failed build script's stderr):
    /// `Build::scribble("p.scr").generate().unwrap_or_else(|e| e.exit());`
    pub fn exit(&self) -> ! {
        eprintln!("{}", self.report);
        std::process::exit(1)
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.report.strip_prefix("error: ").unwrap_or(&self.report))
    }
}

/// Renders like `Display`, not as a struct: `main` returning `Result<(), BuildError>`
/// and `.unwrap()` print errors with `Debug`, and a dump of spans helps nobody.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Error for BuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}
