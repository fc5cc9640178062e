//! `mpst kmc`: k-multiparty compatibility (Lange & Yoshida, CAV 2019) of a system of
//! communicating FSMs (deterministic or not) read from DOT files, with a counterexample
//! when it fails, and a budget shared by every bound of a range.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use mpst_fsm::kmc::{KmcError, KmcOptions, KmcReport, check_kmc_observed, check_kmc_offer};

use crate::bounds::{parse_bound, parse_budget, parse_seconds};

/// The default budget of one `mpst kmc` run, over every k of the range: a few seconds
/// and at most about 50 MB for small systems, whatever the range.
const DEFAULT_MAX_CONFIGURATIONS: usize = 1_000_000;
use crate::load::dot;
use crate::trace::TraceFormat;
use crate::{Outcome, UsageError, output, progress};

/// A bound `k`, or an inclusive range of bounds to search for the least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The first bound tried.
    low: usize,
    /// The last bound tried.
    high: usize,
}

impl FromStr for Bounds {
    type Err = String;

    /// `N`, `A..=B`, `A..B` (B excluded) or `..=B` (from 1).
    fn from_str(text: &str) -> Result<Self, String> {
        let number = |s: &str| -> Result<usize, String> {
            parse_bound(s).map_err(|e| format!("{e} (k is a bound or a range like 1..=4)"))
        };
        let (low, high) = if let Some((a, b)) = text.split_once("..=") {
            (if a.trim().is_empty() { 1 } else { number(a)? }, number(b)?)
        } else if let Some((a, b)) = text.split_once("..") {
            let low = if a.trim().is_empty() { 1 } else { number(a)? };
            let end = number(b)?;
            if end <= low {
                return Err(format!("the range `{text}` is empty"));
            }
            (low, end - 1)
        } else {
            let k = number(text)?;
            (k, k)
        };
        if low > high {
            return Err(format!("the range `{text}` is empty"));
        }
        Ok(Bounds { low, high })
    }
}

impl fmt::Display for Bounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.low == self.high {
            write!(f, "{}", self.low)
        } else {
            write!(f, "{}..={}", self.low, self.high)
        }
    }
}

/// Arguments of `mpst kmc`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Machines may be non-deterministic. The semantics is that of CFSMs: a state \
receiving from several peers takes a message it has a transition for and leaves the others \
queued. With --offer it is the runtime's `Offer` (what `mpst generate` emits for such a state): \
it takes the first message of any of those peers and fails (`UnexpectedLabel`) on one it has no \
transition for, which is reported as an unspecified reception with its run; use it on the \
machines you generate code from (code generation with optimised roles checks this itself). \
Exit status: 0 = the system is k-MC (for the \
least k of the range); 1 = it is not k-MC for any k of the range, the counterexample on stdout; \
2 = bad usage, unreadable or malformed input; 3 = gave up: the configuration budget \
(--max-configurations, shared by the whole range, which also bounds memory) or the time limit \
(--time-limit, over the range) ran out first."
)]
pub struct Args {
    /// DOT files: one per role, or one with a digraph per role (roles are named by
    /// the digraph names).
    #[arg(required = true, value_name = "ROLE.dot")]
    files: Vec<PathBuf>,
    /// The bound on every queue, or a range `A..=B` to find the least k in it for
    /// which the system is k-MC.
    #[arg(long, short, value_name = "K|A..=B", default_value = "1..=4")]
    k: Bounds,
    /// Explore every interleaving (no partial-order reduction); for comparison.
    #[arg(long)]
    no_reduction: bool,
    /// Check the system as the generated code runs it: a state receiving from several
    /// peers (an `Offer`) fails on a message at the head of one of their queues that it
    /// does not take, where a CFSM would wait for another peer's.
    #[arg(long)]
    offer: bool,
    /// Give up (exit 3) beyond this many configurations in all, over every k of the
    /// range; memory is bounded in proportion.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONFIGURATIONS,
          value_parser = parse_bound)]
    max_configurations: usize,
    /// Give up (exit 3) when this many seconds (0.001 to 86400) have passed over the
    /// range: checked before each bound of the range (one bound's check is bounded by
    /// --max-configurations).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    time_limit: std::time::Duration,
    /// How a counterexample's execution is printed: numbered steps, or a Mermaid or
    /// SVG sequence chart on stdout (the report then goes to stderr).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = TraceFormat::Text)]
    trace_format: TraceFormat,
    /// Refuse an input file longer than this many bytes (default 16 MiB); raise it for
    /// large generated systems (`mpst gen nested-choice 8` writes about 40 MB).
    #[arg(long, value_name = "BYTES", default_value_t = crate::load::MAX_INPUT_BYTES,
          value_parser = parse_budget)]
    max_input_size: u64,
    /// `--format text|json`.
    #[command(flatten)]
    pub output: crate::json::FormatArg,
}

/// Runs the command: exit 0 if the system is k-MC (for the least k of the range),
/// 1 with the counterexample if not, 2 on unreadable input, 3 when the budget runs out.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let system = dot::read_nondeterministic_fsms(&args.files, args.max_input_size)?;
    let outcome = check(&args, &system);
    // The process ends with the answer: freeing hundreds of thousands of states one by
    // one (5% of checking nested choice 8) would only delay it.
    std::mem::forget(system);
    outcome
}

/// Checks `system` for every bound of the range and prints the answer.
fn check(args: &Args, system: &[mpst_fsm::Fsm]) -> Result<Outcome, UsageError> {
    if system.is_empty() {
        return Err(UsageError::Plain("the DOT files contain no digraph".into()));
    }
    let mut last: Option<KmcReport> = None;
    let mut left = args.max_configurations;
    let started = std::time::Instant::now();
    for k in args.k.low..=args.k.high {
        if k > args.k.low && started.elapsed() >= args.time_limit {
            let reason = format!(
                "unknown: gave up before k = {k}: the time limit of {:?} (over k in {}) \
                 ran out (raise --time-limit)",
                args.time_limit, args.k
            );
            return give_up(args, system, k, &reason, reason.clone(), last.as_ref());
        }
        let options = KmcOptions {
            k,
            reduce: !args.no_reduction,
            max_configurations: left,
        };
        let checked = progress::run(&format!("k-MC for k = {k}"), |count| {
            if args.offer {
                check_kmc_offer(system, &options)
            } else {
                check_kmc_observed(system, &options, &mut |n| count.set(n))
            }
        });
        let report = match checked {
            Ok(report) => report,
            Err(KmcError::TooManyConfigurations { limit }) => {
                let reason = format!(
                    "the budget of {} ran out",
                    mpst_fsm::format::count(limit, "configuration")
                );
                let text = format!(
                    "unknown: gave up at k = {k}: the budget of {} (over k in {}) ran out \
                     (raise --max-configurations)",
                    mpst_fsm::format::count(args.max_configurations, "configuration"),
                    args.k
                );
                return give_up(args, system, k, &reason, text, last.as_ref());
            }
            Err(e) => return Err(e.into()),
        };
        crate::json::kmc(&report);
        left = left.saturating_sub(report.configurations).max(1);
        if report.is_kmc() {
            let mut text = format!("roles: {}\n", roles(system));
            if args.k.low < args.k.high {
                text.push_str(&format!("least k in {}: {k}\n", args.k));
            }
            output::out(&format!("{text}{report}\n"))?;
            return Ok(Outcome::Holds);
        }
        last = Some(report);
    }
    say(args, format!("roles: {}", roles(system)))?;
    if args.k.low < args.k.high {
        say(
            args,
            format!(
                "not k-MC for any k in {}; the check for k = {}:",
                args.k, args.k.high
            ),
        )?;
    }
    if let Some(report) = last {
        print_report(args, &report)?;
    }
    Ok(Outcome::Fails)
}

/// A budget ran out at bound `k`: records `reason` for JSON, prints the roles, `text`
/// and the counterexample of the last bound checked (if any), and answers unknown.
fn give_up(
    args: &Args,
    system: &[mpst_fsm::Fsm],
    k: usize,
    reason: &str,
    text: String,
    last: Option<&KmcReport>,
) -> Result<Outcome, UsageError> {
    crate::json::kmc_gave_up(k, reason);
    say(args, format!("roles: {}", roles(system)))?;
    say(args, text)?;
    if let Some(report) = last {
        say(
            args,
            format!("not k-MC for any k in {}..={}:", args.k.low, k - 1),
        )?;
        print_report(args, report)?;
    }
    Ok(Outcome::Unknown)
}

/// The report, with the counterexample as a chart on stdout if asked (the report then
/// goes to stderr).
fn print_report(args: &Args, report: &KmcReport) -> Result<(), UsageError> {
    let chart = report.violation.as_ref().and_then(|v| {
        let roles: Vec<String> = v
            .configuration
            .states
            .iter()
            .map(|(r, _)| r.clone())
            .collect();
        args.trace_format
            .chart(&roles, &v.trace, &v.kind.to_string())
    });
    match chart {
        Some(chart) => {
            output::err(&format!("{report}\n"));
            output::out(&chart)
        }
        None => output::out(&format!("{report}\n")),
    }
}

/// Prints a line of the report: on stdout, or on stderr when stdout holds a chart.
fn say(args: &Args, line: String) -> Result<(), UsageError> {
    match args.trace_format {
        TraceFormat::Text => output::out(&format!("{line}\n")),
        _ => {
            output::err(&format!("{line}\n"));
            Ok(())
        }
    }
}

fn roles(system: &[mpst_fsm::Fsm]) -> String {
    let roles: Vec<&str> = system.iter().map(|f| f.role()).collect();
    roles.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_parse_single_values_and_ranges() {
        assert_eq!("3".parse(), Ok(Bounds { low: 3, high: 3 }));
        assert_eq!("1..=4".parse(), Ok(Bounds { low: 1, high: 4 }));
        assert_eq!("2..5".parse(), Ok(Bounds { low: 2, high: 4 }));
        assert_eq!("..=2".parse(), Ok(Bounds { low: 1, high: 2 }));
        assert_eq!(Bounds { low: 1, high: 4 }.to_string(), "1..=4");
        assert!("0".parse::<Bounds>().unwrap_err().contains("at least 1"));
        assert!(
            "1..=0"
                .parse::<Bounds>()
                .unwrap_err()
                .contains("at least 1")
        );
        assert!(
            u64::MAX
                .to_string()
                .parse::<Bounds>()
                .unwrap_err()
                .contains("at most")
        );
        assert!("3..=2".parse::<Bounds>().unwrap_err().contains("empty"));
        assert!("2..2".parse::<Bounds>().unwrap_err().contains("empty"));
        assert!("x".parse::<Bounds>().unwrap_err().contains("found `x`"));
        assert!(
            "99999999999"
                .parse::<Bounds>()
                .unwrap_err()
                .contains("at most")
        );
    }
}
