//! `cargo run --release -p mpst-choreo-eval [-- --quick] [--out DIR] [--seed N] [--threads N]`
//! runs the evaluation and writes `DIR/EVALUATION.md`, `DIR/results.json` and SVG plots
//! (`DIR` defaults to `evaluation`, relative to the workspace root).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mpst_choreo_eval::experiments::{self, Plan};
use mpst_choreo_eval::report::{self, Machine};

fn main() -> ExitCode {
    let mut quick = false;
    let mut threads: Option<usize> = None;
    let mut seed = 2024u64;
    let mut out = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../evaluation"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => seed = v,
                None => return usage(),
            },
            "--threads" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => threads = Some(v),
                None => return usage(),
            },
            "--out" => match args.next() {
                Some(v) => out = PathBuf::from(v),
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    let plan = if quick {
        Plan::quick(seed)
    } else {
        Plan::full(seed)
    };
    let mut flags = String::new();
    if quick {
        flags.push_str(" --quick");
    }
    if seed != 2024 {
        flags.push_str(&format!(" --seed {seed}"));
    }
    if let Some(t) = threads {
        flags.push_str(&format!(" --threads {t}"));
    }
    let dashes = if flags.is_empty() { "" } else { " --" };
    let command = format!("cargo run --release -p mpst-choreo-eval{dashes}{flags}");
    let before = Machine::now();
    let started = Instant::now();
    let results = experiments::run(&plan);
    let after = Machine::now();
    let run = report::Run {
        command,
        wall_seconds: started.elapsed().as_secs_f64(),
        load_before: before.load_average,
        machine: after,
    };
    match report::write(&out, &results, &run) {
        Ok(()) => {
            eprintln!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error writing {}: {e}", out.display());
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: mpst-choreo-eval [--quick] [--seed N] [--threads N] [--out DIR]");
    ExitCode::from(2)
}
