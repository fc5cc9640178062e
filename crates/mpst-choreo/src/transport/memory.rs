//! In-memory transport: one unbounded tokio channel per role, for tests and for running
//! every role in one process.

use std::collections::HashMap;
use std::sync::Mutex;

use futures::StreamExt;
use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::{Envelope, Incoming, Transport, TransportCause, TransportError};
use crate::role::RoleName;

type Receivers = HashMap<RoleName, mpsc::UnboundedReceiver<Envelope>>;

/// An in-memory network between a fixed set of roles. Delivery is immediate and in
/// order; wrap it in [`Chaos`](super::Chaos) to reorder, delay, duplicate and drop.
pub struct InMemory {
    /// Looked up on every send: aHash rather than SipHash (the roles are fixed here).
    senders: HashMap<RoleName, mpsc::UnboundedSender<Envelope>, ahash::RandomState>,
    receivers: Mutex<Receivers>,
}

impl InMemory {
    /// A network connecting `roles`.
    pub fn new(roles: impl IntoIterator<Item = RoleName>) -> Self {
        let mut senders = HashMap::default();
        let mut receivers = HashMap::new();
        for role in roles {
            let (tx, rx) = mpsc::unbounded_channel();
            senders.insert(role.clone(), tx);
            receivers.insert(role, rx);
        }
        Self {
            senders,
            receivers: Mutex::new(receivers),
        }
    }
}

impl Transport for InMemory {
    fn send(&self, envelope: Envelope) -> BoxFuture<'_, Result<(), TransportError>> {
        let result = match self.senders.get(&envelope.to) {
            Some(tx) => {
                let to = envelope.to.clone();
                tx.send(envelope)
                    .map_err(|_| TransportError::new(to, TransportCause::Closed))
            }
            None => Err(TransportError::new(
                envelope.to.clone(),
                TransportCause::Unavailable(format!("no role {} in this network", envelope.to)),
            )),
        };
        Box::pin(async move { result })
    }

    fn incoming(&self, role: &RoleName) -> Result<Incoming, TransportError> {
        let mut receivers = match self.receivers.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        match receivers.remove(role) {
            Some(mut rx) => {
                let stream = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
                Ok(stream.map(Ok).boxed())
            }
            None => Err(TransportError::new(
                role.clone(),
                TransportCause::Unavailable(format!(
                    "no role {role} in this network, or its incoming stream is taken"
                )),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Key, Site, Token};

    #[tokio::test]
    async fn delivers_to_the_addressed_role_only_once_taken() {
        let net = InMemory::new([RoleName::from("A"), RoleName::from("B")]);
        let mut b = net.incoming(&"B".into()).unwrap();
        assert!(net.incoming(&"B".into()).is_err(), "second take refused");
        let env = Envelope {
            from: "A".into(),
            to: "B".into(),
            key: Key::new(Site::here(), Token::root()),
            payload: vec![1, 2],
        };
        net.send(env.clone()).await.unwrap();
        assert_eq!(b.next().await.unwrap().unwrap(), env);
        let err = net
            .send(Envelope {
                to: "Z".into(),
                ..env
            })
            .await
            .unwrap_err();
        assert_eq!(err.peer, RoleName::from("Z"));
    }
}
