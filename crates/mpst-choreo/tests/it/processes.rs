//! The examples over the network, the one home of "the examples run over TCP and QUIC
//! and conform": one OS process per role (the example binary with `--role`), each
//! listening on a port the OS chose (127.0.0.1:0) and told its peers' addresses on
//! standard input, over TCP with mutual TLS (several connections per pair, so messages
//! overtake) and over QUIC (a stream per message). Every run is bounded in time, and its
//! children are killed if anything fails. The in-order twins' steps, gathered from all
//! processes, must conform to the `.scr` beside the example.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mpst_choreo::conform::{Protocol, Step, global_trace};
use mpst_choreo::{RoleName, RoleSet};
use mpst_choreo_paper::{clients, concurrent_send, pipeline, producers};

/// How long one run of an example may take, set-up included.
const DEADLINE: Duration = Duration::from_secs(60);

/// The example binary `name`, built by `cargo test` beside this test's own binary.
fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let debug = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>");
    let path = debug
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: `cargo test -p mpst-choreo` builds the examples first",
        path.display()
    );
    path
}

/// Children that are killed (and reaped) when dropped, so a failed test leaves none.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// What one process printed.
enum Line {
    Out(usize, String),
    Closed(usize),
}

/// What a run of all roles printed: each role's result text and every step.
struct Run {
    results: BTreeMap<String, String>,
    steps: Vec<Step>,
}

/// A fresh directory of certificates for example `name`, written by the example itself
/// (`--write-certs`), removed when dropped.
struct Certs(PathBuf);

impl Certs {
    fn new(name: &str) -> Result<Self, String> {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "mpst-choreo-certs-{name}-{}-{run}",
            std::process::id()
        ));
        let certs = Certs(dir);
        let output = Command::new(binary(name))
            .arg("--write-certs")
            .arg(&certs.0)
            .output()
            .map_err(|e| format!("cannot run {name} --write-certs: {e}"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("{name} --write-certs failed: {stderr}"));
        }
        Ok(certs)
    }
}

impl Drop for Certs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs example `name` with one process per role of `roles`, over TCP with mutual TLS or
/// over QUIC, every role proving itself with a certificate of a deployment made for the
/// run. With `host`, peers are told by that host name instead of `127.0.0.1`.
fn run_over(
    name: &str,
    roles: &[RoleName],
    in_order: bool,
    quic: bool,
    host: Option<&str>,
) -> Result<Run, String> {
    let start = Instant::now();
    let left = || DEADLINE.saturating_sub(start.elapsed());
    let certs = Certs::new(name)?;
    let mut children = Children(Vec::new());
    let (tx, rx) = mpsc::channel();
    let mut errors = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        let mut command = Command::new(binary(name));
        command.args(["--role", role.as_str(), "--record", "--certs"]);
        command.arg(&certs.0);
        if in_order {
            command.arg("--in-order");
        }
        if quic {
            command.arg("--quic");
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {name} --role {role}: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(Line::Out(i, line));
            }
            let _ = tx.send(Line::Closed(i));
        });
        let mut stderr = child.stderr.take().ok_or("no stderr")?;
        errors.push(std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        }));
        children.0.push(child);
    }
    drop(tx);
    // Every role says where it listens; then every role learns every address.
    let mut addrs = BTreeMap::new();
    let mut lines = Vec::new();
    let mut open = roles.len();
    while addrs.len() < roles.len() {
        match rx.recv_timeout(left()) {
            Ok(Line::Out(i, line)) => match line.split_whitespace().collect::<Vec<_>>()[..] {
                ["listening", role, addr] if role == roles[i].as_str() => {
                    addrs.insert(role.to_string(), addr.to_string());
                }
                _ => lines.push(line),
            },
            Ok(Line::Closed(i)) => {
                return Err(format!("{} exited before listening", roles[i]));
            }
            Err(_) => return Err(format!("not every role listened: {addrs:?}")),
        }
    }
    for child in &mut children.0 {
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        for (role, addr) in &addrs {
            let addr = match host {
                Some(host) => addr.replacen("127.0.0.1", host, 1),
                None => addr.clone(),
            };
            writeln!(stdin, "peer {role} {addr}").map_err(|e| e.to_string())?;
        }
        writeln!(stdin, "go").map_err(|e| e.to_string())?;
    }
    while open > 0 {
        match rx.recv_timeout(left()) {
            Ok(Line::Out(_, line)) => lines.push(line),
            Ok(Line::Closed(_)) => open -= 1,
            Err(_) => return Err(format!("timed out; printed so far: {lines:?}")),
        }
    }
    for (child, role) in children.0.iter_mut().zip(roles) {
        let status = child.wait().map_err(|e| e.to_string())?;
        if !status.success() {
            let stderr: Vec<String> = errors
                .drain(..)
                .map(|h| h.join().unwrap_or_default())
                .collect();
            return Err(format!("{role} exited with {status}: {stderr:?}"));
        }
    }
    let mut run = Run {
        results: BTreeMap::new(),
        steps: Vec::new(),
    };
    for line in lines {
        if let Some(rest) = line.strip_prefix("result ") {
            let (role, text) = rest.split_once(' ').ok_or(format!("bad line {line}"))?;
            run.results.insert(role.to_string(), text.to_string());
        } else if let Some(step) = line.strip_prefix("step ") {
            run.steps
                .push(Step::from_line(step).ok_or(format!("bad step {line}"))?);
        } else {
            return Err(format!("unexpected output `{line}`"));
        }
    }
    Ok(run)
}

fn results(pairs: &[(&str, String)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(role, text)| (role.to_string(), text.clone()))
        .collect()
}

/// One example program: its roles, what the roles holding a result print (the same in
/// both forms), and its in-order twin's protocol (the file and the protocol's name).
struct Example {
    name: &'static str,
    roles: Vec<RoleName>,
    want: BTreeMap<String, String>,
    protocol: (&'static str, Option<&'static str>),
}

fn producers_example() -> Example {
    let (a, b) = producers::expected(&producers::Params::example());
    Example {
        name: "concurrent_producers",
        roles: producers::Roles::names(),
        want: results(&[("P1", format!("{a:?}")), ("P2", format!("{b:?}"))]),
        protocol: (
            include_str!("../../examples/concurrent_producers.scr"),
            None,
        ),
    }
}

fn send_example() -> Example {
    Example {
        name: "concurrent_send",
        roles: concurrent_send::Roles::names(),
        want: results(&[("C", format!("{:?}", concurrent_send::expected(7)))]),
        protocol: (include_str!("../../examples/concurrent_send.scr"), None),
    }
}

fn clients_example() -> Example {
    let (a, b) = clients::expected(&clients::Params::example());
    let source = include_str!("../../examples/concurrent_clients.scr");
    Example {
        name: "concurrent_clients",
        roles: clients::Roles::names(),
        want: results(&[("C1", format!("{a:?}")), ("C2", format!("{b:?}"))]),
        protocol: (source, Some("ConcurrentClients")),
    }
}

fn serving_example() -> Example {
    let want = pipeline::expected(&pipeline::Params::example());
    Example {
        name: "model_serving",
        roles: pipeline::Roles::names(),
        want: results(&[("Gateway", format!("{want:?}"))]),
        protocol: (include_str!("../../examples/model_serving.scr"), None),
    }
}

fn every_example() -> [Example; 4] {
    [
        producers_example(),
        send_example(),
        clients_example(),
        serving_example(),
    ]
}

/// Runs `example` as processes over TCP (QUIC with `quic`), out of order and in order:
/// both print the expected results, and the in-order run's steps conform to its protocol.
fn both_forms_conform(example: &Example, quic: bool) {
    let name = example.name;
    let run_ = run_over(name, &example.roles, false, quic, None).unwrap();
    assert_eq!(run_.results, example.want, "{name}");
    let run_ = run_over(name, &example.roles, true, quic, None).unwrap();
    assert_eq!(run_.results, example.want, "{name} in order");
    let protocol = Protocol::from_scribble(example.protocol.0, example.protocol.1).unwrap();
    let trace = global_trace(&run_.steps).unwrap();
    assert!(!trace.is_empty(), "{name}: no steps recorded");
    protocol.check(&trace).unwrap();
}

#[test]
fn concurrent_producers_as_processes() {
    both_forms_conform(&producers_example(), false);
}

#[test]
fn concurrent_send_as_processes() {
    both_forms_conform(&send_example(), false);
}

#[test]
fn concurrent_send_as_processes_with_peers_named_localhost() {
    let example = send_example();
    let run_ = run_over(
        example.name,
        &example.roles,
        false,
        false,
        Some("localhost"),
    )
    .unwrap();
    assert_eq!(run_.results, example.want);
}

#[test]
fn concurrent_clients_as_processes() {
    both_forms_conform(&clients_example(), false);
}

#[test]
fn model_serving_as_processes() {
    both_forms_conform(&serving_example(), false);
}

/// Every example over QUIC, both forms, the in-order twins conforming.
#[test]
fn every_example_as_processes_over_quic() {
    for example in every_example() {
        both_forms_conform(&example, true);
    }
}

/// The results an example binary prints when it runs every role itself.
fn in_one_process(name: &str, in_order: bool) -> BTreeMap<String, String> {
    let mut command = Command::new(binary(name));
    if in_order {
        command.arg("--in-order");
    }
    let mut child = Children(vec![command.stdout(Stdio::piped()).spawn().unwrap()]);
    let stdout = child.0[0].stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::io::read_to_string(stdout));
    });
    let printed = rx.recv_timeout(DEADLINE).unwrap().unwrap();
    assert!(child.0[0].wait().unwrap().success(), "{name}: {printed}");
    printed
        .lines()
        .map(|line| {
            let rest = line.strip_prefix("result ").unwrap();
            let (role, text) = rest.split_once(' ').unwrap();
            (role.to_string(), text.to_string())
        })
        .collect()
}

#[test]
fn every_example_binary_runs_all_roles_in_one_process() {
    for example in every_example() {
        let name = example.name;
        assert_eq!(in_one_process(name, false), example.want, "{name}");
        assert_eq!(
            in_one_process(name, true),
            example.want,
            "{name} --in-order"
        );
    }
}

#[test]
fn a_config_file_without_a_security_mode_fails_with_a_message() {
    let certs = Certs::new("concurrent_send").unwrap();
    let file = certs.0.join("deploy.toml");
    let text =
        "protocol = \"concurrent_send\"\n[roles]\nKS = \"127.0.0.1:0\"\nC = \"localhost:1\"\n";
    std::fs::write(&file, text).unwrap();
    let output = Command::new(binary("concurrent_send"))
        .args(["--role", "KS", "--config"])
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    // Status 2: bad configuration (mpst_wire::RoleExit).
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("insecure_plaintext"), "{stderr}");
}

#[test]
fn a_bad_role_fails_with_a_message_not_a_hang() {
    let output = Command::new(binary("concurrent_send"))
        .args(["--role", "Nobody"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Nobody is not a role here: KS, CS, S, C"),
        "{stderr}"
    );
    let output = Command::new(binary("concurrent_send"))
        .args(["--listen", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_role_without_an_identity_is_refused_with_a_message() {
    let output = Command::new(binary("concurrent_send"))
        .args(["--role", "S"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--certs DIR"), "{stderr}");
    assert!(stderr.contains("--insecure-plaintext"), "{stderr}");
}
