//! In-memory transport: each role's inbox, filed by the sender's own `send` (no channel,
//! no task between), for tests and for running every role in one process.

use std::sync::{Mutex, OnceLock};

use futures::future::BoxFuture;

use super::{Envelope, Inbox, Transport, TransportCause, TransportError, done};
use crate::role::RoleName;

/// One role's end: its inbox once attached, and what was sent before that.
#[derive(Default)]
struct Port {
    inbox: OnceLock<Inbox>,
    /// Envelopes sent before the role attached, delivered in order when it does.
    early: Mutex<Vec<Envelope>>,
}

impl Port {
    fn early(&self) -> std::sync::MutexGuard<'_, Vec<Envelope>> {
        self.early.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Delivers `envelope`, or keeps it until the role attaches; `false` once the role's
    /// endpoint is gone.
    fn deliver(&self, envelope: Envelope) -> bool {
        if let Some(inbox) = self.inbox.get() {
            return inbox.deliver(Ok(envelope));
        }
        let mut early = self.early();
        // Attaching sets the inbox while holding `early`: look again under the lock.
        match self.inbox.get() {
            Some(inbox) => inbox.deliver(Ok(envelope)),
            None => {
                early.push(envelope);
                true
            }
        }
    }
}

/// An in-memory network between a fixed set of roles. Delivery is immediate and in
/// order: `send` files the envelope into the receiving endpoint's mailbox and wakes the
/// receive waiting for it, in the sender's task. Wrap it in [`Chaos`](super::Chaos) to
/// reorder, delay, duplicate and drop.
pub struct InMemory {
    /// Looked up on every send, by comparing names: a choreography has few roles, and a
    /// name usually points at the same static text as the one looked up (nothing hashed).
    ports: Vec<(RoleName, Port)>,
}

impl InMemory {
    /// A network connecting `roles` (a role named twice has one port).
    pub fn new(roles: impl IntoIterator<Item = RoleName>) -> Self {
        let mut ports: Vec<(RoleName, Port)> = Vec::new();
        for role in roles {
            if !ports.iter().any(|(name, _)| *name == role) {
                ports.push((role, Port::default()));
            }
        }
        Self { ports }
    }

    fn port(&self, role: &RoleName) -> Option<&Port> {
        self.port_named(role).map(|(_, port)| port)
    }

    /// The port of `role` with its name as this network holds it.
    fn port_named(&self, role: &RoleName) -> Option<&(RoleName, Port)> {
        self.ports.iter().find(|(name, _)| name == role)
    }
}

impl Transport for InMemory {
    fn send(&self, envelope: Envelope) -> BoxFuture<'static, Result<(), TransportError>> {
        done(match self.port_named(&envelope.to) {
            // The name for the error is the port's: nothing is copied on success.
            Some((to, port)) => match port.deliver(envelope) {
                true => Ok(()),
                false => Err(TransportError::new(to.clone(), TransportCause::Closed)),
            },
            None => Err(TransportError::new(
                envelope.to.clone(),
                TransportCause::Unavailable(format!("no role {} in this network", envelope.to)),
            )),
        })
    }

    fn attach(&self, role: &RoleName, inbox: Inbox) -> Result<(), TransportError> {
        let unavailable = || {
            TransportError::new(
                role.clone(),
                TransportCause::Unavailable(format!(
                    "no role {role} in this network, or its incoming stream is taken"
                )),
            )
        };
        let port = self.port(role).ok_or_else(unavailable)?;
        let mut early = port.early();
        if port.inbox.set(inbox).is_err() {
            return Err(unavailable());
        }
        if let Some(inbox) = port.inbox.get() {
            for envelope in early.drain(..) {
                inbox.deliver(Ok(envelope));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

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

    #[tokio::test]
    async fn what_is_sent_before_attaching_comes_first_and_a_gone_inbox_is_closed() {
        let net = InMemory::new([RoleName::from("B")]);
        let env = |n| Envelope {
            from: "A".into(),
            to: "B".into(),
            key: Key::new(Site::from_id(n), Token::root()),
            payload: vec![],
        };
        net.send(env(1)).await.unwrap();
        net.send(env(2)).await.unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let noted = seen.clone();
        let open = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let still = open.clone();
        let inbox = Inbox::new(move |item: Result<Envelope, TransportError>| {
            noted.lock().unwrap().push(item.unwrap().key.site.id());
            still.load(std::sync::atomic::Ordering::SeqCst)
        });
        net.attach(&"B".into(), inbox).unwrap();
        net.send(env(3)).await.unwrap();
        assert_eq!(*seen.lock().unwrap(), [1, 2, 3], "in order, none lost");
        open.store(false, std::sync::atomic::Ordering::SeqCst);
        let err = net.send(env(4)).await.unwrap_err();
        assert!(matches!(err.cause, TransportCause::Closed), "{err}");
    }
}
