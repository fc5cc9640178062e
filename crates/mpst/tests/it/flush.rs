//! Buffered transports: sends are not flushed one by one. Consecutive sends coalesce into
//! fewer writes, a role flushes all its routes before it waits on a receive (so no peer
//! waits for a message sitting in a buffer), and `End` flushes what is left.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures::{Sink, Stream};
use mpst::channel::{Abort, ChannelError, Pair, Unbounded};
use mpst::{End, Message, Receive, Role, Roles, Send, session, try_session};

use crate::support::run_until_stalled;

#[derive(Message)]
enum Label {
    Value(Value),
    Sum(Sum),
}

struct Value(i64);
struct Sum(i64);

/// Counts of one direction of a [`Batched`] route.
#[derive(Default)]
struct Counts {
    /// Messages handed to the sink.
    sent: AtomicUsize,
    /// Batches written (a flush or the threshold), i.e. system calls of a real transport.
    writes: AtomicUsize,
}

/// A route that buffers sends like a socket writer: messages collect in a buffer that is
/// written as one batch on a flush, or when it holds `threshold` messages (the route's own
/// policy), to an in-memory channel standing for the wire.
struct Batched {
    wire: Unbounded<Label>,
    buffer: Vec<Label>,
    threshold: usize,
    counts: Arc<Counts>,
}

impl Batched {
    fn new(wire: Unbounded<Label>, threshold: usize) -> Self {
        Self {
            wire,
            buffer: Vec::new(),
            threshold,
            counts: Arc::default(),
        }
    }

    /// Writes the buffer as one batch.
    fn write(&mut self) -> Result<(), ChannelError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.counts.writes.fetch_add(1, Ordering::Relaxed);
        for message in self.buffer.drain(..) {
            Pin::new(&mut self.wire).start_send(message)?;
        }
        Ok(())
    }
}

impl Pair<Batched> for Batched {
    fn pair() -> (Batched, Batched) {
        let (left, right) = mpst::channel::unbounded();
        (
            Batched::new(left, THRESHOLD),
            Batched::new(right, THRESHOLD),
        )
    }
}

const THRESHOLD: usize = 4;

impl Abort for Batched {
    fn abort(&mut self) {
        self.buffer.clear();
        self.wire.abort();
    }
}

impl Sink<Label> for Batched {
    type Error = ChannelError;

    fn poll_ready(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        if self.buffer.len() >= self.threshold {
            self.write()?;
        }
        Poll::Ready(Ok(()))
    }

    fn start_send(mut self: Pin<&mut Self>, item: Label) -> Result<(), Self::Error> {
        self.counts.sent.fetch_add(1, Ordering::Relaxed);
        self.buffer.push(item);
        Ok(())
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(self.write())
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.poll_flush(cx)
    }
}

impl Stream for Batched {
    type Item = Result<Label, ChannelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.wire).poll_next(cx)
    }
}

#[derive(Roles)]
struct Roles(A, B, C);

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Batched, #[route(C)] Batched);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Batched, #[route(C)] Batched);

#[derive(Role)]
#[message(Label)]
struct C(#[route(A)] Batched, #[route(B)] Batched);

/// Ten values to `B`, then their sum back: named in parts of four, four and two.
#[session]
type Adder = Send<B, Value, Send<B, Value, Send<B, Value, Send<B, Value, AdderSix>>>>;

#[session]
type AdderSix = Send<B, Value, Send<B, Value, Send<B, Value, Send<B, Value, AdderTwo>>>>;

#[session]
type AdderTwo = Send<B, Value, Send<B, Value, Receive<B, Sum, End>>>;

/// `Adder`'s dual: ten values from `A`, then their sum.
#[session]
type Summer = Receive<A, Value, Receive<A, Value, Receive<A, Value, Receive<A, Value, SummerSix>>>>;

#[session]
type SummerSix =
    Receive<A, Value, Receive<A, Value, Receive<A, Value, Receive<A, Value, SummerTwo>>>>;

#[session]
type SummerTwo = Receive<A, Value, Receive<A, Value, Send<A, Sum, End>>>;

#[test]
fn consecutive_sends_coalesce_into_fewer_writes_and_all_arrive() {
    let Roles(mut a, mut b, _c) = Roles::default();
    let (a_to_b, b_to_a) = (a.0.counts.clone(), b.0.counts.clone());
    let (sum, done) = run_until_stalled(async move {
        futures::join!(
            try_session(&mut a, |s: Adder<'_, A>| async move {
                let s = s.send(Value(1)).await?.send(Value(2)).await?;
                let s = s.send(Value(3)).await?.send(Value(4)).await?;
                let s = s.send(Value(5)).await?.send(Value(6)).await?;
                let s = s.send(Value(7)).await?.send(Value(8)).await?;
                let s = s.send(Value(9)).await?.send(Value(10)).await?;
                let (Sum(sum), end) = s.receive().await?;
                Ok((sum, end))
            }),
            try_session(&mut b, |s: Summer<'_, B>| async move {
                let mut total = 0;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                let (Value(x), s) = s.receive().await?;
                total += x;
                Ok(((), s.send(Sum(total)).await?))
            })
        )
    });
    done.unwrap();
    assert_eq!(sum.unwrap(), 55, "every value arrived");
    assert_eq!(a_to_b.sent.load(Ordering::Relaxed), 10);
    // Ten sends, threshold 4: two writes at the threshold, one before `A` waits for the
    // sum — not one write per send.
    assert_eq!(a_to_b.writes.load(Ordering::Relaxed), 3);
    // `B`'s one send is written when its session reaches `End`.
    assert_eq!(b_to_a.writes.load(Ordering::Relaxed), 1);
}

#[session]
type Ask = Send<B, Value, Receive<C, Sum, End>>;

#[session]
type Relay = Receive<A, Value, Send<C, Value, End>>;

#[session]
type Answer = Receive<B, Value, Send<A, Sum, End>>;

#[test]
fn a_role_about_to_wait_flushes_every_route_first() {
    // `A` sends one message to `B` (below the threshold, so it stays buffered) and then
    // waits on `C`, which waits on `B`, which waits on `A`'s message: unless `A` flushes
    // its route to `B` before it waits on `C`, nobody can move.
    let Roles(mut a, mut b, mut c) = Roles::default();
    let (sum, relayed, answered) = run_until_stalled(async move {
        futures::join!(
            try_session(&mut a, |s: Ask<'_, A>| async move {
                let (Sum(sum), end) = s.send(Value(20)).await?.receive().await?;
                Ok((sum, end))
            }),
            try_session(&mut b, |s: Relay<'_, B>| async move {
                let (Value(x), s) = s.receive().await?;
                Ok(((), s.send(Value(x + 1)).await?))
            }),
            try_session(&mut c, |s: Answer<'_, C>| async move {
                let (Value(x), s) = s.receive().await?;
                Ok(((), s.send(Sum(x * 2)).await?))
            })
        )
    });
    relayed.unwrap();
    answered.unwrap();
    assert_eq!(sum.unwrap(), 42);
}

/// A route whose flush always fails, like a socket whose peer reset the connection.
struct Unflushable(Unbounded<Label>);

impl Pair<Unflushable> for Unflushable {
    fn pair() -> (Unflushable, Unflushable) {
        let (left, right) = mpst::channel::unbounded();
        (Unflushable(left), Unflushable(right))
    }
}

impl Abort for Unflushable {
    fn abort(&mut self) {
        self.0.abort();
    }
}

impl Sink<Label> for Unflushable {
    type Error = std::io::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, _: Label) -> Result<(), Self::Error> {
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Err(std::io::ErrorKind::ConnectionReset.into()))
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.poll_flush(cx)
    }
}

impl Stream for Unflushable {
    type Item = Result<Label, ChannelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.0).poll_next(cx)
    }
}

#[derive(Roles)]
struct Broken(X, Y);

#[derive(Role)]
#[message(Label)]
struct X(#[route(Y)] Unflushable);

#[derive(Role)]
#[message(Label)]
struct Y(#[route(X)] Unflushable);

#[session]
type SendThenWait = Send<Y, Value, Receive<Y, Sum, End>>;

#[session]
type JustSend = Send<Y, Value, End>;

#[test]
fn a_failed_flush_before_a_wait_or_at_end_is_an_error_naming_the_peer() {
    let Broken(mut x, _y) = Broken::default();
    let error = run_until_stalled(async move {
        try_session(&mut x, |s: SendThenWait<'_, X>| async move {
            let (Sum(sum), end) = s.send(Value(1)).await?.receive().await?;
            Ok((sum, end))
        })
        .await
    })
    .unwrap_err();
    let mpst::Error::Receive(error) = error else {
        panic!("expected a receive error, got {error}");
    };
    let mpst::ReceiveErrorKind::Flush(flush) = &error.kind else {
        panic!("expected a flush error, got {error}");
    };
    assert_eq!((flush.role, flush.peer, flush.label), ("X", "Y", None));
    assert_eq!(
        error.to_string(),
        "role X could not receive from Y (at Receive<Y, Sum, End>): role X could not flush \
         its sends to Y (at Receive<Y, Sum, End>): transport error: connection reset"
    );

    let Broken(mut x, _y) = Broken::default();
    let error = run_until_stalled(async move {
        try_session(&mut x, |s: JustSend<'_, X>| async move {
            Ok(((), s.send(Value(1)).await?))
        })
        .await
    })
    .unwrap_err();
    let mpst::Error::Send(error) = error else {
        panic!("expected a send error, got {error}");
    };
    assert_eq!(
        (error.peer, error.label, error.state_name().as_str()),
        ("Y", None, "End")
    );
}
