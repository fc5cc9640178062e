//! mpst-scribble's integration tests: parsing, well-formedness, projection, their snapshots and properties.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-scribble -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod parse_common;

mod continue_led;
mod corpus_errors;
mod heck_names;
mod nontail_do;
mod parse;
mod parse_limits;
mod parse_malformed;
mod parse_props;
mod projection_invalid;
mod projection_kmc;
mod projection_merge;
mod projection_props;
mod projection_snapshots;
mod projection_wf;
mod soundness_props;
mod unsupported;
