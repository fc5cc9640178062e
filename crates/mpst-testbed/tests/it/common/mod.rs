//! Helpers shared by the test bed's tests: the echo role program, started from its TOML
//! file in mpst-wire's format (`role`, `listen`, `[peers]`, time-outs).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use mpst_testbed::{Process, TestBed};

/// The crate's role program.
pub const ECHO: &str = env!("CARGO_BIN_EXE_mpst-testbed-echo");
/// Every process of these tests finishes within this.
pub const PROCESS_TIMEOUT: Duration = Duration::from_secs(20);

/// Starts an echo role on `host` serving `count` connections on `port`, and returns
/// once it listens.
pub fn echo_server(bed: &TestBed, host: &str, port: u16, count: u32) -> Process {
    let config = format!(
        "role = \"echo\"\nlisten = \"0.0.0.0:{port}\"\nconnect_timeout = \"20s\"\n\
         receive_timeout = \"20s\"\n"
    );
    let mut command = bed.host(host).role(ECHO, &config).expect("config written");
    command
        .args(["--count", &count.to_string()])
        .stdout(Stdio::piped());
    let mut server = bed.host(host).spawn(&mut command).expect("echo starts");
    let mut line = String::new();
    BufReader::new(server.take_stdout().expect("stdout piped"))
        .read_line(&mut line)
        .expect("reading the echo's stdout");
    assert!(
        line.starts_with("listening"),
        "the echo did not start: {line:?}"
    );
    server
}

/// Runs a ping role on `host` against `peer` (`name:port`) and returns its output.
pub fn ping(bed: &TestBed, host: &str, peer: &str, count: u32, size: usize) -> Output {
    let mut command = ping_command(bed, host, peer, count, size);
    bed.host(host)
        .spawn(&mut command)
        .expect("ping starts")
        .wait_output(PROCESS_TIMEOUT)
        .expect("ping finishes")
}

/// The command of a ping role on `host` against `peer` (`name:port`), output piped.
pub fn ping_command(bed: &TestBed, host: &str, peer: &str, count: u32, size: usize) -> Command {
    let config = format!(
        "role = \"ping\"\nconnect_timeout = \"15s\"\nreceive_timeout = \"15s\"\n\
         [peers]\nECHO = \"{peer}\"\n"
    );
    let mut command = bed.host(host).role(ECHO, &config).expect("config written");
    command
        .args(["--count", &count.to_string(), "--size", &size.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The round-trip times (microseconds) a ping printed.
pub fn rtts(output: &Output) -> Vec<u64> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("rtt_us ")?.parse().ok())
        .collect()
}

/// Asserts a process exited with `code`, showing its stderr otherwise.
pub fn assert_exit(output: &Output, code: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: stderr {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Polls `condition` (every 2 ms) until it holds or `within` passes; whether it held.
/// For waiting on the relay's counters, never for timing claims.
pub fn eventually(within: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + within;
    loop {
        if condition() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The program `name` of another package built beside the test binaries (`cargo test
/// --workspace` builds mpst-examples' binaries), or `None` (skipped, or failed under CI,
/// by the test bed's rule) when it is missing.
pub fn program(test: &str, name: &str) -> Option<std::path::PathBuf> {
    built(test, name, "cargo build -p mpst-examples --bins")
}

/// The program at `path` under the target directory (`examples/NAME` for an example), or
/// `None` after a SKIPPED line (a failure under `CI`) saying that `build` (or `cargo
/// test --workspace`) builds it.
pub fn built(test: &str, path: &str, build: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let bin = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("the target directory")
        .join(path);
    if bin.exists() {
        return Some(bin);
    }
    let why = format!(
        "{} is missing: `{build}` (or `cargo test --workspace`) builds it",
        bin.display()
    );
    mpst_testbed::skip_or_fail(test, &why);
    None
}
