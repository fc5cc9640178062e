//! Writing to stdout and stderr without ever panicking, for every subcommand.
//!
//! `println!` and `eprintln!` panic when the stream is closed or full (`mpst generate
//! x.scr | true`, `mpst check x.scr >/dev/full`, `2>/dev/full`). [`guard`] runs a
//! subcommand so that such a failure, wherever it happens, ends the process with exit
//! status 2 instead of a panic (101): quietly for a closed pipe or a failing stderr,
//! with `error: cannot write ...` on stderr otherwise. Any other panic is left alone.
//! [`error`] writes to stderr and ignores failures.

use std::any::Any;
use std::io::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

/// The beginning of the message of the panics of `print!` and `eprint!`.
const PRINT_FAILURE: &str = "failed printing to std";

/// Runs `command`; a failure to print becomes exit status 2 (see the module docs).
pub fn guard(command: impl FnOnce() -> ExitCode) -> ExitCode {
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if print_failure(info.payload()).is_none() {
            default_hook(info);
        }
    }));
    match panic::catch_unwind(AssertUnwindSafe(command)) {
        Ok(code) => code,
        Err(payload) => match print_failure(payload.as_ref()) {
            Some(message) => {
                let quiet = message.starts_with("failed printing to stderr")
                    || message.contains("Broken pipe");
                if !quiet {
                    let reason = message.trim_start_matches("failed printing to ");
                    error(&format!("error: cannot write to {reason}\n"));
                }
                ExitCode::from(2)
            }
            None => panic::resume_unwind(payload),
        },
    }
}

/// The message of a panic of `print!` or `eprint!`.
fn print_failure(payload: &(dyn Any + Send)) -> Option<&str> {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    message.starts_with(PRINT_FAILURE).then_some(message)
}

/// Writes `text` to stderr; a failure is ignored (there is nowhere left to report it).
pub fn error(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
}
