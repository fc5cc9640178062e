//! The test bed's one error type: what failed, with the command or file it concerned.

use std::time::Duration;

/// Everything that can go wrong while building or running a test bed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// This machine cannot host a test bed (not root, no `ip`, no network
    /// namespaces). Tests skip on it, or fail when `CI` is set.
    #[error("network namespaces are unavailable: {0}")]
    Unavailable(String),
    /// The test bed's description is wrong (an unknown or repeated host, a bad name).
    #[error("test bed configuration: {0}")]
    Config(String),
    /// An `ip` command exited with a failure.
    #[error("`{command}` failed ({status}): {stderr}")]
    Command {
        /// The command line.
        command: String,
        /// How it exited.
        status: std::process::ExitStatus,
        /// What it wrote on stderr.
        stderr: String,
    },
    /// An I/O operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A process did not finish within its time-out (it has been killed).
    #[error("{what} did not finish within {after:?} (killed)")]
    TimedOut {
        /// Which process.
        what: String,
        /// The time-out.
        after: Duration,
    },
}

impl Error {
    /// An [`Error::Io`] saying what was being done.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

/// The test bed's result type.
pub type Result<T> = std::result::Result<T, Error>;
