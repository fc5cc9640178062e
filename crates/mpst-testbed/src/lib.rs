//! A multi-host test bed: every host its own Linux network namespace, every link between
//! two hosts crossing a seeded userspace impairment relay (delay, jitter, loss, reordering,
//! duplication, bandwidth limit, partitions that start and end mid-run).
//!
//! It is test support for the workspace's tests and evaluation (`publish = false`); it
//! knows nothing of sessions or choreographies. Roles run as plain processes inside their
//! hosts ([`Host::command`], [`Host::role`]) and address each other by host name.
//!
//! # Topology
//!
//! ```text
//!   host "alice" (netns)            router (netns)                 host "bob" (netns)
//!   eth0 198.18.1.2/24 ── veth ── h0 198.18.1.1   h1 198.18.2.1 ── veth ── eth0 198.18.2.2/24
//!   /etc/hosts: bob = 198.19.1.2    lo: 198.19.1.2, 198.19.2.1    /etc/hosts: alice = 198.19.2.1
//!                                   relay: 198.19.1.2:P -> 198.18.2.2:P (from 198.19.2.1)
//! ```
//!
//! Host `i` reaches host `j` at the router address `198.19.i.j` (1-based), one per
//! direction of each link, where the relay listens on every declared port and forwards to
//! `j`'s real address from `198.19.j.i` — the address `i`'s name has on `j`. Hosts have no
//! route to each other's real addresses and the router does not forward packets, so every
//! byte between two hosts passes through the relay. Addresses come from 198.18.0.0/15, the
//! range reserved for network benchmarks (RFC 2544), and exist only inside the bed's
//! namespaces. Host names come from `/etc/netns/<namespace>/hosts`, which `ip netns exec`
//! binds over `/etc/hosts`.
//!
//! # Determinism
//!
//! Every decision (each chunk's or datagram's delay, loss, duplication, reset) is drawn
//! from a stream seeded by the bed's seed, the link, the direction and the connection: the
//! n-th decision of a stream is fixed by the seed ([`Impairment::fates`]). The timing is
//! not: when a chunk is read depends on the scheduler, and TCP chunk boundaries on how the
//! sender's writes were split, so the same seed gives the same *schedule* of decisions,
//! not the same wall-clock run.
//!
//! # Use in a test
//!
//! ```no_run
//! use std::time::Duration;
//! use mpst_testbed::{Impairment, TestBed};
//!
//! let Some(bed) = TestBed::builder()
//!     .host("alice")
//!     .host("bob")
//!     .link("alice", "bob", Impairment::none().delay(Duration::from_millis(20)))
//!     .tcp_port(7000)
//!     .seed(42)
//!     .build_or_skip("my_test")
//! else {
//!     return Ok(()); // printed `SKIPPED my_test: ...` (or panicked, under CI)
//! };
//! // Each role as a process configured by one TOML file, addressing its peer by name.
//! let mut server = bed.host("bob").role("my-role", "listen = \"0.0.0.0:7000\"")?;
//! let mut server = bed.host("bob").spawn(&mut server)?;
//! let mut client = bed.host("alice").role("my-role", "peer = \"bob:7000\"")?;
//! let status = bed.host("alice").spawn(&mut client)?.wait_timeout(Duration::from_secs(10))?;
//! assert!(status.success());
//! bed.link("alice", "bob").partition(); // mid-run, from the test
//! # server.kill();
//! # Ok::<(), mpst_testbed::Error>(())
//! ```
//!
//! Without root or without `ip`, [`Builder::build_or_skip`] prints a line starting
//! `SKIPPED` and the test returns; with the environment variable `CI` set it panics.
//!
//! # Clean-up
//!
//! Dropping the [`TestBed`] (also while a failed test unwinds) stops the relay, kills
//! every process inside its namespaces and deletes them. Namespaces are named
//! `mpst-tb-<pid>-<bed>-...` and carry a marker (pid and start time of their creator) in
//! their hosts file; a bed being built removes those whose creator no longer runs (a
//! killed test run), and nothing else.

mod bed;
mod error;
mod handle;
mod impair;
mod ns;
mod process;
mod relay;

pub use bed::{Builder, TestBed, MAX_HOSTS};
pub use error::{Error, Result};
pub use handle::{DirectionStats, Host, Link, LinkStats, CONFIG_ENV};
pub use impair::{Fate, Fates, Impairment};
pub use process::Process;

/// Reports that `test` cannot run here: prints `SKIPPED <test>: <why>` on stderr, or panics when
/// the environment variable `CI` is set (CI must run every test).
pub fn skip_or_fail(test: &str, why: &dyn std::fmt::Display) {
    if std::env::var_os("CI").is_some() {
        panic!("{test}: cannot run under CI: {why}");
    }
    // Written to the process's stderr directly, past the test harness's capture, so the
    // line shows in every `cargo test` run.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// The names of every network namespace that exists now (`ip netns list`), for tests
/// that check a bed cleaned up.
pub fn list_namespaces() -> Result<Vec<String>> {
    Ok(ns::ip(&["netns", "list"], None)?
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect())
}

/// Removes the namespaces left by crashed runs of this crate (a bed does this once per
/// process when it is first built) and returns their names: only namespaces named with
/// this crate's prefix whose marker names a process that no longer runs.
pub fn remove_stale_namespaces() -> Result<Vec<String>> {
    ns::check_available()?;
    let _serial = bed::setup_lock();
    ns::clean_stale()
}
