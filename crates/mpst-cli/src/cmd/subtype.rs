//! `mpst subtype`: check that the FSMs of one DOT file are asynchronous subtypes of
//! those of another (PPoPP 2022 §3, then the witness trees of CONCUR 2019), pairing
//! several digraphs by role name: proved, refuted with a run that goes wrong, or
//! unknown.

use std::path::PathBuf;

use mpst_fsm::Fsm;
use mpst_fsm::subtype::{DEFAULT_MAX_STEPS, DEFAULT_VISITS, Options, Verdict, check_observed};

use crate::bounds::{parse_bound, parse_budget, parse_seconds};
use crate::load::dot::read_session_types;
use crate::trace::TraceFormat;
use crate::{Outcome, UsageError, output, progress};

/// Arguments of `mpst subtype`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each digraph is one role's FSM, named after the role. Subtyping compares \
one role with its supertype, in CFSM queues: a state receiving from several peers (generated as \
an `Offer`) may pass here and still fail at run time when a peer's message meant for later \
arrives first; that needs the whole system: code generation with optimised roles checks it \
itself, and `mpst kmc` checks DOT systems so with its offer flag. With one digraph \
in each file the two are compared whatever their names; otherwise every digraph of SUB is \
compared with the digraph of SUPER that has the same name. Each pair is proved, refuted (with a \
run of SUB beside the dual of SUPER that deadlocks, leaves a message unread or receives an \
unexpected one) or unknown. Exit status: 0 = every SUB FSM is proved a subtype of its SUPER FSM; \
1 = one is refuted, the run on stdout; 2 = bad usage, unreadable or malformed input, a role of \
SUB missing from SUPER, or a state that both sends and receives (not a session type: use `mpst \
kmc`); 3 = unknown: a bound, budget or --time-limit was reached, or the rules cannot decide (where and why on \
stdout)."
)]
pub struct Args {
    /// The candidate subtype (the optimised FSMs), in DOT.
    #[arg(value_name = "SUB.dot")]
    pub sub: PathBuf,
    /// The supertype (usually the projected FSMs), in DOT.
    #[arg(value_name = "SUPER.dot")]
    pub sup: PathBuf,
    /// How many times one pair of states may be visited on one search path (the
    /// recursion bound). Unrolling n messages ahead needs about n.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_VISITS, value_parser = parse_bound)]
    pub visits: usize,
    /// The budget of the proof search, in configurations visited: beyond it the
    /// answer is unknown (exit 3).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS, value_parser = parse_budget)]
    pub max_steps: u64,
    /// The wall-clock budget of each pair's proof searches, in seconds (0.001 to
    /// 86400): beyond it the answer is unknown (exit 3).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub time_limit: std::time::Duration,
    /// How a run that goes wrong is printed: numbered steps, or a Mermaid or SVG
    /// sequence chart on stdout (the report then goes to stderr).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = TraceFormat::Text)]
    pub trace_format: TraceFormat,
    /// `--format text|json`.
    #[command(flatten)]
    pub output: crate::json::FormatArg,
}

/// Pairs the FSMs: by position if each file has one, by role name otherwise.
fn pair<'a>(
    args: &Args,
    subs: &'a [Fsm],
    sups: &'a [Fsm],
) -> Result<Vec<(&'a Fsm, &'a Fsm)>, UsageError> {
    if let ([sub], [sup]) = (subs, sups) {
        return Ok(vec![(sub, sup)]);
    }
    subs.iter()
        .map(
            |sub| match sups.iter().find(|sup| sup.role() == sub.role()) {
                Some(sup) => Ok((sub, sup)),
                None => Err(UsageError::Plain(format!(
                    "role `{}` of {} has no digraph in {} (it has {})",
                    sub.role(),
                    args.sub.display(),
                    args.sup.display(),
                    sups.iter()
                        .map(|f| format!("`{}`", f.role()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            },
        )
        .collect()
}

/// Runs the command.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let subs = read_session_types(&args.sub)?;
    let sups = read_session_types(&args.sup)?;
    let pairs = pair(&args, &subs, &sups)?;
    let options = Options {
        max_steps: args.max_steps,
        time_limit: Some(args.time_limit),
        ..Options::new(args.visits)
    };
    let mut outcome = Outcome::Holds;
    for (sub, sup) in pairs {
        let name = if sub.role() == sup.role() {
            format!("`{}`", sub.role())
        } else {
            format!("`{}` against `{}`", sub.role(), sup.role())
        };
        let verdict = progress::run(&format!("subtyping of {name}"), |count| {
            check_observed(sub, sup, &options, &mut |n| {
                count.set(usize::try_from(n).unwrap_or(usize::MAX));
            })
        });
        outcome = outcome.combine(match verdict {
            Verdict::Subtype(_) => Outcome::Holds,
            Verdict::NotSubtype(_) => Outcome::Fails,
            Verdict::Unknown(_) => Outcome::Unknown,
        });
        crate::json::subtype(sub.role(), sup.role(), &verdict);
        let chart = match &verdict {
            Verdict::NotSubtype(refutation) => args.trace_format.chart(
                &[refutation.run.configuration.states[0].0.clone()],
                &refutation.run.trace,
                &refutation.run.kind.to_string(),
            ),
            _ => None,
        };
        match chart {
            Some(chart) => {
                output::err(&format!("{name}: {verdict}\n"));
                output::out(&chart)?;
            }
            None => output::out(&format!("{name}: {verdict}\n"))?,
        }
    }
    Ok(outcome)
}
