//! mpst-codegen's integration tests: generated APIs compiled and snapshot-tested, build-script errors, optimised roles.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-codegen -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod support;

mod build;
mod errors;
mod generated;
mod offer_corpus;
mod offer_optimised;
mod optimised;
mod serde;
mod stable_names;
