//! What the in-memory session tests share: the declaration of a session's roles, each
//! routed to the peers it talks to over one channel type (`declare_roles!`).

/// Declares `type Channel = $channel`, `#[derive(Roles)] struct Roles(..)` of the roles
/// listed, and each role as a `#[derive(Role)]` struct carrying `$label` with one
/// `#[route(Peer)] Channel` field per peer named in its parentheses:
///
/// ```ignore
/// declare_roles!(Label over mpst::channel::Unbounded<Label>: A(B), B(A));
/// ```
macro_rules! declare_roles {
    ($label:ident over $channel:ty: $($role:ident($($peer:ident),+)),+ $(,)?) => {
        type Channel = $channel;

        // A file that only serialises or inspects session types never builds them.
        #[allow(dead_code)]
        #[derive(::mpst::Roles)]
        struct Roles($($role),+);

        $(
            #[derive(::mpst::Role)]
            #[message($label)]
            struct $role($(#[route($peer)] Channel),+);
        )+
    };
}

pub(crate) use declare_roles;
