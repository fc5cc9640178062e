//! One process per role, as an operator (or docs/CHOREOGRAPHIES.md's recipe) starts them:
//! `concurrent_send --write-config DIR` writes a CA, the role identities and one TOML
//! file per role, `examples/run_roles.sh` starts every role from that directory, and each
//! role program's exit status says what happened (`mpst_wire::RoleExit`), checked from
//! outside. Every run is bounded in time.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mpst_choreo::RoleSet;
use mpst_choreo_paper::concurrent_send;
use mpst_wire::RoleExit;

/// How long one run may take at most.
const LIMIT: Duration = Duration::from_secs(60);

/// The example binary `name`, built by `cargo test` beside this test's own binary.
fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let debug = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = debug.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: `cargo test -p mpst-choreo` builds the examples first",
        path.display()
    );
    path
}

/// A fresh directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mpst-one-per-role-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `command` with no inherited `MPST_*` variable, run to its end within [`LIMIT`] (its
/// output and how long it took); killed past it.
fn run(mut command: Command) -> (Output, Duration) {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("MPST_") {
            command.env_remove(name);
        }
    }
    command.env("RUST_LOG", "warn").stdin(Stdio::null());
    let started = Instant::now();
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(LIMIT) {
        Ok(output) => (output.expect("waited"), started.elapsed()),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("{command:?} did not finish within {LIMIT:?}");
        }
    }
}

/// A first port of `count` consecutive ports free on loopback now.
fn free_ports(count: u16) -> u16 {
    for _ in 0..50 {
        let first = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = first.local_addr().unwrap().port();
        if base > u16::MAX - count {
            continue;
        }
        let rest: Result<Vec<_>, _> = (1..count)
            .map(|i| std::net::TcpListener::bind(("127.0.0.1", base + i)))
            .collect();
        if rest.is_ok() {
            return base;
        }
    }
    panic!("no {count} consecutive free ports");
}

fn write_config(dir: &Path) -> Output {
    let port = free_ports(4).to_string();
    let mut command = Command::new(binary("concurrent_send"));
    command
        .arg("--write-config")
        .arg(dir)
        .args(["--port", &port]);
    let (output, _) = run(command);
    assert!(output.status.success(), "{output:?}");
    output
}

fn exit(output: &Output) -> Option<RoleExit> {
    output.status.code().and_then(RoleExit::from_code)
}

#[test]
fn the_launcher_starts_every_role_from_one_config_directory() {
    let dir = Dir::new("launch");
    write_config(&dir.0);
    for role in concurrent_send::Roles::names() {
        assert!(dir.0.join(format!("{role}.toml")).exists(), "{role}");
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/run_roles.sh");
    let mut command = Command::new("sh");
    command
        .arg(script)
        .arg(binary("concurrent_send"))
        .arg(&dir.0);
    let (output, _) = run(command);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(exit(&output), Some(RoleExit::Completed), "{output:?}");
    let want = format!("result C {:?}", concurrent_send::expected(7));
    assert!(stdout.contains(&want), "{stdout}");
    for role in ["KS", "CS", "S", "C"] {
        assert!(
            stdout.contains(&format!("{role} exited with status 0")),
            "{stdout}"
        );
    }
}

#[test]
fn a_role_alone_exits_3_within_its_connect_timeout() {
    let dir = Dir::new("alone");
    write_config(&dir.0);
    let mut command = Command::new(binary("concurrent_send"));
    command
        .env("MPST_CONFIG", dir.0.join("C.toml"))
        .env("MPST_CONNECT_TIMEOUT", "1s");
    let (output, took) = run(command);
    assert_eq!(exit(&output), Some(RoleExit::Unreachable), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("error C "), "{stderr}");
    // Its connect time-out ends it, not the test's limit (generous for a busy machine).
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn bad_configuration_exits_2_naming_the_variable_or_the_file_position() {
    let dir = Dir::new("bad");
    write_config(&dir.0);
    let mut command = Command::new(binary("concurrent_send"));
    command
        .env("MPST_CONFIG", dir.0.join("S.toml"))
        .env("MPST_RECEIVE_TIMEOUT", "a while");
    let (output, _) = run(command);
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("MPST_RECEIVE_TIMEOUT=\"a while\": expected a duration"),
        "{stderr}"
    );

    let file = dir.0.join("S.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("connect_timeout = \"20s\"", "connect_timeout = 20"),
    )
    .unwrap();
    let mut command = Command::new(binary("concurrent_send"));
    command.arg("--config").arg(&file);
    let (output, _) = run(command);
    assert_eq!(exit(&output), Some(RoleExit::Usage), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = text
        .lines()
        .position(|l| l.starts_with("connect_timeout"))
        .unwrap()
        + 1;
    let want = format!("{}:{line}:19: invalid type", file.display());
    assert!(stderr.contains(&want), "{want}: {stderr}");
}
