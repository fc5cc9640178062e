//! Compile-fail tests: each file under `tests/ui/` must fail to compile with the committed
//! `.stderr`. Regenerate with `TRYBUILD=overwrite cargo test -p mpst-session --test it -- ui::` and read
//! every diff: each must fail for the reason its file name and header comment give.

/// The variables `cargo test` sets for this package (`CARGO_MANIFEST_DIR`,
/// `CARGO_PKG_NAME`, ...), which ring's build script reads.
const PER_PACKAGE: [&str; 4] = [
    "CARGO_MANIFEST_",
    "CARGO_PKG_",
    "CARGO_CRATE_",
    "CARGO_PRIMARY_",
];

#[test]
fn compile_fail() {
    // trybuild's cargo shares one target directory (`target/tests/trybuild`) with
    // mpst-choreo's compile-fail tests and inherits this process's environment: with each
    // crate's own `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR`, ring's build script reran and
    // everything above ring (rustls, quinn, mpst-wire, ...) was rebuilt on every run. So
    // trybuild runs in a child without them (it then finds the crate from the working
    // directory, which `cargo test` sets to the crate's).
    if std::env::var_os("CARGO_MANIFEST_DIR").is_some() {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child.args(["ui::compile_fail", "--exact", "--nocapture"]);
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
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
