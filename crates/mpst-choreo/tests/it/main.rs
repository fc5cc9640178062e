//! mpst-choreo's integration tests: choreographies in memory, over TCP and QUIC, as processes, under chaos and under attack.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-choreo -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod common;
mod suite;

mod attacks;
mod basic;
mod chaos;
mod examples;
mod failures;
mod forwards;
mod head_of_line;
mod inline;
mod one_config;
mod one_process_per_role;
mod processes;
mod quic;
mod tcp;
mod ui;
