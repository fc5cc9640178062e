//! Procedural macros of `mpst`: `derive(Role)`, `derive(Roles)`, `derive(Message)`,
//! `derive(Payload)`, `#[session]`.
//!
//! Use them through the `mpst` crate, which re-exports them and documents what they
//! generate. Every error is a spanned `syn::Error` pointing at the offending tokens.

#![warn(missing_docs)]

use proc_macro::TokenStream;
use syn::spanned::Spanned;
use syn::{Data, DataEnum, DataStruct, DeriveInput, Error, parse_macro_input};

mod message;
mod payload;
mod role;
mod roles;
mod session;
mod session_offer;
mod session_routed;
#[cfg(test)]
mod test_support;

/// Derives `mpst::Role` and one `mpst::Route<Peer>` per field marked `#[route(Peer)]`.
///
/// The struct needs `#[message(Label)]` naming its label enum. Fields without `#[route]`
/// are filled with `Default::default()` by `#[derive(Roles)]`. Every routed field's type
/// must be a `futures::Sink<Label>` and implement `mpst::channel::Abort`: the derived
/// `Role::poll_flush`, `Role::begin` and `Role::abort` visit each route in field order.
#[proc_macro_derive(Role, attributes(message, route))]
pub fn derive_role(input: TokenStream) -> TokenStream {
    derive(input, role::expand)
}

/// Derives `Default` for a struct of roles, creating and wiring every route between them.
///
/// For each pair of roles `X`, `Y` where `X` routes to `Y`, `Y` must route to `X` and the two
/// route types must implement `mpst::channel::Pair` with each other; one pair is created and
/// each end handed to its role. A route to a role missing from the struct gets an end whose
/// peer is gone (its operations fail with `Disconnected`).
///
/// Exactly the declared routes are created: a channel exists between two roles only if
/// their structs route to each other. The derive cannot leave out a declared route that
/// the protocol never uses, because it sees only the struct's fields: which peers a role
/// talks to is written in its session types, which a derive on the roles cannot see. So
/// declare only the routes a role uses (a peer it never talks to needs no `#[route]`
/// field; with none on either side, no channel is made). `mpst generate` declares a
/// route from every role to every other one, so its `Roles::default()` creates a channel
/// for every pair; an unused one costs one idle channel at set-up and nothing per message.
#[proc_macro_derive(Roles)]
pub fn derive_roles(input: TokenStream) -> TokenStream {
    derive(input, roles::expand)
}

/// Derives `mpst::Message<L>` for the type `L` each variant wraps, `mpst::Labelled`,
/// `From<L>` for the enum and `TryFrom<Enum>` for each `L`.
///
/// A label is named after its variant, or by `#[message(label = "name")]` on the variant
/// (for a protocol label carried with different payloads, hence by two types).
#[proc_macro_derive(Message, attributes(message))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    derive(input, message::expand)
}

/// Derives `mpst::Payload` for a label struct: `SORTS` lists its field types as written,
/// in order (`struct Value(i32)` gives `["i32"]`, a unit struct `[]`).
#[proc_macro_derive(Payload)]
pub fn derive_payload(input: TokenStream) -> TokenStream {
    derive(input, payload::expand)
}

/// Turns a session type written without its lifetime and role parameters into the full
/// type: on a type alias, a recursive single-field tuple struct (`Self` allowed) or a
/// choice enum of `Variant(Label, Continuation)` variants. Variants of a choice whose
/// branches go to different peers each name theirs, `#[to(Peer)] Variant(Label, Next)`,
/// and the enum is used with `Choose<Choice>`; variants of a choice whose branches come
/// from different peers each name their sender, `#[from(Peer)] Variant(Label, Next)`, and
/// the enum is used with `Offer<Choice>`.
#[proc_macro_attribute]
pub fn session(attr: TokenStream, item: TokenStream) -> TokenStream {
    session::expand(attr.into(), parse_macro_input!(item)).into()
}

/// Runs one derive's expansion, turning its spanned error into a `compile_error!`.
fn derive(
    input: TokenStream,
    expand: fn(proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream>,
) -> TokenStream {
    expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The struct a derive is on: `expected` is the error on anything else, `generic` the
/// error on a struct with generic parameters.
fn struct_of<'a>(
    input: &'a DeriveInput,
    expected: &str,
    generic: &str,
) -> syn::Result<&'a DataStruct> {
    let Data::Struct(data) = &input.data else {
        return Err(Error::new(input.ident.span(), expected));
    };
    no_generics(input, generic)?;
    Ok(data)
}

/// The enum a derive is on: `expected` is the error on anything else, `generic` the error
/// on an enum with generic parameters.
fn enum_of<'a>(input: &'a DeriveInput, expected: &str, generic: &str) -> syn::Result<&'a DataEnum> {
    let Data::Enum(data) = &input.data else {
        return Err(Error::new(input.ident.span(), expected));
    };
    no_generics(input, generic)?;
    Ok(data)
}

/// `generic` as the error at the generic parameters of a derive's input, if it has any.
fn no_generics(input: &DeriveInput, generic: &str) -> syn::Result<()> {
    match input.generics.params.is_empty() {
        true => Ok(()),
        false => Err(Error::new(input.generics.span(), generic)),
    }
}
