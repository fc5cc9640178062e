//! The build's failures as [`BuildError`]s, rendered by the toolchain's one renderer
//! ([`mpst_diagnostics::Report`], without colour: a build script's output is no
//! terminal): the message, `file:line:col`, the source line with carets under the
//! culprit, labels and notes.

use std::path::Path;

use mpst_diagnostics::optimised::{self, Optimised, ReadFailure};
use mpst_diagnostics::{MAX_INPUT_BYTES, ReadError, Report, Source};
use mpst_scribble::FrontendError;

use super::{BuildError, BuildErrorKind};

impl BuildError {
    /// A failure of `kind` whose diagnostics are `report`.
    pub(super) fn rendered(kind: BuildErrorKind, report: &Report) -> Self {
        BuildError::new(kind, report.render(false), report.headline())
    }
}

/// The input file at `path`, read by the toolchain's one reader (the CLI's: a size
/// limit, a byte-order mark skipped, bad UTF-8 located).
pub(super) fn read(path: &Path) -> Result<Source, BuildError> {
    mpst_diagnostics::read(path, MAX_INPUT_BYTES, "").map_err(|error: ReadError| {
        BuildError::plain(BuildErrorKind::Io, error.to_string()).with_source(error)
    })
}

/// The front end's `error` about the Scribble `source`: each diagnostic rendered, or
/// the selection error as one line.
pub(super) fn scribble(source: &Source, error: FrontendError) -> BuildError {
    let rendered = match &error {
        FrontendError::Diagnostics { diagnostics, .. } => BuildError::rendered(
            BuildErrorKind::Scribble,
            &Report::scribble(&source.name, &source.text, diagnostics),
        ),
        FrontendError::NoSuchProtocol { .. } => {
            BuildError::plain(BuildErrorKind::Scribble, error.to_string())
        }
    };
    rendered.with_source(error)
}

/// The digraph of each `(role, DOT file)`, or why not.
pub(super) fn optimised(
    specs: &[(String, std::path::PathBuf)],
) -> Result<Vec<Optimised>, BuildError> {
    optimised::read(specs, read).map_err(|failure| match failure {
        ReadFailure::Read(error) => error,
        ReadFailure::Twice(message) => BuildError::plain(BuildErrorKind::Role, message),
        ReadFailure::Dot(report) => BuildError::rendered(BuildErrorKind::Dot, &report),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpst_scribble::{Diagnostic, ErrorKind, Span};

    #[test]
    fn scribble_diagnostics_render_location_excerpt_carets_labels_and_notes() {
        let text = "global protocol P(role A) {\n  x() from A to A;\n}\n";
        let d = Diagnostic::new(
            ErrorKind::ReflexiveMessage,
            Span::new(30, 46),
            "A sends to itself",
        )
        .with_label(Span::new(23, 24), "declared here")
        .with_note("use two roles");
        let past_the_end = Diagnostic::new(ErrorKind::Syntax, Span::new(500, 600), "far");
        let source = Source::new("p.scr", text);
        let ds = vec![d, past_the_end];
        let error = scribble(
            &source,
            FrontendError::diagnostics("p.scr", text, ds.clone()),
        );
        assert_eq!(error.kind(), BuildErrorKind::Scribble);
        let shown = error.to_string();
        assert!(
            shown.starts_with("reflexive message: A sends to itself\n"),
            "{shown}"
        );
        // The renderer's (mpst-diagnostics' tests check excerpts and carets).
        assert_eq!(
            error.report(),
            Report::scribble("p.scr", text, &ds)
                .render(false)
                .trim_end()
        );
        assert_eq!(
            error.headline(),
            "p.scr:2:3: reflexive message: A sends to itself"
        );
        // Debug renders too: `.unwrap()` and `main() -> Result` print no spans.
        assert_eq!(format!("{error:?}"), shown);
        assert!(!shown.contains("Span"), "{shown}");
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn dot_errors_render_the_line_and_a_caret_and_a_long_line_only_its_place() {
        let dir = std::env::temp_dir().join(format!("mpst-build-render-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let k = dir.join("k.dot");
        std::fs::write(&k, "digraph K {\n  0 -> 1 [label=\"S#m()\"];\n}\n").unwrap();
        let error = optimised(&[("K".into(), k.clone())]).unwrap_err();
        assert_eq!(error.kind(), BuildErrorKind::Dot);
        let shown = error.to_string();
        assert!(shown.starts_with("malformed DOT: "), "{shown}");
        assert!(
            shown.contains(&format!("┌─ {}:2:19", k.display())),
            "{shown}"
        );
        assert!(shown.contains("0 -> 1 [label=\"S#m()\"];"), "{shown}");
        let at = format!("{}:2:19: malformed DOT: ", k.display());
        assert!(error.headline().starts_with(&at), "{}", error.headline());

        // A long line is located, not quoted.
        let long = dir.join("long.dot");
        let text = format!(
            "digraph K {{ {} 0 -> 1 [label=\"S#m()\"]; }}",
            "0; ".repeat(200)
        );
        std::fs::write(&long, text).unwrap();
        let error = optimised(&[("K".into(), long.clone())]).unwrap_err();
        let lines: Vec<&str> = error.report().lines().collect();
        assert_eq!(lines.len(), 2, "{}", error.report());
        assert!(lines[0].starts_with("error: malformed DOT: "), "{error}");
        let place = format!("  --> {}:1:", long.display());
        assert!(lines[1].starts_with(&place), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
