//! mpst-fsm's integration tests: formats, k-MC, asynchronous subtyping, and their properties.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-fsm -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.
//!
//! `tests/formats_dot_scaling.rs` keeps a binary of its own: it installs a counting
//! global allocator, which would count every other test's allocations here.

// The specification machine the property tests share with the `budget_times` example.
#[path = "../../examples/support/spec_machine.rs"]
mod spec_machine;
mod support;

mod choice_peers;
mod format_counts;
mod formats_dot;
mod formats_dot_parallel;
mod formats_dot_readers;
mod formats_errors;
mod formats_located;
mod formats_props;
mod formats_writers;
mod fsm_wide_states;
mod kmc_families;
mod kmc_offer;
mod kmc_progress;
mod kmc_props;
mod kmc_violations;
mod subtype_concur19;
mod subtype_duality_props;
mod subtype_families;
mod subtype_kmc;
mod subtype_local_parse;
mod subtype_paper;
mod subtype_progress;
mod subtype_reasons;
mod subtype_soundness;
mod subtype_verdict;
mod subtype_verdict_props;
mod subtype_witness_tree_props;
