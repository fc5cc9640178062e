//! Choreographies across hosts (issue 23, items 3 and 5): every role of one of
//! mpst-choreo's example programs (`crates/mpst-choreo/examples`) started as its own
//! process on its own host of a bed, the way an orchestrator starts it (one TOML file per
//! role naming its listen address, its peers by host name and its identity files), over
//! mutual TLS or QUIC, on links that delay and jitter (so lanes reorder) and, for QUIC,
//! drop datagrams; each role's exit status and output checked from outside:
//!
//! - the paper's figures and model serving complete (status 0) and print what the same
//!   program prints with every role in one process (in memory);
//! - under reordering links the integrity keys bind every value right (Figure 2, whose
//!   two messages to the client are both strings, over many seeds and sessions of
//!   distinct clients), while the roles' recorded steps show the links really reordered,
//!   and a receiver that ignores keys over the same links is caught;
//! - a partition mid-run makes every role exit by itself with status 4 (a peer lost or
//!   silent) naming a peer, within the time-outs of its configuration file — also the
//!   role behind the cut that only sends, and the roles in front of it.

use crate::cluster::{self, Deployment, Exit, Running, bed, example, host_of, in_memory, results};

use std::collections::HashMap;
use std::time::{Duration, Instant};

use mpst_choreo::{RoleName, RoleSet};
use mpst_choreo_paper::concurrent_send;
use mpst_testbed::Impairment;
use mpst_wire::RoleExit;

/// 2 ms ± 2 ms each way: messages sent close together overtake each other.
fn jitter() -> Impairment {
    Impairment::none()
        .delay(Duration::from_millis(2))
        .jitter(Duration::from_millis(2))
}

/// The role names of a role set.
fn names<R: RoleSet>() -> Vec<String> {
    R::names().iter().map(RoleName::to_string).collect()
}

/// Runs `program` (with `args`, e.g. `--in-order`) with every role on its own host, over
/// TCP and then QUIC whose links also drop 2 % of datagrams, and asserts that every role
/// completes and that the `result` lines are those of the in-memory run; the datagrams
/// the links dropped.
fn same_as_in_memory(test: &str, program: &str, roles: &[String], args: &[&str]) -> Option<u64> {
    let program = example(test, program)?;
    let bed = bed(test, roles, jitter(), 23)?;
    let deployment = Deployment::new(&program, roles);
    let mut want = in_memory(&program, args);
    want.sort();
    assert!(
        !want.is_empty(),
        "{program:?} {args:?}: in memory reports nothing"
    );
    for quic in [false, true] {
        let link = if quic { jitter().loss(0.02) } else { jitter() };
        for role in roles {
            for l in bed.links_of(&host_of(role)) {
                l.set_impairment(link.clone());
            }
        }
        let net = if quic { "quic" } else { "tcp" };
        let what = format!("{} {args:?} over {net}", program.display());
        let exits = deployment.run(&bed, quic, None, args);
        for exit in &exits {
            exit.assert_completed(&what);
        }
        let mut got = results(&exits);
        got.sort();
        assert_eq!(got, want, "{what}: across hosts vs in memory");
    }
    let links = roles.iter().flat_map(|r| bed.links_of(&host_of(r)));
    Some(links.map(|l| l.stats().outbound.dropped).sum())
}

#[test]
fn the_paper_examples_across_hosts_print_what_they_print_in_memory() {
    use mpst_choreo_paper::{clients, pipeline, producers};
    let test = "the_paper_examples_across_hosts_print_what_they_print_in_memory";
    let runs: [(&str, Vec<String>, &[&str]); 6] = [
        // Figure 1.
        ("concurrent_producers", names::<producers::Roles>(), &[]),
        // Figures 2 and 15, out of order and its in-order twin.
        ("concurrent_send", names::<concurrent_send::Roles>(), &[]),
        (
            "concurrent_send",
            names::<concurrent_send::Roles>(),
            &["--in-order"],
        ),
        // Figure 17.
        ("concurrent_clients", names::<clients::Roles>(), &[]),
        // §5.3, out of order and in order.
        ("model_serving", names::<pipeline::Roles>(), &[]),
        ("model_serving", names::<pipeline::Roles>(), &["--in-order"]),
    ];
    let mut dropped = 0;
    for (program, roles, args) in runs {
        match same_as_in_memory(test, program, &roles, args) {
            Some(n) => dropped += n,
            None => return,
        }
    }
    eprintln!("QUIC datagrams dropped on the way: {dropped}");
    assert!(dropped > 0, "the QUIC links never dropped a datagram");
}

/// The client of the `concurrent_send` example's session 0 (its `CLIENT`); session `n`
/// is client `EXAMPLE_CLIENT + n`.
const EXAMPLE_CLIENT: u64 = 7;
/// Seeds of the beds of the binding test.
const SEEDS: [u64; 8] = [101, 202, 303, 404, 505, 606, 707, 808];
/// Sessions per run of the four roles, all at once (so that many envelopes share the
/// lanes); 8 seeds × 2 transports × 15 = 240 runs.
const SESSIONS: u64 = 15;

/// Envelopes on one pair of roles that arrived after one sent later than them on the
/// same pair (overtaken on the way), from the senders' and receivers' `step` lines.
fn overtaken(steps: &[&str]) -> usize {
    let mut sent: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
    let mut arrived: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
    for step in steps {
        let words: Vec<&str> = step.split(' ').collect();
        if let [kind, from, to, key, ..] = words.as_slice() {
            let log = if *kind == "sent" {
                &mut sent
            } else {
                &mut arrived
            };
            log.entry((*from, *to)).or_default().push(*key);
        }
    }
    let mut overtaken = 0;
    for (pair, keys) in &arrived {
        let Some(order) = sent.get(pair) else {
            continue;
        };
        let index: HashMap<&str, usize> = order.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let mut latest = None;
        for key in keys {
            let Some(&i) = index.get(key) else { continue };
            match latest {
                Some(l) if i < l => overtaken += 1,
                _ => latest = Some(i),
            }
        }
    }
    overtaken
}

#[test]
fn under_reordering_links_the_integrity_keys_bind_every_value() {
    let test = "under_reordering_links_the_integrity_keys_bind_every_value";
    let Some(program) = example(test, "concurrent_send") else {
        return;
    };
    let roles = names::<concurrent_send::Roles>();
    let deployment = Deployment::new(&program, &roles);
    let sessions = SESSIONS.to_string();
    let args = ["--sessions", &sessions, "--record"];
    let want: Vec<String> = (0..SESSIONS)
        .map(|n| {
            format!(
                "result C {:?}",
                concurrent_send::expected(EXAMPLE_CLIENT + n)
            )
        })
        .collect();
    let (mut runs, mut wrong, mut reordered) = (0, Vec::new(), 0);
    for seed in SEEDS {
        let Some(bed) = bed(test, &roles, jitter(), seed) else {
            return;
        };
        for quic in [false, true] {
            let exits = deployment.run(&bed, quic, None, &args);
            for exit in &exits {
                exit.assert_completed(&format!("seed {seed}, quic {quic}"));
            }
            let got = results(&exits);
            runs += got.len();
            for (got, want) in got.iter().zip(&want) {
                if got != want {
                    wrong.push(format!("seed {seed}: {got}, want {want}"));
                }
            }
            assert_eq!(got.len(), want.len(), "seed {seed}: {got:?}");
            let steps: Vec<&str> = exits.iter().flat_map(|e| e.steps()).collect();
            reordered += overtaken(&steps);
        }
    }
    eprintln!(
        "{runs} runs over {} seeds: {} wrong bindings; {reordered} envelopes overtaken on \
         the way",
        SEEDS.len(),
        wrong.len()
    );
    assert!(runs >= 200, "only {runs} runs");
    assert!(wrong.is_empty(), "wrong bindings: {wrong:?}");
    assert!(reordered > 0, "the links never reordered a message");
}

/// The check above can fail: the same program with a receiver that ignores integrity
/// keys (binding each sender's messages in arrival order: `--ignore-keys`, a test-only
/// negative control of mpst-choreo's `testing` feature) over the same links is caught
/// binding wrong values.
#[test]
fn a_receiver_that_ignores_keys_is_caught_across_hosts() {
    let test = "a_receiver_that_ignores_keys_is_caught_across_hosts";
    let Some(program) = example(test, "concurrent_send") else {
        return;
    };
    let roles = names::<concurrent_send::Roles>();
    let Some(bed) = bed(test, &roles, jitter(), SEEDS[0]) else {
        return;
    };
    let deployment = Deployment::new(&program, &roles);
    let sessions = SESSIONS.to_string();
    let args = ["--sessions", &sessions, "--ignore-keys"];
    let exits = deployment.run(&bed, false, Some("2s"), &args);
    // A value is wrong when it is no session's delivery (a session bound another
    // session's key or text); a whole delivery swapped between sessions is not counted.
    let right: Vec<String> = (0..SESSIONS)
        .map(|n| {
            format!(
                "result C {:?}",
                concurrent_send::expected(EXAMPLE_CLIENT + n)
            )
        })
        .collect();
    let got = results(&exits);
    let wrong = got.iter().filter(|g| !right.contains(g)).count();
    eprintln!(
        "negative control: {wrong} of {} delivered sessions bound wrong values ({} of \
         {SESSIONS} delivered)",
        got.len(),
        got.len()
    );
    assert!(wrong > 0, "ignoring keys was never caught: {exits:?}");
}

/// The `receive_timeout` and `idle_timeout` of every role in the failure tests.
const TIMEOUT: Duration = Duration::from_secs(2);
/// Room for a busy machine beyond a time-out.
const SLACK: Duration = Duration::from_secs(4);

/// `concurrent_send`'s four roles on `bed` running session after session (`--sessions
/// 100000 --at-once 1`: at least 10 ms of the text server's work each, so they outlast
/// the test), every file saying [`TIMEOUT`] for `receive_timeout` and `idle_timeout`,
/// each role logging its completed sessions at `debug`; returned once the client has
/// completed its first session, so every role is connected and running (a role's
/// time-out may not start before its peers have all started).
fn running_on(bed: &mpst_testbed::TestBed, deployment: &Deployment, quic: bool) -> Vec<Running> {
    let net = if quic { "quic" } else { "tcp" };
    let args = ["--sessions", "100000", "--at-once", "1"];
    let log = "warn,concurrent_send=debug";
    let timeout = format!("{}s", TIMEOUT.as_secs());
    let mut running = deployment.start_logging(bed, quic, Some(&timeout), &args, log);
    let client = running.iter_mut().find(|r| r.role == "C").expect("C");
    if client
        .wait_log("sessions completed", cluster::LIMIT)
        .is_none()
    {
        let exits: Vec<Exit> = running
            .into_iter()
            .map(|r| r.finish(Duration::ZERO))
            .collect();
        panic!("{net}: the client never completed a session: {exits:#?}");
    }
    running
}

/// Asserts that a role exited with status 4 (a peer lost or silent) and an error naming
/// `peer`; its error line.
fn assert_lost<'e>(net: &str, exit: &'e Exit, peer: &str) -> &'e str {
    let role = &exit.role;
    assert_eq!(
        exit.status(),
        Some(RoleExit::Lost),
        "{net}: {role} exited with {:?}: {}",
        exit.code,
        exit.stderr
    );
    let error = exit.error().unwrap_or_default();
    assert!(
        names_peer(error, peer),
        "{net}: {role} failed without naming {peer}: {error}"
    );
    error
}

/// A partition mid-run: the four roles of `concurrent_send` run one session after
/// another (far more than can end before the test acts), each role's file saying
/// `receive_timeout = "2s"` and `idle_timeout = "2s"`; once the client has completed its
/// first session the key server's host is cut off. Every role then ends by itself with
/// status 4 naming a peer, none is killed:
///
/// - the key server, behind the cut, only sends: nothing it sends is acknowledged any
///   more (TCP: the lanes' acknowledgements; QUIC: its idle time-out), so its next send
///   fails naming the server, within the time-out of the cut;
/// - the server waits for a key and fails naming the key server, within the time-out of
///   its last completed session (what the key server sent before the cut, as much as the
///   connection's buffers hold, still arrives and is used first);
/// - the client and the content service, in front of the cut, fail naming the server
///   once it is gone, within the time-out of its end (or of their own last progress).
#[test]
fn a_partition_mid_run_ends_every_role_with_status_4_naming_its_peer() {
    let test = "a_partition_mid_run_ends_every_role_with_status_4_naming_its_peer";
    let Some(program) = example(test, "concurrent_send") else {
        return;
    };
    let roles = names::<concurrent_send::Roles>();
    let Some(bed) = bed(test, &roles, jitter(), 7) else {
        return;
    };
    let deployment = Deployment::new(&program, &roles);
    for quic in [false, true] {
        let net = if quic { "quic" } else { "tcp" };
        let running = running_on(&bed, &deployment, quic);
        for link in bed.links_of("ks") {
            link.partition();
        }
        let cut = Instant::now();
        // Every role must end by itself: none is killed before the limit.
        let exits: HashMap<String, Exit> = running
            .into_iter()
            .map(|role| (role.role.clone(), role.finish(cluster::LIMIT)))
            .collect();
        // Each role and the peer it must name: the one it sends to or waits for.
        let named = [("KS", "S"), ("S", "KS"), ("C", "S"), ("CS", "S")];
        for (role, peer) in named {
            let exit = &exits[role];
            let error = assert_lost(net, exit, peer);
            // Its time-out starts at the cut, at its own last completed session, or when
            // the peer it names (a role in front of the cut) ended, whichever is last.
            // (Each when its log said so: the test waits for one role after another.)
            // The key server completes a session once its key is handed to the transport:
            // its bound starts at the cut.
            let ended = exit.failed_at().unwrap_or(exit.ended);
            let mut start = match role {
                "KS" => cut,
                _ => exit
                    .last_logged("sessions completed")
                    .map_or(cut, |at| at.max(cut)),
            };
            if let Some(gone) = exits.get(peer).filter(|_| role != "KS" && peer != "KS") {
                start = start.max(gone.failed_at().unwrap_or(gone.ended).min(ended));
            }
            let after = ended.duration_since(start);
            eprintln!(
                "{net}: {role} ended {after:?} after its time-out could start ({:?} after the \
                 cut): {error}",
                ended.duration_since(cut),
            );
            assert!(
                after < TIMEOUT + SLACK,
                "{net}: {role} took {after:?} after its time-out could start"
            );
        }
        for link in bed.links_of("ks") {
            link.heal();
        }
    }
}

/// Killing one role ends the roles whose protocol depends on it, each naming the peer it
/// lost, and no role fails for a peer it never talks to: with the key server killed
/// mid-run, the server (waiting for keys) fails naming it; the content service, which
/// holds connections to the key server but never talks to it, fails only once the
/// server, its one peer, is gone, naming the server; the client fails naming the server.
/// Each within its time-out of the loss it names.
#[test]
fn a_killed_role_ends_only_the_roles_that_talk_to_it_each_naming_its_own_peer() {
    let test = "a_killed_role_ends_only_the_roles_that_talk_to_it_each_naming_its_own_peer";
    let Some(program) = example(test, "concurrent_send") else {
        return;
    };
    let roles = names::<concurrent_send::Roles>();
    let Some(bed) = bed(test, &roles, jitter(), 9) else {
        return;
    };
    let deployment = Deployment::new(&program, &roles);
    for quic in [false, true] {
        let net = if quic { "quic" } else { "tcp" };
        let mut running = running_on(&bed, &deployment, quic);
        running
            .iter_mut()
            .find(|r| r.role == "KS")
            .expect("KS")
            .kill();
        let killed = Instant::now();
        let exits: HashMap<String, Exit> = running
            .into_iter()
            .map(|role| (role.role.clone(), role.finish(cluster::LIMIT)))
            .collect();
        let at = |role: &str| exits[role].failed_at().unwrap_or(exits[role].ended);
        for (role, peer) in [("S", "KS"), ("CS", "S"), ("C", "S")] {
            let error = assert_lost(net, &exits[role], peer);
            assert!(
                !names_peer(error, "KS") || role == "S",
                "{net}: {role} failed for the key server it never talks to: {error}"
            );
            let lost = if peer == "KS" {
                killed
            } else {
                at(peer).min(at(role))
            };
            let after = at(role).duration_since(lost);
            eprintln!("{net}: {role} ended {after:?} after losing {peer}: {error}");
            assert!(
                after < TIMEOUT + SLACK,
                "{net}: {role} took {after:?} after losing {peer}"
            );
        }
        // The content service went on while the server did: it failed after the server's
        // last completed session. (Not after the server's error line: a failed role
        // closes its connections first, up to half a second before it prints.)
        let server_went_on = exits["S"].last_logged("sessions completed");
        assert!(
            server_went_on.is_some_and(|last| at("CS") > last),
            "{net}: CS failed before S's last completed session"
        );
    }
}

/// Whether a role's error names `peer` as the one it was waiting for or lost (`... from
/// KS`, `lost KS ...`, `transport to or from KS: ...`).
fn names_peer(error: &str, peer: &str) -> bool {
    let words: Vec<&str> = error
        .split_whitespace()
        .map(|w| w.trim_end_matches(':'))
        .collect();
    words
        .windows(2)
        .any(|w| ["from", "lost"].contains(&w[0]) && w[1] == peer)
}

/// mpst-choreo's `concurrent_send` example as four OS processes, each started on its own
/// host from its TOML file, prints the client's delivery of session 0 once.
#[test]
fn the_concurrent_send_example_runs_as_four_processes_on_four_hosts() {
    let test = "the_concurrent_send_example_runs_as_four_processes_on_four_hosts";
    let Some(program) = example(test, "concurrent_send") else {
        return;
    };
    let roles = names::<concurrent_send::Roles>();
    let Some(bed) = bed(test, &roles, jitter(), 11) else {
        return;
    };
    let deployment = Deployment::new(&program, &roles);
    let exits = deployment.run(&bed, false, None, &[]);
    for exit in &exits {
        exit.assert_completed("concurrent_send over tcp");
    }
    let want = format!("result C {:?}", concurrent_send::expected(EXAMPLE_CLIENT));
    assert_eq!(results(&exits), [want]);
}
