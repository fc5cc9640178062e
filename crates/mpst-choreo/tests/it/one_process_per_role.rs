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

/// The lowest port the kernel hands out by itself (`bind(:0)`, outgoing connections).
fn ephemeral_floor() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

/// A first port of `count` consecutive ports free on loopback now, below the ephemeral
/// range (so no outgoing connection or `bind(:0)` of a concurrent test takes one before
/// the roles bind them; an explicit bind elsewhere still can, see [`in_use`]).
fn free_ports(count: u16) -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    // Each call of this process takes the next block; processes start at blocks of their
    // own (by process id), so tests running at once do not choose the same ports.
    static CALLS: AtomicU16 = AtomicU16::new(0);
    let floor = ephemeral_floor().max(2048);
    let blocks = (floor - 1024) / count;
    let start = (std::process::id() % 1000) as u16 * 8;
    for _ in 0..200 {
        let block = start.wrapping_add(CALLS.fetch_add(1, Ordering::Relaxed)) % blocks;
        let next = 1024 + block * count;
        let rest: Result<Vec<_>, _> = (0..count)
            .map(|i| std::net::TcpListener::bind(("127.0.0.1", next + i)))
            .collect();
        if rest.is_ok() {
            return next;
        }
    }
    panic!("no {count} consecutive free ports below {floor}");
}

/// Whether a role of `dir` could not listen because its port was taken meanwhile (it
/// exits 3 at once saying so): the launcher then writes fresh ports and starts again.
fn in_use(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .any(|e| {
            std::fs::read_to_string(e.path())
                .is_ok_and(|log| log.contains("Address already in use"))
        })
}

/// Writes identities and one TOML file per role into `dir`, emptied first (a launcher
/// starting again writes everything afresh), with ports free now.
fn write_config(dir: &Path) -> Output {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("the directory");
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
    let mut attempts = 0;
    let output = loop {
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
        // A port taken between the choice and the bind: fresh ports, a bounded few times.
        attempts += 1;
        if output.status.success() || !in_use(&dir.0) || attempts == 5 {
            break output;
        }
    };
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

/// Status 4, from outside: the four roles run one session after another (far more than
/// can end before the test acts), their files' `receive_timeout` set to 2 s by
/// `MPST_RECEIVE_TIMEOUT`; once the client has completed its first session (its `debug`
/// log says so: every role is then connected and running) the key server is killed. The
/// server, waiting for its next key, exits with status 4 naming the peer it lost.
#[test]
fn a_role_that_loses_its_peer_mid_run_exits_4_naming_it() {
    use std::io::{BufRead, BufReader};
    let dir = Dir::new("lost");
    let mut attempts = 0;
    loop {
        write_config(&dir.0);
        let mut roles = Vec::new();
        for role in concurrent_send::Roles::names() {
            let mut command = Command::new(binary("concurrent_send"));
            for (name, _) in std::env::vars_os() {
                if name.to_string_lossy().starts_with("MPST_") {
                    command.env_remove(name);
                }
            }
            command
                .arg("--config")
                .arg(dir.0.join(format!("{role}.toml")))
                .args(["--sessions", "100000", "--at-once", "1"])
                .env("MPST_RECEIVE_TIMEOUT", "2s")
                .env("RUST_LOG", "warn,concurrent_send=debug")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            roles.push((role, Killed(Some(command.spawn().expect("starts")))));
        }
        // The client's log, line by line, until its first batch of sessions completed
        // (or it ends: a port taken between the choice and the bind ends a role).
        let c = roles.iter_mut().find(|(r, _)| r.as_str() == "C").unwrap();
        let stderr = c.1.get().stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut seen = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                seen.push_str(&line);
                seen.push('\n');
                if line.contains("sessions completed") {
                    let _ = tx.send(Ok(()));
                    return;
                }
            }
            let _ = tx.send(Err(seen));
        });
        attempts += 1;
        match rx
            .recv_timeout(LIMIT)
            .expect("the client completes a session in time")
        {
            Ok(()) => {}
            Err(log) => {
                let taken = log.contains("Address already in use")
                    || roles.iter_mut().any(|(_, child)| {
                        let _ = child.get().kill();
                        let mut text = String::new();
                        let pipe = child.get().stderr.as_mut();
                        pipe.map(|p| std::io::Read::read_to_string(p, &mut text));
                        text.contains("Address already in use")
                    });
                assert!(taken && attempts < 5, "the client ended early: {log}");
                eprintln!("attempt {attempts}: a port was taken; again with fresh ports");
                continue;
            }
        }
        let ks = roles.iter_mut().find(|(r, _)| r.as_str() == "KS").unwrap();
        ks.1.get().kill().expect("KS killed");
        let killed = Instant::now();
        let mut s = roles.into_iter().find(|(r, _)| r.as_str() == "S").unwrap();
        let (tx, rx) = mpsc::channel();
        let child = s.1.0.take().expect("S runs");
        std::thread::spawn(move || tx.send(child.wait_with_output()));
        let output = rx
            .recv_timeout(LIMIT)
            .expect("S ends within the limit")
            .expect("waited");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(exit(&output), Some(RoleExit::Lost), "{stderr}");
        let error = stderr
            .lines()
            .find(|l| l.starts_with("error S "))
            .unwrap_or("");
        // KS, or CS: its connection to KS breaks too and it ends with status 4 as well,
        // which S may notice first.
        assert!(
            error.contains("lost KS") || error.contains("lost CS"),
            "S's error names no lost peer: {stderr}"
        );
        // Lost at once (the connection closes), or at the receive time-out at worst.
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "{:?}",
            killed.elapsed()
        );
        return;
    }
}

/// A child process killed when dropped (unless taken out to be waited for).
struct Killed(Option<std::process::Child>);

impl Killed {
    fn get(&mut self) -> &mut std::process::Child {
        self.0.as_mut().expect("the process is here")
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
