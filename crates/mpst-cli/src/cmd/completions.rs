//! `mpst completions SHELL`: the shell completion script of the command line
//! (clap_complete), on stdout.

use crate::{Outcome, UsageError};

/// Arguments of `mpst completions`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Install, for example: `mpst completions bash > ~/.local/share/bash-completion/completions/mpst`, \
`mpst completions zsh > ~/.zfunc/_mpst` (with `fpath+=~/.zfunc` before `compinit`), \
`mpst completions fish > ~/.config/fish/completions/mpst.fish`."
)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Writes the script for `args.shell` of the command line `cli` to stdout.
pub fn run(args: Args, cli: &mut clap::Command) -> Result<Outcome, UsageError> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, cli, "mpst", &mut script);
    crate::output::out(&String::from_utf8_lossy(&script))?;
    Ok(Outcome::Holds)
}
