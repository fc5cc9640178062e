//! Unit tests of the `#[session]` rewrite: the exact types it produces and its errors.

use super::expand;
use proc_macro2::TokenStream;
use quote::quote;

/// Expands and removes all whitespace, so token spacing (`>>` or `> >`) does not matter.
fn expand_str(attr: TokenStream, item: TokenStream) -> String {
    squash(&expand(attr, syn::parse2(item).expect("test input parses")).to_string())
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect()
}

fn normalise(tokens: TokenStream) -> String {
    squash(&tokens.to_string())
}

#[test]
fn alias_gets_lifetime_and_role_on_every_primitive() {
    let out = expand_str(
        quote!(),
        quote!(
            type AdderA = Send<B, Add, Receive<B, Sum, End>>;
        ),
    );
    let expected = normalise(quote!(
        type AdderA<'__r, __R> =
            Send<'__r, __R, B, Add, Receive<'__r, __R, B, Sum, End<'__r, __R>>>;
    ));
    assert_eq!(out, expected);
}

#[test]
fn named_types_and_paths_get_the_parameters_too() {
    let out = expand_str(
        quote!(),
        quote!(
            pub type Kernel = mpst::Send<S, Ready, KernelLoop>;
        ),
    );
    let expected = normalise(quote!(
        pub type Kernel<'__r, __R> = mpst::Send<'__r, __R, S, Ready, KernelLoop<'__r, __R>>;
    ));
    assert_eq!(out, expected);
}

#[test]
fn alias_parameters_are_left_alone_and_primitive_arguments_rewritten() {
    let out = expand_str(
        quote!(),
        quote!(
            type Twice<To, L, Next> = Send<To, L, Send<To, L, Next>>;
        ),
    );
    assert!(
        out.contains(&squash("Send < '__r , __R , To , L , Next >")),
        "{out}"
    );
    let out = expand_str(
        quote!(),
        quote!(
            type Use = Twice<B, Num, Send<B, Text, End>>;
        ),
    );
    assert!(
        out.contains(&squash(
            "Twice < '__r , __R , B , Num , Send < '__r , __R , B , Text , End < '__r , __R > > >"
        )),
        "{out}"
    );
}

#[test]
fn struct_replaces_self_and_implements_the_traits() {
    let out = expand_str(
        quote!(),
        quote!(
            struct Loop(Send<S, Ready, Self>);
        ),
    );
    assert!(
        out.contains(&squash(
            "struct Loop < '__r , __R : :: mpst :: Role > (Send < '__r , __R , S , Ready , Loop < '__r , __R > >) ;"
        )),
        "{out}"
    );
    // `FromState` is sealed: a named type gets it from the runtime's blanket impl over
    // `IntoSession`, and never sees a session state.
    assert!(!out.contains("FromState<'__r>forLoop"), "{out}");
    assert!(!out.contains("State<'__r,__R>"), "{out}");
    for needle in [
        ":: mpst :: IntoSession < '__r > for Loop",
        "fn from_session (session : Send < '__r , __R , S , Ready , Loop < '__r , __R > >) -> Self { Self (session) }",
        ":: mpst :: introspect :: SessionType for Loop",
        "fn into_session (self)",
    ] {
        assert!(out.contains(&squash(needle)), "missing {needle} in {out}");
    }
}

#[test]
fn enum_implements_choices_and_one_choice_per_label() {
    let out = expand_str(
        quote!(),
        quote!(
            enum Choice {
                Continue(Continue, Branch<A, Self>),
                Stop(Stop, End),
            }
        ),
    );
    for needle in [
        "Continue (Continue , Branch < '__r , __R , A , Choice < '__r , __R > >)",
        ":: mpst :: Choices < '__r > for Choice",
        ":: mpst :: Choice < '__r , Continue > for Choice",
        ":: mpst :: Choice < '__r , Stop > for Choice",
        "type Variants = ((Continue , Branch",
        // Each variant's continuation comes from the runtime's `Continuation`, typed by the
        // choice's own `Choice<Label>` impl: the enum never holds a session state.
        "Self :: Stop (label , next . into_session :: < Stop > ())",
    ] {
        assert!(out.contains(&squash(needle)), "missing {needle} in {out}");
    }
    assert!(!out.contains("State<'__r,__R>"), "{out}");
}

#[test]
fn errors_are_compile_errors_not_panics() {
    let cases = [
        (
            quote!(),
            quote!(
                type A = Send<B, Add>;
            ),
            "takes 3 type arguments",
        ),
        (
            quote!(),
            quote!(
                type A = Receive<B, Add, Self>;
            ),
            "`Self` is only allowed",
        ),
        (
            quote!(),
            quote!(
                type A = Send<B, Add, (i32, i32)>;
            ),
            "expected a session type",
        ),
        (
            quote!(x),
            quote!(
                type A = End;
            ),
            "takes no arguments",
        ),
        (
            quote!(),
            quote!(
                struct A;
            ),
            "wraps exactly one session type",
        ),
        (
            quote!(),
            quote!(
                struct A<T>(End);
            ),
            "cannot have generic parameters",
        ),
        (
            quote!(),
            quote!(
                enum A {}
            ),
            "needs at least one",
        ),
        (
            quote!(),
            quote!(
                enum A {
                    X(End),
                }
            ),
            "`Variant(Label, Continuation)`",
        ),
        (
            quote!(),
            quote!(
                fn f() {}
            ),
            "applies to a type alias",
        ),
        (
            quote!(),
            quote!(
                type A<'__r> = End;
            ),
            "reserved",
        ),
    ];
    for (attr, item, message) in cases {
        let out = expand_str(attr, item.clone());
        assert!(out.starts_with("::core::compile_error!"), "{item}: {out}");
        assert!(
            out.contains(&squash(message)),
            "{item}: expected {message:?} in {out}"
        );
    }
}
