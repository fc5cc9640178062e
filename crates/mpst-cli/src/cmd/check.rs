//! `mpst check`: validate the protocols of a Scribble file and project every role.

use std::path::PathBuf;

use mpst_fsm::format::count;

use mpst_diagnostics::{Report, unused_roles};

use crate::diagnostics::emit;
use crate::load::scribble::load;
use crate::{Outcome, UsageError, output};

/// Arguments of `mpst check`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 = every protocol is valid and every role projects; \
1 = a protocol is invalid (not well-formed or not projectable), the reasons on stderr; \
2 = bad usage, unreadable file or malformed input (a syntax error or an unsupported construct)."
)]
pub struct Args {
    /// The Scribble file.
    pub file: PathBuf,
    /// Check only this protocol (by default, every protocol of the file).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
    /// `--format text|json`.
    #[command(flatten)]
    pub output: crate::json::FormatArg,
}

/// `` `a`, `b` `` or `(none)`.
pub fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let list: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if list.is_empty() {
        "(none)".into()
    } else {
        list.join(", ")
    }
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let loaded = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(outcome) => return outcome,
    };
    let selected = loaded.select_all(args.protocol.as_deref())?;
    if selected.is_empty() {
        return Err(UsageError::Plain(format!(
            "{}: no protocol found",
            loaded.path
        )));
    }
    let mut valid = true;
    let mut unsupported = Vec::new();
    for protocol in selected {
        let name = &protocol.name.text;
        match loaded.project(protocol) {
            Ok(projections) => {
                let mut summary = format!("{name}: valid, {}\n", count(projections.len(), "role"));
                for p in &projections {
                    summary.push_str(&format!(
                        "  {}: {}, {}\n",
                        p.role,
                        count(p.fsm.state_count(), "state"),
                        count(p.fsm.transition_count(), "transition")
                    ));
                }
                output::out(&summary)?;
                let sizes: Vec<_> = projections
                    .iter()
                    .map(|p| {
                        (
                            p.role.as_str(),
                            p.fsm.state_count(),
                            p.fsm.transition_count(),
                        )
                    })
                    .collect();
                crate::json::protocol(name, "valid", &sizes);
                let warnings = unused_roles(0, protocol);
                if !warnings.is_empty() {
                    emit(&Report::new(vec![loaded.source_file()], warnings));
                }
            }
            Err(error) => {
                let mpst_scribble::FrontendError::Diagnostics {
                    diagnostics: errors,
                    ..
                } = &error
                else {
                    return Err(UsageError::Plain(error.to_string()));
                };
                valid = false;
                let verdict = if error.is_malformed() {
                    unsupported.push(name.as_str());
                    "unsupported"
                } else {
                    "invalid"
                };
                let n = errors.len();
                let errors_word = if n == 1 { "error" } else { "errors" };
                output::out(&format!("{name}: {verdict} ({n} {errors_word})\n"))?;
                crate::json::protocol(name, verdict, &[]);
                emit(&Report::scribble(&loaded.path, loaded.source(), errors));
            }
        }
    }
    if !unsupported.is_empty() {
        return Err(UsageError::Plain(format!(
            "{}: unsupported construct in {}",
            loaded.path,
            names(unsupported.into_iter())
        )));
    }
    Ok(if valid {
        Outcome::Holds
    } else {
        Outcome::Fails
    })
}
