//! Running each role of a protocol as its own OS process over TCP, as an operator would:
//! the role programs' shared side ([`role_sources`], [`init_logging`], [`RoleError`],
//! [`finish`]) and a [`Launch`]er that tries them out on one machine.
//!
//! A role program takes its whole configuration from one TOML file (`--config FILE` or
//! `MPST_CONFIG=FILE`) and `MPST_*` environment variables over it (`MPST_ROLE`,
//! `MPST_LISTEN`, `MPST_PEER_<ROLE>`, `MPST_CA`/`MPST_CERT`/`MPST_KEY`, time-outs: see
//! `mpst_wire::env` and docs/DEPLOYMENT.md), logs with `tracing` to standard error
//! (`RUST_LOG` filters), prints `LISTENING <address>` once it listens ([`connect`]; port
//! 0 in the configuration: the port the system chose), `CONNECTED` once its connections
//! are up and `OK <result>` or `ERR <error>` on standard output, and exits with a status
//! of `mpst_wire::RoleExit`'s table (0 completed, 2 bad configuration, 3 could not
//! connect, 4 a peer lost or silent mid-session, 5 a protocol or application error).
//!
//! The [`Launch`]er issues a CA and one certificate per role for the run (PEM files in a
//! temporary directory removed with the [`Launch`]), writes one TOML file per role there
//! and starts every role program with `--config FILE`: nothing a plain script could not
//! do. Every role listens on port 0 of loopback, so no port is picked by the launcher and
//! released before a child binds it (another process could take it in between): as
//! `mpst_wire::dials` says, of two roles only one dials the other, so the roles start one
//! after another, each once every peer it dials has said where it listens; the peers that
//! dial it are listed without an address (`MPST_PEER_<ROLE>` empty).

use std::path::{Path, PathBuf};
use std::process::{ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mpst::net::{Connections, NetConfig, NetError, NetErrorKind};
use mpst_wire::env::Sources;
use mpst_wire::{RoleExit, WireError, dials};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use tokio::time::{Instant, timeout_at};

/// Logs with `tracing` to standard error, filtered by `RUST_LOG` (`info` when unset or
/// unreadable).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second call (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The sources of a role program's configuration: `--config FILE` and `--role NAME` from
/// `args` (taken out of it; the rest is the program's own), then the process's `MPST_*`
/// variables, `protocol` when neither names one. [`Sources::names_a_role`] tells whether
/// the program was started as a role at all.
pub fn role_sources(args: &mut Vec<String>, protocol: &str) -> Result<Sources, RoleError> {
    let mut sources = Sources::from_process_env()
        .map_err(RoleError::from)?
        .default_protocol(protocol);
    for flag in ["--config", "--role"] {
        if let Some(at) = args.iter().position(|a| a == flag) {
            let value = args
                .get(at + 1)
                .cloned()
                .ok_or_else(|| RoleError::usage(format!("{flag} needs a value")))?;
            args.drain(at..at + 2);
            sources = match flag {
                "--config" => sources.file(value),
                _ => sources.role(value),
            };
        }
    }
    Ok(sources)
}

/// The number given after `name` in a role program's own arguments (`--count 10`), or
/// `default` when `name` is absent; a usage error when its value is missing or not a
/// number.
pub fn number_flag<T: std::str::FromStr>(
    args: &[String],
    name: &str,
    default: T,
) -> Result<T, RoleError> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(at) => args
            .get(at + 1)
            .and_then(|value| value.parse().ok())
            .ok_or_else(|| RoleError::usage(format!("{name} needs a number"))),
    }
}

/// A role program's failure: what to print and the exit status that says what happened.
#[derive(Debug)]
pub struct RoleError {
    /// The status of `mpst_wire::RoleExit`'s table.
    pub exit: RoleExit,
    /// The error's text.
    pub message: String,
}

impl RoleError {
    /// Bad configuration or usage (status 2).
    pub fn usage(message: impl Into<String>) -> Self {
        RoleError {
            exit: RoleExit::Usage,
            message: message.into(),
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for RoleError {
    fn from(error: E) -> Self {
        RoleError {
            exit: exit_of(&error),
            message: error.to_string(),
        }
    }
}

/// The status for a failure of a role: its network layer's, its session's (a peer gone
/// or silent: 4; any other failure of the session: 5), or else a protocol or
/// application error (5).
pub fn exit_of(error: &(dyn std::error::Error + 'static)) -> RoleExit {
    if let Some(net) = error.downcast_ref::<NetError>() {
        return exit_of_net(&net.kind);
    }
    if let Some(wire) = error.downcast_ref::<WireError>() {
        return RoleExit::of_wire(&wire.kind);
    }
    if let Some(session) = error.downcast_ref::<mpst::Error>() {
        if let Some(net) = mpst::net::net_error(session) {
            return exit_of_net(&net.kind);
        }
        if mpst::net::is_disconnected(session) {
            return RoleExit::Lost;
        }
    }
    RoleExit::Protocol
}

/// The status for a failure of `mpst::net`.
pub fn exit_of_net(kind: &NetErrorKind) -> RoleExit {
    match kind {
        NetErrorKind::Config(_) => RoleExit::Usage,
        NetErrorKind::Wire(kind) => RoleExit::of_wire(kind),
        NetErrorKind::Io(_)
        | NetErrorKind::Closed
        | NetErrorKind::Truncated { .. }
        | NetErrorKind::ReceiveTimeout(_)
        | NetErrorKind::IdleTimeout(_)
        | NetErrorKind::SendTimeout(_)
        | NetErrorKind::Unacknowledged { .. }
        | NetErrorKind::ClosedUnacknowledged { .. } => RoleExit::Lost,
        _ => RoleExit::Protocol,
    }
}

/// The current-thread tokio runtime a role program runs on (status 1 if it cannot start).
pub fn runtime() -> Result<tokio::runtime::Runtime, RoleError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| RoleError {
            exit: RoleExit::Internal,
            message: format!("cannot start the tokio runtime: {error}"),
        })
}

/// Binds the role's listen address, prints `LISTENING <address>` (the port the system
/// chose, for a listen address with port 0), then connects to every peer.
pub async fn connect(config: NetConfig) -> Result<Connections, RoleError> {
    let bound = config.bind().await?;
    if let Some(address) = bound.local_addr() {
        println!("LISTENING {address}");
        std::io::Write::flush(&mut std::io::stdout()).map_err(|e| RoleError {
            exit: RoleExit::Internal,
            message: format!("cannot write to standard output: {e}"),
        })?;
    }
    Ok(bound.connect().await?)
}

/// Prints a role's final line (`OK <value>` or `ERR <error>`), logs it, and gives the exit
/// status that says what happened.
pub fn finish<T: std::fmt::Display>(result: Result<T, RoleError>) -> ExitCode {
    match result {
        Ok(value) => {
            tracing::info!(%value, "session completed");
            println!("OK {value}");
            RoleExit::Completed.into()
        }
        Err(error) => {
            tracing::error!(exit = error.exit.code(), "{}", error.message);
            println!("ERR {}", error.message);
            error.exit.into()
        }
    }
}

/// One child process of a [`Launch`].
#[derive(Debug)]
struct Process {
    role: String,
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

/// The processes of one protocol run; dropping it kills every child still running and
/// removes the run's identities and configuration files.
#[derive(Debug)]
pub struct Launch {
    processes: Vec<Process>,
    deadline: Instant,
    _dir: RunDir,
}

/// A directory of identities and configuration files for one run, removed on drop.
#[derive(Debug)]
struct RunDir(PathBuf);

impl RunDir {
    /// A CA and a certificate per role of `protocol`, in a fresh temporary directory.
    fn issue(protocol: &str, roles: &[&str]) -> std::io::Result<Self> {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mpst-launch-{}-{run}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let run_dir = RunDir(dir);
        let roles: Vec<String> = roles.iter().map(|&r| r.to_owned()).collect();
        mpst::net::certs::write_deployment(&run_dir.0, protocol, &roles)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok(run_dir)
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How one role's process ended.
#[derive(Debug)]
pub struct Outcome {
    /// The role.
    pub role: String,
    /// Its exit status.
    pub status: ExitStatus,
    /// The lines it printed on standard output (`CONNECTED`, `OK ...`, `ERR ...`).
    pub lines: Vec<String>,
}

impl Outcome {
    /// The text after `OK ` in the last line, if the role succeeded.
    pub fn ok(&self) -> Option<&str> {
        self.lines.last().and_then(|l| l.strip_prefix("OK "))
    }

    /// The text after `ERR ` in the last line, if the role failed.
    pub fn err(&self) -> Option<&str> {
        self.lines.last().and_then(|l| l.strip_prefix("ERR "))
    }

    /// What the exit status says (`None`: killed by a signal, or not a status of the
    /// table).
    pub fn exit(&self) -> Option<RoleExit> {
        self.status.code().and_then(RoleExit::from_code)
    }
}

fn timed_out(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, what)
}

/// One role's TOML file: its listen address (if `addresses` has one for it), the peers of
/// `addresses` other than itself (the ones it dials: those that dial it need no address,
/// see [`Launch`]), its identity files, a 5 s `connect_timeout` and the
/// `receive_timeout` if given.
pub fn role_toml(
    protocol: &str,
    role: &str,
    addresses: &[(&str, String)],
    certs: &Path,
    receive_timeout: Option<Duration>,
) -> String {
    let mut toml = format!("role = {role:?}\nprotocol = {protocol:?}\n");
    if let Some((_, own)) = addresses.iter().find(|(r, _)| *r == role) {
        toml.push_str(&format!("listen = {own:?}\n"));
    }
    toml.push_str("connect_timeout = \"5s\"\n");
    if let Some(timeout) = receive_timeout {
        toml.push_str(&format!(
            "receive_timeout = \"{}ms\"\n",
            timeout.as_millis()
        ));
    }
    toml.push_str("[peers]\n");
    for (peer, address) in addresses.iter().filter(|(r, _)| *r != role) {
        toml.push_str(&format!("{peer} = {address:?}\n"));
    }
    let (cert, key) = mpst_wire::certs::role_files(certs, role);
    toml.push_str(&format!(
        "[security]\nca = {:?}\ncert = {cert:?}\nkey = {key:?}\n",
        certs.join("ca.pem"),
    ));
    toml
}

/// The order in which `roles` can start when each listens on a port the system chooses:
/// a role after every peer it dials (`mpst_wire::dials`).
fn start_order<'r>(roles: &[&'r str]) -> std::io::Result<Vec<&'r str>> {
    let mut order: Vec<&str> = Vec::new();
    while order.len() < roles.len() {
        let next = roles.iter().find(|role| {
            !order.contains(role)
                && roles
                    .iter()
                    .all(|peer| peer == *role || !dials(role, peer) || order.contains(peer))
        });
        match next {
            Some(role) => order.push(role),
            None => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("no role of {roles:?} can start first: they dial each other"),
                ));
            }
        }
    }
    Ok(order)
}

impl Launch {
    /// Starts `exe --config FILE <args>` for every role (one TOML file per role: the
    /// configuration names `protocol`, the identities issued for this run, port 0 of
    /// loopback to listen on, the addresses its dialled peers said they listen on, a 5 s
    /// `connect_timeout` and, if given, the `receive_timeout`), one after another: each
    /// once every peer it dials has printed `LISTENING <address>` (see the module's
    /// docs). Every step, and [`Launch::finish`], must be done within `limit` of now.
    /// Children log at `warn` unless `RUST_LOG` says otherwise.
    pub async fn start(
        exe: &Path,
        roles: &[&str],
        protocol: &str,
        args: &[&str],
        receive_timeout: Option<Duration>,
        limit: Duration,
    ) -> std::io::Result<Self> {
        let deadline = Instant::now() + limit;
        let dir = RunDir::issue(protocol, roles)?;
        let mut launch = Launch {
            processes: Vec::new(),
            deadline,
            _dir: dir,
        };
        // Where each role that started listens, as it said.
        let mut listening: Vec<(&str, String)> = Vec::new();
        for role in start_order(roles)? {
            let mut addresses = listening.clone();
            addresses.push((role, "127.0.0.1:0".to_owned()));
            let toml = role_toml(protocol, role, &addresses, &launch._dir.0, receive_timeout);
            let file = launch._dir.0.join(format!("{role}.toml"));
            std::fs::write(&file, toml)?;
            let mut command = Command::new(exe);
            command
                .arg("--config")
                .arg(&file)
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .kill_on_drop(true);
            // The roles not started yet dial this one: peers without an address.
            for peer in roles
                .iter()
                .filter(|p| listening.iter().all(|(r, _)| r != *p))
            {
                if *peer != role {
                    command.env(format!("{}{peer}", mpst_wire::env::PEER_PREFIX), "");
                }
            }
            if std::env::var_os("RUST_LOG").is_none() {
                command.env("RUST_LOG", "warn");
            }
            let mut child = command.spawn()?;
            let stdout = child
                .stdout
                .take()
                .ok_or_else(|| timed_out("no stdout".into()))?;
            launch.processes.push(Process {
                role: (*role).to_owned(),
                child,
                lines: BufReader::new(stdout).lines(),
            });
            let address = launch.listening(role).await?;
            listening.push((role, address));
        }
        // Back in the roles' order.
        launch
            .processes
            .sort_by_key(|p| roles.iter().position(|r| *r == p.role));
        Ok(launch)
    }

    /// Waits until `role` prints `LISTENING <address>` and returns the address.
    async fn listening(&mut self, role: &str) -> std::io::Result<String> {
        let deadline = self.deadline;
        let process = self.process(role)?;
        let line = timeout_at(deadline, process.lines.next_line())
            .await
            .map_err(|_| timed_out(format!("{role} did not listen in time")))??;
        match line.as_deref().and_then(|l| l.strip_prefix("LISTENING ")) {
            Some(address) => Ok(address.to_owned()),
            None => Err(std::io::Error::other(format!(
                "{role} said {line:?} instead of LISTENING <address>"
            ))),
        }
    }

    /// Waits until `role` prints `CONNECTED`.
    pub async fn connected(&mut self, role: &str) -> std::io::Result<()> {
        let deadline = self.deadline;
        let process = self.process(role)?;
        let line = timeout_at(deadline, process.lines.next_line())
            .await
            .map_err(|_| timed_out(format!("{role} did not connect in time")))??;
        match line.as_deref() {
            Some("CONNECTED") => Ok(()),
            other => Err(timed_out(format!(
                "{role} said {other:?} instead of CONNECTED"
            ))),
        }
    }

    /// Kills `role`'s process with SIGKILL.
    pub fn kill(&mut self, role: &str) -> std::io::Result<()> {
        self.process(role)?.child.start_kill()
    }

    fn process(&mut self, role: &str) -> std::io::Result<&mut Process> {
        self.processes
            .iter_mut()
            .find(|p| p.role == role)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, role.to_owned()))
    }

    /// Waits for every process to exit and returns what each printed, in the roles'
    /// order. Past the deadline, every child still running is killed and this fails.
    pub async fn finish(mut self) -> std::io::Result<Vec<Outcome>> {
        let mut outcomes = Vec::new();
        for mut process in std::mem::take(&mut self.processes) {
            let mut lines = Vec::new();
            let read = async {
                while let Some(line) = process.lines.next_line().await? {
                    lines.push(line);
                }
                process.child.wait().await
            };
            let status = timeout_at(self.deadline, read)
                .await
                .map_err(|_| timed_out(format!("{} did not finish in time", process.role)))??;
            outcomes.push(Outcome {
                role: process.role,
                status,
                lines,
            });
        }
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_flag_is_its_value_its_default_when_absent_and_a_usage_error_otherwise() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        assert_eq!(
            number_flag(&args(&["--count", "7"]), "--count", 10).unwrap(),
            7
        );
        assert_eq!(number_flag(&args(&["--skew"]), "--count", 10).unwrap(), 10);
        for bad in [&["--count"][..], &["--count", "many"][..]] {
            let error = number_flag::<u64>(&args(bad), "--count", 10).unwrap_err();
            assert_eq!(error.exit, RoleExit::Usage);
            assert_eq!(error.message, "--count needs a number");
        }
    }
}
