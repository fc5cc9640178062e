//! Shared by the runtime benches: the entry point, which runs either criterion or, with
//! `--count VARIANT PARAMETER SESSIONS`, exactly that many sessions of one implementation
//! and nothing else — the mode `instructions.py` runs under `valgrind --tool=callgrind` to
//! count instructions per session (deterministic, unlike wall-clock time on a loaded
//! machine). See `BENCHMARKS.md`.

use criterion::Criterion;

/// Runs `sessions` sessions of the implementation `variant` with `parameter`, or says why
/// it cannot.
pub type Count = fn(variant: &str, parameter: u64, sessions: u64) -> Result<(), String>;

/// The `main` of a bench: criterion with its usual options, or the `--count` mode.
pub fn main(bench: fn(&mut Criterion), count: Count) {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--count") {
        let parse = |i: usize| args.get(at + i).and_then(|a| a.parse::<u64>().ok());
        let result = match (args.get(at + 1), parse(2), parse(3)) {
            (Some(variant), Some(parameter), Some(sessions)) => count(variant, parameter, sessions),
            _ => Err("usage: --count VARIANT PARAMETER SESSIONS".to_owned()),
        };
        if let Err(message) = result {
            eprintln!("{message}");
            std::process::exit(2);
        }
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}

/// The implementation called `name` among a bench's `variants`, or the error naming them
/// all.
pub fn variant<V: Copy>(variants: &[(&str, V)], name: &str) -> Result<V, String> {
    match variants.iter().find(|(known, _)| *known == name) {
        Some(&(_, variant)) => Ok(variant),
        None => {
            let known: Vec<&str> = variants.iter().map(|&(known, _)| known).collect();
            Err(unknown(name, &known))
        }
    }
}

/// The error for an implementation name the bench does not have.
pub fn unknown(variant: &str, known: &[&str]) -> String {
    format!(
        "unknown implementation {variant:?}; this bench has {}",
        known.join(", ")
    )
}
