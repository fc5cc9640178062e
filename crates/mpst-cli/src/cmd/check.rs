//! `mpst check`: validate the protocols of a Scribble file and project every role.
//!
//! Also home of [`load`], which `mpst project` shares: read, parse, render the
//! diagnostics and pick the protocols asked for.

use std::path::PathBuf;

use mpst_fsm::format::count;
use mpst_scribble::wf::unused_roles;
use mpst_scribble::{parse, project_all, GlobalProtocol};

use crate::diagnostics::{emit, malformed, Item};
use crate::{input, output};
use crate::{Outcome, UsageError};

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

/// A parsed Scribble file.
pub struct Loaded {
    /// The path as given, for messages.
    pub path: String,
    /// The text.
    pub source: String,
    /// Every protocol of the file.
    pub protocols: Vec<GlobalProtocol>,
}

/// Reads and parses `file`. Diagnostics are printed to stderr; malformed input is a
/// usage error (exit 2), semantic errors found while parsing are `Err(Ok(Fails))`
/// (exit 1).
pub fn load(file: &std::path::Path) -> Result<Loaded, Result<Outcome, UsageError>> {
    let path = file.display().to_string();
    let source = input::read(file).map_err(Err)?;
    match parse(&source) {
        Ok(protocols) => Ok(Loaded {
            path,
            source,
            protocols,
        }),
        Err(diagnostics) => {
            let items: Vec<Item<'_>> = diagnostics.iter().map(Item::Error).collect();
            emit(&path, &source, &items);
            let n = diagnostics.len();
            let errors = if n == 1 { "error" } else { "errors" };
            if malformed(&diagnostics) {
                Err(Err(UsageError(format!(
                    "{path}: malformed input ({n} {errors})"
                ))))
            } else {
                output::err(&format!("{path}: invalid ({n} {errors})\n"));
                Err(Ok(Outcome::Fails))
            }
        }
    }
}

/// The protocols named by `--protocol`, or all of them.
pub fn select<'a>(
    loaded: &'a Loaded,
    protocol: Option<&str>,
) -> Result<Vec<&'a GlobalProtocol>, UsageError> {
    let Some(name) = protocol else {
        return Ok(loaded.protocols.iter().collect());
    };
    match loaded.protocols.iter().find(|p| p.name.text == name) {
        Some(p) => Ok(vec![p]),
        None => Err(UsageError(format!(
            "{}: no protocol `{name}`; the protocols are {}",
            loaded.path,
            names(loaded.protocols.iter().map(|p| p.name.text.as_str()))
        ))),
    }
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
    let selected = select(&loaded, args.protocol.as_deref())?;
    if selected.is_empty() {
        return Err(UsageError(format!("{}: no protocol found", loaded.path)));
    }
    let mut valid = true;
    let mut unsupported = Vec::new();
    for protocol in selected {
        let name = &protocol.name.text;
        match project_all(protocol) {
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
                let warnings: Vec<Item<'_>> = unused_roles(protocol)
                    .into_iter()
                    .map(|r| {
                        Item::Warning(
                            r.span,
                            format!(
                                "role `{}` of `{name}` takes no part in any interaction",
                                r.text
                            ),
                        )
                    })
                    .collect();
                emit(&loaded.path, &loaded.source, &warnings);
            }
            Err(errors) => {
                valid = false;
                let verdict = if malformed(&errors) {
                    unsupported.push(name.as_str());
                    "unsupported"
                } else {
                    "invalid"
                };
                let n = errors.len();
                let errors_word = if n == 1 { "error" } else { "errors" };
                output::out(&format!("{name}: {verdict} ({n} {errors_word})\n"))?;
                crate::json::protocol(name, verdict, &[]);
                let items: Vec<Item<'_>> = errors.iter().map(Item::Error).collect();
                emit(&loaded.path, &loaded.source, &items);
            }
        }
    }
    if !unsupported.is_empty() {
        return Err(UsageError(format!(
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
