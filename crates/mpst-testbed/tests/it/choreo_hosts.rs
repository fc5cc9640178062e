//! Choreographies across hosts (issue 23, item 3): every role of `mpst-choreo` on its own
//! host of a bed, addressed by host name, proving its role with a certificate of one
//! deployment (mutual TLS over TCP, role certificates over QUIC), over links that delay
//! and jitter (so lanes reorder) and, for QUIC, drop datagrams:
//!
//! - the paper's figures and model serving complete and give what they give in memory;
//! - under reordering links the integrity keys bind every value right (Figure 2, whose
//!   two messages to the client are both strings, over many seeds and sessions), while
//!   an observer of arrival order shows the links really reordered;
//! - a partition mid-run gives every role waiting on the cut-off host a typed error
//!   naming its silent peer within its receive time-out, and nothing hangs.

use crate::cluster;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cluster::{bed, connect, host_of, in_memory, peer_named, Cluster, OrderLog, Setup};
use mpst_choreo::paper::{clients, compute_at, concurrent_send, pipeline, producers};
use mpst_choreo::{
    roles, Choreography, EndpointConfig, Located, Op, Result, Role, RoleName, RoleSet,
};
use mpst_testbed::Impairment;

/// 2 ms ± 2 ms each way: messages sent close together overtake each other.
fn jitter() -> Impairment {
    Impairment::none()
        .delay(Duration::from_millis(2))
        .jitter(Duration::from_millis(2))
}

/// Runs `ch` once over `cluster` and asserts every role finished and the reports equal
/// the in-memory run's.
fn same_as_in_memory<Ch, X>(
    cluster: &Cluster,
    what: &str,
    session: u64,
    ch: Ch,
    report: fn(X) -> Option<String>,
) where
    Ch: Choreography<X> + Clone + 'static,
    X: Send + 'static,
{
    let want = in_memory(ch.clone(), report);
    assert!(!want.is_empty(), "{what}: in memory reports nothing");
    let mut got = Vec::new();
    for (role, mut outcomes) in cluster.run(&[(session, ch)], report) {
        let outcome = outcomes.pop().expect("one session");
        got.extend(outcome.unwrap_or_else(|e| panic!("{what}: {role}: {e}")));
    }
    assert_eq!(got, want, "{what}: across hosts vs in memory");
}

/// Every transport (TCP, then QUIC whose links also drop 2 % of datagrams) on one bed
/// with a host per role, running `run` on each cluster; the datagrams the links dropped.
fn over_both(test: &str, roles: &[RoleName], run: impl Fn(&Cluster, &str)) -> Option<u64> {
    let bed = bed(test, roles, jitter(), 23)?;
    for quic in [false, true] {
        let link = if quic { jitter().loss(0.02) } else { jitter() };
        for a in roles {
            for l in bed.links_of(&host_of(a)) {
                l.set_impairment(link.clone());
            }
        }
        let cluster = connect(&bed, roles, &Setup::new(quic));
        run(&cluster, if quic { "quic" } else { "tcp" });
        cluster.close();
    }
    let links = roles.iter().flat_map(|r| bed.links_of(&host_of(r)));
    // Each link is seen from both its hosts: count each direction once.
    let dropped: u64 = links.map(|l| l.stats().outbound.dropped).sum();
    Some(dropped)
}

#[test]
fn the_paper_figures_across_hosts_give_what_they_give_in_memory() {
    let test = "the_paper_figures_across_hosts_give_what_they_give_in_memory";
    // Figure 1: concurrent producers.
    let Some(mut dropped) = over_both(test, &producers::Roles::names(), |c, net| {
        let p = producers::Params::example();
        let what = format!("figure 1 over {net}");
        same_as_in_memory(
            c,
            &what,
            0,
            producers::ConcurrentProducers(p),
            producers::report,
        );
    }) else {
        return;
    };
    // Figures 2 and 15: concurrent send, out of order and its in-order twin.
    dropped += over_both(test, &concurrent_send::Roles::names(), |c, net| {
        let costs = concurrent_send::Costs::example();
        let ozone = concurrent_send::ConcurrentSend { client: 5, costs };
        let what = format!("figure 2 over {net}");
        same_as_in_memory(c, &what, 0, ozone, concurrent_send::report);
        let in_order = concurrent_send::InOrderSend { client: 5, costs };
        same_as_in_memory(c, &what, 1, in_order, concurrent_send::report);
    })
    .unwrap_or(0);
    // Figure 17: concurrent clients.
    dropped += over_both(test, &clients::Roles::names(), |c, net| {
        let p = clients::Params::example();
        let what = format!("figure 17 over {net}");
        same_as_in_memory(c, &what, 0, clients::ConcurrentClients(p), clients::report);
    })
    .unwrap_or(0);
    // §5.3: model serving, out of order and in order.
    dropped += over_both(test, &pipeline::Roles::names(), |c, net| {
        let p = pipeline::Params::example();
        let what = format!("model serving over {net}");
        let ozone = pipeline::ModelServing::out_of_order(p);
        same_as_in_memory(c, &what, 0, ozone, pipeline::report);
        let in_order = pipeline::ModelServing::in_order(p);
        same_as_in_memory(c, &what, 1, in_order, pipeline::report);
    })
    .unwrap_or(0);
    eprintln!("QUIC datagrams dropped on the way: {dropped}");
    assert!(dropped > 0, "the QUIC links never dropped a datagram");
}

/// Seeds of the beds of the binding test, and sessions per seed and transport.
const SEEDS: [u64; 8] = [101, 202, 303, 404, 505, 606, 707, 808];
const SESSIONS: u64 = 15;
/// Sessions run at once (so that many envelopes share the lanes).
const BATCH: u64 = 15;

#[test]
fn under_reordering_links_the_integrity_keys_bind_every_value() {
    let test = "under_reordering_links_the_integrity_keys_bind_every_value";
    let roles = concurrent_send::Roles::names();
    let (mut runs, mut wrong) = (0u64, Vec::new());
    let (mut overtaken, mut arrivals) = (0, 0);
    for seed in SEEDS {
        let Some(bed) = bed(test, &roles, jitter(), seed) else {
            return;
        };
        for quic in [false, true] {
            let log = Arc::new(OrderLog::default());
            let setup = Setup {
                order: Some(log.clone()),
                ..Setup::new(quic)
            };
            let cluster = connect(&bed, &roles, &setup);
            for start in (0..SESSIONS).step_by(BATCH as usize) {
                // A fresh client per session: its key and text are its own.
                let sessions: Vec<_> = (start..start + BATCH)
                    .map(|n| {
                        let client = seed * 1000 + n;
                        let costs = concurrent_send::Costs::default();
                        (n, concurrent_send::ConcurrentSend { client, costs })
                    })
                    .collect();
                for (role, outcomes) in cluster.run(&sessions, concurrent_send::report) {
                    for ((_, ch), outcome) in sessions.iter().zip(outcomes) {
                        let got = outcome.unwrap_or_else(|e| panic!("{role}: {e}"));
                        if role.as_str() != "C" {
                            continue;
                        }
                        runs += 1;
                        let want = format!("{:?}", concurrent_send::expected(ch.client));
                        if got.as_deref() != Some(want.as_str()) {
                            wrong.push(format!("seed {seed}: {got:?}, want {want}"));
                        }
                    }
                }
            }
            cluster.close();
            overtaken += log.overtaken();
            arrivals += log.arrivals();
        }
    }
    eprintln!(
        "{runs} runs over {} seeds: {} wrong bindings; {overtaken} of {} envelopes \
         overtaken on the way",
        SEEDS.len(),
        wrong.len(),
        arrivals
    );
    assert!(runs >= 200, "only {runs} runs");
    assert!(wrong.is_empty(), "wrong bindings: {wrong:?}");
    assert!(overtaken > 0, "the links never reordered a message");
}

/// The check above can fail: a receiver that ignores integrity keys (binding each
/// sender's messages in arrival order, `EndpointConfig::ignore_keys`, a test-only negative
/// control) over the same links is caught binding wrong values.
#[test]
fn a_receiver_that_ignores_keys_is_caught_across_hosts() {
    let test = "a_receiver_that_ignores_keys_is_caught_across_hosts";
    let roles = concurrent_send::Roles::names();
    let Some(bed) = bed(test, &roles, jitter(), SEEDS[0]) else {
        return;
    };
    let fifo = EndpointConfig {
        ignore_keys: true,
        recv_timeout: Duration::from_secs(2),
        ..EndpointConfig::default()
    };
    let setup = Setup {
        config: fifo,
        ..Setup::new(false)
    };
    let cluster = connect(&bed, &roles, &setup);
    let sessions: Vec<_> = (0..BATCH)
        .map(|n| {
            let costs = concurrent_send::Costs::default();
            (n, concurrent_send::ConcurrentSend { client: n, costs })
        })
        .collect();
    let mut wrong = 0;
    for (role, outcomes) in cluster.run(&sessions, concurrent_send::report) {
        if role.as_str() != "C" {
            continue;
        }
        for ((_, ch), outcome) in sessions.iter().zip(outcomes) {
            let want = format!("{:?}", concurrent_send::expected(ch.client));
            if let Ok(Some(got)) = outcome {
                wrong += usize::from(got != want);
            }
        }
    }
    cluster.close();
    eprintln!("negative control: {wrong} of {BATCH} sessions bound wrong values");
    assert!(wrong > 0, "ignoring keys was never caught");
}

roles! {
    /// The host that is cut off.
    pub struct Hub;
    /// A leaf.
    pub struct L1;
    /// Another leaf.
    pub struct L2;
}

/// Two rounds: the hub sends a number to each leaf, each sends it back; between the
/// rounds every role waits until the test opens `gate` (after cutting the hub off).
#[derive(Clone)]
struct TwoRounds {
    /// Roles that reached the gate.
    reached: Arc<AtomicUsize>,
    gate: tokio::sync::watch::Receiver<bool>,
}

impl TwoRounds {
    async fn pause<R: Role>(&self, at: Located<(), R>) {
        let (reached, mut gate) = (self.reached.clone(), self.gate.clone());
        compute_at(at, |()| async move {
            reached.fetch_add(1, Ordering::SeqCst);
            let _ = gate.wait_for(|open| *open).await;
        })
        .await;
    }
}

impl Choreography<Located<u64, Hub>> for TwoRounds {
    type Roles = RoleSet![Hub, L1, L2];

    async fn run(self, op: &Op<Self::Roles>) -> Result<Located<u64, Hub>> {
        let x = op.locally(Hub, |_| 1u64);
        // Round 1 (each round written out: a key names its call site).
        let a = op.comm(Hub, L1, &x).await?;
        let b = op.comm(Hub, L2, &x).await?;
        let a = op.comm(L1, Hub, &a).await?;
        let b = op.comm(L2, Hub, &b).await?;
        let x = op.locally(Hub, |un| un.unwrap(&a) + un.unwrap(&b));
        futures::join!(
            self.pause(op.locally(Hub, |_| ())),
            self.pause(op.locally(L1, |_| ())),
            self.pause(op.locally(L2, |_| ())),
        );
        // Round 2, after the test cut the hub off.
        let a = op.comm(Hub, L1, &x).await?;
        let b = op.comm(Hub, L2, &x).await?;
        let a = op.comm(L1, Hub, &a).await?;
        let b = op.comm(L2, Hub, &b).await?;
        let x = op.locally(Hub, |un| un.unwrap(&a) + un.unwrap(&b));
        Ok(x)
    }
}

#[test]
fn a_partition_mid_run_fails_every_waiting_role_naming_its_peer_in_time() {
    let test = "a_partition_mid_run_fails_every_waiting_role_naming_its_peer_in_time";
    let roles = <RoleSet![Hub, L1, L2]>::names();
    let Some(bed) = bed(test, &roles, jitter(), 7) else {
        return;
    };
    let recv_timeout = Duration::from_secs(1);
    for quic in [false, true] {
        let setup = Setup {
            config: EndpointConfig {
                recv_timeout,
                ..EndpointConfig::default()
            },
            ..Setup::new(quic)
        };
        let cluster = connect(&bed, &roles, &setup);
        let (open, gate) = tokio::sync::watch::channel(false);
        let reached = Arc::new(AtomicUsize::new(0));
        let ch = TwoRounds {
            reached: reached.clone(),
            gate,
        };
        let started = Instant::now();
        let outcomes = std::thread::scope(|s| {
            let running = s.spawn(|| cluster.run(&[(0, ch)], |x| Some(format!("{x:?}"))));
            // Round 1 done everywhere: cut the hub off, then let round 2 begin.
            while reached.load(Ordering::SeqCst) < 3 {
                assert!(started.elapsed() < cluster::LIMIT, "round 1 never ended");
                std::thread::sleep(Duration::from_millis(1)); // polling, not timing
            }
            for link in bed.links_of("hub") {
                link.partition();
            }
            let cut = Instant::now();
            open.send_replace(true);
            let outcomes = running.join().expect("the sessions");
            (outcomes, cut.elapsed())
        });
        let (outcomes, after) = outcomes;
        let net = if quic { "quic" } else { "tcp" };
        for (role, mut outcome) in outcomes {
            let error = match outcome.pop().expect("one session") {
                Ok(x) => panic!("{net}: {role} finished despite the partition: {x:?}"),
                Err(e) => e,
            };
            eprintln!("{net}: {role} after {after:?}: {error}");
            let named = peer_named(&error).map(RoleName::as_str);
            let want: &[&str] = if role.as_str() == "Hub" {
                &["L1", "L2"]
            } else {
                &["Hub"]
            };
            assert!(
                named.is_some_and(|n| want.contains(&n)),
                "{net}: {role} failed without naming {want:?}: {error}"
            );
        }
        // Every role gave up by its receive time-out (with room for a busy machine).
        assert!(
            after < recv_timeout + Duration::from_secs(4),
            "{net}: the errors took {after:?}"
        );
        for link in bed.links_of("hub") {
            link.heal();
        }
        cluster.close();
    }
}

/// The client of the `concurrent_send` example binary (its `CLIENT`).
const EXAMPLE_CLIENT: u64 = 7;

/// mpst-choreo's `concurrent_send` example as four OS processes, each started on its own
/// host as an operator would (`Host::role`: one TOML file per role, its path in
/// `MPST_CONFIG` and `--config`) naming its listen address, its peers by host name and
/// its identity files (written by `mpst_wire::certs::write_deployment`).
#[test]
fn the_concurrent_send_example_runs_as_four_processes_on_four_hosts() {
    let test = "the_concurrent_send_example_runs_as_four_processes_on_four_hosts";
    // `cargo test --workspace` (CI) builds every example beside the test binaries.
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("the deps directory");
    let bin = deps.with_file_name("examples").join("concurrent_send");
    let roles = concurrent_send::Roles::names();
    let Some(bed) = bed(test, &roles, jitter(), 11) else {
        return;
    };
    if !bin.exists() {
        let why = format!(
            "{} is missing: `cargo build -p mpst-choreo --example concurrent_send` \
             (or `cargo test --workspace`) builds it",
            bin.display()
        );
        mpst_testbed::skip_or_fail(test, &why);
        return;
    }
    let certs = tempfile::tempdir().expect("a temporary directory");
    let names: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
    mpst_wire::certs::write_deployment(certs.path(), "concurrent_send", &names)
        .expect("certificates written");
    let mut processes = Vec::new();
    for role in &roles {
        let host = bed.host(&host_of(role));
        let (cert, key) = mpst_wire::certs::role_files(certs.path(), role.as_str());
        let mut toml = format!(
            "role = \"{role}\"\nprotocol = \"concurrent_send\"\nlisten = \"0.0.0.0:{}\"\n\
             [security]\nca = {:?}\ncert = {cert:?}\nkey = {key:?}\n[peers]\n",
            cluster::TCP_PORT,
            certs.path().join("ca.pem"),
        );
        for peer in roles.iter().filter(|r| *r != role) {
            toml.push_str(&format!(
                "{peer} = \"{}:{}\"\n",
                host_of(peer),
                cluster::TCP_PORT
            ));
        }
        let mut command = host.role(&bin, &toml).expect("the configuration written");
        command
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        processes.push((
            role.clone(),
            host.spawn(&mut command).expect("a role starts"),
        ));
    }
    let want = format!("result C {:?}", concurrent_send::expected(EXAMPLE_CLIENT));
    let mut results = Vec::new();
    for (role, process) in processes {
        let output = process
            .wait_output(cluster::LIMIT)
            .expect("the role finishes in time");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(
            output.status.success(),
            "{role}: {}: {stderr}",
            output.status
        );
        results.extend(
            stdout
                .lines()
                .filter(|l| l.starts_with("result"))
                .map(str::to_string),
        );
    }
    assert_eq!(results, [want]);
}
