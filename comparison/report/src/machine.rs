//! The machine a run happened on: cores, CPU model, memory, OS, rustc, load.

use std::fs;
use std::process::Command;

/// What the report says about the machine.
pub struct Machine {
    /// Cores available to this process.
    pub cores: usize,
    /// `model name` from `/proc/cpuinfo`.
    pub cpu: String,
    /// `MemTotal` from `/proc/meminfo`.
    pub memory: String,
    /// `uname -sr`.
    pub os: String,
    /// `rustc --version` (the compiler cargo uses in this workspace).
    pub rustc: String,
}

fn command(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned())
}

fn field(file: &str, key: &str) -> String {
    fs::read_to_string(file)
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|line| line.starts_with(key))
                .and_then(|line| line.split_once(':'))
                .map(|(_, value)| value.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

impl Machine {
    /// Reads the machine's description.
    pub fn read() -> Self {
        Self {
            cores: std::thread::available_parallelism().map_or(0, usize::from),
            cpu: field("/proc/cpuinfo", "model name"),
            memory: field("/proc/meminfo", "MemTotal"),
            os: command("uname", &["-sr"]),
            rustc: command(
                &std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()),
                &["--version"],
            ),
        }
    }
}

/// The 1, 5 and 15 minute load averages, as `/proc/loadavg` gives them.
pub fn load() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The current UTC time, as `date -u` prints it.
pub fn now() -> String {
    command("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
}
