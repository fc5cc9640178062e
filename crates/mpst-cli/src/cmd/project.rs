//! `mpst project`: print the communicating FSM of one role of a Scribble protocol.

use std::path::PathBuf;

use super::check::names;
use crate::load::scribble::load;
use crate::{Outcome, UsageError};
use mpst_fsm::format::{write_dot, write_mermaid, write_petrify};

/// Output formats of `mpst project`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// nuscr's DOT, the role as the digraph name.
    Dot,
    /// petrify, the k-MC tool's format.
    Petrify,
    /// A Mermaid state diagram.
    Mermaid,
    /// An SVG picture, laid out without Graphviz.
    Svg,
}

/// Arguments of `mpst project`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Without --protocol, the protocol is the only one of the file that has \
role R. Exit status: 0 = the FSM is printed on stdout; 1 = the protocol is invalid or the role \
cannot be projected, the reason on stderr; 2 = bad usage (unknown role or protocol), unreadable \
file or malformed input."
)]
pub struct Args {
    /// The Scribble file.
    pub file: PathBuf,
    /// The role to project onto.
    #[arg(long, short = 'r', value_name = "R")]
    pub role: String,
    /// The protocol (needed when several protocols of the file have role R).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Dot)]
    pub format: Format,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let loaded = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(outcome) => return outcome,
    };
    let selected = loaded.select_all(args.protocol.as_deref())?;
    let role = args.role.as_str();
    let with_role: Vec<_> = selected
        .iter()
        .filter(|p| p.roles.iter().any(|r| r.text == role))
        .collect();
    let protocol = match with_role.as_slice() {
        [one] => **one,
        [] => {
            let known: Vec<String> = selected
                .iter()
                .map(|p| {
                    format!(
                        "`{}` has {}",
                        p.name.text,
                        names(p.roles.iter().map(|r| r.text.as_str()))
                    )
                })
                .collect();
            return Err(UsageError::Plain(format!(
                "{}: no role `{role}`: {}",
                loaded.path,
                if known.is_empty() {
                    "the file has no protocol".into()
                } else {
                    known.join("; ")
                }
            )));
        }
        several => {
            return Err(UsageError::Plain(format!(
                "{}: several protocols have role `{role}` ({}); choose one with --protocol",
                loaded.path,
                names(several.iter().map(|p| p.name.text.as_str()))
            )));
        }
    };
    match loaded.project_role(protocol, role) {
        Ok(fsm) => {
            let text = match args.format {
                Format::Dot => write_dot(&fsm),
                Format::Petrify => write_petrify(std::slice::from_ref(&fsm)),
                Format::Mermaid => write_mermaid(&fsm),
                Format::Svg => mpst_viz::fsm_svg(&fsm),
            };
            crate::output::out(&text)?;
            Ok(Outcome::Holds)
        }
        Err(error) => loaded.report(&error),
    }
}
