//! Turning protocol names (roles, labels, sorts) into Rust identifiers and types.

use mpst_fsm::ident::rust_name;

/// `ready` -> `Ready`, `get_price` -> `GetPrice`, `1` -> `L1`, `x'` -> `XPrime`: the
/// shared rule [`mpst_fsm::ident::rust_name`], so serialised session types compare
/// equal to projections.
pub fn camel(name: &str, prefix: &str) -> String {
    rust_name(name, prefix)
}

/// The stem of an identifier made by [`camel`] for composing longer names
/// (`{role}Session`, `{role}After{Label}`): without the `_` that [`camel`] appends to a
/// keyword, so that `Self_` gives `SelfSession`, not the non-camel-case `Self_Session`.
pub(crate) fn stem(ident: &str) -> &str {
    ident.trim_end_matches('_')
}

/// The Rust type of a Scribble payload sort (`int` -> `i32`), or `None` if the sort is
/// not a valid Rust type path: the shared rule [`mpst_fsm::ident::rust_sort`], so
/// serialised label types compare equal to projections. Sorts other than the usual ones
/// are kept as written and must be in scope where the generated code is included.
pub use mpst_fsm::ident::rust_sort;

pub(crate) use mpst_fsm::ident::is_builtin;

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
        assert_eq!(stem(&camel("self", "R")), "Self");
        assert_eq!(stem("Ready"), "Ready");
    }
}
