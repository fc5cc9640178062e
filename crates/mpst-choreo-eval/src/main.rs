//! `cargo run --release -p mpst-choreo-eval [-- --quick] [--out DIR] [--seed N] [--threads N]`
//! runs the evaluation and writes `DIR/EVALUATION.md`, `DIR/results.json` and SVG plots
//! (`DIR` defaults to `evaluation`, relative to the workspace root). `-- --render` runs
//! nothing: it rewrites the report and plots of `DIR` from its `results.json` (e.g. after
//! a profile in `DIR/profile/` was remade). `-- --impaired` (root) runs only the
//! impaired-links evaluation (every role on its own host) and merges `impaired_links`
//! into `DIR/results.json`, then re-renders the report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use mpst_choreo_eval::experiments::{self, Plan};
use mpst_choreo_eval::report::{self, Machine};

fn main() -> ExitCode {
    let mut quick = false;
    let mut render = false;
    let mut impaired = false;
    let mut threads: Option<usize> = None;
    let mut seed = 2024u64;
    let mut out = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../evaluation"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--render" => render = true,
            "--impaired" => impaired = true,
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
    if render {
        return rerender(&out);
    }
    if impaired {
        return run_impaired(&out, seed);
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

/// Rewrites `dir`'s report from its `results.json` (the run's own numbers and machine).
fn rerender(dir: &std::path::Path) -> ExitCode {
    let path = dir.join("results.json");
    let read = std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            let mut json: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let run = json
                .as_object_mut()
                .and_then(|m| m.remove("run"))
                .ok_or("no \"run\" in it")?;
            let run: report::Run = serde_json::from_value(run).map_err(|e| e.to_string())?;
            let results: experiments::Results =
                serde_json::from_value(json).map_err(|e| e.to_string())?;
            Ok((results, run))
        });
    match read {
        Ok((results, run)) => match report::write(dir, &results, &run) {
            Ok(()) => {
                eprintln!("rewrote {} from {}", dir.display(), path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error writing {}: {e}", dir.display());
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// `--impaired`: the runs on beds, merged into `dir/results.json`, then the report
/// re-rendered when the file has the other results.
fn run_impaired(dir: &std::path::Path, seed: u64) -> ExitCode {
    use mpst_choreo_eval::impaired::{self, cli};
    let seed_flag = if seed == 2024 {
        String::new()
    } else {
        format!(" --seed {seed}")
    };
    let command = format!("cargo run --release -p mpst-choreo-eval -- --impaired{seed_flag}");
    match cli::run(dir, &impaired::Plan::full(seed), &command) {
        Ok(()) if report::has_run(dir) => rerender(dir),
        Ok(()) => {
            eprintln!(
                "merged impaired_links into {0}/results.json; run the full evaluation to write {0}/EVALUATION.md",
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: mpst-choreo-eval [--quick] [--seed N] [--threads N] [--out DIR] [--render | --impaired]"
    );
    ExitCode::from(2)
}
