//! Helpers of the choreography tests across hosts: every role of one of mpst-choreo's
//! example programs started as its own OS process on its own host, the way an
//! orchestrator starts it: one TOML file per role ([`mpst_testbed::Host::role`]: its
//! path in `MPST_CONFIG` and `--config`) naming the role, its listen address, its peers
//! by host name (the program resolves them itself, through its host's `/etc/hosts`), its
//! identity files and its time-outs; then each role's exit status, its `result` lines
//! and its `error` line are collected.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mpst_testbed::{Impairment, Process, TestBed};
use mpst_wire::RoleExit;

/// The TCP port every role listens on (relayed on every link).
pub const TCP_PORT: u16 = 7300;
/// The UDP port every role's QUIC endpoint binds (relayed on every link).
pub const UDP_PORT: u16 = 7301;
/// How long one run of every role may take at most.
pub const LIMIT: Duration = Duration::from_secs(60);

/// The host of `role`: its name in lower case (a DNS label).
pub fn host_of(role: &str) -> String {
    role.to_ascii_lowercase()
}

/// A bed with one host per role, every pair linked with `link`, TCP and UDP relayed.
pub fn bed(test: &str, roles: &[String], link: Impairment, seed: u64) -> Option<TestBed> {
    let mut builder = TestBed::builder();
    for role in roles {
        builder = builder.host(&host_of(role));
    }
    builder
        .full_mesh(link)
        .tcp_port(TCP_PORT)
        .udp_port(UDP_PORT)
        .seed(seed)
        .build_or_skip(test)
}

/// The example program `name` of mpst-choreo (`cargo test --workspace`, as CI runs, builds
/// every example beside the test binaries), or `None` after a SKIPPED line (a failure
/// under `CI`) when it was not built.
pub fn example(test: &str, name: &str) -> Option<PathBuf> {
    let path = format!("examples/{name}");
    crate::common::built(test, &path, "cargo build -p mpst-choreo --examples")
}

/// One deployment of an example: its roles and their certificates (a CA, a certificate
/// and key per role naming the example's protocol, as `mpst certs` writes them).
pub struct Deployment {
    /// The example program.
    pub program: PathBuf,
    /// Its roles, in its order.
    pub roles: Vec<String>,
    certs: tempfile::TempDir,
}

impl Deployment {
    /// Certificates for every role of `program` (whose file name is its protocol).
    pub fn new(program: &Path, roles: &[String]) -> Self {
        let certs = tempfile::tempdir().expect("a temporary directory");
        let protocol = program.file_name().expect("a file name").to_string_lossy();
        mpst_wire::certs::write_deployment(certs.path(), &protocol, roles)
            .expect("certificates written");
        Deployment {
            program: program.to_path_buf(),
            roles: roles.to_vec(),
            certs,
        }
    }

    /// Role `role`'s TOML file: listening on every address of its host at the port of
    /// its transport, every other role a peer at `its host name:port`, its identity
    /// files, and if a time-out is given, both `receive_timeout` (a wait for a message)
    /// and `idle_timeout` (a stalled transfer: for a sender, messages its peer does not
    /// acknowledge) set to it.
    pub fn config(&self, role: &str, quic: bool, receive_timeout: Option<&str>) -> String {
        let port = if quic { UDP_PORT } else { TCP_PORT };
        let (cert, key) = mpst_wire::certs::role_files(self.certs.path(), role);
        let mut toml =
            format!("role = \"{role}\"\nlisten = \"0.0.0.0:{port}\"\nconnect_timeout = \"30s\"\n");
        if let Some(timeout) = receive_timeout {
            toml.push_str(&format!("receive_timeout = \"{timeout}\"\n"));
            toml.push_str(&format!("idle_timeout = \"{timeout}\"\n"));
        }
        toml.push_str("[peers]\n");
        for peer in self.roles.iter().filter(|r| *r != role) {
            toml.push_str(&format!("{peer} = \"{}:{port}\"\n", host_of(peer)));
        }
        toml.push_str(&format!(
            "[security]\nca = {:?}\ncert = {cert:?}\nkey = {key:?}\n",
            self.certs.path().join("ca.pem"),
        ));
        toml
    }

    /// Starts every role on its host of `bed` with its TOML file, with `--quic` when
    /// `quic`, and `args` for every role.
    pub fn start(
        &self,
        bed: &TestBed,
        quic: bool,
        receive_timeout: Option<&str>,
        args: &[&str],
    ) -> Vec<Running> {
        self.start_logging(bed, quic, receive_timeout, args, "warn")
    }

    /// [`Deployment::start`] with `RUST_LOG=log` for every role.
    pub fn start_logging(
        &self,
        bed: &TestBed,
        quic: bool,
        receive_timeout: Option<&str>,
        args: &[&str],
        log: &str,
    ) -> Vec<Running> {
        self.roles
            .iter()
            .map(|role| {
                let host = bed.host(&host_of(role));
                let config = self.config(role, quic, receive_timeout);
                let mut command = host.role(&self.program, &config).expect("config written");
                if quic {
                    command.arg("--quic");
                }
                // No `MPST_*` variable of the test's own environment reaches a role.
                for (name, _) in std::env::vars_os() {
                    if name.to_string_lossy().starts_with("MPST_") && name != "MPST_CONFIG" {
                        command.env_remove(name);
                    }
                }
                command
                    .args(args)
                    .env("RUST_LOG", log)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                let process = host.spawn(&mut command).expect("a role starts");
                Running::new(role, process)
            })
            .collect()
    }

    /// Runs every role to its end (see [`Deployment::start`]) and returns how each
    /// ended, in role order.
    pub fn run(
        &self,
        bed: &TestBed,
        quic: bool,
        receive_timeout: Option<&str>,
        args: &[&str],
    ) -> Vec<Exit> {
        let running = self.start(bed, quic, receive_timeout, args);
        running.into_iter().map(|r| r.finish(LIMIT)).collect()
    }
}

/// A role's process, its standard output read line by line as it comes.
pub struct Running {
    /// The role.
    pub role: String,
    process: Process,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
    logs: mpsc::Receiver<String>,
    stderr: JoinHandle<Vec<(Instant, String)>>,
    started: Instant,
}

impl Running {
    fn new(role: &str, mut process: Process) -> Self {
        let stdout = process.take_stdout().expect("stdout piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let pipe = process.take_stderr().expect("stderr piped");
        let (tx, logs) = mpsc::channel();
        let stderr = std::thread::spawn(move || {
            let mut timed = Vec::new();
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                // Nobody may be listening any more: the text is kept all the same.
                let _ = tx.send(line.clone());
                timed.push((Instant::now(), line));
            }
            timed
        });
        Running {
            role: role.to_string(),
            process,
            lines,
            seen: Vec::new(),
            logs,
            stderr,
            started: Instant::now(),
        }
    }

    /// Waits at most `timeout` for a line of standard output starting with `prefix`.
    pub fn wait_line(&mut self, prefix: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            self.seen.push(line.clone());
            if line.starts_with(prefix) {
                return Some(line);
            }
        }
    }

    /// Waits at most `timeout` for a line of standard error (its log) containing `text`.
    pub fn wait_log(&mut self, text: &str, timeout: Duration) -> Option<String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.logs.recv_timeout(left).ok()?;
            if line.contains(text) {
                return Some(line);
            }
        }
    }

    /// Kills the process (SIGKILL).
    pub fn kill(&mut self) {
        self.process.kill();
    }

    /// Waits at most `timeout` for the process to end (killed past it) and says how.
    pub fn finish(mut self, timeout: Duration) -> Exit {
        let status = self.process.wait_timeout(timeout);
        self.process.kill();
        // Standard output is complete once the pipe closes with the process.
        self.seen.extend(self.lines.iter());
        let ended = Instant::now();
        let logged = self.stderr.join().unwrap_or_default();
        let mut stderr = String::new();
        for (_, line) in &logged {
            stderr.push_str(line);
            stderr.push('\n');
        }
        Exit {
            role: self.role,
            code: status.ok().and_then(|s| s.code()),
            stdout: self.seen,
            stderr,
            took: self.started.elapsed(),
            logged,
            ended,
        }
    }
}

/// How a role's process ended.
#[derive(Debug)]
pub struct Exit {
    /// The role.
    pub role: String,
    /// Its exit code (`None`: killed, or still running at the limit).
    pub code: Option<i32>,
    /// Its standard output, line by line.
    pub stdout: Vec<String>,
    /// Its standard error (logs and its `error ROLE MESSAGE` line).
    pub stderr: String,
    /// From its start to its end.
    pub took: Duration,
    /// Its standard error line by line, each with when the test read it.
    pub logged: Vec<(Instant, String)>,
    /// When the test saw it end (no earlier than its real end).
    pub ended: Instant,
}

impl Exit {
    /// What its exit status says, if it is one of `RoleExit`'s.
    pub fn status(&self) -> Option<RoleExit> {
        self.code.and_then(RoleExit::from_code)
    }

    /// Its `result ROLE TEXT` lines.
    pub fn results(&self) -> impl Iterator<Item = &str> {
        self.stdout
            .iter()
            .filter(|l| l.starts_with("result "))
            .map(String::as_str)
    }

    /// Its `error ROLE MESSAGE` line, if it printed one.
    pub fn error(&self) -> Option<&str> {
        let prefix = format!("error {} ", self.role);
        self.stderr.lines().find(|l| l.starts_with(&prefix))
    }

    /// When the test read its `error ROLE MESSAGE` line (as it came: a reader thread
    /// takes standard error line by line), if it printed one: when it failed, whenever the
    /// test got round to waiting for it.
    pub fn failed_at(&self) -> Option<Instant> {
        let prefix = format!("error {} ", self.role);
        self.logged
            .iter()
            .find(|(_, line)| line.starts_with(&prefix))
            .map(|(at, _)| *at)
    }

    /// When the test read the last log line containing `text`, if any.
    pub fn last_logged(&self, text: &str) -> Option<Instant> {
        self.logged
            .iter()
            .rev()
            .find(|(_, line)| line.contains(text))
            .map(|(at, _)| *at)
    }

    /// Its `step ...` lines (`--record`), without the prefix.
    pub fn steps(&self) -> impl Iterator<Item = &str> {
        self.stdout.iter().filter_map(|l| l.strip_prefix("step "))
    }

    /// Asserts that the role completed (status 0).
    pub fn assert_completed(&self, what: &str) {
        assert_eq!(
            self.status(),
            Some(RoleExit::Completed),
            "{what}: {} exited with {:?}: {}",
            self.role,
            self.code,
            self.stderr
        );
    }
}

/// The `result` lines of every role, in role order.
pub fn results(exits: &[Exit]) -> Vec<String> {
    exits
        .iter()
        .flat_map(|e| e.results().map(str::to_string))
        .collect()
}

/// The `result` lines of `program` run with every role in one process (its in-memory
/// transport) with `args`, in role order.
pub fn in_memory(program: &Path, args: &[&str]) -> Vec<String> {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MPST_") {
            command.env_remove(name);
        }
    }
    let process = Process::spawn(&mut command, "an example in memory").expect("starts");
    let output = process.wait_output(LIMIT).expect("finishes in time");
    assert!(
        output.status.success(),
        "{} {args:?} in memory: {}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| l.starts_with("result "))
        .map(str::to_string)
        .collect()
}
