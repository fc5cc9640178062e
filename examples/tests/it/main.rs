//! mpst-examples' integration tests: the multi-process runs, the README's and the docs' examples, the expressiveness table.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-examples -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod choreo_docs;
mod expressiveness;
mod net;
mod readme;
mod role_exit;
