//! mpst-wire's integration tests: dialling, strangers, impersonators and refusals on loopback.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-wire -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod support;

mod dial;
mod established;
mod impersonation;
mod refusal;
mod strangers;
