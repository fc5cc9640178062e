//! Sessions across hosts (issue 23, item 2): the `mpst::net` examples' role programs
//! (`double_buffering_net`, `three_buyers_net` of mpst-examples: the examples' session
//! functions, unchanged) each started on its own host of a bed (`Host::command`), peers
//! addressed by host name, every role proving itself with mutual TLS (identities from
//! `mpst_wire::certs::write_deployment`), over links of 20 ms ± 5 ms one way with 1 %
//! loss (for TCP, the relay's seeded stalls):
//!
//! - both protocols complete and give what they give in memory;
//! - a partition mid-session fails every surviving role, naming its peer, within its
//!   receive time-out, and nothing hangs;
//! - a role killed mid-session and started again runs the next session with the others.
//!
//! The role programs bind `127.0.0.1:0` and say `LISTEN <address>` (the launcher's
//! rendezvous of `mpst_examples::net`); a forwarder on each host (a task on the host's
//! runtime) relays the host's role port to that address, so peers reach the role by
//! `host:port` through the bed's links.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mpst_testbed::{Impairment, Process, TestBed};

/// The TCP port every role is reached on (relayed on every link).
const PORT: u16 = 7400;
/// How long one session may take at most.
const LIMIT: Duration = Duration::from_secs(25);

/// 20 ms ± 5 ms each way, 1 % loss.
fn link() -> Impairment {
    Impairment::none()
        .delay(Duration::from_millis(20))
        .jitter(Duration::from_millis(5))
        .loss(0.01)
}

/// The role program `name` built beside the test binaries, or `None` (skipped or failed
/// by the test bed's rule) when it is missing.
fn program(test: &str, name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .expect("the target directory")
        .join(name);
    if bin.exists() {
        return Some(bin);
    }
    let why = format!(
        "{} is missing: `cargo build -p mpst-examples --bins` (or `cargo test \
         --workspace`) builds it",
        bin.display()
    );
    mpst_testbed::skip_or_fail(test, &why);
    None
}

/// A bed with one host per role (its name in lower case), fully meshed with [`link`].
fn hosts(test: &str, roles: &[&str], seed: u64) -> Option<TestBed> {
    let mut builder = TestBed::builder();
    for role in roles {
        builder = builder.host(&role.to_ascii_lowercase());
    }
    builder
        .full_mesh(link())
        .tcp_port(PORT)
        .seed(seed)
        .build_or_skip(test)
}

/// The roles of one protocol on a bed: a forwarder per host from [`PORT`] to the port
/// its role program bound on the host's loopback, and the identities of the deployment.
struct Deployment {
    protocol: &'static str,
    roles: Vec<&'static str>,
    /// Where each host's forwarder relays to (the role program's loopback port).
    targets: Vec<Arc<AtomicU16>>,
    _runtimes: Vec<tokio::runtime::Runtime>,
    certs: tempfile::TempDir,
}

impl Deployment {
    fn new(bed: &TestBed, protocol: &'static str, roles: &[&'static str]) -> Self {
        let certs = tempfile::tempdir().expect("a temporary directory");
        let names: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
        mpst_wire::certs::write_deployment(certs.path(), protocol, &names)
            .expect("certificates written");
        let (mut targets, mut runtimes) = (Vec::new(), Vec::new());
        for role in roles {
            let runtime = bed
                .host(&role.to_ascii_lowercase())
                .runtime(1)
                .expect("a runtime in the host");
            let target = Arc::new(AtomicU16::new(0));
            // Detached: the forwarder runs until the runtime is dropped.
            drop(runtime.spawn(forward(target.clone())));
            targets.push(target);
            runtimes.push(runtime);
        }
        Deployment {
            protocol,
            roles: roles.to_vec(),
            targets,
            _runtimes: runtimes,
            certs,
        }
    }

    /// The configuration every role reads: peers by host name, mutual TLS.
    fn toml(&self, receive_timeout: Option<Duration>) -> String {
        let dir = self.certs.path();
        let mut toml = format!(
            "protocol = {:?}\nconnect_timeout = \"15s\"\n",
            self.protocol
        );
        if let Some(t) = receive_timeout {
            toml.push_str(&format!("receive_timeout = \"{}ms\"\n", t.as_millis()));
        }
        toml.push_str(&format!(
            "[security]\nca = {:?}\ncert = {:?}\nkey = {:?}\n[roles]\n",
            dir.join("ca.pem"),
            dir.join("{role}.pem"),
            dir.join("{role}.key"),
        ));
        for role in &self.roles {
            toml.push_str(&format!(
                "{role} = \"{}:{PORT}\"\n",
                role.to_ascii_lowercase()
            ));
        }
        toml
    }

    /// Starts `role` on its host with `args`, waits for its `LISTEN` and points the
    /// host's forwarder at it.
    fn start(&self, bed: &TestBed, exe: &Path, role: &str, args: &[&str]) -> Role {
        let host = bed.host(&role.to_ascii_lowercase());
        let mut command = host.command(exe);
        command
            .args(["--role", role])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut process = host.spawn(&mut command).expect("a role starts");
        let stdout = process.take_stdout().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let role = Role {
            name: role.to_string(),
            process,
            lines,
        };
        let listen = role.line(LIMIT).expect("the role says where it listens");
        let port = listen
            .strip_prefix("LISTEN ")
            .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
            .unwrap_or_else(|| panic!("{}: said {listen:?}", role.name))
            .port();
        let at = self.roles.iter().position(|r| *r == role.name).unwrap();
        self.targets[at].store(port, Ordering::SeqCst);
        role
    }

    /// Starts every role, then gives each the configuration.
    fn launch(&self, bed: &TestBed, exe: &Path, args: &[&str], rt: Option<Duration>) -> Vec<Role> {
        let mut roles: Vec<Role> = self
            .roles
            .iter()
            .map(|r| self.start(bed, exe, r, args))
            .collect();
        let toml = self.toml(rt);
        for role in &mut roles {
            let mut stdin = role.process.take_stdin().expect("piped stdin");
            stdin
                .write_all(toml.as_bytes())
                .expect("configuration written");
        }
        roles
    }
}

/// Relays every connection to the host's [`PORT`] to the role program's loopback port.
async fn forward(target: Arc<AtomicU16>) {
    let listener = tokio::net::TcpListener::bind(("0.0.0.0", PORT))
        .await
        .expect("the role port");
    while let Ok((mut inbound, _)) = listener.accept().await {
        let port = target.load(Ordering::SeqCst);
        tokio::spawn(async move {
            if let Ok(mut outbound) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            }
        });
    }
}

/// One running role program.
struct Role {
    name: String,
    process: Process,
    lines: mpsc::Receiver<String>,
}

impl Role {
    /// The next line the role prints within `limit`.
    fn line(&self, limit: Duration) -> Option<String> {
        self.lines.recv_timeout(limit).ok()
    }

    /// The role's last line (`OK ...` or `ERR ...`) once it exits, within `limit`.
    fn finish(mut self, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        let mut last = String::new();
        while let Some(line) = self.line(deadline.saturating_duration_since(Instant::now())) {
            last = line;
        }
        let status = self.process.wait_timeout(Duration::from_secs(5));
        assert!(status.is_ok(), "{} did not exit: {status:?}", self.name);
        last
    }
}

/// What the double-buffering sink reads: `2 * (i * i - 7) + 1` for the `i`-th value.
fn sink_reads(count: i32) -> String {
    let values: Vec<i32> = (0..count).map(|i| 2 * (i * i - 7) + 1).collect();
    format!("OK {values:?}")
}

#[test]
fn double_buffering_and_three_buyers_complete_across_hosts() {
    let test = "double_buffering_and_three_buyers_complete_across_hosts";
    let Some(exe) = program(test, "double_buffering_net") else {
        return;
    };
    let Some(buyers) = program(test, "three_buyers_net") else {
        return;
    };
    let roles = ["S", "K", "T"];
    let Some(bed) = hosts(test, &roles, 31) else {
        return;
    };
    let d = Deployment::new(&bed, "double_buffering/1", &roles);
    let outcomes: Vec<(String, String)> = d
        .launch(&bed, &exe, &["--count", "20"], None)
        .into_iter()
        .map(|r| (r.name.clone(), r.finish(LIMIT)))
        .collect();
    let sink = &outcomes.iter().find(|(r, _)| r == "T").unwrap().1;
    assert_eq!(sink, &sink_reads(20), "{outcomes:?}");
    // The protocol never ends: once the sink has left, the kernel fails naming it and
    // the source fails naming the kernel, as in the examples' own multi-process test.
    for (role, peer) in [("K", "T"), ("S", "K")] {
        let last = &outcomes.iter().find(|(r, _)| r == role).unwrap().1;
        assert!(
            last.starts_with(&format!("ERR role {role}")) && last.contains(peer),
            "{role}: {last}"
        );
    }
    let stalls: u64 = roles
        .iter()
        .flat_map(|r| bed.links_of(&r.to_ascii_lowercase()))
        .map(|l| l.stats().outbound.stalled)
        .sum();
    eprintln!("double buffering: {outcomes:?}; TCP chunks stalled: {stalls}");
    drop(bed);

    let roles = ["A", "B", "C", "S"];
    let Some(bed) = hosts(test, &roles, 32) else {
        return;
    };
    let d = Deployment::new(&bed, "three_buyers/1", &roles);
    for (budget, b, c, s) in [
        (
            "100",
            "BoughtByC(\"\")",
            "BoughtByC(\"Tuesday\")",
            "Some(\"C's address\")",
        ),
        ("20", "Declined", "Declined", "None"),
    ] {
        let got: Vec<String> = d
            .launch(&bed, &buyers, &["--budget-c", budget], None)
            .into_iter()
            .map(|r| r.finish(LIMIT))
            .collect();
        let want: Vec<String> = ["130", b, c, s].iter().map(|x| format!("OK {x}")).collect();
        assert_eq!(got, want, "three buyers, C's budget {budget}");
    }
}

#[test]
fn a_partition_mid_session_fails_every_role_naming_its_peer_in_time() {
    let test = "a_partition_mid_session_fails_every_role_naming_its_peer_in_time";
    let Some(exe) = program(test, "double_buffering_net") else {
        return;
    };
    let roles = ["S", "K", "T"];
    let Some(bed) = hosts(test, &roles, 41) else {
        return;
    };
    let d = Deployment::new(&bed, "double_buffering/1", &roles);
    let receive_timeout = Duration::from_secs(1);
    // `--count 0`: the sink never stops, so the session is under way when K is cut off.
    let running = d.launch(&bed, &exe, &["--count", "0"], Some(receive_timeout));
    for role in &running {
        assert_eq!(
            role.line(LIMIT).as_deref(),
            Some("CONNECTED"),
            "{}",
            role.name
        );
    }
    for link in bed.links_of("k") {
        link.partition();
    }
    let cut = Instant::now();
    for role in running {
        let name = role.name.clone();
        let last = role.finish(LIMIT);
        let after = cut.elapsed();
        eprintln!("{name} after {after:?}: {last}");
        let error = last
            .strip_prefix("ERR ")
            .unwrap_or_else(|| panic!("{name}: {last}"));
        let peers: &[&str] = if name == "K" { &["S", "T"] } else { &["K"] };
        assert!(
            error.contains(&format!("role {name}")) && peers.iter().any(|p| error.contains(p)),
            "{name} failed without naming {peers:?}: {error}"
        );
        // A cut-off peer is silent: the survivors give up by their own receive
        // time-out (a close from K, which fails first, must not cross the partition).
        if name != "K" {
            assert!(error.contains("nothing received within"), "{name}: {error}");
        }
        // Within the receive time-out, with room for a busy machine.
        assert!(
            after < receive_timeout + Duration::from_secs(5),
            "{name}: {after:?}"
        );
    }
}

#[test]
fn a_restarted_role_runs_the_next_session() {
    let test = "a_restarted_role_runs_the_next_session";
    let Some(exe) = program(test, "double_buffering_net") else {
        return;
    };
    let roles = ["S", "K", "T"];
    let Some(bed) = hosts(test, &roles, 51) else {
        return;
    };
    let d = Deployment::new(&bed, "double_buffering/1", &roles);
    let receive_timeout = Some(Duration::from_secs(2));
    let mut running = d.launch(&bed, &exe, &["--count", "0"], receive_timeout);
    for role in &running {
        assert_eq!(
            role.line(LIMIT).as_deref(),
            Some("CONNECTED"),
            "{}",
            role.name
        );
    }
    // K is killed mid-session: its peers fail naming it.
    running[1].process.kill();
    for role in running {
        let name = role.name.clone();
        let last = role.finish(LIMIT);
        if name != "K" {
            assert!(
                last.starts_with("ERR ") && last.contains('K'),
                "{name}: {last}"
            );
        }
    }
    // K started again on its host: the next session runs to the end with it.
    let got: Vec<(String, String)> = d
        .launch(&bed, &exe, &["--count", "10"], receive_timeout)
        .into_iter()
        .map(|r| (r.name.clone(), r.finish(LIMIT)))
        .collect();
    let sink = &got.iter().find(|(r, _)| r == "T").unwrap().1;
    assert_eq!(sink, &sink_reads(10), "{got:?}");
}
