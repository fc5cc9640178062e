//! The exit statuses of role programs, one table for the example role binaries of both
//! runtimes, so that systemd, a container orchestrator or a script can tell from the
//! status alone what happened (docs/DEPLOYMENT.md shows the table).
//!
//! | status | [`RoleExit`] | meaning |
//! |---|---|---|
//! | 0 | `Completed` | the session completed |
//! | 1 | `Internal` | the program itself failed (no async runtime, a task panicked, ...) |
//! | 2 | `Usage` | bad configuration or command line (unreadable identity files too) |
//! | 3 | `Unreachable` | could not connect: a peer not there within the connect time-out, refused, or failed to authenticate |
//! | 4 | `Lost` | a peer was lost (closed, reset) or fell silent beyond a time-out mid-session |
//! | 5 | `Protocol` | a protocol or application error: a message that does not decode, a broken frame, a key reused |

use std::fmt;

use crate::error::WireErrorKind;

/// What a role program's exit status says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RoleExit {
    /// 0: the session completed.
    Completed,
    /// 1: the program itself failed (no async runtime, a task panicked, ...).
    Internal,
    /// 2: bad configuration or command line, including identity files that cannot be read.
    Usage,
    /// 3: could not connect: a peer not there within the connect time-out, a refusal, a
    /// failed authentication.
    Unreachable,
    /// 4: a peer was lost (closed, reset) or fell silent beyond a time-out mid-session.
    Lost,
    /// 5: a protocol or application error.
    Protocol,
}

impl RoleExit {
    /// Every status, in the order of their codes.
    pub const ALL: [RoleExit; 6] = [
        RoleExit::Completed,
        RoleExit::Internal,
        RoleExit::Usage,
        RoleExit::Unreachable,
        RoleExit::Lost,
        RoleExit::Protocol,
    ];

    /// The process exit code.
    pub const fn code(self) -> u8 {
        match self {
            RoleExit::Completed => 0,
            RoleExit::Internal => 1,
            RoleExit::Usage => 2,
            RoleExit::Unreachable => 3,
            RoleExit::Lost => 4,
            RoleExit::Protocol => 5,
        }
    }

    /// The status of `code`, if it is one of the table's.
    pub fn from_code(code: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|s| i32::from(s.code()) == code)
    }

    /// What the status means, in a few words.
    pub const fn meaning(self) -> &'static str {
        match self {
            RoleExit::Completed => "the session completed",
            RoleExit::Internal => "the program itself failed",
            RoleExit::Usage => "bad configuration or usage",
            RoleExit::Unreachable => "could not connect (peer absent, refused or unauthenticated)",
            RoleExit::Lost => "a peer was lost or timed out mid-session",
            RoleExit::Protocol => "protocol or application error",
        }
    }

    /// The status for a failure of the network layer: configuration and identities are
    /// usage, connecting (refusals, TLS, deadlines) is unreachable, a connection that
    /// breaks or falls silent is lost, a malformed frame is a protocol error.
    pub fn of_wire(kind: &WireErrorKind) -> Self {
        match kind {
            WireErrorKind::Config(_) | WireErrorKind::Identity(_) => RoleExit::Usage,
            WireErrorKind::Tls(_)
            | WireErrorKind::Refused(_)
            | WireErrorKind::Refusing(_)
            | WireErrorKind::HandshakeTimeout(_)
            | WireErrorKind::NotConnected { .. } => RoleExit::Unreachable,
            WireErrorKind::Io(_)
            | WireErrorKind::ReceiveTimeout(_)
            | WireErrorKind::IdleTimeout(_)
            | WireErrorKind::Closed => RoleExit::Lost,
            WireErrorKind::Frame(_) => RoleExit::Protocol,
        }
    }
}

impl fmt::Display for RoleExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.code(), self.meaning())
    }
}

impl From<RoleExit> for std::process::ExitCode {
    fn from(status: RoleExit) -> Self {
        std::process::ExitCode::from(status.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_read_back() {
        for (i, status) in RoleExit::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(status.code()), i);
            assert_eq!(RoleExit::from_code(i32::from(status.code())), Some(status));
        }
        assert_eq!(RoleExit::from_code(101), None);
    }

    #[test]
    fn wire_failures_map_to_what_happened() {
        use std::time::Duration;
        let cases = [
            (WireErrorKind::Config("x".into()), RoleExit::Usage),
            (WireErrorKind::Identity("x".into()), RoleExit::Usage),
            (
                WireErrorKind::NotConnected {
                    address: "b:1".into(),
                    attempts: 3,
                    errors: Vec::new(),
                },
                RoleExit::Unreachable,
            ),
            (
                WireErrorKind::HandshakeTimeout(Duration::from_secs(1)),
                RoleExit::Unreachable,
            ),
            (
                WireErrorKind::ReceiveTimeout(Duration::from_secs(1)),
                RoleExit::Lost,
            ),
            (WireErrorKind::Closed, RoleExit::Lost),
        ];
        for (kind, want) in cases {
            assert_eq!(RoleExit::of_wire(&kind), want, "{kind}");
        }
    }
}
