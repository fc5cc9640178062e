//! Where a transport hands what arrives for one role: an [`Inbox`]. An endpoint's inbox
//! files each envelope into its mailbox right there, in the code that received it (the
//! sender's task in memory, the connection's reader over a network), and wakes the
//! receive waiting for its key: no task sits between the transport and the session. A
//! stream inbox queues them instead, for tools and tests that read raw envelopes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::StreamExt;
use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::{Envelope, Incoming, TransportError};

/// What takes the deliveries of an [`Inbox`]: an endpoint's mailbox, a stream's queue,
/// or a wrapper around another inbox (e.g. one that records arrivals, then delivers).
/// Closures `Fn(Result<Envelope, TransportError>) -> bool` are targets too. Dropping the
/// target tells its endpoint that nothing more will arrive.
pub trait Deliver: Send + Sync + 'static {
    /// Takes one envelope, or a failure of the transport (a lost peer, a refused
    /// connection, undecodable bytes). Called synchronously by the transport, so it must
    /// be quick and never wait. Returns `false` once nothing is taken any more (the
    /// endpoint is gone): the transport may stop reading for this role.
    fn deliver(&self, item: Result<Envelope, TransportError>) -> bool;
}

impl<F> Deliver for F
where
    F: Fn(Result<Envelope, TransportError>) -> bool + Send + Sync + 'static,
{
    fn deliver(&self, item: Result<Envelope, TransportError>) -> bool {
        self(item)
    }
}

/// One role's receiving end, given to [`Transport::attach`](super::Transport::attach):
/// the transport calls [`Inbox::deliver`] for every envelope addressed to the role and
/// every failure it sees, as they happen. Cloning it is cheap; when the transport has
/// dropped every clone, the endpoint knows that nothing more will arrive (its waiting
/// receives fail with [`ChoreoError::Closed`](crate::ChoreoError::Closed)).
#[derive(Clone)]
pub struct Inbox(Arc<dyn Deliver>);

impl Inbox {
    /// An inbox delivering to `target`.
    pub fn new(target: impl Deliver) -> Self {
        Inbox(Arc::new(target))
    }

    /// An inbox whose deliveries come out of the returned stream, in the order they were
    /// delivered; the stream ends once every clone of the inbox is dropped. It queues
    /// what is not read without bound: for tools and tests that read raw envelopes
    /// (an endpoint's inbox bounds what nobody claims, see
    /// [`EndpointConfig`](crate::EndpointConfig)).
    pub fn stream() -> (Inbox, Incoming) {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let inbox = Inbox::new(move |item| tx.send(item).is_ok());
        let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx)).boxed();
        (inbox, stream)
    }

    /// Delivers one envelope or failure; `false` once nothing is taken any more.
    pub fn deliver(&self, item: Result<Envelope, TransportError>) -> bool {
        self.0.deliver(item)
    }
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inbox")
    }
}

/// The future of a send that completed at once, without an allocation: it is zero-sized,
/// so boxing it allocates nothing. Transports whose `send` takes the envelope at once
/// return it for success.
pub(crate) struct Sent;

impl Future for Sent {
    type Output = Result<(), TransportError>;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(Ok(()))
    }
}

/// The boxed future of a send whose outcome is known at once: no allocation on success.
pub(crate) fn done(
    result: Result<(), TransportError>,
) -> BoxFuture<'static, Result<(), TransportError>> {
    match result {
        Ok(()) => Box::pin(Sent),
        Err(e) => Box::pin(std::future::ready(Err(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Key, Site, Token};

    #[test]
    fn a_sent_future_is_zero_sized_so_boxing_it_allocates_nothing() {
        assert_eq!(std::mem::size_of::<Sent>(), 0);
        let boxed = done(Ok(()));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut boxed = boxed;
        assert!(matches!(boxed.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
    }

    #[tokio::test]
    async fn a_stream_inbox_yields_in_order_and_ends_with_its_last_clone() {
        let (inbox, stream) = Inbox::stream();
        let env = |n| Envelope {
            from: "A".into(),
            to: "B".into(),
            key: Key::new(Site::from_id(n), Token::root()),
            payload: vec![],
        };
        let copy = inbox.clone();
        assert!(inbox.deliver(Ok(env(1))));
        assert!(copy.deliver(Ok(env(2))));
        drop((inbox, copy));
        let sites: Vec<u64> = stream
            .map(|item| item.unwrap().key.site.id())
            .collect()
            .await;
        assert_eq!(sites, [1, 2]);
    }
}
