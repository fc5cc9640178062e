//! `mpst chart`: the global protocol as a sequence chart (SVG): one lifeline per role,
//! one arrow per message, choices and loops as labelled frames.

use std::path::PathBuf;

use crate::load::scribble::load;
use crate::{Outcome, UsageError};

/// Arguments of `mpst chart`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 = the chart is printed on stdout; 1 = the file has semantic \
errors, on stderr; 2 = bad usage (the file has several protocols and none is chosen, or an \
unknown protocol), unreadable file or malformed input. The chart is drawn whether or not the \
protocol is well-formed: `mpst check` says that."
)]
pub struct Args {
    /// The Scribble file.
    pub file: PathBuf,
    /// The protocol (needed when the file has several).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let loaded = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(outcome) => return outcome,
    };
    let protocol = loaded.select(args.protocol.as_deref())?;
    crate::output::out(&mpst_viz::global_chart(protocol))?;
    Ok(Outcome::Holds)
}
