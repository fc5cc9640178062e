//! Compile-fail tests: each file under `tests/ui/` must fail to compile with the committed
//! `.stderr`. Regenerate with `TRYBUILD=overwrite cargo test -p mpst-session --test it -- ui::` and read
//! every diff: each must fail for the reason its file name and header comment give.

#[test]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
