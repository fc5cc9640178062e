//! Scribble's and Java's spellings of the usual payload sorts, as the table that
//! [`mpst_fsm::ident::normal_sort`] applies wherever FSMs enter the system: lowering puts
//! every payload sort of a protocol through [`normal_sort`], and the CLI reads DOT files
//! with [`SCRIBBLE`] too, so `value(int)` from nuscr and `value(i32)` are one sort.

use mpst_fsm::ident::SortTable;

/// Scribble, nuscr (OCaml) and Java names of the usual sorts, and the Rust types they
/// stand for (`int` -> `i32`, `java.lang.String` -> `String`, `boolean` -> `bool`,
/// `double` -> `f64`).
pub const SCRIBBLE: SortTable = SortTable::new(&[
    ("int", "i32"),
    ("Int", "i32"),
    ("integer", "i32"),
    ("Integer", "i32"),
    ("java.lang.Integer", "i32"),
    ("long", "i64"),
    ("Long", "i64"),
    ("java.lang.Long", "i64"),
    ("short", "i16"),
    ("byte", "i8"),
    ("nat", "u64"),
    ("Nat", "u64"),
    ("float", "f32"),
    ("Float", "f32"),
    ("double", "f64"),
    ("Double", "f64"),
    ("number", "f64"),
    ("Number", "f64"),
    ("boolean", "bool"),
    ("Boolean", "bool"),
    ("java.lang.Boolean", "bool"),
    ("string", "String"),
    ("str", "String"),
    ("java.lang.String", "String"),
    ("Char", "char"),
    ("Character", "char"),
    ("unit", "()"),
    ("Unit", "()"),
]);

/// The normal form of a Scribble payload sort: [`mpst_fsm::ident::normal_sort`] with
/// [`SCRIBBLE`].
pub fn normal_sort(sort: &str) -> String {
    mpst_fsm::ident::normal_sort(sort, &SCRIBBLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scribble_and_java_spellings_are_rust_types() {
        assert_eq!(normal_sort("int"), "i32");
        assert_eq!(normal_sort("java.lang.String"), "String");
        assert_eq!(normal_sort("boolean"), "bool");
        assert_eq!(normal_sort("my.pkg.Date"), "my::pkg::Date");
        assert_eq!(normal_sort("i32"), "i32");
        assert_eq!(normal_sort("u64"), "u64");
    }
}
