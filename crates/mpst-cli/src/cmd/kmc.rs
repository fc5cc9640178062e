//! `mpst kmc`: k-multiparty compatibility (Lange & Yoshida, CAV 2019) of a system of
//! communicating FSMs read from DOT files, with a counterexample when it fails.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use mpst_fsm::kmc::{check_kmc_observed, KmcOptions, KmcReport};

use crate::{dotfiles, progress, Outcome, UsageError};

/// The largest bound accepted (a larger one would not fit the exploration anyway).
const MAX_K: usize = 1 << 20;

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
            let s = s.trim();
            let k: usize = s.parse().map_err(|_| {
                format!("expected a bound k ≥ 1 or a range like 1..=4, found `{s}`")
            })?;
            if k == 0 {
                return Err("the bound k must be at least 1".into());
            }
            if k > MAX_K {
                return Err(format!("the bound k must be at most {MAX_K}"));
            }
            Ok(k)
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
    /// Give up beyond this many configurations.
    #[arg(long, value_name = "N", default_value_t = KmcOptions::new(1).max_configurations)]
    max_configurations: usize,
}

/// Runs the command: exit 0 if the system is k-MC (for the least k of the range),
/// 1 with the counterexample if not, 2 on unreadable input.
pub fn run(args: Args) -> Result<Outcome, UsageError> {
    let system = dotfiles::read_fsms(&args.files)?;
    if system.is_empty() {
        return Err(UsageError("the DOT files contain no digraph".into()));
    }
    let mut last: Option<KmcReport> = None;
    for k in args.k.low..=args.k.high {
        let options = KmcOptions {
            k,
            reduce: !args.no_reduction,
            max_configurations: args.max_configurations,
        };
        let report = progress::run(&format!("k-MC for k = {k}"), |count| {
            check_kmc_observed(&system, &options, &mut |n| count.set(n))
        })?;
        if report.is_kmc() {
            print_roles(&system);
            if args.k.low < args.k.high {
                println!("least k in {}: {k}", args.k);
            }
            println!("{report}");
            return Ok(Outcome::Holds);
        }
        last = Some(report);
    }
    print_roles(&system);
    if args.k.low < args.k.high {
        println!(
            "not k-MC for any k in {}; the check for k = {}:",
            args.k, args.k.high
        );
    }
    if let Some(report) = last {
        println!("{report}");
    }
    Ok(Outcome::Fails)
}

fn print_roles(system: &[mpst_fsm::Fsm]) {
    let roles: Vec<&str> = system.iter().map(|f| f.role()).collect();
    println!("roles: {}", roles.join(", "));
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
        assert!("3..=2".parse::<Bounds>().unwrap_err().contains("empty"));
        assert!("2..2".parse::<Bounds>().unwrap_err().contains("empty"));
        assert!("x".parse::<Bounds>().unwrap_err().contains("found `x`"));
        assert!("99999999"
            .parse::<Bounds>()
            .unwrap_err()
            .contains("at most"));
    }
}
