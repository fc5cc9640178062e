//! Sending and receiving one keyed message: claiming its key at call time (so reuse is
//! an error in program order), the transport send, the mailbox wait with its timeout,
//! decoding, and the observer's events.

use std::future::Future;
use std::sync::Arc;

use crate::Portable;
use crate::endpoint::{Gone, Pending};
use crate::error::{ChoreoError, Result};
use crate::key::Key;
use crate::op::{Op, type_label};
use crate::role::{RoleName, RoleSet};
use crate::transport::EventKind;

impl<L: RoleSet> Op<L> {
    /// Claims the key now and returns the future that sends. The observer's label is
    /// made only when an observer records events.
    pub(crate) fn send_bytes<P, Lb>(
        &self,
        to: RoleName,
        key: Key,
        payload: P,
        label: Lb,
    ) -> impl Future<Output = Result<()>> + Send + 'static + use<P, Lb, L>
    where
        P: Future<Output = Result<Vec<u8>>> + Send + 'static,
        Lb: FnOnce() -> String + Send + 'static,
    {
        let claim = self.shared.claim_send(&to, &key);
        if let Err(e) = &claim {
            self.record(e);
        }
        let shared = Arc::clone(&self.shared);
        async move {
            claim?;
            let payload = payload.await?;
            let (envelope, seen) = shared.envelope(to, key, payload);
            shared.transport.send(envelope).await?;
            shared.sent(seen, label);
            Ok(())
        }
    }

    /// Claims the key now and returns the future that receives and decodes.
    pub(crate) fn receive<T: Portable>(
        &self,
        from: RoleName,
        key: Key,
    ) -> impl Future<Output = Result<T>> + Send + 'static + use<T, L> {
        self.receive_labelled(from, key, |_: &T| type_label::<T>())
    }

    pub(crate) fn receive_labelled<T: Portable, F>(
        &self,
        from: RoleName,
        key: Key,
        label: F,
    ) -> impl Future<Output = Result<T>> + Send + 'static + use<T, F, L>
    where
        F: FnOnce(&T) -> String + Send + 'static,
    {
        let claim = self.shared.claim_receive(&from, &key);
        if let Err(e) = &claim {
            self.record(e);
        }
        let shared = Arc::clone(&self.shared);
        async move {
            let address = (from, key);
            let outcome = match claim? {
                Pending::Ready(env) => Ok(env),
                Pending::Failed(gone) => Err(gone),
                // Settled by a delivery, a time-out, a lost sender, or closed when the
                // session's keys were forgotten under this receive or the endpoint was
                // dropped.
                Pending::Wait(cell) => shared.wait(cell).await,
            };
            let (from, key) = address;
            let env = match outcome {
                Ok(env) => env,
                Err(Gone::Lost(message)) => {
                    return Err(ChoreoError::PeerLost {
                        role: shared.role.clone(),
                        from,
                        key: Box::new(key),
                        message,
                    });
                }
                Err(Gone::TimedOut) => {
                    return Err(ChoreoError::Timeout {
                        role: shared.role.clone(),
                        from,
                        key: Box::new(key),
                        after: shared.config.recv_timeout,
                    });
                }
                Err(Gone::Closed) => {
                    return Err(ChoreoError::Closed {
                        role: shared.role.clone(),
                        key: Box::new(key),
                    });
                }
            };
            if env.from != from {
                return Err(ChoreoError::WrongSender {
                    role: shared.role.clone(),
                    key: Box::new(key),
                    expected: from,
                    got: env.from,
                });
            }
            let value: T = postcard::from_bytes(&env.payload).map_err(|e| ChoreoError::Decode {
                role: shared.role.clone(),
                from: from.clone(),
                key: Box::new(key.clone()),
                ty: std::any::type_name::<T>(),
                message: e.to_string(),
            })?;
            shared.observe(EventKind::Received, &from, &shared.role, &key, || {
                label(&value)
            });
            Ok(value)
        }
    }
}

/// Room reserved for a payload before encoding it: most values of a choreography (numbers,
/// labels, short texts) fit, so the payload is allocated once instead of grown a byte at a
/// time from empty (as `postcard::to_stdvec` does); larger ones grow as before.
const PAYLOAD_ROOM: usize = 32;

pub(crate) fn encode<T: serde::Serialize>(
    role: &RoleName,
    key: &Key,
    value: &T,
) -> Result<Vec<u8>> {
    postcard::to_extend(value, Vec::with_capacity(PAYLOAD_ROOM)).map_err(|e| ChoreoError::Encode {
        role: role.clone(),
        key: Box::new(key.clone()),
        message: e.to_string(),
    })
}
