//! The one way the CLI writes: [`out`] to stdout (or [`out_or_file`] to an `-o` file) and
//! [`err`] to stderr, each through a locked handle whose failures are `io::Error`s, never
//! panics (no `print!` anywhere).
//!
//! A failure to write stdout is returned as a [`UsageError`] and remembered here, so
//! that [`exit_code`] can turn the end of the command into its exit status:
//! - a closed pipe (`mpst generate x.scr | head -1`, `| true`): exit [`CLOSED_PIPE`]
//!   (141, what a shell reports for a process ended by `SIGPIPE`), quietly;
//! - any other error (`>/dev/full`): exit 2 with `error: cannot write to stdout: ...`.
//!
//! A failure to write stderr is ignored: there is nowhere left to report it, and the
//! exit status still says how the command ended.

use std::io::{self, Write};
use std::path::Path;
use std::sync::OnceLock;

use crate::UsageError;

/// The exit status after stdout was closed by its reader: 128 + `SIGPIPE` (13).
pub const CLOSED_PIPE: u8 = 141;

/// The first failure to write stdout, if any: its kind and its message.
static STDOUT_FAILURE: OnceLock<(io::ErrorKind, String)> = OnceLock::new();

/// Writes `text` to stdout and flushes it; with `--format json`, to stderr (stdout is
/// kept for the document, see [`crate::json`]).
///
/// # Errors
/// The write failed: the error says so, and [`exit_code`] then decides the exit status.
pub fn out(text: &str) -> Result<(), UsageError> {
    if crate::json::enabled() {
        err(text);
        return Ok(());
    }
    document(text)
}

/// Writes `text` to stdout and flushes it, whatever the format.
///
/// # Errors
/// As [`out`].
pub fn document(text: &str) -> Result<(), UsageError> {
    write_to(&mut io::stdout().lock(), text).map_err(|e| {
        let message = format!("cannot write to stdout: {e}");
        let _ = STDOUT_FAILURE.set((e.kind(), message.clone()));
        UsageError::Plain(message)
    })
}

/// Writes `text` to stdout, or to the file `path` when one is given (`-o`).
///
/// # Errors
/// As [`out`], or the file cannot be written (the message names it).
pub fn out_or_file(path: Option<&Path>, text: &str) -> Result<(), UsageError> {
    match path {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| UsageError::Plain(format!("cannot write {}: {e}", path.display()))),
        None => out(text),
    }
}

/// Writes `text` to stderr and flushes it; a failure is ignored (see the module docs).
pub fn err(text: &str) {
    let _ = write_to(&mut io::stderr().lock(), text);
}

/// `text` into `writer`, flushed.
fn write_to(writer: &mut impl Write, text: &str) -> io::Result<()> {
    writer.write_all(text.as_bytes())?;
    writer.flush()
}

/// The exit status of a command during which stdout could not be written (whatever
/// the command then concluded), the message already on stderr; `None` if stdout never
/// failed.
pub fn exit_code() -> Option<u8> {
    let (kind, message) = STDOUT_FAILURE.get()?;
    Some(failure_code(*kind, message))
}

/// The exit status for a failure of kind `kind` to write stdout, reporting `message`
/// on stderr unless the pipe was closed.
fn failure_code(kind: io::ErrorKind, message: &str) -> u8 {
    if kind == io::ErrorKind::BrokenPipe {
        CLOSED_PIPE
    } else {
        err(&format!("error: {message}\n"));
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails with a given kind of error.
    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn failures_are_errors_and_their_kind_decides_the_exit_status() {
        let e = write_to(&mut Failing(io::ErrorKind::BrokenPipe), "x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(failure_code(e.kind(), "closed"), CLOSED_PIPE);
        let e = write_to(&mut Failing(io::ErrorKind::StorageFull), "x").unwrap_err();
        assert_eq!(failure_code(e.kind(), "full"), 2);
        let mut buffer = Vec::new();
        write_to(&mut buffer, "text").unwrap();
        assert_eq!(buffer, b"text");
    }
}
