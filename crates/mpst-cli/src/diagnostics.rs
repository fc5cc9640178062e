//! Printing diagnostics for people: the presentation layer's one renderer
//! ([`mpst_diagnostics::Report`]), coloured as `--color` says (`auto` colours when stderr
//! is a terminal and `NO_COLOR` is not set), for Scribble and DOT alike. With `--format
//! json` every diagnostic is also added to the document with its file, line and column,
//! read from its labels.

use std::io::IsTerminal;
use std::sync::OnceLock;

use mpst_diagnostics::Report;

/// The `--color` of the command line, set once by `main`.
static COLOR: OnceLock<clap::ColorChoice> = OnceLock::new();

/// Chooses when diagnostics are coloured (the first choice stays).
pub fn set_color(choice: clap::ColorChoice) {
    let _ = COLOR.set(choice);
}

/// Whether to colour: `always`, or `auto` with stderr a terminal and `NO_COLOR` unset
/// or empty (<https://no-color.org>).
fn colour(choice: clap::ColorChoice, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match choice {
        clap::ColorChoice::Always => true,
        clap::ColorChoice::Never => false,
        clap::ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// Prints `report` to stderr, coloured as `--color` says; with `--format json`, also
/// adds its diagnostics to the document, each with its place.
pub fn emit(report: &Report) {
    if crate::json::enabled() {
        for d in &report.diagnostics {
            crate::json::diagnostic(
                d.severity.name(),
                d.kind.as_deref(),
                &d.message,
                report.place(d),
                &d.notes,
            );
        }
    }
    let choice = COLOR.get().copied().unwrap_or_default();
    let no_color = std::env::var_os("NO_COLOR");
    let coloured = colour(choice, std::io::stderr().is_terminal(), no_color.as_deref());
    crate::output::err(&report.render(coloured));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_flag_the_terminal_and_no_color() {
        use clap::ColorChoice::{Always, Auto, Never};
        let set = Some(std::ffi::OsStr::new("1"));
        let empty = Some(std::ffi::OsStr::new(""));
        assert!(colour(Always, false, set));
        assert!(!colour(Never, true, None));
        assert!(colour(Auto, true, None));
        assert!(colour(Auto, true, empty));
        assert!(!colour(Auto, true, set));
        assert!(!colour(Auto, false, None));
    }
}
