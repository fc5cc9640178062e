//! `mpst project`: not built yet (see the open issues).

use crate::{Outcome, UsageError};

/// Arguments of `mpst project`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files.
    files: Vec<std::path::PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let _ = args.files;
    Err(UsageError("`mpst project` is not available yet".into()))
}
