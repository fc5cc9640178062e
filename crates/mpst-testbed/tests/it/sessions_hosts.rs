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
//! Each role program is started as an operator would start it (issue 23 item 5): one TOML
//! file per role (`Host::role`: its path in `MPST_CONFIG` and `--config`) naming its role,
//! its listen address, its peers by host name, its identity files and its time-outs; the
//! program prints `LISTENING <address>`, `CONNECTED` and `OK ...`/`ERR ...` and exits with
//! a status of `mpst_wire::RoleExit`'s table, which the tests check.

use crate::common;

use common::program;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mpst_testbed::{Impairment, Process, TestBed};
use mpst_wire::RoleExit;

/// The TCP port every role listens on (relayed on every link).
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

/// Double buffering's role program, a host for each of its roles and its deployment;
/// `None` once the SKIPPED line is printed (no program, or no root).
fn double_buffering(test: &str, seed: u64) -> Option<(std::path::PathBuf, TestBed, Deployment)> {
    let exe = program(test, "double_buffering_net")?;
    let roles = ["S", "K", "T"];
    let bed = hosts(test, &roles, seed)?;
    Some((exe, bed, Deployment::new("double_buffering/1", &roles)))
}

/// The roles of one protocol on a bed and the identities of the deployment.
struct Deployment {
    protocol: &'static str,
    roles: Vec<&'static str>,
    certs: tempfile::TempDir,
    /// Every role's idle time-out, when not the default.
    idle: Option<Duration>,
}

impl Deployment {
    fn new(protocol: &'static str, roles: &[&'static str]) -> Self {
        let certs = tempfile::tempdir().expect("a temporary directory");
        let names: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
        mpst_wire::certs::write_deployment(certs.path(), protocol, &names)
            .expect("certificates written");
        Deployment {
            protocol,
            roles: roles.to_vec(),
            certs,
            idle: None,
        }
    }

    /// Every role with `idle` as its idle time-out.
    fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle = Some(idle);
        self
    }

    /// `role`'s own configuration file: where it listens, its peers by host name, its
    /// identity files, its time-outs.
    fn toml(&self, role: &str, receive_timeout: Option<Duration>) -> String {
        let dir = self.certs.path();
        let (cert, key) = mpst_wire::certs::role_files(dir, role);
        let mut toml = format!(
            "role = {role:?}\nprotocol = {:?}\nlisten = \"0.0.0.0:{PORT}\"\n\
             connect_timeout = \"15s\"\n",
            self.protocol
        );
        if let Some(t) = receive_timeout {
            toml.push_str(&format!("receive_timeout = \"{}ms\"\n", t.as_millis()));
        }
        if let Some(t) = self.idle {
            toml.push_str(&format!("idle_timeout = \"{}ms\"\n", t.as_millis()));
        }
        toml.push_str("[peers]\n");
        for peer in self.roles.iter().filter(|p| **p != role) {
            let host = peer.to_ascii_lowercase();
            toml.push_str(&format!("{peer} = \"{host}:{PORT}\"\n"));
        }
        toml.push_str(&format!(
            "[security]\nca = {:?}\ncert = {cert:?}\nkey = {key:?}\n",
            dir.join("ca.pem"),
        ));
        toml
    }

    /// Starts `role` on its host, configured by its own TOML file, with `args`.
    fn start(
        &self,
        bed: &TestBed,
        exe: &Path,
        role: &str,
        args: &[&str],
        rt: Option<Duration>,
    ) -> Role {
        let host = bed.host(&role.to_ascii_lowercase());
        let mut command = host
            .role(exe, &self.toml(role, rt))
            .expect("the configuration file written");
        command
            .args(args)
            .env("RUST_LOG", "warn")
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
        Role {
            name: role.to_string(),
            process,
            lines,
        }
    }

    /// Starts every role.
    fn launch(&self, bed: &TestBed, exe: &Path, args: &[&str], rt: Option<Duration>) -> Vec<Role> {
        self.roles
            .iter()
            .map(|r| self.start(bed, exe, r, args, rt))
            .collect()
    }
}

/// One running role program.
struct Role {
    name: String,
    process: Process,
    lines: mpsc::Receiver<String>,
}

impl Role {
    /// The next line the role prints within `limit`, past its `LISTENING <address>`.
    fn line(&self, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            if !line.starts_with("LISTENING ") {
                return Some(line);
            }
        }
    }

    /// The role's last line (`OK ...` or `ERR ...`) once it exits within `limit`, and
    /// what its exit status says.
    fn finish(mut self, limit: Duration) -> (String, Option<RoleExit>) {
        let deadline = Instant::now() + limit;
        let mut last = String::new();
        while let Some(line) = self.line(deadline.saturating_duration_since(Instant::now())) {
            last = line;
        }
        let status = self.process.wait_timeout(Duration::from_secs(5));
        let status = status.unwrap_or_else(|e| panic!("{} did not exit: {e}", self.name));
        (last, status.code().and_then(RoleExit::from_code))
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
    let d = Deployment::new("double_buffering/1", &roles);
    let outcomes: Vec<(String, (String, Option<RoleExit>))> = d
        .launch(&bed, &exe, &["--count", "20"], None)
        .into_iter()
        .map(|r| (r.name.clone(), r.finish(LIMIT)))
        .collect();
    let sink = &outcomes.iter().find(|(r, _)| r == "T").unwrap().1;
    assert_eq!(
        sink,
        &(sink_reads(20), Some(RoleExit::Completed)),
        "{outcomes:?}"
    );
    // The protocol never ends: once the sink has left, the kernel fails naming it and
    // the source fails naming the kernel, as in the examples' own multi-process test;
    // both exit with status 4, a peer lost.
    for (role, peer) in [("K", "T"), ("S", "K")] {
        let (last, exit) = &outcomes.iter().find(|(r, _)| r == role).unwrap().1;
        assert!(
            last.starts_with(&format!("ERR role {role}")) && last.contains(peer),
            "{role}: {last}"
        );
        assert_eq!(*exit, Some(RoleExit::Lost), "{role}: {last}");
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
    let d = Deployment::new("three_buyers/1", &roles);
    for (budget, b, c, s) in [
        (
            "100",
            "BoughtByC(\"\")",
            "BoughtByC(\"Tuesday\")",
            "Some(\"C's address\")",
        ),
        ("20", "Declined", "Declined", "None"),
    ] {
        let got: Vec<(String, Option<RoleExit>)> = d
            .launch(&bed, &buyers, &["--budget-c", budget], None)
            .into_iter()
            .map(|r| r.finish(LIMIT))
            .collect();
        let want: Vec<(String, Option<RoleExit>)> = ["130", b, c, s]
            .iter()
            .map(|x| (format!("OK {x}"), Some(RoleExit::Completed)))
            .collect();
        assert_eq!(got, want, "three buyers, C's budget {budget}");
    }
}

#[test]
fn a_partition_mid_session_fails_every_role_naming_its_peer_in_time() {
    let test = "a_partition_mid_session_fails_every_role_naming_its_peer_in_time";
    let Some((exe, bed, d)) = double_buffering(test, 41) else {
        return;
    };
    let receive_timeout = Duration::from_secs(1);
    // `--count 0`: the sink never stops, so the session is under way when K is cut off.
    let running = d.launch(&bed, &exe, &["--count", "0"], Some(receive_timeout));
    all_connected(&running);
    for link in bed.links_of("k") {
        link.partition();
    }
    // A cut-off peer is silent: the survivors give up by their own receive time-out (a
    // close from K, which fails first, must not cross the partition).
    all_lost_in_time(running, Instant::now(), |name| match name {
        "K" => (&["S", "T"], None, receive_timeout),
        _ => (&["K"], Some("nothing received within"), receive_timeout),
    });
}

/// What a role must say when it ends after a partition: the peers one of which its error
/// names, what else the error says (if anything in particular), and its time-out.
type Verdict = (&'static [&'static str], Option<&'static str>, Duration);

/// Every role printed `CONNECTED` first (each named when it did not).
fn all_connected(running: &[Role]) {
    for role in running {
        assert_eq!(
            role.line(LIMIT).as_deref(),
            Some("CONNECTED"),
            "{}",
            role.name
        );
    }
}

/// Waits for every role of `running` to end by itself after the cut at `cut`: each exits
/// with status 4 (a peer lost), its error names it and one of the peers `verdict` gives,
/// says what `verdict` says, and comes within its time-out (with room for a busy machine).
fn all_lost_in_time(running: Vec<Role>, cut: Instant, verdict: impl Fn(&str) -> Verdict) {
    for role in running {
        let name = role.name.clone();
        let (last, exit) = role.finish(LIMIT);
        let after = cut.elapsed();
        eprintln!("{name} after {after:?}: {last}");
        assert_eq!(exit, Some(RoleExit::Lost), "{name}: {last}");
        let error = last
            .strip_prefix("ERR ")
            .unwrap_or_else(|| panic!("{name}: {last}"));
        let (peers, says, bound) = verdict(&name);
        assert!(
            error.contains(&format!("role {name}")) && peers.iter().any(|p| error.contains(p)),
            "{name} failed without naming {peers:?}: {error}"
        );
        if let Some(says) = says {
            assert!(error.contains(says), "{name}: {error}");
        }
        assert!(after < bound + Duration::from_secs(5), "{name}: {after:?}");
    }
}

/// A role that only sends, slowly (`ticks_net`'s producer P, one tick every 200 ms to
/// the consumer C): it completes across hosts only once C has acknowledged every tick;
/// and when its link is cut mid-session, P learns it from the missing acknowledgements
/// within its idle time-out (it never receives, and TCP alone would buffer for minutes),
/// C by its receive time-out: both exit by themselves with status 4 naming the other.
#[test]
fn a_partition_fails_a_slow_pure_sender_and_its_peer_naming_each_other_in_time() {
    let test = "a_partition_fails_a_slow_pure_sender_and_its_peer_naming_each_other_in_time";
    let Some(exe) = program(test, "ticks_net") else {
        return;
    };
    let roles = ["P", "C"];
    let Some(bed) = hosts(test, &roles, 43) else {
        return;
    };
    let idle = Duration::from_millis(1500);
    let receive_timeout = Duration::from_secs(2);
    let d = Deployment::new("ticks/1", &roles).idle_timeout(idle);
    // Five ticks (0 + 1 + 2 + 3 + 4 = 10) complete, every one acknowledged.
    let got: Vec<_> = d
        .launch(
            &bed,
            &exe,
            &["--count", "5", "--pause", "200"],
            Some(receive_timeout),
        )
        .into_iter()
        .map(|r| r.finish(LIMIT))
        .collect();
    let want = [
        ("OK 5", RoleExit::Completed),
        ("OK 10", RoleExit::Completed),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(l, e)| (l.to_string(), Some(*e)))
        .collect();
    assert_eq!(got, want);
    // `--count 0`: P never stops, so the session is under way when the link is cut.
    let running = d.launch(
        &bed,
        &exe,
        &["--count", "0", "--pause", "200"],
        Some(receive_timeout),
    );
    all_connected(&running);
    for link in bed.links_of("p") {
        link.partition();
    }
    // P never receives: the missing acknowledgements tell it, within its idle time-out;
    // C learns it by its receive time-out.
    all_lost_in_time(running, Instant::now(), |name| match name {
        "P" => (&["peer C"], Some("acknowledged none of the last"), idle),
        _ => (
            &["peer P"],
            Some("nothing received within"),
            receive_timeout,
        ),
    });
}

#[test]
fn a_restarted_role_runs_the_next_session() {
    let test = "a_restarted_role_runs_the_next_session";
    let Some((exe, bed, d)) = double_buffering(test, 51) else {
        return;
    };
    let receive_timeout = Some(Duration::from_secs(2));
    let mut running = d.launch(&bed, &exe, &["--count", "0"], receive_timeout);
    all_connected(&running);
    // K is killed mid-session: its peers fail naming it.
    running[1].process.kill();
    for role in running {
        let name = role.name.clone();
        let (last, exit) = role.finish(LIMIT);
        if name != "K" {
            assert!(
                last.starts_with("ERR ") && last.contains('K'),
                "{name}: {last}"
            );
            assert_eq!(exit, Some(RoleExit::Lost), "{name}: {last}");
        }
    }
    // K started again on its host: the next session runs to the end with it.
    let got: Vec<(String, (String, Option<RoleExit>))> = d
        .launch(&bed, &exe, &["--count", "10"], receive_timeout)
        .into_iter()
        .map(|r| (r.name.clone(), r.finish(LIMIT)))
        .collect();
    let sink = &got.iter().find(|(r, _)| r == "T").unwrap().1;
    assert_eq!(
        sink,
        &(sink_reads(10), Some(RoleExit::Completed)),
        "{got:?}"
    );
}

#[test]
fn a_role_whose_peer_never_comes_exits_3_within_its_connect_timeout() {
    let test = "a_role_whose_peer_never_comes_exits_3_within_its_connect_timeout";
    let Some((exe, bed, d)) = double_buffering(test, 61) else {
        return;
    };
    // Only K runs; its time-out comes from the environment, over its file's 15 s.
    let host = bed.host("k");
    let mut command = host.role(&exe, &d.toml("K", None)).expect("written");
    command
        .env("MPST_CONNECT_TIMEOUT", "2s")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let started = Instant::now();
    let output = host
        .spawn(&mut command)
        .expect("K starts")
        .wait_output(LIMIT)
        .expect("K exits");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code().and_then(RoleExit::from_code),
        Some(RoleExit::Unreachable),
        "{stdout}"
    );
    assert!(
        stdout.contains("not connected before the deadline"),
        "{stdout}"
    );
    // Its 2 s connect time-out ended it, not the file's 15 s (room for a busy machine).
    assert!(took < Duration::from_secs(10), "{took:?}");
}
