//! What the in-memory session tests share: the declaration of a session's roles, each
//! routed to the peers it talks to over one channel type (`declare_roles!`), the README's
//! adder between roles `C` and `S` (`adder!`), and running a protocol on one thread until it
//! stalls (`run_until_stalled`).

use std::future::Future;

use futures::FutureExt;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;

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

/// Declares the README's adder between the roles `C` and `S` of the calling module
/// (declared with [`declare_roles!`] over the label enum `Label`): the labels `Label`,
/// `Add` and `Sum`, the session types `Client` (`S!add. S!add. S?sum. end`) and `Server`,
/// and their processes `client(&mut C, x, y)` and `server(&mut S)`, which both return the
/// sum.
macro_rules! adder {
    () => {
        /// The README's adder (`support::adder!`).
        mod adder {
            use super::{C, S};
            use mpst::{End, Error, Message, Receive, Send, session, try_session};

            #[derive(Message)]
            pub(crate) enum Label {
                Add(Add),
                Sum(Sum),
            }

            pub(crate) struct Add(pub(crate) i32);
            pub(crate) struct Sum(pub(crate) i32);

            #[session]
            pub(crate) type Client = Send<S, Add, Send<S, Add, Receive<S, Sum, End>>>;
            #[session]
            pub(crate) type Server = Receive<C, Add, Receive<C, Add, Send<C, Sum, End>>>;

            pub(crate) async fn server(role: &mut S) -> Result<i32, Error> {
                try_session(role, |s: Server<'_, S>| async move {
                    let (Add(x), s) = s.receive().await?;
                    let (Add(y), s) = s.receive().await?;
                    Ok((x + y, s.send(Sum(x + y)).await?))
                })
                .await
            }

            pub(crate) async fn client(role: &mut C, x: i32, y: i32) -> Result<i32, Error> {
                try_session(role, |s: Client<'_, C>| async move {
                    let (Sum(sum), end) =
                        s.send(Add(x)).await?.send(Add(y)).await?.receive().await?;
                    Ok((sum, end))
                })
                .await
            }
        }
        use adder::*;
    };
}

pub(crate) use adder;

/// Runs `future` on one thread until nothing can make progress, and fails the test if it
/// is not done by then: a hang (a role still waiting for a peer that gave up, or for a
/// message that was never flushed) is a failed assertion, not a test that never ends.
pub(crate) fn run_until_stalled<T: 'static>(future: impl Future<Output = T> + 'static) -> T {
    let mut pool = LocalPool::new();
    let handle = pool
        .spawner()
        .spawn_local_with_handle(future)
        .expect("spawn");
    pool.run_until_stalled();
    handle
        .now_or_never()
        .expect("the protocol stalled: a role waits for a message that never comes")
}
