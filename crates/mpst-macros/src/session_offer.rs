//! `#[session]` on choice enums whose variants name their senders with `#[from(Peer)]`: the
//! enums `Offer<Cases>` takes, for external choices whose branches come from different
//! peers.
//!
//! Such an enum implements `Offers` (its peers, how to poll each one's route, and which
//! variants a message from each peer may become), `OfferCase` once per variant (peer,
//! label, continuation) and `ChoiceType` (its variants for introspection, each with its
//! sender), but not `Choices` or `ChoiceTo`: it cannot be used with `Branch`, `Select` or
//! `Choose`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Generics, Ident, Type};

/// The text a peer type is named by in errors: its last path segment, which is the role's
/// `Role::NAME` for a `#[derive(Role)]` struct.
fn peer_name(peer: &Type) -> String {
    match peer {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .map_or_else(|| quote!(#peer).to_string(), |s| s.ident.to_string()),
        other => quote!(#other).to_string(),
    }
}

/// The impls of an offer enum: `labels` are (variant, label, continuation) as rewritten by
/// `#[session]`, `senders` the sender of each variant.
pub(crate) fn impls(
    ident: &Ident,
    generics: &Generics,
    labels: &[(Ident, Type, Type)],
    senders: &[Type],
) -> TokenStream {
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    // The distinct peers, in order of first appearance, and each variant's peer index.
    let mut peers: Vec<&Type> = Vec::new();
    let mut index = Vec::with_capacity(senders.len());
    for sender in senders {
        let key = quote!(#sender).to_string();
        match peers.iter().position(|p| quote!(#p).to_string() == key) {
            Some(i) => index.push(i),
            None => {
                index.push(peers.len());
                peers.push(sender);
            }
        }
    }
    let label_bounds = crate::session::label_bounds(labels);
    let bounds = quote! {
        where
            __R: ::mpst::Role #(+ ::mpst::RouteFrom<#peers>)*,
            #(#label_bounds)*
    };
    let names = peers.iter().map(|p| quote!(<#p as ::mpst::Role>::NAME));
    let list = peers
        .iter()
        .map(|p| peer_name(p))
        .collect::<Vec<_>>()
        .join(" or ");
    let per_peer = (0..peers.len()).map(|i| {
        let of = labels.iter().zip(&index).filter(|&(_, &j)| j == i).map(
            |((_, label, _), _)| {
                quote!(<<__R as ::mpst::Role>::Message as ::mpst::Message<#label>>::NAME)
            },
        );
        quote!(&[#(#of),*])
    });
    let polls = peers
        .iter()
        .enumerate()
        .map(|(i, peer)| quote!(#i => <__R as ::mpst::RouteFrom<#peer>>::poll_from(role, cx),));
    let downcasts =
        (0..peers.len()).map(|i| {
            let peer = peers[i];
            let tries = labels.iter().zip(&index).filter(|&(_, &j)| j == i).map(
                |((variant, label, _), _)| {
                    crate::session::try_downcast(variant, label, quote!(#peer, #label))
                },
            );
            quote! {
                #i => {
                    #(#tries)*
                    ::core::result::Result::Err(message)
                }
            }
        });
    let cases = labels.iter().zip(senders).map(|((_, label, next), peer)| {
        quote! {
            #[allow(clippy::type_complexity)]
            impl #impl_generics ::mpst::OfferCase<'__r, #peer, #label> for #ident #ty_generics #bounds {
                type Session = #next;
            }
        }
    });
    let choice_type = crate::session::choice_type(
        ident,
        generics,
        labels
            .iter()
            .zip(senders)
            .map(|((_, label, next), peer)| (quote!(variant_from::<#peer, #label>), next)),
    );
    quote! {
        #[allow(clippy::type_complexity)]
        impl #impl_generics ::mpst::Offers<'__r> for #ident #ty_generics #bounds {
            type Role = __R;
            const PEERS: &'static [&'static str] = &[#(#names),*];
            const PEER_LIST: &'static str = #list;
            const LABELS: &'static [&'static [&'static str]] = &[#(#per_peer),*];

            #[inline]
            fn poll_peer(
                role: &mut __R,
                peer: usize,
                cx: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<::core::result::Result<<__R as ::mpst::Role>::Message, ::mpst::ReceiveErrorKind>> {
                match peer {
                    #(#polls)*
                    // `Offer` asks only for the indices of `PEERS`.
                    _ => ::core::task::Poll::Pending,
                }
            }

            #[inline]
            fn downcast(
                next: ::mpst::OfferContinuation<'__r, Self>,
                peer: usize,
                message: <__R as ::mpst::Role>::Message,
            ) -> ::core::result::Result<Self, <__R as ::mpst::Role>::Message> {
                match peer {
                    #(#downcasts)*
                    _ => ::core::result::Result::Err(message),
                }
            }

            fn turn() -> &'static ::mpst::offer::Turn {
                static TURN: ::mpst::offer::Turn = ::mpst::offer::Turn::new();
                &TURN
            }
        }

        #(#cases)*

        #choice_type
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::expand_session as expand_enum;
    use quote::quote;

    #[test]
    fn each_variant_gets_its_sender_and_no_one_peer_impls() {
        let out = expand_enum(quote!(
            enum Learn {
                #[from(B)]
                Left(Left, Send<C, Tell, End>),
                #[from(P)]
                Right(Right, End),
                #[from(B)]
                Quit(Quit, End),
            }
        ));
        assert!(
            out.contains("__R:::mpst::Role+::mpst::RouteFrom<B>+::mpst::RouteFrom<P>,"),
            "{out}"
        );
        assert!(
            out.contains("constPEER_LIST:&'staticstr=\"BorP\";"),
            "{out}"
        );
        assert!(out.contains("::mpst::OfferCase<'__r,B,Left>"), "{out}");
        assert!(out.contains("::mpst::OfferCase<'__r,P,Right>"), "{out}");
        assert!(out.contains("next.into_session::<B,Quit>()"), "{out}");
        assert!(out.contains("visitor.variant_from::<P,Right>()"), "{out}");
        // Peer 0 (B) takes Left and Quit only; peer 1 (P) Right only.
        let b = out.find("0usize=>{").expect("peer 0's downcasts");
        let p = out.find("1usize=>{").expect("peer 1's downcasts");
        let of_b = &out[b..p];
        assert!(
            of_b.contains("Self::Left(") && of_b.contains("Self::Quit("),
            "{of_b}"
        );
        assert!(!of_b.contains("Self::Right("), "{of_b}");
        assert!(!out.contains("::mpst::Choices<"), "{out}");
        assert!(!out.contains("::mpst::ChoiceTo<"), "{out}");
        assert!(
            !out.contains("#[from"),
            "the attributes are consumed: {out}"
        );
    }

    #[test]
    fn senders_and_receivers_do_not_mix() {
        let out = expand_enum(quote!(
            enum Mixed {
                #[from(B)]
                Left(Left, End),
                Right(Right, End),
            }
        ));
        assert!(out.contains("needs`#[from(Peer)]`"), "{out}");
        let out = expand_enum(quote!(
            enum Mixed {
                #[from(B)]
                #[to(C)]
                Left(Left, End),
            }
        ));
        assert!(out.contains("eithersends"), "{out}");
    }

    #[test]
    fn offer_takes_one_argument() {
        let out = expand_enum(quote!(
            type D = Receive<B, Go, Offer<Learn>>;
        ));
        assert!(out.contains("Offer<'__r,__R,Learn<'__r,__R>>"), "{out}");
    }
}
