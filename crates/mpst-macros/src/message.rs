//! `#[derive(Message)]`: conversions between the label enum and each label type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, Error, Fields};

/// Expands `#[derive(Message)]` on the parsed item.
fn expand_item(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let data = crate::enum_of(
        input,
        "`#[derive(Message)]` needs an enum with one variant per label, e.g. `Add(Add)`",
        "`#[derive(Message)]` does not support generic label enums",
    )?;

    let mut seen: Vec<String> = Vec::new();
    let mut impls = Vec::new();
    let mut names = Vec::new();
    let mut arms = Vec::new();
    let mut ids = Vec::new();
    let mut sorts = Vec::new();
    for variant in &data.variants {
        let ident = &variant.ident;
        let ty = match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => &fields.unnamed[0].ty,
            _ => {
                return Err(Error::new(
                    variant.span(),
                    format!("each label variant wraps exactly one label type: `{ident}({ident})`"),
                ));
            }
        };
        let key = quote!(#ty).to_string();
        if seen.contains(&key) {
            return Err(Error::new(
                ty.span(),
                format!(
                    "label type `{key}` is used by two variants; each label needs its own type"
                ),
            ));
        }
        seen.push(key);
        let label = label_name(variant)?.unwrap_or_else(|| ident.to_string());
        names.push(label.clone());
        arms.push(quote!(#name::#ident(_) => #label));
        ids.push(quote! {
            if label_type == ::core::any::TypeId::of::<#ty>() {
                return ::core::option::Option::Some(#label);
            }
        });
        sorts.push(quote! {
            if label_type == ::core::any::TypeId::of::<#ty>() {
                return (&&::mpst::probe::Probe::<#ty>::new()).sorts();
            }
        });
        impls.push(quote! {
            impl ::mpst::Message<#ty> for #name {
                const NAME: &'static str = #label;

                #[inline]
                fn upcast(label: #ty) -> Self {
                    #name::#ident(label)
                }

                #[inline]
                fn downcast(self) -> ::core::result::Result<#ty, Self> {
                    match self {
                        #name::#ident(label) => ::core::result::Result::Ok(label),
                        #[allow(unreachable_patterns)]
                        other => ::core::result::Result::Err(other),
                    }
                }
            }

            impl ::core::convert::From<#ty> for #name {
                #[inline]
                fn from(label: #ty) -> Self {
                    #name::#ident(label)
                }
            }

            impl ::core::convert::TryFrom<#name> for #ty {
                type Error = #name;

                #[inline]
                fn try_from(message: #name) -> ::core::result::Result<Self, #name> {
                    <#name as ::mpst::Message<#ty>>::downcast(message)
                }
            }
        });
    }
    let label_fn = if arms.is_empty() {
        quote!(match *self {})
    } else {
        quote!(match self { #(#arms),* })
    };

    Ok(quote! {
        #(#impls)*

        impl ::mpst::Labelled for #name {
            const LABELS: &'static [&'static str] = &[#(#names),*];

            #[inline]
            fn label(&self) -> &'static str {
                #label_fn
            }

            fn name_of(label_type: ::core::any::TypeId) -> ::core::option::Option<&'static str> {
                #(#ids)*
                ::core::option::Option::None
            }

            fn sorts_of(
                label_type: ::core::any::TypeId,
            ) -> ::core::option::Option<&'static [&'static str]> {
                #[allow(unused_imports)]
                use ::mpst::probe::{Declared as _, Undeclared as _};
                let _ = label_type;
                #(#sorts)*
                ::core::option::Option::None
            }
        }
    })
}

/// The label name given by `#[message(label = "name")]` on a variant, if any: for a label
/// that the protocol sends with different payloads (two Rust types, one protocol label).
fn label_name(variant: &syn::Variant) -> syn::Result<Option<String>> {
    let mut name = None;
    for attr in variant
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("message"))
    {
        attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("label") {
                return Err(meta.error("expected `label = \"name\"`"));
            }
            if name.is_some() {
                return Err(meta.error("the label name is given twice"));
            }
            let value: syn::LitStr = meta.value()?.parse()?;
            name = Some(value.value());
            Ok(())
        })?;
    }
    Ok(name)
}

/// Expands `#[derive(Message)]` on the item `input`: a plain function on token streams, so it
/// is unit-tested without rustc; the entry point turns its error into a `compile_error!`.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    expand_item(&syn::parse2(input)?)
}

#[cfg(test)]
#[path = "message_tests.rs"]
mod tests;
