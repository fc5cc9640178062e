//! Helpers for the derives' unit tests: run an expansion on tokens, parse what it produced
//! with syn and list its impls, or get its error with the source text its span covers.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{ImplItem, Item};

/// A derive's expansion function.
pub(crate) type Expand = fn(TokenStream) -> syn::Result<TokenStream>;

/// Removes all whitespace, so token spacing (`>>` or `> >`) does not matter.
pub(crate) fn squash(text: &str) -> String {
    text.split_whitespace().collect()
}

/// Squashed tokens of anything syn printed.
fn show(tokens: &impl ToTokens) -> String {
    squash(&tokens.to_token_stream().to_string())
}

/// Expands `input`, which must succeed, and parses the output as a file of items.
pub(crate) fn expand_ok(expand: Expand, input: TokenStream) -> syn::File {
    let output = expand(input).unwrap_or_else(|e| panic!("expansion failed: {e}"));
    syn::parse2(output).unwrap_or_else(|e| panic!("the expansion is not a list of items: {e}"))
}

/// Expands the source `input`, which must fail, and returns the message and the source
/// text under the error's span (spans are real: `input` is lexed from text).
pub(crate) fn expand_err(expand: Expand, input: &str) -> (String, String) {
    let tokens: TokenStream = input.parse().expect("test input lexes");
    let error = match expand(tokens) {
        Ok(output) => panic!("expected an error, got {output}"),
        Err(error) => error,
    };
    let at = error.span().source_text().expect("span has source text");
    (error.to_string(), at)
}

/// An expected impl, `(trait path, self type)`, squashed like [`impls`] gives it.
pub(crate) fn pair(trait_: &str, ty: &str) -> (String, String) {
    (squash(trait_), squash(ty))
}

/// Expands each `(input, message, at)` case, which must fail with an error whose message
/// contains `message` and whose span covers exactly the source text `at`.
pub(crate) fn assert_errors(expand: Expand, cases: &[(&str, &str, &str)]) {
    for &(input, expected, at) in cases {
        let (message, span) = expand_err(expand, input);
        assert!(message.contains(expected), "{input}: {message}");
        assert_eq!(span, at, "{input}: {message}");
    }
}

/// The impls of the expansion: (trait path, self type), squashed, in output order.
pub(crate) fn impls(file: &syn::File) -> Vec<(String, String)> {
    impl_items(file)
        .map(|item| {
            let trait_ = item.trait_.as_ref().map(|(_, path, _)| show(path));
            (trait_.unwrap_or_default(), show(&item.self_ty))
        })
        .collect()
}

/// Each impl's header up to its body (`impl<..> Trait for Type where ..`), squashed.
pub(crate) fn impl_headers(file: &syn::File) -> Vec<String> {
    impl_items(file)
        .map(|item| {
            let mut header = item.clone();
            header.items.clear();
            header.attrs.clear();
            let text = show(&header);
            text.strip_suffix("{}").unwrap_or(&text).to_string()
        })
        .collect()
}

/// Every associated constant of every impl: (name, squashed value).
pub(crate) fn consts(file: &syn::File) -> Vec<(String, String)> {
    assoc(file, |item| match item {
        ImplItem::Const(c) => Some((c.ident.to_string(), show(&c.expr))),
        _ => None,
    })
}

/// Every associated type of every impl: (name, squashed type).
pub(crate) fn types(file: &syn::File) -> Vec<(String, String)> {
    assoc(file, |item| match item {
        ImplItem::Type(t) => Some((t.ident.to_string(), show(&t.ty))),
        _ => None,
    })
}

/// The function names of every impl, in order.
pub(crate) fn fns(file: &syn::File) -> Vec<String> {
    assoc(file, |item| match item {
        ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
        _ => None,
    })
}

fn assoc<T>(file: &syn::File, pick: impl Fn(&ImplItem) -> Option<T>) -> Vec<T> {
    impl_items(file)
        .flat_map(|item| item.items.iter().filter_map(&pick))
        .collect()
}

fn impl_items(file: &syn::File) -> impl Iterator<Item = &syn::ItemImpl> {
    file.items.iter().filter_map(|item| match item {
        Item::Impl(item) => Some(item),
        _ => None,
    })
}

/// `#[session]` on `item` (no arguments), squashed: what the choice-enum tests read.
pub(crate) fn expand_session(item: TokenStream) -> String {
    let item = syn::parse2(item).expect("the test item parses");
    squash(&crate::session::expand(TokenStream::new(), item).to_string())
}
