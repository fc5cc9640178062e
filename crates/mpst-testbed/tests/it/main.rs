//! mpst-testbed's integration tests: hosts in network namespaces joined through the impairment relay (root; SKIPPED without it, a failure under CI).
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-testbed -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod cluster;
mod common;

mod choreo_hosts;
mod cleanup;
mod http_cache_hosts;
mod quic;
mod reach;
mod roles;
mod sessions_hosts;
mod skip;
mod tcp_faults;
mod udp;
