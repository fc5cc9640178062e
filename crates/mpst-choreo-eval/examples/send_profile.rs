//! The closed-loop concurrent-send profile as a small binary, for callgrind and perf:
//! `send_profile IMPLEMENTATION SESSIONS [THREADS]` (implementation `in_order`,
//! `out_of_order` or `actors`; threads 1 = a current-thread runtime, the default)
//! prints one JSON line. Instructions per session: the difference between two
//! callgrind runs at SESSIONS and 2 × SESSIONS, divided by SESSIONS.
//! `send_profile --open IMPLEMENTATION SECONDS` runs the open-loop benchmark instead
//! (50 requests/s, two worker threads) with zero costs and prints the `key` summary;
//! `send_profile --hops IMPLEMENTATION SECONDS` runs it with its seeded costs and the
//! hop trace (choreographies only) and prints the median of each hop of `key`;
//! `send_profile --late IMPLEMENTATION SECONDS` runs it with its seeded costs and the
//! timer-lateness trace (all three) and prints each lateness series;
//! `send_profile --bed SECONDS ROUNDS [IMPLEMENTATION..]` (root) runs the per-hop probe
//! (`impaired::probe`: no service costs, 0 ms links on a test bed, the implementations
//! taking turns, default out of order and actors) and prints one JSON line per run:
//! context switches, system calls and CPU time per session by thread group, and the
//! relay's chunks per session.
//! `send_profile --stages SECONDS ROUNDS [IMPLEMENTATION..]` (root, built with
//! `--features stages`) runs the same with every stage of the key's way timestamped
//! (`impaired::stages`) and prints a table of each step's median, the implementations
//! side by side, then one JSON line per implementation.

use std::process::ExitCode;
use std::time::Duration;

use mpst_choreo_eval::drive::{Implementation, Net};
use mpst_choreo_eval::load::Spec;
use mpst_choreo_eval::{profile, send};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bed") {
        return bed(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("--stages") {
        return stages(&args[1..]);
    }
    let mode = match args.first().map(String::as_str) {
        Some(m @ ("--open" | "--hops" | "--late")) => m.to_string(),
        _ => String::new(),
    };
    if !mode.is_empty() {
        args.remove(0);
    }
    let imp = match args.first().map(String::as_str) {
        Some("in_order") => Implementation::InOrder,
        Some("out_of_order") => Implementation::OutOfOrder,
        Some("actors") => Implementation::Actors,
        _ => return usage(),
    };
    if !mode.is_empty() {
        let Some(seconds) = args.get(1).and_then(|s| s.parse().ok()) else {
            return usage();
        };
        if mode == "--hops" {
            return hops(imp, seconds);
        }
        if mode == "--late" {
            let l = mpst_choreo_eval::lateness::trace(imp, &spec(seconds));
            return print(&l);
        }
        return open_loop(imp, seconds);
    }
    let Some(sessions) = args.get(1).and_then(|s| s.parse().ok()) else {
        return usage();
    };
    let threads = match args.get(2).map(|s| s.parse()) {
        None => 1,
        Some(Ok(t)) => t,
        Some(Err(_)) => return usage(),
    };
    let p = profile::concurrent_send(imp, sessions, threads, Duration::from_secs(10));
    match serde_json::to_string(&p) {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("cannot print the profile: {e}");
            return ExitCode::FAILURE;
        }
    }
    if p.unanswered > 0 {
        eprintln!("{} sessions unanswered", p.unanswered);
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn spec(seconds: f64) -> Spec {
    Spec {
        rate: 50.0,
        duration: seconds,
        warmup: (seconds * 0.2).min(1.0),
        drain: 2.0,
        seed: 2024,
        net: Net::Memory,
        threads: 2,
    }
}

fn hops(imp: Implementation, seconds: f64) -> ExitCode {
    if imp == Implementation::Actors {
        eprintln!("the hop trace observes choreography endpoints: in_order or out_of_order");
        return ExitCode::from(2);
    }
    print(&mpst_choreo_eval::hops::trace(imp, &spec(seconds)))
}

/// Prints `trace` as one JSON line.
fn print(trace: &impl serde::Serialize) -> ExitCode {
    match serde_json::to_string(trace) {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("cannot print the trace: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn open_loop(imp: Implementation, seconds: f64) -> ExitCode {
    let spec = spec(seconds);
    let costs = send::Costs::zero(spec.requests());
    let (key, _, failures) = send::run_with_costs(imp, &spec, costs);
    println!(
        "{{\"implementation\":\"{}\",\"key_median_ms\":{},\"key_p99_ms\":{},\"answered\":{},\"failures\":{failures}}}",
        imp.name(),
        key.median_ms,
        key.p99_ms,
        key.answered
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn parse_imp(name: &str) -> Option<Implementation> {
    Implementation::ALL.into_iter().find(|i| i.name() == name)
}

/// `SECONDS ROUNDS [IMPLEMENTATION..]` (default out of order and actors).
fn bed_args(args: &[String]) -> Option<(f64, usize, Vec<Implementation>)> {
    let seconds = args.first()?.parse().ok()?;
    let rounds = args.get(1)?.parse().ok()?;
    let mut imps: Vec<Implementation> = Vec::new();
    for name in &args[2..] {
        imps.push(parse_imp(name)?);
    }
    if imps.is_empty() {
        imps = vec![Implementation::OutOfOrder, Implementation::Actors];
    }
    Some((seconds, rounds, imps))
}

#[cfg(not(feature = "stages"))]
fn stages(_: &[String]) -> ExitCode {
    eprintln!(
        "send_profile --stages needs the feature: cargo build --release -p mpst-choreo-eval --examples --features stages"
    );
    ExitCode::from(2)
}

#[cfg(feature = "stages")]
fn stages(args: &[String]) -> ExitCode {
    use mpst_choreo_eval::impaired::stages;
    let Some((seconds, rounds, imps)) = bed_args(args) else {
        return usage();
    };
    let tables = match stages::run(&imps, seconds, rounds, 2024) {
        Ok(tables) => tables,
        Err(e) => {
            eprintln!("the test bed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let names: Vec<&str> = tables.iter().map(|t| t.implementation).collect();
    println!("| step (median, µs) | {} |", names.join(" | "));
    println!("|---|{}", "---:|".repeat(tables.len()));
    for (n, step) in stages::STEPS.iter().enumerate() {
        let cells: Vec<String> = tables
            .iter()
            .map(|t| t.steps_us.get(n).map_or("-".into(), |v| format!("{v:.1}")))
            .collect();
        println!("| {step} | {} |", cells.join(" | "));
    }
    let totals: Vec<String> = tables
        .iter()
        .map(|t| format!("{:.1}", t.total_us))
        .collect();
    println!("| due -> receive (whole way) | {} |", totals.join(" | "));
    let first: Vec<String> = tables
        .iter()
        .map(|t| format!("{} of {}", t.text_first, t.sessions))
        .collect();
    println!(
        "| sessions whose text reached c first | {} |",
        first.join(" | ")
    );
    for table in &tables {
        if print(table) != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn bed(args: &[String]) -> ExitCode {
    let Some((seconds, rounds, imps)) = bed_args(args) else {
        return usage();
    };
    match mpst_choreo_eval::impaired::probe::run(&imps, seconds, 50.0, rounds, 2024) {
        Ok(runs) => {
            for run in &runs {
                if print(run) != ExitCode::SUCCESS {
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("the test bed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: send_profile in_order|out_of_order|actors SESSIONS [THREADS]\n       send_profile --open in_order|out_of_order|actors SECONDS\n       send_profile --hops in_order|out_of_order SECONDS\n       send_profile --late in_order|out_of_order|actors SECONDS\n       send_profile --bed SECONDS ROUNDS [in_order|out_of_order|actors..]\n       send_profile --stages SECONDS ROUNDS [in_order|out_of_order|actors..]"
    );
    ExitCode::from(2)
}
