//! The `mpst` command line: check and project Scribble protocols, check asynchronous
//! subtyping and k-multiparty compatibility of FSMs, generate Rust session APIs.
//!
//! Exit status: 0 = the property holds / success; 1 = it does not hold or the protocol
//! is invalid (the reason is printed); 2 = bad usage or unreadable / malformed input,
//! or output that cannot be written (a full disk, a closed pipe: see [`output`]).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod diagnostics;
mod dotfiles;
mod input;
mod output;

/// Multiparty session types: verification and code generation.
#[derive(Debug, Parser)]
#[command(name = "mpst", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate every protocol of a Scribble file and project every role.
    Check(cmd::check::Args),
    /// Print the communicating FSM of one role of a protocol.
    Project(cmd::project::Args),
    /// Check that SUB is an asynchronous subtype of SUPER (FSMs in DOT).
    Subtype(cmd::subtype::Args),
    /// Check k-multiparty compatibility of a system of FSMs (one DOT file per role).
    Kmc(cmd::kmc::Args),
    /// Generate the Rust session API of a protocol.
    Generate(cmd::generate::Args),
    /// Print the FSMs of one of the paper's benchmark families as DOT.
    #[command(hide = true)]
    Gen(cmd::gen::Args),
}

/// What a command concluded.
pub enum Outcome {
    /// Success, or the property holds: exit 0.
    Holds,
    /// The property does not hold or the protocol is invalid: exit 1.
    Fails,
}

/// A failure to even run the command (bad input): exit 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(e: E) -> Self {
        UsageError(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    output::guard(|| run(cli.command))
}

/// Runs a subcommand and turns its result into the exit status.
fn run(command: Command) -> ExitCode {
    let result = match command {
        Command::Check(args) => cmd::check::run(args),
        Command::Project(args) => cmd::project::run(args),
        Command::Subtype(args) => cmd::subtype::run(args),
        Command::Kmc(args) => cmd::kmc::run(args),
        Command::Generate(args) => cmd::generate::run(args),
        Command::Gen(args) => cmd::gen::run(args),
    };
    match result {
        Ok(Outcome::Holds) => ExitCode::SUCCESS,
        Ok(Outcome::Fails) => ExitCode::from(1),
        Err(UsageError(message)) => {
            output::error(&format!("error: {message}\n"));
            ExitCode::from(2)
        }
    }
}
