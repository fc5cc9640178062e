//! `#[session]` on choice enums whose variants name their peers with `#[to(Peer)]`: the
//! enums `Choose<Cases>` takes, for choices whose branches go to different receivers.
//!
//! Such an enum implements `ChoiceTo` once per variant (label, peer, continuation) and
//! `ChoiceType` (its variants for introspection, each with its peer), but not `Choice`
//! or `Choices`: it cannot be used with the one-peer `Select` or with `Branch`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Error, Generics, Ident, ItemEnum, Meta, Type};

/// The peer of each variant, in order, taken out of the variants' `#[to(Peer)]`
/// attributes (`#[from(Peer)]` with `attribute` `"from"`); `None` when no variant has
/// one. Either every variant names its peer or none does.
pub(crate) fn take_peers(item: &mut ItemEnum, attribute: &str) -> syn::Result<Option<Vec<Type>>> {
    let usage = format!("expected `#[{attribute}(Peer)]`");
    let mut peers = Vec::new();
    let mut missing = None;
    for variant in &mut item.variants {
        let mut peer = None;
        let mut error = None;
        variant.attrs.retain(|attr| {
            if !attr.path().is_ident(attribute) {
                return true;
            }
            let parsed = match &attr.meta {
                Meta::List(list) => list.parse_args::<Type>(),
                other => Err(Error::new(other.span(), &usage)),
            };
            match parsed {
                Ok(ty) if peer.is_none() => peer = Some(ty),
                Ok(_) => {
                    error.get_or_insert(Error::new(
                        attr.span(),
                        "a choice variant names its peer once",
                    ));
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
            false
        });
        if let Some(e) = error {
            return Err(e);
        }
        match peer {
            Some(ty) => peers.push(ty),
            None => {
                missing.get_or_insert(variant.ident.clone());
            }
        }
    }
    match (peers.is_empty(), missing) {
        (true, _) => Ok(None),
        (false, None) => Ok(Some(peers)),
        (false, Some(variant)) => Err(Error::new(
            variant.span(),
            if attribute == "to" {
                "every variant of a choice whose variants name their peers needs \
                 `#[to(Peer)]`; write `Select<Peer, Choice>` without `#[to]` when all go \
                 to one peer"
            } else {
                "every variant of a choice whose variants name their senders needs \
                 `#[from(Peer)]`; write `Branch<Peer, Choice>` without `#[from]` when all \
                 come from one peer"
            },
        )),
    }
}

/// The impls of a routed choice enum: `labels` are (variant, label, continuation) as
/// rewritten by `#[session]`, `peers` the peer of each variant.
pub(crate) fn impls(
    ident: &Ident,
    generics: &Generics,
    labels: &[(Ident, Type, Type)],
    peers: &[Type],
) -> TokenStream {
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let routes = labels.iter().zip(peers).map(|((_, label, next), peer)| {
        quote! {
            #[allow(clippy::type_complexity)]
            impl #impl_generics ::mpst::ChoiceTo<'__r, #label> for #ident #ty_generics
            where
                __R: ::mpst::Role,
                <__R as ::mpst::Role>::Message: ::mpst::Message<#label>,
                #next: ::mpst::FromState<'__r, Role = __R>,
            {
                type Role = __R;
                type Peer = #peer;
                type Session = #next;
            }
        }
    });
    let choice_type = crate::session::choice_type(
        ident,
        generics,
        labels
            .iter()
            .zip(peers)
            .map(|((_, label, next), peer)| (quote!(variant_to::<#peer, #label>), next)),
    );
    quote! {
        #(#routes)*

        #choice_type
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::expand_session as expand_enum;
    use crate::test_support::squash;
    use quote::quote;

    #[test]
    fn each_variant_gets_its_peer_and_no_one_peer_impls() {
        let out = expand_enum(quote!(
            enum Pick {
                #[to(B)]
                Left(Left, Send<C, Tell, End>),
                #[to(C)]
                Right(Right, End),
            }
        ));
        let left = squash(
            &quote!(
                impl<'__r, __R: ::mpst::Role> ::mpst::ChoiceTo<'__r, Left> for Pick<'__r, __R>
            )
            .to_string(),
        );
        assert!(out.contains(&left), "{out}");
        assert!(out.contains("typePeer=B;"), "{out}");
        assert!(out.contains("typePeer=C;"), "{out}");
        assert!(out.contains("visitor.variant_to::<B,Left>()"), "{out}");
        assert!(
            out.contains("typeSession=Send<'__r,__R,C,Tell,End<'__r,__R>>;"),
            "{out}"
        );
        assert!(!out.contains("::mpst::Choices<"), "{out}");
        assert!(!out.contains("::mpst::Choice<"), "{out}");
        assert!(!out.contains("#[to"), "the attributes are consumed: {out}");
    }

    #[test]
    fn a_variant_without_its_peer_is_an_error() {
        let out = expand_enum(quote!(
            enum Pick {
                #[to(B)]
                Left(Left, End),
                Right(Right, End),
            }
        ));
        assert!(out.contains("compile_error!"), "{out}");
        assert!(out.contains("needs`#[to(Peer)]`"), "{out}");
    }

    #[test]
    fn malformed_and_repeated_peers_are_errors() {
        let out = expand_enum(quote!(
            enum Pick {
                #[to = "B"]
                Left(Left, End),
            }
        ));
        assert!(out.contains("expected`#[to(Peer)]`"), "{out}");
        let out = expand_enum(quote!(
            enum Pick {
                #[to(B)]
                #[to(C)]
                Left(Left, End),
            }
        ));
        assert!(out.contains("namesitspeeronce"), "{out}");
        let out = expand_enum(quote!(
            enum Pick {
                #[to(Self)]
                Left(Left, End),
            }
        ));
        assert!(out.contains("compile_error!"), "{out}");
    }

    #[test]
    fn choose_takes_one_argument() {
        let out = expand_enum(quote!(
            type A = Receive<B, Go, Choose<Pick>>;
        ));
        assert!(out.contains("Choose<'__r,__R,Pick<'__r,__R>>"), "{out}");
        let out = expand_enum(quote!(
            type A = Choose<B, Pick>;
        ));
        assert!(out.contains("takes1typearguments"), "{out}");
    }
}
