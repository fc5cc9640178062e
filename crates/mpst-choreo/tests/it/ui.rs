//! Compile-fail tests of the type-level guarantees: located values are readable only at
//! their role, and choreographies, branches and calls use only their own roles.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
