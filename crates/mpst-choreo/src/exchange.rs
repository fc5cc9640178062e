//! Sending and receiving one keyed message: claiming its key at call time (so reuse is
//! an error in program order), the transport send, the mailbox wait with its timeout,
//! decoding, and the observer's events.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker, ready};

use futures::future::BoxFuture;

use crate::Portable;
use crate::endpoint::{CellId, Gone, Pending, Shared};
use crate::error::{self, ChoreoError, Result};
use crate::key::Key;
use crate::located::Inner;
use crate::op::{Op, type_label};
use crate::role::{RoleName, RoleSet};
use crate::run::Pending as Later;
use crate::transport::{EventKind, TransportError};

impl<L: RoleSet> Op<L> {
    /// Sends a ready payload now, in the caller's task: claims the key, hands the
    /// envelope to the transport and polls its send once. Every transport of this crate
    /// takes envelopes at once, so that completes the send here with nothing allocated,
    /// queued, polled again or woken; only a send still pending (another transport's) is
    /// boxed and deferred (its next poll, in the session's task, registers the real
    /// waker, so the no-op one used here is never needed). A failure, at once or later,
    /// is the run's, as a deferred send's would be.
    pub(crate) fn send_ready(
        &self,
        to: RoleName,
        key: Key,
        payload: Result<Vec<u8>>,
        label: impl FnOnce() -> String + Send + 'static,
    ) {
        match self.send_now(to, key, payload, label) {
            Ok(None) => {}
            Ok(Some(later)) => self.defer_boxed(later),
            Err(e) => self.fail(e),
        }
    }

    /// Sends a ready payload now (see [`Op::send_ready`]) and returns what is left of
    /// it: nothing when the transport took it at once, else the boxed rest of the send
    /// for the caller to await or defer. A failure to claim the key, to encode or to
    /// send at once is returned, not recorded.
    pub(crate) fn send_now(
        &self,
        to: RoleName,
        key: Key,
        payload: Result<Vec<u8>>,
        label: impl FnOnce() -> String + Send + 'static,
    ) -> Result<Option<Later>> {
        let shared = &self.shared;
        self.claim_send(&to, &key)?;
        let (envelope, seen) = shared.envelope(to, key, payload?);
        let mut sending = shared.transport.send(envelope);
        let sent = move |shared: &Shared| shared.sent(seen, label);
        match sending
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(Ok(())) => {
                sent(shared);
                Ok(None)
            }
            Poll::Ready(Err(e)) => Err(e.into()),
            Poll::Pending => {
                let shared = Arc::clone(shared);
                Ok(Some(Box::pin(async move {
                    sending.await?;
                    sent(&shared);
                    Ok(())
                })))
            }
        }
    }

    /// Forwards `future`'s value to `to` once it completes: claims the key now and hands
    /// the send to the run, which polls it beside the body (see [`Op::defer`]). One boxed
    /// future: a [`Forwarding`] holding the waiting future, or the box of a `then`'s
    /// future itself, which has room for the forward (see [`Later`]).
    pub(crate) fn forward<T: Portable>(&self, to: fn() -> RoleName, key: Key, future: Inner<T>) {
        if let Err(e) = self.claim_send(&to(), &key) {
            return self.fail(e);
        }
        let to = Destination {
            shared: Arc::clone(&self.shared),
            to,
            key,
            label: type_label::<T>,
            encode: encode::<T>,
            sending: None,
        };
        match future {
            Inner::Then(then) => self.defer_boxed(then.forward(to)),
            future => self.defer(Forwarding { future, to }),
        }
    }

    /// Claims the key now and returns the future that receives and decodes; `from` is
    /// the sender's [`Role::name`](crate::Role::name).
    pub(crate) fn receive<T: Portable>(&self, from: fn() -> RoleName, key: Key) -> Receive<T> {
        self.receive_labelled(from, key, |_: &T| type_label::<T>())
    }

    /// [`Op::receive`] with the observer's label of the value made by `label`.
    pub(crate) fn receive_labelled<T: Portable>(
        &self,
        from: fn() -> RoleName,
        key: Key,
        label: fn(&T) -> String,
    ) -> Receive<T> {
        let sender = from();
        let state = match self.shared.claim_receive(&sender, &key) {
            Ok(Pending::Ready(payload)) => State::Arrived(payload),
            Ok(Pending::Wait(cell)) => State::Waiting(cell),
            Ok(Pending::Failed(gone)) => {
                State::Failed(Box::new(gone_error(&self.shared, &sender, &key, gone)))
            }
            Err(e) => {
                self.record(&e);
                State::Failed(Box::new(e))
            }
        };
        Receive {
            shared: Arc::clone(&self.shared),
            from,
            key,
            state,
            label,
            open: open::<T>,
        }
    }
}

/// A forward still waiting for its value (see [`Op::forward`]); its key is claimed.
/// Completes once the value's envelope is handed to the transport.
pub(crate) struct Forwarding<T> {
    future: Inner<T>,
    to: Destination<T>,
}

/// Where a forward sends its value once it has it (its key claimed already), and the
/// transport's send of it while that is under way.
pub(crate) struct Destination<T> {
    shared: Arc<Shared>,
    /// The recipient's [`Role::name`](crate::Role::name).
    to: fn() -> RoleName,
    key: Key,
    label: fn() -> String,
    /// [`encode`] for `T`, for a `then`'s future, which forwards with no bound on `T`
    /// (a [`Forwarding`] calls it directly).
    pub(crate) encode: fn(&RoleName, &Key, &T) -> Result<Vec<u8>>,
    /// The transport's send, if it did not complete when first polled (with the
    /// observer's copies of the recipient and key), boxed: rarely there.
    sending: Option<Box<Sending>>,
}

/// A transport send still under way, and what the observer's `Sent` event needs.
type Sending = (
    BoxFuture<'static, std::result::Result<(), TransportError>>,
    Option<(RoleName, Key)>,
);

impl<T> Destination<T> {
    /// Polls the forward: `value` until the value is there (then encoded by `encode` and
    /// handed to the transport), then the transport's send until it completes.
    pub(crate) fn poll_send(
        &mut self,
        cx: &mut Context<'_>,
        value: impl FnOnce(&mut Context<'_>) -> Poll<Result<T>>,
        encode: impl FnOnce(&RoleName, &Key, &T) -> Result<Vec<u8>>,
    ) -> Poll<Result<()>> {
        let (mut sending, seen) = match self.sending.take() {
            Some(sending) => *sending,
            None => {
                let value = ready!(value(cx))?;
                let payload = encode(&self.shared.role, &self.key, &value)?;
                let (to, key) = ((self.to)(), self.key.clone());
                let (envelope, seen) = self.shared.envelope(to, key, payload);
                (self.shared.transport.send(envelope), seen)
            }
        };
        match sending.as_mut().poll(cx) {
            Poll::Ready(Ok(())) => {
                self.shared.sent(seen, self.label);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e.into())),
            Poll::Pending => {
                self.sending = Some(Box::new((sending, seen)));
                Poll::Pending
            }
        }
    }
}

impl<T: Portable> Future for Forwarding<T> {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let Forwarding { future, to } = self.get_mut();
        to.poll_send(cx, |cx| Pin::new(future).poll(cx), encode::<T>)
    }
}

/// The future of one keyed receive, claimed when it was made: completes with the
/// decoded value of the envelope with its key from its sender, or with why none comes.
/// A named future (not an `async` block) so that a located future can hold it without a
/// box; dropped while it waits, it frees its cell in the mailbox (a delivery for it is
/// then dropped, as late).
pub(crate) struct Receive<T> {
    shared: Arc<Shared>,
    /// The sender's name (a role's `name`: a pointer, where a name is three words).
    from: fn() -> RoleName,
    key: Key,
    state: State,
    label: fn(&T) -> String,
    /// [`open`] for `T`, so that polling needs no bound on `T` (a located future's may
    /// be any type; only a receive's is [`Portable`]).
    open: fn(&Receive<T>, Outcome) -> Result<T>,
}

/// What a receive got: the payload of its envelope from its sender, or why none comes.
type Outcome = std::result::Result<Vec<u8>, Gone>;

/// Where a [`Receive`] stands; small (three words), since located futures holding a
/// receive are moved by value (an envelope or an error held inline made every move a
/// copy of 200 bytes).
enum State {
    /// Its envelope had arrived from its sender when it was claimed: the payload.
    Arrived(Vec<u8>),
    /// It waits in this cell of the mailbox: settled by a delivery, a time-out, a lost
    /// sender, or closed when the session's keys were forgotten under this receive or
    /// the endpoint was dropped.
    Waiting(CellId),
    /// The claim failed (the key was used already), the envelope that had arrived came
    /// from another sender, or nothing will arrive (a lost sender, a closed endpoint).
    Failed(Box<ChoreoError>),
    /// The outcome was taken.
    Done,
}

impl<T> Future for Receive<T> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.get_mut();
        let State::Waiting(cell) = this.state else {
            // Known without waiting (a second poll finds it closed).
            return Poll::Ready(this.take_known());
        };
        let Poll::Ready(settled) = this.shared.poll_cell(cell, cx) else {
            return Poll::Pending;
        };
        // The cell is settled and freed: nothing for `drop` to free. The mailbox settles
        // it only with an envelope from the sender the receive claimed. The state was
        // `Waiting`, which holds nothing to drop (forgotten: no call to drop it; the
        // assertion keeps that true if a cell's identifier ever owns something).
        const _: () = assert!(!std::mem::needs_drop::<CellId>());
        std::mem::forget(std::mem::replace(&mut this.state, State::Done));
        Poll::Ready((this.open)(this, settled))
    }
}

/// The error of a receive from `from` for `key` that nothing will complete (a failing
/// run's path, kept out of the receive's).
#[cold]
#[inline(never)]
fn gone_error(shared: &Shared, from: &RoleName, key: &Key, gone: Gone) -> ChoreoError {
    let (role, from, key) = (shared.role.clone(), from.clone(), key.clone());
    match gone {
        Gone::Lost(message) => ChoreoError::PeerLost(Box::new(error::PeerLost {
            role,
            from,
            key,
            message,
        })),
        Gone::TimedOut => ChoreoError::Timeout(Box::new(error::Timeout {
            role,
            from,
            key,
            after: shared.config.recv_timeout,
            unclaimed_dropped: shared.unclaimed_dropped(),
        })),
        Gone::Closed => ChoreoError::Closed(Box::new(error::Closed { role, key })),
        Gone::NoTimer => ChoreoError::NoTimer(Box::new(error::NoTimer { role, key })),
    }
}

/// The value in the payload `receive` got, decoded, or the error of why none came.
fn open<T: Portable>(receive: &Receive<T>, outcome: Outcome) -> Result<T> {
    let (shared, key) = (&receive.shared, &receive.key);
    let from = (receive.from)();
    let payload = outcome.map_err(|gone| gone_error(shared, &from, key, gone))?;
    let value: T = postcard::from_bytes(&payload).map_err(|e| {
        ChoreoError::Decode(Box::new(error::Decode {
            role: shared.role.clone(),
            from: from.clone(),
            key: key.clone(),
            ty: std::any::type_name::<T>(),
            message: e.to_string(),
        }))
    })?;
    shared.observe(EventKind::Received, &from, &shared.role, key, || {
        (receive.label)(&value)
    });
    Ok(value)
}

impl<T> Receive<T> {
    /// The outcome, if it is known without waiting (the envelope had arrived when the
    /// key was claimed, or nothing will come): taken, leaving the receive done. `None`
    /// while it waits (then nothing is moved: a receive is large).
    pub(crate) fn now(&mut self) -> Option<Result<T>> {
        (!matches!(self.state, State::Waiting(_))).then(|| self.take_known())
    }

    /// The outcome of a receive that does not wait, taken, leaving it done.
    fn take_known(&mut self) -> Result<T> {
        let outcome = match std::mem::replace(&mut self.state, State::Done) {
            State::Arrived(payload) => Ok(payload),
            State::Failed(e) => return Err(*e),
            State::Waiting(_) | State::Done => Err(Gone::Closed),
        };
        (self.open)(self, outcome)
    }
}

impl<T> Drop for Receive<T> {
    fn drop(&mut self) {
        if let State::Waiting(cell) = self.state {
            self.shared.free_cell(cell);
        }
    }
}

/// Room reserved for a payload before encoding it: most values of a choreography (numbers,
/// labels, short texts) fit, so the payload is allocated once instead of grown a byte at a
/// time from empty (as `postcard::to_stdvec` does); larger ones grow as before.
const PAYLOAD_ROOM: usize = 32;

/// `value`'s postcard encoding, or the error of `role` encoding it for `key`.
pub(crate) fn encode<T: serde::Serialize>(
    role: &RoleName,
    key: &Key,
    value: &T,
) -> Result<Vec<u8>> {
    postcard::to_extend(value, Vec::with_capacity(PAYLOAD_ROOM)).map_err(|e| {
        ChoreoError::Encode(Box::new(error::Encode {
            role: role.clone(),
            key: key.clone(),
            message: e.to_string(),
        }))
    })
}
