//! Compile-fail tests of the type-level guarantees: located values are readable only at
//! their role, and choreographies, branches and calls use only their own roles.

/// The variables `cargo test` sets for this package, which ring's build script reads.
const PER_PACKAGE: [&str; 4] = [
    "CARGO_MANIFEST_",
    "CARGO_PKG_",
    "CARGO_CRATE_",
    "CARGO_PRIMARY_",
];

#[test]
fn ui() {
    // As mpst-session's `ui::compile_fail` does (see there why): trybuild runs in a child
    // without this package's cargo variables, so that the two crates' runs share
    // trybuild's build of ring and what depends on it instead of rebuilding it.
    if std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child.args(["ui::ui", "--exact", "--nocapture"]);
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if PER_PACKAGE.iter().any(|p| name.starts_with(p)) {
                child.env_remove(key);
            }
        }
        let status = child.status().expect("the test binary runs itself");
        assert!(status.success(), "the compile-fail cases failed: see above");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
