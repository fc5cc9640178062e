//! mpst-cli's integration tests: the `mpst` command run as a user runs it, on the repository's examples.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-cli -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod support;

mod cli_certs;
mod cli_check_project;
mod cli_conventions;
mod cli_generate;
mod cli_io;
mod cli_json;
mod cli_kmc;
mod cli_new;
mod cli_offer;
mod cli_presentation;
mod cli_progress;
mod cli_readme;
mod cli_report;
mod cli_subtype;
