//! `mpst gen` (hidden): print the FSMs of one of the paper's benchmark families as DOT,
//! to feed `mpst subtype` and `mpst kmc` in benchmarks and scripts.

use mpst_fsm::families::Family;
use mpst_fsm::write_dot;

use crate::{Outcome, UsageError};

/// Which machines of the family instance to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Set {
    /// The optimised FSMs only (the subtypes).
    Optimised,
    /// The projected FSM of every role.
    Projected,
    /// Every role, optimised where the family optimises it (what k-MC checks).
    System,
}

/// Arguments of `mpst gen`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Families: stream (n unrolled values), nested-choice (n levels, at most \
8), ring (n roles, at least 2), k-buffering (n unrolled ready messages). Example: \
`mpst gen k-buffering 10 > sub.dot; mpst gen k-buffering 10 --set projected > super.dot; \
mpst subtype sub.dot super.dot`."
)]
pub struct Args {
    /// The family: stream, nested-choice, ring or k-buffering.
    pub family: String,
    /// The size.
    pub n: usize,
    /// Which FSMs to print.
    #[arg(long, value_enum, default_value_t = Set::Optimised)]
    pub set: Set,
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let family: Family = args.family.parse()?;
    let instance = family.instance(args.n)?;
    let fsms = match args.set {
        Set::Optimised => instance.optimised.clone(),
        Set::Projected => instance.projected.clone(),
        Set::System => instance.optimised_system(),
    };
    let text: String = fsms.iter().map(write_dot).collect();
    crate::output::out(&text)?;
    Ok(Outcome::Holds)
}
