//! Unit tests of `#[derive(Roles)]` on token streams: the `Default` impl it produces and
//! where each error points.

use super::expand;
use crate::test_support::{assert_errors, expand_ok, fns, impls, squash};
use quote::quote;

#[test]
fn default_builds_every_role_from_one_wiring() {
    let file = expand_ok(
        expand,
        quote!(
            struct Roles {
                a: A,
                b: B,
            }
        ),
    );
    assert_eq!(
        impls(&file),
        [(squash("::core::default::Default"), squash("Roles"))]
    );
    assert_eq!(fns(&file), ["default"]);
    let text = squash(&quote!(#file).to_string());
    assert!(
        text.contains("letmutwiring=::mpst::wiring::Wiring::new();"),
        "{text}"
    );
    for (field, ty) in [("a", "A"), ("b", "B")] {
        let build = format!(
            "{field}: <{ty} as ::mpst::wiring::Build<::mpst::wiring::Wiring>>::build(&mut wiring)"
        );
        assert!(text.contains(&squash(&build)), "{text}");
    }
}

#[test]
fn tuple_structs_are_built_by_index() {
    let file = expand_ok(
        expand,
        quote!(
            struct Roles(A, B, C);
        ),
    );
    let text = squash(&quote!(#file).to_string());
    assert!(text.contains(&squash("2: <C as")), "{text}");
}

#[test]
fn errors_point_at_the_offending_tokens() {
    let cases = [
        (
            "enum Roles { A }",
            "needs a struct with one field per role",
            "Roles",
        ),
        ("struct Roles<T>(A, T);", "does not support generics", "<T>"),
        ("struct Roles;", "needs at least one role field", "Roles"),
        ("struct Roles {}", "needs at least one role field", "Roles"),
        (
            "struct Roles(A, crate::B, crate::B);",
            "role `crate :: B` appears twice",
            "crate::B",
        ),
    ];
    assert_errors(expand, &cases);
}
