//! `mpst generate`: the Rust session API of a Scribble protocol, with optimised roles
//! generated beside the projections (`KOptimised` beside `KSession`, one set of roles and
//! labels) once they are shown to be asynchronous subtypes of their projections.

use std::path::PathBuf;

use mpst_codegen::{GenerateError, Options, generate_optimised, prove_optimised_with};
use mpst_fsm::kmc::{KmcOptions, OFFER_MAX_CONFIGURATIONS, offer_options};
use mpst_scribble::Loaded;

use crate::bounds::parse_bound;
use crate::diagnostics::emit;
use crate::load::dot::OptimisedArgs;
use crate::load::scribble::load;
use crate::{Outcome, UsageError, output};

/// How the command line raises the subtyping bounds, in the note of an unknown answer.
const RAISE: &str = "with `--visits N` (`mpst subtype --visits N --max-steps M` tries larger \
                     budgets)";

/// Arguments of `mpst generate`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "An optimised FSM is used only when subtyping proves it against its projection \
and, when the system with it swapped in has a state receiving from several peers (an `Offer`, \
which takes the first message of any of them and fails on one it does not expect), k-MC under \
that semantics (k = 2) proves the whole system, within --offer-configurations.\n\n\
Exit status: 0 = code generated; 1 = the protocol is invalid, an optimised FSM \
is refuted (not a subtype of its projection, or an `Offer` can meet a message it does not take: \
the run that goes wrong on stderr), or the protocol \
has no Rust API; 2 = bad usage, unreadable or malformed input; 3 = an optimised FSM is neither \
proved nor refuted (a bound or budget was reached; where and why on stderr). Nothing is \
generated unless the exit status is 0."
)]
pub struct Args {
    /// The Scribble file.
    pub file: PathBuf,
    /// The protocol to generate (needed when the file has several).
    #[arg(long, short = 'p', value_name = "P")]
    pub protocol: Option<String>,
    /// `--optimised ROLE=FSM.dot` (repeatable) and `--visits N`.
    #[command(flatten)]
    pub optimised: OptimisedArgs,
    /// The budget of configurations of the `Offer` check of optimised roles (k-MC under
    /// the runtime's `Offer` semantics, run when a state of the system with them in place
    /// receives from several peers; the build helper's `.offer_configurations(N)`). A
    /// budget reached is "not proved" (exit 3), never a refutation.
    #[arg(long, value_name = "N", default_value_t = OFFER_MAX_CONFIGURATIONS, value_parser = parse_bound)]
    pub offer_configurations: usize,
    /// Derive serde's Serialize and Deserialize on the labels, so they can travel over
    /// `mpst::net` (the generated code then needs `serde` with feature `derive`).
    #[arg(long)]
    pub serde: bool,
    /// The route type between two roles (default `mpst::channel::Unbounded<Label>`);
    /// `mpst::net::AnyRoute<Label>` runs the roles in memory or over TCP.
    #[arg(long, value_name = "TYPE")]
    pub channel: Option<String>,
    /// Write the code to OUT.rs instead of stdout.
    #[arg(long, short = 'o', value_name = "OUT.rs")]
    pub output: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let loaded = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(outcome) => return outcome,
    };
    let protocol = loaded.select(args.protocol.as_deref())?;
    let machines = args.optimised.read()?;
    let optimised: Vec<_> = machines.iter().map(|m| m.machine.fsm.clone()).collect();
    let projections = match loaded.project(protocol) {
        Ok(projections) => projections,
        Err(error) => return loaded.report(&error),
    };
    let front = Loaded {
        protocol: protocol.clone(),
        projections,
    };
    let options = args.optimised.subtyping();
    let offers = KmcOptions {
        max_configurations: args.offer_configurations,
        ..offer_options()
    };
    if let Err(error) = prove_optimised_with(&front, &optimised, &options, &offers) {
        if let GenerateError::Frontend(error) = &error {
            return loaded.report(error);
        }
        // Located in the DOT file, as the build helper shows it.
        let Some(report) = error.located(&protocol.name.text, &machines, &options, RAISE) else {
            output::err(&format!("error: {error}\n"));
            return Ok(Outcome::Fails);
        };
        return match error {
            GenerateError::UnknownRole { .. } => Err(UsageError::Report(report)),
            GenerateError::Unknown { .. } | GenerateError::OfferUnproved { .. } => {
                emit(&report);
                Ok(Outcome::Unknown)
            }
            _ => {
                emit(&report);
                Ok(Outcome::Fails)
            }
        };
    }
    let fsms: Vec<_> = front.projections.iter().map(|p| p.fsm.clone()).collect();
    let mut options = Options::default().serde(args.serde);
    if let Some(channel) = &args.channel {
        options = options.channel(channel.clone());
    }
    let code = match generate_optimised(&protocol.name.text, &fsms, &optimised, &options) {
        Ok(code) => code,
        Err(error) => {
            output::err(&format!(
                "error: protocol `{}` has no Rust API: {error}\n",
                protocol.name.text
            ));
            return Ok(Outcome::Fails);
        }
    };
    output::out_or_file(args.output.as_deref(), &code)?;
    Ok(Outcome::Holds)
}
