//! [`TcpRoute`]'s [`Sink`] of labels and [`Stream`] of `Result`s of labels: sends encode
//! into the write buffer, receives take the labels read ahead first, and every operation
//! holds the peer to the bound on unacknowledged labels.

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use futures::{Sink, Stream};
use serde::Serialize;
use serde::de::DeserializeOwned;

use mpst_wire::FrameError;
use tokio_util::bytes::BytesMut;

use super::TcpRoute;
use super::poll_stall;
use crate::net::error::{NetError, NetErrorKind};
use crate::net::frame::put_label;
use crate::net::link::{Link, Wire, lock};

/// Polls one sink operation of the connection, closing it on failure, when it waits for
/// the peer to take bytes past the idle time-out, or when labels sent stay
/// unacknowledged with no word from the peer for the idle time-out.
fn sink_op<M>(
    route: &mut TcpRoute<M>,
    cx: &mut Context<'_>,
    op: impl FnOnce(&mut Link, &mut Context<'_>) -> Poll<Result<(), FrameError>>,
) -> Poll<Result<(), NetError>> {
    // Decided under the lock, acted on after it (failing closes the route).
    let outcome = {
        let mut link = lock(&route.link);
        if link.framed.is_none() {
            Err(NetErrorKind::Closed)
        } else if let Some(NetErrorKind::Overacknowledged { .. }) = link.failure {
            // What the tender saw go wrong reading is the receives' to report, after the
            // labels that came before it (a peer that sent its last label and closed has
            // not failed this side's sends); only a forged acknowledgement concerns what
            // this side sent.
            Err(link.failure.take().unwrap_or(NetErrorKind::Closed))
        } else {
            let done = op(&mut link, cx);
            // The tender judged the peer silent (after reading what it said).
            match (link.silence(), done) {
                (Some(kind), _) => Err(kind),
                (None, Poll::Ready(Err(error))) => Err(error.into()),
                (None, Poll::Ready(Ok(()))) => Ok(None),
                (None, Poll::Pending) => {
                    // Only a wait needs the tender to know whom to wake.
                    link.note_waker(cx);
                    Ok(Some(
                        link.framed.as_ref().map_or(0, |f| f.write_buffer().len()),
                    ))
                }
            }
        }
    };
    match outcome {
        Err(NetErrorKind::Closed) => Poll::Ready(Err(route.closed_error())),
        Err(kind) => Poll::Ready(Err(route.fail(kind))),
        Ok(None) => {
            route.send_timer = None;
            Poll::Ready(Ok(()))
        }
        Ok(Some(left)) => {
            let Some(idle) = route.idle_timeout else {
                return Poll::Pending;
            };
            match poll_stall(&mut route.send_timer, idle, left, cx) {
                Poll::Ready(()) => Poll::Ready(Err(route.fail(NetErrorKind::SendTimeout(idle)))),
                Poll::Pending => Poll::Pending,
            }
        }
    }
}

impl<M: Serialize> Sink<M> for TcpRoute<M> {
    type Error = NetError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        sink_op(self.get_mut(), cx, |link, cx| {
            let Some(framed) = &mut link.framed else {
                return Poll::Ready(Ok(()));
            };
            let ready = <Wire as Sink<&[u8]>>::poll_ready(Pin::new(framed), cx);
            if matches!(ready, Poll::Ready(Ok(()))) && framed.write_buffer().is_empty() {
                link.ledger.flushed();
            }
            ready
        })
    }

    fn start_send(self: Pin<&mut Self>, item: M) -> Result<(), NetError> {
        let this = self.get_mut();
        let mut link = lock(&this.link);
        let Some(framed) = &mut link.framed else {
            drop(link);
            return Err(this.closed_error());
        };
        // An unencodable label fails this send only; the connection stays usable.
        put_label(
            &item,
            &mut this.scratch,
            this.max_frame_length,
            framed.write_buffer_mut(),
        )
        .map_err(|error| NetError::new(&*this.peer, error.into()))?;
        link.dirty = true;
        link.ledger.queued();
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        sink_op(self.get_mut(), cx, Link::poll_write_out)
    }

    /// Writes out what is buffered, waits until the peer acknowledged every label
    /// ([`TcpRoute::poll_acknowledged_all`]), then acknowledges what this side read and
    /// shuts the connection down.
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), NetError>> {
        let this = self.get_mut();
        ready!(this.poll_acknowledged_all(cx))?;
        sink_op(this, cx, |link, cx| {
            // The peer hears how much of what it sent was read before the connection
            // ends, not only at the tender's next round (which may come too late).
            if let Some(count) = link.ledger.untold() {
                link.acknowledge(count);
            }
            match &mut link.framed {
                Some(framed) => <Wire as Sink<&[u8]>>::poll_close(Pin::new(framed), cx),
                None => Poll::Ready(Ok(())),
            }
        })
    }
}

/// What a receive found, decided under the lock.
enum Got {
    Label(BytesMut),
    Fail(NetErrorKind),
    /// The peer closed between two frames.
    End,
    /// Nothing yet: bytes of a partial frame buffered, and the peer's silence if the
    /// tender judged it.
    Wait(usize, Option<NetErrorKind>),
}

impl<M: Serialize + DeserializeOwned> Stream for TcpRoute<M> {
    type Item = Result<M, NetError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        // Decided under the lock, acted on after it (failing closes the route).
        let got = {
            let mut link = lock(&this.link);
            if link.framed.is_none() {
                return Poll::Ready(None);
            }
            // Labels the tender read ahead come first, then what it saw go wrong.
            match link.pop() {
                Some(label) => Got::Label(label),
                None => match link.failure.take() {
                    Some(kind) => Got::Fail(kind),
                    None if link.eof => Got::End,
                    // About to wait on the peer: what we buffered for it must go out
                    // first, or both sides could wait for each other.
                    None => match link.poll_write_out(cx) {
                        Poll::Ready(Err(error)) => Got::Fail(error.into()),
                        _ => match link.poll_label(cx) {
                            Poll::Ready(Some(Ok(label))) => Got::Label(label),
                            Poll::Ready(Some(Err(kind))) => Got::Fail(kind),
                            Poll::Ready(None) => Got::End,
                            Poll::Pending => {
                                // Only a wait needs the tender to know whom to wake.
                                link.note_waker(cx);
                                let buffered =
                                    link.framed.as_ref().map_or(0, |f| f.read_buffer().len());
                                Got::Wait(buffered, link.silence())
                            }
                        },
                    },
                },
            }
        };
        match got {
            Got::Label(body) => {
                this.timer = None;
                match mpst_wire::codec::decode_body::<M>(&body) {
                    Ok(message) => Poll::Ready(Some(Ok(message))),
                    Err(error) => Poll::Ready(Some(Err(this.fail(error.into())))),
                }
            }
            Got::Fail(kind) => Poll::Ready(Some(Err(this.fail(kind)))),
            // The peer closed between two frames: the stream ends, which the runtime
            // reports as the peer disconnected, as for in-memory channels.
            Got::End => {
                this.close_now();
                Poll::Ready(None)
            }
            Got::Wait(buffered, silence) => {
                if let Some(kind) = silence {
                    return Poll::Ready(Some(Err(this.fail(kind))));
                }
                if let Poll::Ready(idle) = this.poll_idle(buffered, cx) {
                    return Poll::Ready(Some(Err(this.fail(NetErrorKind::IdleTimeout(idle)))));
                }
                let Some(timeout) = this.receive_timeout else {
                    return Poll::Pending;
                };
                if this.timer.is_none() {
                    // A time-out beyond the clock's range never fires.
                    let Some(deadline) = mpst_wire::deadline_after(timeout) else {
                        return Poll::Pending;
                    };
                    this.timer = Some(Box::pin(tokio::time::sleep_until(deadline)));
                }
                let Some(timer) = this.timer.as_mut() else {
                    return Poll::Pending;
                };
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        Poll::Ready(Some(Err(this.fail(NetErrorKind::ReceiveTimeout(timeout)))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}
