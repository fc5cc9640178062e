//! `#[derive(Role)]`: the `Role` and `Route` impls and the builder `derive(Roles)` uses.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Error, Fields, Index, Member, Type};

/// Parses the single type argument of `#[name(Type)]`.
pub(crate) fn type_arg(attr: &Attribute) -> syn::Result<Type> {
    attr.parse_args::<Type>().map_err(|e| {
        let name = attr
            .path()
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        Error::new(e.span(), format!("expected `#[{name}(Type)]`: {e}"))
    })
}

/// Expands `#[derive(Role)]` on the parsed item.
fn expand_item(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let data = crate::struct_of(
        input,
        "`#[derive(Role)]` needs a struct whose fields are routes",
        "`#[derive(Role)]` does not support generic roles",
    )?;

    let mut message = None;
    for attr in &input.attrs {
        if attr.path().is_ident("message") {
            if message.is_some() {
                return Err(Error::new(
                    attr.span(),
                    "duplicate `#[message(..)]` attribute",
                ));
            }
            message = Some(type_arg(attr)?);
        }
    }
    let Some(message) = message else {
        return Err(Error::new(
            name.span(),
            "`#[derive(Role)]` needs `#[message(Label)]` naming the label enum",
        ));
    };

    let mut routes = Vec::new();
    let mut flushes = Vec::new();
    let mut aborts = Vec::new();
    let mut begins = Vec::new();
    let mut detached = Vec::new();
    let mut buffered = Vec::new();
    let mut handles = Vec::new();
    let mut builders = Vec::new();
    let mut peers: Vec<(String, Type)> = Vec::new();
    for (index, field) in data.fields.iter().enumerate() {
        let member = match &field.ident {
            Some(ident) => Member::Named(ident.clone()),
            None => Member::Unnamed(Index::from(index)),
        };
        let mut peer = None;
        for attr in &field.attrs {
            if attr.path().is_ident("route") {
                if peer.is_some() {
                    return Err(Error::new(attr.span(), "a field routes to one peer only"));
                }
                peer = Some(type_arg(attr)?);
            }
        }
        let Some(peer) = peer else {
            builders.push(
                quote_spanned!(field.ty.span()=> #member: ::core::default::Default::default()),
            );
            continue;
        };
        let key = quote!(#peer).to_string();
        if peers.iter().any(|(k, _)| *k == key) {
            return Err(Error::new(
                peer.span(),
                format!("`{name}` already has a route to `{key}`"),
            ));
        }
        let ty = &field.ty;
        routes.push(quote! {
            impl ::mpst::Route<#peer> for #name {
                type Route = #ty;

                #[inline]
                fn route(&mut self) -> &mut Self::Route {
                    &mut self.#member
                }
            }
        });
        // The peer's name as `derive(Role)` would give it, without asking for `#peer: Role`
        // (whose failure would only repeat an error of the peer's own derive).
        let peer_name = match &peer {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .map(|segment| segment.ident.to_string())
                .unwrap_or_else(|| key.clone()),
            _ => key.clone(),
        };
        flushes.push(quote_spanned! {ty.span()=>
            match ::mpst::wiring::poll_flush::<Self, #peer>(&mut self.#member, #peer_name, cx) {
                ::core::task::Poll::Pending => pending = true,
                ::core::task::Poll::Ready(flushed) => flushed?,
            }
        });
        begins.push(quote_spanned! {ty.span()=>
            ::mpst::channel::Abort::begin(&mut self.#member);
        });
        aborts.push(quote_spanned! {ty.span()=>
            ::mpst::channel::Abort::abort(&mut self.#member);
        });
        detached.push(quote_spanned! {ty.span()=>
            <#ty as ::mpst::channel::Abort>::DETACHED
        });
        buffered.push(quote_spanned! {ty.span()=>
            <#ty as ::mpst::channel::Abort>::BUFFERED
        });
        handles.push(quote_spanned! {ty.span()=>
            ::mpst::channel::Abort::handle(&self.#member)
        });
        builders.push(quote! {
            #member: <__W as ::mpst::wiring::Wire<#name, #peer>>::take(wiring)
        });
        peers.push((key, peer));
    }
    let wires = peers
        .iter()
        .map(|(_, peer)| quote!(::mpst::wiring::Wire<#name, #peer>));
    let construct = match &data.fields {
        Fields::Unit => quote!(Self),
        _ => quote!(Self { #(#builders),* }),
    };
    let name_str = name.to_string();
    // The routes' handles as nested pairs, `(h0, (h1, ()))`; a role without routes keeps
    // the default (nothing to abort).
    let abort_handle = (!handles.is_empty()).then(|| {
        let handle = handles
            .iter()
            .rev()
            .fold(quote!(()), |rest, handle| quote!((#handle, #rest)));
        quote! {
            #[inline]
            fn abort_handle(&self) -> impl ::mpst::channel::AbortHandle + use<> {
                #handle
            }
        }
    });

    Ok(quote! {
        impl ::mpst::Role for #name {
            type Message = #message;
            const NAME: &'static str = #name_str;

            #[inline]
            #[allow(unused_mut, unused_variables)]
            fn poll_flush(
                &mut self,
                cx: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<::core::result::Result<(), ::mpst::SendError>> {
                let mut pending = false;
                #(#flushes)*
                if pending {
                    ::core::task::Poll::Pending
                } else {
                    ::core::task::Poll::Ready(::core::result::Result::Ok(()))
                }
            }

            #[inline]
            fn begin(&mut self) {
                #(#begins)*
            }

            #[inline]
            fn abort(&mut self) {
                #(#aborts)*
            }

            const DETACHED: bool = true #(&& #detached)*;

            const BUFFERED: bool = false #(|| #buffered)*;

            #abort_handle
        }

        #(#routes)*

        impl<__W> ::mpst::wiring::Build<__W> for #name
        where
            __W: #(#wires)+*
        {
            #[allow(unused_variables)]
            fn build(wiring: &mut __W) -> Self {
                #construct
            }
        }
    })
}

/// Expands `#[derive(Role)]` on the item `input`: a plain function on token streams, so it
/// is unit-tested without rustc; the entry point turns its error into a `compile_error!`.
pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    expand_item(&syn::parse2(input)?)
}

#[cfg(test)]
#[path = "role_tests.rs"]
mod tests;
