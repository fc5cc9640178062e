//! Running each role of a protocol as its own OS process over loopback TCP: the
//! [`Launch`]er starts one child per role, collects the address each one bound
//! (`127.0.0.1:0`, so runs never collide), hands every child the TOML of all addresses,
//! and gathers what each reports; [`rendezvous`] is the child's side of that exchange.
//!
//! The exchange, line by line: the child prints `LISTEN <address>` on stdout; the
//! launcher writes the TOML configuration (`mpst::net::Config::from_toml`) to the child's
//! stdin and closes it; the child prints `CONNECTED` once its connections are up, then
//! `OK <result>` or `ERR <error>` and exits (status 0 or 1).
//!
//! Every role proves itself with mutual TLS: the launcher issues a CA and one certificate
//! per role for the run (PEM files written by `mpst::net::certs::write_deployment` into a
//! temporary directory removed with the [`Launch`]) and names them in the
//! configuration's `[security]` table.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mpst::net::{Config, Endpoint, NetError, NetErrorKind};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};
use tokio::time::{timeout_at, Instant};

/// The child's side: binds `127.0.0.1:0` for `role`, prints `LISTEN <address>`, reads the
/// configuration of every role from stdin and returns the endpoint, ready to connect.
pub async fn rendezvous(role: &str) -> Result<Endpoint, NetError> {
    let any = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let mut endpoint = Config::new("", role).listen(any).bind().await?;
    let io = |e| NetError::new(role, NetErrorKind::Io(e));
    let address = endpoint
        .local_addr()
        .ok_or_else(|| NetError::new(role, NetErrorKind::Config("no listen address".into())))?;
    let mut stdout = tokio::io::stdout();
    stdout
        .write_all(format!("LISTEN {address}\n").as_bytes())
        .await
        .map_err(io)?;
    stdout.flush().await.map_err(io)?;
    let mut text = String::new();
    tokio::io::stdin()
        .read_to_string(&mut text)
        .await
        .map_err(io)?;
    *endpoint.config_mut() = Config::from_toml(&text, role)?;
    Ok(endpoint)
}

/// One child process of a [`Launch`].
#[derive(Debug)]
struct Process {
    role: String,
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

/// The processes of one protocol run; dropping it kills every child still running and
/// removes the run's identities.
#[derive(Debug)]
pub struct Launch {
    processes: Vec<Process>,
    deadline: Instant,
    certs: Certs,
}

/// A directory of identities for one run, removed on drop.
#[derive(Debug)]
struct Certs(PathBuf);

impl Certs {
    /// A CA and a certificate per role of `protocol`, in a fresh temporary directory.
    fn issue(protocol: &str, roles: &[&str]) -> std::io::Result<Self> {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mpst-launch-{}-{run}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let certs = Certs(dir);
        let roles: Vec<String> = roles.iter().map(|&r| r.to_owned()).collect();
        mpst::net::certs::write_deployment(&certs.0, protocol, &roles)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok(certs)
    }

    /// The configuration's `[security]` table (`{role}` is each reader's role).
    fn security(&self) -> String {
        format!(
            "[security]\nca = {:?}\ncert = {:?}\nkey = {:?}\n",
            self.0.join("ca.pem"),
            self.0.join("{role}.pem"),
            self.0.join("{role}.key"),
        )
    }
}

impl Drop for Certs {
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
    /// The lines it printed after the rendezvous (`CONNECTED`, `OK ...`, `ERR ...`).
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
}

fn timed_out(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, what)
}

impl Launch {
    /// Starts `exe --role R <args>` for every role `R`, completes the rendezvous (the
    /// configuration names `protocol`, the identities issued for this run, a 5 s
    /// `connect_timeout` and, if given, the `receive_timeout`) and returns once every
    /// child has its configuration. Every
    /// step, and [`Launch::finish`], must be done within `limit` of now.
    pub async fn start(
        exe: &Path,
        roles: &[&str],
        protocol: &str,
        args: &[&str],
        receive_timeout: Option<Duration>,
        limit: Duration,
    ) -> std::io::Result<Self> {
        let deadline = Instant::now() + limit;
        let mut launch = Launch {
            processes: Vec::new(),
            deadline,
            certs: Certs::issue(protocol, roles)?,
        };
        for role in roles {
            let mut child = Command::new(exe)
                .arg("--role")
                .arg(role)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()?;
            let stdout = child
                .stdout
                .take()
                .ok_or_else(|| timed_out("no stdout".into()))?;
            launch.processes.push(Process {
                role: (*role).to_owned(),
                child,
                lines: BufReader::new(stdout).lines(),
            });
        }
        let mut toml = format!("protocol = {protocol:?}\nconnect_timeout = \"5s\"\n");
        if let Some(timeout) = receive_timeout {
            toml.push_str(&format!(
                "receive_timeout = \"{}ms\"\n",
                timeout.as_millis()
            ));
        }
        toml.push_str(&launch.certs.security());
        toml.push_str("[roles]\n");
        for process in &mut launch.processes {
            let line = timeout_at(deadline, process.lines.next_line())
                .await
                .map_err(|_| timed_out(format!("{} did not bind in time", process.role)))??;
            let address = line
                .as_deref()
                .and_then(|l| l.strip_prefix("LISTEN "))
                .ok_or_else(|| timed_out(format!("{} said {line:?}", process.role)))?;
            toml.push_str(&format!("{} = {:?}\n", process.role, address));
        }
        for process in &mut launch.processes {
            if let Some(mut stdin) = process.child.stdin.take() {
                stdin.write_all(toml.as_bytes()).await?;
            }
        }
        Ok(launch)
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

/// Prints the child's final line (`OK <value>` or `ERR <error>`) and gives its exit code.
pub fn report<T: std::fmt::Display, E: std::fmt::Display>(
    result: Result<T, E>,
) -> std::process::ExitCode {
    match result {
        Ok(value) => {
            println!("OK {value}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            println!("ERR {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
