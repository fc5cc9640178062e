//! The `mpst` command line: check and project Scribble protocols, check asynchronous
//! subtyping and k-multiparty compatibility of FSMs, generate Rust session APIs.
//!
//! Exit status: 0 = the property holds / success; 1 = it does not hold (refuted, with
//! the run that goes wrong) or the protocol is invalid; 2 = bad usage, unreadable /
//! malformed input, or an error writing stdout (a full disk: see [`output`]); 141 = stdout
//! was closed by its reader (`mpst ... | head`); 3 = unknown: a bound or budget was reached, or the rules cannot decide
//! (the reason and the place are printed).

use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand};

mod bounds;
mod cmd;
mod diagnostics;
mod json;
mod load;
mod output;
mod progress;
mod trace;

/// Multiparty session types: verification and code generation.
#[derive(Debug, Parser)]
#[command(
    name = "mpst",
    version,
    about,
    long_about = None,
    after_help = "Exit status: 0 = holds / proved / success; 1 = does not hold (refuted, with \
the run that goes wrong) or the protocol is invalid; 2 = bad usage, unreadable or malformed \
input, or stdout cannot be written; 3 = unknown (a bound or budget was reached, or the rules \
cannot decide); 141 = stdout was closed by its reader (`mpst ... | head`)."
)]
struct Cli {
    /// When to colour diagnostics: `auto` (when stderr is a terminal and `NO_COLOR` is
    /// not set), `always` or `never`.
    #[arg(long, global = true, value_name = "WHEN", default_value_t = clap::ColorChoice::Auto)]
    color: clap::ColorChoice,
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
    /// Print the global protocol as a sequence chart (SVG).
    Chart(cmd::chart::Args),
    /// Write a self-contained HTML report: charts, machines and verdicts of every protocol.
    Report(cmd::report::Args),
    /// Write a new crate for a protocol: a .scr, build.rs, processes and a verification test.
    New(cmd::new::Args),
    /// Print the FSMs of one of the paper's benchmark families as DOT.
    #[command(hide = true)]
    Gen(cmd::family::Args),
    /// Issue development identities: a CA and one certificate per role, for mutual TLS.
    Certs(cmd::certs::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(cmd::completions::Args),
}

impl Command {
    /// The `--format` of verdicts (only `check`, `subtype` and `kmc` have one).
    fn format(&self) -> json::Format {
        match self {
            Command::Check(args) => args.output.format,
            Command::Subtype(args) => args.output.format,
            Command::Kmc(args) => args.output.format,
            _ => json::Format::Text,
        }
    }

    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Command::Check(_) => "check",
            Command::Project(_) => "project",
            Command::Subtype(_) => "subtype",
            Command::Kmc(_) => "kmc",
            Command::Generate(_) => "generate",
            Command::Chart(_) => "chart",
            Command::Report(_) => "report",
            Command::Gen(_) => "gen",
            Command::Completions(_) => "completions",
            Command::Certs(_) => "certs",
            Command::New(_) => "new",
        }
    }
}

/// What a command concluded.
pub enum Outcome {
    /// Success, or the property holds: exit 0.
    Holds,
    /// The property does not hold or the protocol is invalid: exit 1.
    Fails,
    /// Neither shown nor refuted (a bound or budget was reached): exit 3.
    Unknown,
}

impl Outcome {
    /// The outcome of several checks: any failure fails, then any unknown is unknown.
    pub fn combine(self, other: Outcome) -> Outcome {
        match (self, other) {
            (Outcome::Fails, _) | (_, Outcome::Fails) => Outcome::Fails,
            (Outcome::Unknown, _) | (_, Outcome::Unknown) => Outcome::Unknown,
            _ => Outcome::Holds,
        }
    }
}

/// A failure to even run the command (bad input): exit 2.
#[derive(Debug)]
pub enum UsageError {
    /// What went wrong, in one line.
    Plain(String),
    /// What is wrong at a place in a file (bad text: invalid UTF-8, an empty file).
    At(mpst_diagnostics::Place, String),
    /// Located diagnostics, rendered with their sources (malformed DOT, a role twice,
    /// an optimised role refused).
    Report(mpst_diagnostics::Report),
}

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(e: E) -> Self {
        UsageError::Plain(e.to_string())
    }
}

impl UsageError {
    /// The presentation layer's reading error, its place kept.
    pub fn read(error: mpst_diagnostics::ReadError) -> Self {
        match error.place {
            Some(place) => UsageError::At(place, error.message),
            None => UsageError::Plain(error.message),
        }
    }

    /// The error as printed without colour, without the leading `error: `.
    pub fn text(&self) -> String {
        match self {
            UsageError::Plain(message) => message.clone(),
            UsageError::At(place, message) => format!("{place}: {message}"),
            UsageError::Report(report) => {
                let text = report.render(false);
                text.strip_prefix("error: ").unwrap_or(&text).to_string()
            }
        }
    }

    /// Prints the error to stderr (a report coloured as `--color` says) and adds it to
    /// the JSON document with its place.
    fn emit(&self) {
        match self {
            UsageError::Plain(message) => {
                output::err(&format!("error: {message}\n"));
                json::diagnostic("error", None, message, None, &[]);
            }
            UsageError::At(place, message) => {
                output::err(&format!("error: {place}: {message}\n"));
                json::diagnostic("error", None, message, Some(place.clone()), &[]);
            }
            UsageError::Report(report) => diagnostics::emit(report),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    diagnostics::set_color(cli.color);
    let name = cli.command.name();
    json::set_format(cli.command.format());
    let (code, error) = run(cli.command);
    // Stdout failed: that decides, whatever the command concluded.
    if let Some(code) = output::exit_code() {
        return ExitCode::from(code);
    }
    if let Some(error) = &error {
        error.emit();
    }
    if json::enabled() {
        let _ = output::document(&json::document(name, code));
        if let Some(code) = output::exit_code() {
            return ExitCode::from(code);
        }
    }
    ExitCode::from(code)
}

/// Runs a subcommand: its exit status, and the usage error (exit 2).
fn run(command: Command) -> (u8, Option<UsageError>) {
    let result = match command {
        Command::Check(args) => cmd::check::run(args),
        Command::Project(args) => cmd::project::run(args),
        Command::Subtype(args) => cmd::subtype::run(args),
        Command::Kmc(args) => cmd::kmc::run(args),
        Command::Generate(args) => cmd::generate::run(args),
        Command::Chart(args) => cmd::chart::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::New(args) => cmd::new::run(args),
        Command::Gen(args) => cmd::family::run(args),
        Command::Completions(args) => cmd::completions::run(args, &mut Cli::command()),
        Command::Certs(args) => cmd::certs::run(args),
    };
    match result {
        Ok(Outcome::Holds) => (0, None),
        Ok(Outcome::Fails) => (1, None),
        Ok(Outcome::Unknown) => (3, None),
        Err(error) => (2, Some(error)),
    }
}
