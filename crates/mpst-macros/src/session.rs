//! `#[session]`: adds the lifetime `'__r` and the role `__R` to a session type written as in
//! the paper, and generates the trait impls of recursive structs and choice enums.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    AngleBracketedGenericArguments, Error, Fields, GenericArgument, Generics, Item, ItemEnum,
    ItemStruct, ItemType, PathArguments, Type, TypePath, parse_quote,
};

/// Expands `#[session]`, turning errors into `compile_error!`s.
pub(crate) fn expand(attr: TokenStream, item: Item) -> TokenStream {
    let result = if !attr.is_empty() {
        Err(Error::new_spanned(attr, "`#[session]` takes no arguments"))
    } else {
        match item {
            Item::Type(item) => expand_type(item),
            Item::Struct(item) => expand_struct(item),
            Item::Enum(item) => expand_enum(item),
            other => Err(Error::new(
                other.span(),
                "`#[session]` applies to a type alias, a single-field tuple struct or a choice enum",
            )),
        }
    };
    result.unwrap_or_else(|error| error.to_compile_error())
}

/// Prepends `'__r, __R` to the item's generic parameters.
fn add_params(generics: &mut Generics) -> syn::Result<()> {
    for param in &generics.params {
        let clash = match param {
            syn::GenericParam::Lifetime(l) => l.lifetime.ident == "__r",
            syn::GenericParam::Type(t) => t.ident == "__R",
            syn::GenericParam::Const(_) => false,
        };
        if clash {
            return Err(Error::new(
                param.span(),
                "`'__r` and `__R` are reserved for the parameters `#[session]` adds",
            ));
        }
    }
    generics.params.insert(0, parse_quote!(__R));
    generics.params.insert(0, parse_quote!('__r));
    Ok(())
}

/// Like [`add_params`], with the bound `__R: ::mpst::Role` that structs and enums holding a
/// session state need (type aliases take no bounds).
fn add_bounded_params(generics: &mut Generics) -> syn::Result<()> {
    add_params(generics)?;
    generics.params[1] = parse_quote!(__R: ::mpst::Role);
    Ok(())
}

/// The type `Name<'__r, __R, user params>` that `Self` stands for.
fn self_type(ident: &syn::Ident, generics: &Generics) -> Type {
    let (_, ty_generics, _) = generics.split_for_impl();
    parse_quote!(#ident #ty_generics)
}

/// Prepends `'__r, __R` to the last segment's arguments of `path`.
fn prepend(
    segment: &mut syn::PathSegment,
) -> syn::Result<&mut Punctuated<GenericArgument, syn::Token![,]>> {
    if let PathArguments::None = segment.arguments {
        segment.arguments = PathArguments::AngleBracketed(parse_quote!(<>));
    }
    match &mut segment.arguments {
        PathArguments::AngleBracketed(AngleBracketedGenericArguments { args, .. }) => {
            args.insert(0, parse_quote!(__R));
            args.insert(0, parse_quote!('__r));
            Ok(args)
        }
        other => Err(Error::new(other.span(), "expected `<...>` type arguments")),
    }
}

const EXPECTED: &str = "expected a session type: `Send`, `Receive`, `Select`, `Choose`, \
     `Branch`, `Offer`, `End` or a `#[session]` type";

/// What a rewrite needs to know about the item: what `Self` stands for, and the item's own
/// type parameters (which stand for whole session types and are left alone).
struct Context {
    self_ty: Option<Type>,
    params: Vec<syn::Ident>,
}

impl Context {
    fn new(self_ty: Option<Type>, generics: &Generics) -> Self {
        let params = generics.type_params().map(|p| p.ident.clone()).collect();
        Self { self_ty, params }
    }
}

/// Whether `ty` is written with one of the primitives (so is a session type to rewrite).
fn is_primitive(ty: &Type) -> bool {
    match ty {
        Type::Paren(inner) => is_primitive(&inner.elem),
        Type::Group(inner) => is_primitive(&inner.elem),
        Type::Path(TypePath { qself: None, path }) => path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "Send" | "Receive" | "Select" | "Choose" | "Branch" | "Offer" | "End"
            )
        }),
        _ => false,
    }
}

/// Whether `ty` is `Self`.
fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(TypePath { qself: None, path }) if path.is_ident("Self"))
}

/// Rewrites a session type written as in the paper into the full type.
fn augment(ty: &mut Type, cx: &Context) -> syn::Result<()> {
    match ty {
        Type::Paren(inner) => augment(&mut inner.elem, cx),
        Type::Group(inner) => augment(&mut inner.elem, cx),
        Type::Path(TypePath { qself: None, path }) => {
            if let Some(ident) = path.get_ident() {
                if cx.params.contains(ident) {
                    return Ok(());
                }
            }
            if path.is_ident("Self") {
                return match &cx.self_ty {
                    Some(self_ty) => {
                        *ty = self_ty.clone();
                        Ok(())
                    }
                    None => Err(Error::new(
                        path.span(),
                        "`Self` is only allowed in a `#[session]` struct or enum; \
                         recursive session types must be named structs",
                    )),
                };
            }
            let Some(segment) = path.segments.last_mut() else {
                return Err(Error::new(path.span(), EXPECTED));
            };
            let primitive = segment.ident.to_string();
            let (arity, continuation, usage) = match primitive.as_str() {
                "End" => (0, None, "End"),
                "Send" => (3, Some(2), "Send<Peer, Label, Next>"),
                "Receive" => (3, Some(2), "Receive<Peer, Label, Next>"),
                "Select" => (2, Some(1), "Select<Peer, Choice>"),
                "Choose" => (1, Some(0), "Choose<Choice>"),
                "Branch" => (2, Some(1), "Branch<Peer, Choice>"),
                "Offer" => (1, Some(0), "Offer<Choice>"),
                _ => {
                    // A named session type: its own parameters come after ours. Those
                    // written with primitives, or `Self`, are session types and are
                    // rewritten too.
                    let args = prepend(segment)?;
                    for arg in args.iter_mut().skip(2) {
                        if let GenericArgument::Type(ty) = arg {
                            if is_primitive(ty) || is_self(ty) {
                                augment(ty, cx)?;
                            }
                        }
                    }
                    return Ok(());
                }
            };
            let count = match &segment.arguments {
                PathArguments::None => 0,
                PathArguments::AngleBracketed(args) => args.args.len(),
                PathArguments::Parenthesized(args) => {
                    return Err(Error::new(args.span(), format!("expected `{usage}`")));
                }
            };
            if count != arity {
                return Err(Error::new(
                    segment.span(),
                    format!("`{primitive}` takes {arity} type arguments: `{usage}`"),
                ));
            }
            let args = prepend(segment)?;
            for (index, arg) in args.iter_mut().skip(2).enumerate() {
                let GenericArgument::Type(arg_ty) = arg else {
                    return Err(Error::new(arg.span(), format!("expected `{usage}`")));
                };
                if Some(index) == continuation {
                    augment(arg_ty, cx)?;
                } else {
                    reject_self(arg_ty)?;
                }
            }
            Ok(())
        }
        other => Err(Error::new(other.span(), EXPECTED)),
    }
}

/// Peers and labels are plain types: `Self` there would be a mistake.
fn reject_self(ty: &Type) -> syn::Result<()> {
    if let Type::Path(TypePath { qself: None, path }) = ty {
        if path.is_ident("Self") {
            return Err(Error::new(
                path.span(),
                "`Self` may only stand for a continuation, not a peer or a label",
            ));
        }
    }
    Ok(())
}

fn expand_type(mut item: ItemType) -> syn::Result<TokenStream> {
    add_params(&mut item.generics)?;
    augment(&mut item.ty, &Context::new(None, &item.generics))?;
    Ok(item.into_token_stream())
}

/// Named types and choices implement `SessionType` without bounds (bounds would make
/// recursive types cyclic), which needs them to be free of user parameters.
fn reject_generics(generics: &Generics) -> syn::Result<()> {
    if generics.params.is_empty() && generics.where_clause.is_none() {
        Ok(())
    } else {
        Err(Error::new_spanned(
            generics,
            "a `#[session]` struct or enum cannot have generic parameters \
             (type aliases can)",
        ))
    }
}

fn expand_struct(mut item: ItemStruct) -> syn::Result<TokenStream> {
    reject_generics(&item.generics)?;
    let single = matches!(&item.fields, Fields::Unnamed(fields) if fields.unnamed.len() == 1);
    if !single {
        return Err(Error::new_spanned(
            &item.fields,
            "a `#[session]` struct wraps exactly one session type: `struct Name(Send<..>);`",
        ));
    }
    add_bounded_params(&mut item.generics)?;
    let self_ty = self_type(&item.ident, &item.generics);
    let Fields::Unnamed(fields) = &mut item.fields else {
        return Err(Error::new(Span::call_site(), "unreachable: checked above"));
    };
    let field = &mut fields.unnamed[0];
    augment(&mut field.ty, &Context::new(Some(self_ty), &item.generics))?;
    let inner = field.ty.clone();
    let vis = &item.vis;
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let predicates = where_clause.map(|w| &w.predicates);
    let bounds = quote! {
        where
            __R: ::mpst::Role,
            #inner: ::mpst::FromState<'__r, Role = __R>,
            #predicates
    };
    Ok(quote! {
        #[allow(clippy::type_complexity)]
        #item

        #[allow(clippy::type_complexity)]
        impl #impl_generics ::mpst::IntoSession<'__r> for #ident #ty_generics #bounds {
            type Session = #inner;

            #[inline]
            fn from_session(session: #inner) -> Self {
                Self(session)
            }

            #[inline]
            fn into_session(self) -> #inner {
                self.0
            }
        }

        #[allow(clippy::type_complexity)]
        impl #impl_generics ::mpst::introspect::SessionType for #ident #ty_generics {
            fn visit<__V: ::mpst::introspect::Visitor>(visitor: &mut __V) {
                if visitor.named(::core::any::type_name::<Self>()) {
                    <#inner as ::mpst::introspect::SessionType>::visit(visitor);
                }
            }
        }

        #[allow(clippy::type_complexity)]
        impl #impl_generics #ident #ty_generics #where_clause {
            /// Unfolds this named session type into the session type it wraps.
            #[inline]
            #vis fn into_session(self) -> #inner {
                self.0
            }
        }
    })
}

fn expand_enum(mut item: ItemEnum) -> syn::Result<TokenStream> {
    reject_generics(&item.generics)?;
    if item.variants.is_empty() {
        return Err(Error::new(
            item.ident.span(),
            "a `#[session]` choice enum needs at least one `Variant(Label, Continuation)`",
        ));
    }
    let peers = crate::session_routed::take_peers(&mut item, "to")?;
    let senders = crate::session_routed::take_peers(&mut item, "from")?;
    if peers.is_some() && senders.is_some() {
        return Err(Error::new(
            item.ident.span(),
            "a choice either sends (`#[to(Peer)]`, for `Choose`) or receives \
             (`#[from(Peer)]`, for `Offer`), not both",
        ));
    }
    add_bounded_params(&mut item.generics)?;
    // A choice used only with `Select` is never constructed: it describes a type.
    item.attrs.push(parse_quote!(#[allow(dead_code)]));
    let cx = Context::new(Some(self_type(&item.ident, &item.generics)), &item.generics);
    let mut labels = Vec::new();
    for variant in &mut item.variants {
        let Fields::Unnamed(fields) = &mut variant.fields else {
            return Err(Error::new(
                variant.span(),
                "a choice variant is `Variant(Label, Continuation)`",
            ));
        };
        if fields.unnamed.len() != 2 {
            return Err(Error::new(
                fields.span(),
                "a choice variant is `Variant(Label, Continuation)`",
            ));
        }
        reject_self(&fields.unnamed[0].ty)?;
        augment(&mut fields.unnamed[1].ty, &cx)?;
        labels.push((
            variant.ident.clone(),
            fields.unnamed[0].ty.clone(),
            fields.unnamed[1].ty.clone(),
        ));
    }
    let ident = &item.ident;
    // Variants that name their senders (for `Offer`) or their receivers (for `Choose`).
    let named: [(_, PeerImpls); 2] = [
        (senders, crate::session_offer::impls),
        (peers, crate::session_routed::impls),
    ];
    for (peers, impls) in named {
        let Some(peers) = peers else { continue };
        for peer in &peers {
            reject_self(peer)?;
        }
        let impls = impls(ident, &item.generics, &labels, &peers);
        return Ok(quote! {
            #[allow(clippy::type_complexity)]
            #item

            #impls
        });
    }
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let predicates = where_clause.map(|w| &w.predicates);
    let label_bounds = label_bounds(&labels);
    let bounds = quote! {
        where
            __R: ::mpst::Role,
            #(#label_bounds)*
            #predicates
    };
    let names = labels.iter().map(
        |(_, label, _)| quote!(<<__R as ::mpst::Role>::Message as ::mpst::Message<#label>>::NAME),
    );
    let variants = labels.iter().rev().fold(
        quote!(()),
        |rest, (_, label, next)| quote!(((#label, #next), #rest)),
    );
    let downcasts = labels
        .iter()
        .map(|(variant, label, _)| try_downcast(variant, label, quote!(#label)));
    let choice_type = choice_type(
        ident,
        &item.generics,
        labels
            .iter()
            .map(|(_, label, next)| (quote!(variant::<#label>), next)),
    );
    let choices = labels.iter().map(|(_, label, next)| {
        quote! {
            #[allow(clippy::type_complexity)]
            impl #impl_generics ::mpst::Choice<'__r, #label> for #ident #ty_generics #bounds {
                type Session = #next;
            }
        }
    });
    Ok(quote! {
        #[allow(clippy::type_complexity)]
        #item

        #[allow(clippy::type_complexity)]
        impl #impl_generics ::mpst::Choices<'__r> for #ident #ty_generics #bounds {
            type Role = __R;
            type Variants = #variants;
            const LABELS: &'static [&'static str] = &[#(#names),*];

            #[inline]
            fn downcast(
                next: ::mpst::Continuation<'__r, Self>,
                message: <__R as ::mpst::Role>::Message,
            ) -> ::core::result::Result<Self, <__R as ::mpst::Role>::Message> {
                #(#downcasts)*
                ::core::result::Result::Err(message)
            }
        }

        #(#choices)*

        #choice_type
    })
}

/// The impls of a choice enum whose variants name their peers: (variant, label,
/// continuation) of each variant, then the peer each names (`session_offer::impls`,
/// `session_routed::impls`).
type PeerImpls = fn(&syn::Ident, &Generics, &[(syn::Ident, Type, Type)], &[Type]) -> TokenStream;

/// The where-clause predicates every choice impl needs of each (variant, label,
/// continuation): the role's message carries the label, and the continuation is a state
/// of the role.
pub(crate) fn label_bounds(
    labels: &[(syn::Ident, Type, Type)],
) -> impl Iterator<Item = TokenStream> + '_ {
    labels.iter().map(|(_, label, next)| {
        quote! {
            <__R as ::mpst::Role>::Message: ::mpst::Message<#label>,
            #next: ::mpst::FromState<'__r, Role = __R>,
        }
    })
}

/// In a choice's `downcast`: returns `Self::variant` with the continuation
/// `next.into_session::<turbofish>()` if `message` is a `label`, else goes on with the
/// message given back.
pub(crate) fn try_downcast(
    variant: &syn::Ident,
    label: &Type,
    turbofish: TokenStream,
) -> TokenStream {
    quote! {
        let message = match <<__R as ::mpst::Role>::Message as ::mpst::Message<#label>>::downcast(message) {
            ::core::result::Result::Ok(label) => {
                return ::core::result::Result::Ok(
                    Self::#variant(label, next.into_session::<#turbofish>()),
                )
            }
            ::core::result::Result::Err(message) => message,
        };
    }
}

/// The `ChoiceType` impl of a choice enum, one definition for the three kinds of choice:
/// each variant is seen through `call` on the visitor (`variant::<L>`,
/// `variant_to::<Peer, L>` or `variant_from::<Peer, L>`), then its continuation `next`.
pub(crate) fn choice_type<'a>(
    ident: &syn::Ident,
    generics: &Generics,
    variants: impl Iterator<Item = (TokenStream, &'a Type)>,
) -> TokenStream {
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let visits = variants.map(|(call, next)| {
        quote! {
            visitor.#call();
            <#next as ::mpst::introspect::SessionType>::visit(visitor);
        }
    });
    quote! {
        #[allow(clippy::type_complexity)]
        impl #impl_generics ::mpst::introspect::ChoiceType for #ident #ty_generics {
            fn visit_variants<__V: ::mpst::introspect::Visitor>(visitor: &mut __V) {
                #(#visits)*
            }
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
