//! `mpst kmc`: not built yet (see the open issues).

use crate::{Outcome, UsageError};

/// Arguments of `mpst kmc`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files.
    files: Vec<std::path::PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let _ = args.files;
    Err(UsageError("`mpst kmc` is not available yet".into()))
}
