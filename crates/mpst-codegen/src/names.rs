//! Turning protocol names (roles, labels, sorts) into Rust identifiers and types.

use mpst_fsm::ident::{is_keyword, rust_name};

/// `ready` -> `Ready`, `get_price` -> `GetPrice`, `1` -> `L1`, `x'` -> `XPrime`: the
/// shared rule [`mpst_fsm::ident::rust_name`], so serialised session types compare
/// equal to projections.
pub fn camel(name: &str, prefix: &str) -> String {
    rust_name(name, prefix)
}

/// The Rust type of a Scribble payload sort, or `None` if the sort is not a valid Rust
/// type path (then the user must rename it).
///
/// Java and nuscr spellings of the usual sorts map to Rust's (`int` -> `i32`,
/// `java.lang.String` -> `String`, `boolean` -> `bool`, `double` -> `f64`); any other sort
/// that is a Rust path (`i64`, `u8`, `Date`, `crate::Price`) is kept as written and must
/// be in scope where the generated code is included.
pub fn rust_sort(sort: &str) -> Option<String> {
    let mapped = match sort {
        "int" | "Int" | "integer" | "Integer" | "java.lang.Integer" => "i32",
        "long" | "Long" | "java.lang.Long" => "i64",
        "short" => "i16",
        "byte" => "i8",
        "nat" | "Nat" => "u64",
        "float" | "Float" => "f32",
        "double" | "Double" | "number" | "Number" => "f64",
        "bool" | "boolean" | "Boolean" | "java.lang.Boolean" => "bool",
        "string" | "str" | "String" | "java.lang.String" => "String",
        "char" | "Char" | "Character" => "char",
        "unit" | "Unit" | "()" => "()",
        other => {
            let path = other.replace('.', "::");
            let valid = path.split("::").all(|segment| {
                let mut chars = segment.chars();
                chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && chars.all(|c| c.is_alphanumeric() || c == '_')
                    && !is_keyword(segment)
                    || matches!(segment, "crate" | "self" | "super")
            });
            return valid.then_some(path);
        }
    };
    Some(mapped.to_string())
}

/// Whether a Rust type (as [`rust_sort`] returns it) is one of the language's own, so
/// `Debug`, `Clone` and `PartialEq` can be derived for messages carrying it.
pub fn is_builtin(ty: &str) -> bool {
    matches!(
        ty,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "f32"
            | "f64"
            | "bool"
            | "char"
            | "String"
            | "()"
    )
}

/// The payload sorts of `fsms` that are not Rust's own types, as Rust paths: the types a
/// user must have in scope where the generated code is included.
pub fn foreign_sorts(fsms: &[mpst_fsm::Fsm]) -> std::collections::BTreeSet<String> {
    fsms.iter()
        .flat_map(mpst_fsm::Fsm::all_transitions)
        .flat_map(|(_, t)| &t.action.message.payloads)
        .filter_map(|p| rust_sort(&p.ty))
        .filter(|ty| !is_builtin(ty))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_of_protocol_names() {
        assert_eq!(camel("ready", "L"), "Ready");
        assert_eq!(camel("get_price", "L"), "GetPrice");
        assert_eq!(camel("1", "L"), "L1");
        assert_eq!(camel("x'", "L"), "XPrime");
        assert_eq!(camel("self", "R"), "Self_");
        assert_eq!(camel("", "R"), "R");
    }

    #[test]
    fn sorts_map_to_rust_types() {
        assert_eq!(rust_sort("int").as_deref(), Some("i32"));
        assert_eq!(rust_sort("java.lang.String").as_deref(), Some("String"));
        assert_eq!(rust_sort("u64").as_deref(), Some("u64"));
        assert_eq!(rust_sort("my.pkg.Date").as_deref(), Some("my::pkg::Date"));
        assert_eq!(rust_sort("Vec<u8>"), None);
        assert_eq!(rust_sort("fn"), None);
        assert!(is_builtin("f64") && !is_builtin("Date"));
    }
}
