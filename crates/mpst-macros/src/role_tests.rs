//! Unit tests of `#[derive(Role)]` on token streams: the impls it produces and where each
//! error points.

use super::expand;
use crate::test_support::{
    assert_errors, expand_ok, fns, impl_headers, impls, pair, squash, types,
};
use quote::quote;

#[test]
fn role_routes_and_builder_are_generated() {
    let file = expand_ok(
        expand,
        quote! {
            #[message(Label)]
            struct A {
                #[route(B)] b: Unbounded<Label>,
                #[route(crate::C)] c: Bounded<Label>,
                count: usize,
            }
        },
    );
    assert_eq!(
        impls(&file),
        [
            pair("::mpst::Role", "A"),
            pair("::mpst::Route<B>", "A"),
            pair("::mpst::Route<crate::C>", "A"),
            pair("::mpst::wiring::Build<__W>", "A"),
        ]
    );
    assert_eq!(
        types(&file),
        [
            ("Message".to_string(), squash("Label")),
            ("Route".to_string(), squash("Unbounded<Label>")),
            ("Route".to_string(), squash("Bounded<Label>")),
        ]
    );
    assert_eq!(
        fns(&file),
        [
            "poll_flush",
            "begin",
            "abort",
            "abort_handle",
            "route",
            "route",
            "build"
        ]
    );
    let build = impl_headers(&file).pop().unwrap();
    assert!(
        build.ends_with(&squash(
            "where __W: ::mpst::wiring::Wire<A, B> + ::mpst::wiring::Wire<A, crate::C>"
        )),
        "{build}"
    );
    let text = squash(&quote!(#file).to_string());
    assert!(text.contains("constNAME:&'staticstr=\"A\""), "{text}");
    // Detached only if every route is, and the handles nest one pair per route.
    assert!(
        text.contains(&squash(
            "const DETACHED: bool = true \
             && <Unbounded<Label> as ::mpst::channel::Abort>::DETACHED \
             && <Bounded<Label> as ::mpst::channel::Abort>::DETACHED;"
        )),
        "{text}"
    );
    assert!(
        text.contains(&squash(
            "const BUFFERED: bool = false \
             || <Unbounded<Label> as ::mpst::channel::Abort>::BUFFERED \
             || <Bounded<Label> as ::mpst::channel::Abort>::BUFFERED;"
        )),
        "{text}"
    );
    assert!(
        text.contains(&squash(
            "(::mpst::channel::Abort::handle(&self.b), \
             (::mpst::channel::Abort::handle(&self.c), ()))"
        )),
        "{text}"
    );
    // The peer's name in flush errors is its last path segment; the unrouted field is
    // defaulted.
    assert!(
        text.contains(&squash(r#"(&mut self.c, "C", cx)"#)),
        "{text}"
    );
    assert!(
        text.contains(&squash("count: ::core::default::Default::default()")),
        "{text}"
    );
}

#[test]
fn tuple_and_unit_structs_are_roles() {
    let file = expand_ok(
        expand,
        quote!(
            #[message(L)]
            struct A(#[route(B)] R, #[route(C)] R);
        ),
    );
    let text = squash(&quote!(#file).to_string());
    assert!(text.contains("&mutself.0"), "{text}");
    assert!(text.contains("&mutself.1"), "{text}");
    let file = expand_ok(
        expand,
        quote!(
            #[message(L)]
            struct Lone;
        ),
    );
    assert_eq!(impls(&file).len(), 2, "Role and Build only");
    assert!(squash(&quote!(#file).to_string()).contains("fnbuild(wiring:&mut__W)->Self{Self}"));
}

#[test]
fn errors_point_at_the_offending_tokens() {
    let cases = [
        (
            "#[message(L)] enum A { X }",
            "needs a struct whose fields are routes",
            "A",
        ),
        (
            "#[message(L)] struct A<T>(#[route(B)] T);",
            "does not support generic roles",
            "<T>",
        ),
        (
            "#[message(L)] #[message(M)] struct A;",
            "duplicate `#[message(..)]` attribute",
            "#[message(M)]",
        ),
        (
            "struct A(#[route(B)] R);",
            "needs `#[message(Label)]` naming the label enum",
            "A",
        ),
        (
            "#[message(1)] struct A;",
            "expected `#[message(Type)]`",
            "1",
        ),
        (
            "#[message(L)] struct A(#[route] R);",
            "expected `#[route(Type)]`",
            "route",
        ),
        (
            "#[message(L)] struct A(#[route(B)] #[route(C)] R);",
            "a field routes to one peer only",
            "#[route(C)]",
        ),
        (
            "#[message(L)] struct A(#[route(B)] R, #[route(B)] R);",
            "`A` already has a route to `B`",
            "B",
        ),
    ];
    assert_errors(expand, &cases);
}
