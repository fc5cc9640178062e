//! `cargo run -p mpst-examples --bin expressiveness [-- --check | --stdout]`: computes the
//! expressiveness table from the examples (see `mpst_examples::expressiveness`) and writes
//! it to `docs/EXPRESSIVENESS.md`; `--check` only says whether the committed file is up to
//! date (exit 1 if not), `--stdout` prints the table instead.

use std::path::Path;
use std::process::ExitCode;

use mpst_examples::expressiveness::{render, rows};

fn main() -> ExitCode {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = examples.join("../docs/EXPRESSIVENESS.md");
    let mode = std::env::args().nth(1);
    let table = match rows(examples) {
        Ok(rows) => render(&rows),
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match mode.as_deref() {
        None => match std::fs::write(&target, &table) {
            Ok(()) => {
                println!("wrote {}", target.display());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {}: {error}", target.display());
                ExitCode::from(2)
            }
        },
        Some("--stdout") => {
            print!("{table}");
            ExitCode::SUCCESS
        }
        Some("--check") => match std::fs::read_to_string(&target) {
            Ok(committed) if committed == table => ExitCode::SUCCESS,
            Ok(_) => {
                eprintln!("{} is stale: run it without --check", target.display());
                ExitCode::FAILURE
            }
            Err(error) => {
                eprintln!("error: {}: {error}", target.display());
                ExitCode::from(2)
            }
        },
        Some(other) => {
            eprintln!("error: unknown argument `{other}`; use --check, --stdout or nothing");
            ExitCode::from(2)
        }
    }
}
