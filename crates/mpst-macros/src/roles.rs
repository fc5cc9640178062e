//! `#[derive(Roles)]`: a `Default` impl that creates every route between the roles.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, Error, Fields, Index, Member};

/// Expands `#[derive(Roles)]` on the parsed item.
fn expand_item(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let data = crate::struct_of(
        input,
        "`#[derive(Roles)]` needs a struct with one field per role",
        "`#[derive(Roles)]` does not support generics",
    )?;
    if matches!(data.fields, Fields::Unit) || data.fields.is_empty() {
        return Err(Error::new(
            name.span(),
            "`#[derive(Roles)]` needs at least one role field",
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    for field in &data.fields {
        let ty = &field.ty;
        let key = quote!(#ty).to_string();
        if seen.contains(&key) {
            return Err(Error::new_spanned(
                ty,
                format!("role `{key}` appears twice; each role of a protocol is one type"),
            ));
        }
        seen.push(key);
    }
    let fields = data.fields.iter().enumerate().map(|(index, field)| {
        let member = match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(Index::from(index)),
        };
        let ty = &field.ty;
        quote! {
            #member: <#ty as ::mpst::wiring::Build<::mpst::wiring::Wiring>>::build(&mut wiring)
        }
    });
    Ok(quote! {
        impl ::core::default::Default for #name {
            fn default() -> Self {
                let mut wiring = ::mpst::wiring::Wiring::new();
                Self { #(#fields),* }
            }
        }
    })
}

/// Expands `#[derive(Roles)]` on the item `input`: a plain function on token streams, so it
/// is unit-tested without rustc; the entry point turns its error into a `compile_error!`.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    expand_item(&syn::parse2(input)?)
}

#[cfg(test)]
#[path = "roles_tests.rs"]
mod tests;
