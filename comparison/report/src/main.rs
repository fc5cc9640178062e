//! `cargo run --release -p report`: runs the comparison benchmarks (`cargo bench -p
//! comparison`), reads criterion's results and writes `REPORT.md` and `plots/*.svg` at the
//! root of the comparison workspace.
//!
//! Options: `--no-bench` reads existing results without running the benchmarks;
//! `--bench-args ARGS` passes extra arguments to the benchmark binaries (e.g. a filter).

#![warn(missing_docs)]

mod analysis;
mod catalogue;
mod machine;
mod markdown;
mod plot;
mod results;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// Command-line options.
#[derive(Debug)]
struct Options {
    bench: bool,
    bench_args: Vec<String>,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        bench: true,
        bench_args: Vec::new(),
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--no-bench" => options.bench = false,
            "--bench-args" => {
                let value = args.next().ok_or("--bench-args needs a value")?;
                options
                    .bench_args
                    .extend(value.split_whitespace().map(str::to_owned));
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

const USAGE: &str = "usage: cargo run --release -p report [-- --no-bench] [--bench-args ARGS]";

/// The comparison workspace's root (this crate's parent).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned)
}

fn run_benchmarks(root: &Path, extra: &[String]) -> Result<f64, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["bench", "-p", "comparison"]);
    if !extra.is_empty() {
        command.arg("--").args(extra);
    }
    eprintln!("report: running {command:?} in {}", root.display());
    let start = Instant::now();
    let status = command
        .status()
        .map_err(|e| format!("could not start cargo bench: {e}"))?;
    if !status.success() {
        return Err(format!("cargo bench failed ({status})"));
    }
    Ok(start.elapsed().as_secs_f64())
}

fn generate(options: &Options) -> Result<PathBuf, String> {
    let root = workspace();
    let load_before = machine::load();
    let bench_seconds = if options.bench {
        Some(run_benchmarks(&root, &options.bench_args)?)
    } else {
        None
    };
    let load_after = machine::load();
    let criterion = root.join("target").join("criterion");
    let all = results::read_all(&criterion).map_err(|e| e.to_string())?;
    if all.is_empty() {
        return Err(format!(
            "no results under {}; run without --no-bench",
            criterion.display()
        ));
    }
    let plots_dir = root.join("plots");
    std::fs::create_dir_all(&plots_dir).map_err(|e| format!("{}: {e}", plots_dir.display()))?;
    let mut plots = Vec::new();
    for protocol in &catalogue::PROTOCOLS {
        let data = analysis::Protocol::new(&all, protocol.id);
        if data.measurements.is_empty() {
            continue;
        }
        for runtime in ["multi-thread", "current-thread"] {
            let file = format!("{}-{runtime}.svg", protocol.id);
            plot::draw(
                &plots_dir.join(&file),
                protocol.title,
                protocol.n,
                &data,
                runtime,
            )?;
            plots.push((file, runtime.to_owned()));
        }
    }
    let mut command = String::from("cargo run --release -p report");
    if !options.bench {
        command.push_str(" -- --no-bench");
    }
    let run = markdown::Run {
        command,
        date: machine::now(),
        load: (load_before, load_after),
        bench_seconds,
    };
    let mut report = markdown::render(&all, &machine::Machine::read(), &run, &plots);
    report.push_str(&sections(&root)?);
    let path = root.join("REPORT.md");
    std::fs::write(&path, report).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The hand-written sections of the report (`report/sections/*.md`, in name order):
/// measurements this binary does not take itself (callgrind instruction counts, the
/// choreography comparison), kept when the report is regenerated.
fn sections(root: &Path) -> Result<String, String> {
    let dir = root.join("report").join("sections");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(String::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.sort();
    let mut out = String::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        out.push('\n');
        out.push_str(&text);
    }
    Ok(out)
}

fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("report: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match generate(&options) {
        Ok(path) => {
            eprintln!("report: wrote {}", path.display());
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("report: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> impl Iterator<Item = String> + use<> {
        list.iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into_iter()
    }

    #[test]
    fn parses_options_and_rejects_unknown_ones() {
        let options = parse(args(&["--no-bench", "--bench-args", "stream --quick"])).unwrap();
        assert!(!options.bench);
        assert_eq!(options.bench_args, ["stream", "--quick"]);
        assert!(parse(args(&["--bogus"])).unwrap_err().contains("--bogus"));
        assert!(parse(args(&["--bench-args"])).is_err());
    }
}
