//! A multi-host test bed: every host its own Linux network namespace, every link between
//! two hosts crossing a seeded userspace impairment relay (delay, jitter, loss, reordering,
//! duplication, bandwidth limit, partitions that start and end mid-run).
//!
//! See the README below for the topology, what each impairment does and how clean-up
//! works.
#![doc = include_str!("../README.md")]

mod bed;
mod error;
mod handle;
mod impair;
mod ns;
mod process;
mod relay;
#[cfg(feature = "stages")]
pub mod stages;

pub use bed::{Builder, DEFAULT_DIAL_PATIENCE, MAX_HOSTS, TestBed};
pub use error::{Error, Result};
pub use handle::{CONFIG_ENV, DirectionStats, Host, Link, LinkStats};
pub use impair::{Fate, Fates, Impairment, Slots};
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

/// Removes the namespaces and bed directories left by crashed runs of this crate (a bed
/// does this once per process when it is first built) and returns the namespaces' names:
/// only those named with this crate's prefix whose marker names a process that no longer
/// runs.
pub fn remove_stale_namespaces() -> Result<Vec<String>> {
    ns::check_available()?;
    let _serial = bed::setup_lock();
    ns::clean_stale()
}

/// Whether the calling thread is inside the network namespace `name` (see
/// [`Host::namespace`]); for a task that must not talk to the bed's addresses from
/// outside the bed.
pub fn thread_in_namespace(name: &str) -> bool {
    ns::thread_is_in(name)
}
