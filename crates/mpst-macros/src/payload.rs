//! `#[derive(Payload)]`: the field types of a label struct, as written.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput, Error};

/// Expands `#[derive(Payload)]` on the parsed item.
fn expand_item(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(Error::new(
            name.span(),
            "`#[derive(Payload)]` needs a label struct: `struct Value(i32);`, `struct Ready;` \
             or a struct with named fields",
        ));
    };
    let sorts: Vec<String> = data
        .fields
        .iter()
        .map(|field| spell(field.ty.to_token_stream()))
        .collect();
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::mpst::Payload for #name #ty_generics #where_clause {
            const SORTS: &'static [&'static str] = &[#(#sorts),*];
        }
    })
}

/// A type as a person writes it: a space only between two words (`Vec<u8>`,
/// `&'static str`, `std::string::String`, `(i32, f64)`).
fn spell(tokens: TokenStream) -> String {
    let mut out = String::new();
    write_tokens(tokens, &mut out);
    out
}

fn write_tokens(tokens: TokenStream, out: &mut String) {
    let wordy = |s: &str| s.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    for token in tokens {
        match token {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(group.stream(), out);
                out.push_str(close);
            }
            TokenTree::Punct(punct) => {
                out.push(punct.as_char());
                if punct.as_char() == ',' {
                    out.push(' ');
                }
            }
            other => {
                let text = other.to_string();
                if wordy(&text) && out.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    out.push(' ');
                }
                out.push_str(&text);
            }
        }
    }
}

/// Expands `#[derive(Payload)]` on the item `input`: a plain function on token streams, so it
/// is unit-tested without rustc; the entry point turns its error into a `compile_error!`.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    expand_item(&syn::parse2(input)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{consts, expand_err, expand_ok, impl_headers, impls, squash};

    #[test]
    fn types_are_spelled_as_written() {
        for written in [
            "i32",
            "std::string::String",
            "Vec<u8>",
            "&'static str",
            "(i32, f64)",
            "[u8; 4]",
            "HashMap<String, Vec<(u8, char)>>",
            "Option<Box<dyn Fn(u8) -> u8>>",
        ] {
            let ty: syn::Type = syn::parse_str(written).unwrap();
            let expected = written.replace("; ", ";").replace(" -> ", "->");
            assert_eq!(spell(ty.to_token_stream()), expected, "{written}");
        }
    }

    #[test]
    fn sorts_are_the_field_types_in_order() {
        let file = expand_ok(
            expand,
            quote!(
                struct Pair {
                    a: i32,
                    b: Vec<String>,
                }
            ),
        );
        assert_eq!(impls(&file), [(squash("::mpst::Payload"), squash("Pair"))]);
        let sorts = r#"&["i32", "Vec<String>"]"#;
        assert_eq!(consts(&file), [("SORTS".to_string(), squash(sorts))]);
    }

    #[test]
    fn unit_structs_have_no_sorts_and_generics_are_kept() {
        let file = expand_ok(
            expand,
            quote!(
                struct Ready;
            ),
        );
        assert_eq!(consts(&file), [("SORTS".to_string(), squash("&[]"))]);
        let file = expand_ok(
            expand,
            quote!(
                struct Wrap<T: Clone>(T)
                where
                    T: Copy;
            ),
        );
        assert_eq!(
            impl_headers(&file),
            [squash(
                "impl<T: Clone> ::mpst::Payload for Wrap<T> where T: Copy"
            )]
        );
    }

    #[test]
    fn enums_are_refused_at_their_name() {
        let (message, at) = expand_err(expand, "enum E { A }");
        assert!(message.contains("needs a label struct"), "{message}");
        assert_eq!(at, "E");
    }

    #[test]
    fn unparsable_input_is_a_syn_error() {
        let (message, _) = expand_err(expand, "fn f() {}");
        assert!(message.contains("expected"), "{message}");
    }
}
