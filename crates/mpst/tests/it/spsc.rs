//! The [`Spsc`] route: ordering and no loss in both directions, on the futures executor
//! and on tokio's multi-threaded runtime; closure and abort signalling; wakers; and whole
//! sessions over `derive(Roles)`-wired `Spsc` routes, including a failing role.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures::task::{ArcWake, waker};
use futures::{Sink, SinkExt, Stream, StreamExt};
use mpst::channel::{Abort, AbortHandle, ChannelError, Spsc, spsc};
use mpst::{Branch, End, Error, Message, Receive, Select, Send, session, try_session};

use crate::support::declare_roles;

const MESSAGES: u32 = 10_000;

/// Sends `0..MESSAGES` on `end` while receiving the peer's `0..MESSAGES`, checking that
/// every message arrives once and in order.
async fn exchange(mut end: Spsc<u32>) -> Result<(), String> {
    let mut expected = 0;
    for i in 0..MESSAGES {
        end.send(i).await.map_err(|e| e.to_string())?;
        // Interleave receives with sends, taking what has arrived so far.
        while let Poll::Ready(Some(message)) = futures::poll!(end.next()) {
            check(&mut expected, message)?;
        }
    }
    while expected < MESSAGES {
        match end.next().await {
            Some(message) => check(&mut expected, message)?,
            None => return Err(format!("closed after {expected} messages")),
        }
    }
    Ok(())
}

fn check(expected: &mut u32, message: Result<u32, ChannelError>) -> Result<(), String> {
    match message {
        Ok(got) if got == *expected => {
            *expected += 1;
            Ok(())
        }
        other => Err(format!("expected message {expected}, got {other:?}")),
    }
}

#[test]
fn ordered_without_loss_both_ways_on_the_futures_executor() {
    let (left, right) = spsc();
    let (l, r) =
        futures::executor::block_on(futures::future::join(exchange(left), exchange(right)));
    l.unwrap();
    r.unwrap();
}

#[test]
fn ordered_without_loss_both_ways_across_tokio_threads() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(async {
        let (left, right) = spsc();
        let left = tokio::spawn(exchange(left));
        let right = tokio::spawn(exchange(right));
        left.await.unwrap().unwrap();
        right.await.unwrap().unwrap();
    });
}

#[test]
fn a_dropped_peer_delivers_what_it_sent_then_ends_and_refuses_sends() {
    let (mut left, right) = spsc::<u32>();
    let mut right = right;
    futures::executor::block_on(async {
        right.send(1).await.unwrap();
        right.send(2).await.unwrap();
        drop(right);
        assert_eq!(left.next().await, Some(Ok(1)));
        assert_eq!(left.next().await, Some(Ok(2)));
        assert_eq!(left.next().await, None);
        assert_eq!(left.send(3).await, Err(ChannelError::Disconnected));
    });
    assert!(left.is_closed());
}

/// Counts wake-ups.
#[derive(Default)]
struct Wakes(AtomicUsize);

impl ArcWake for Wakes {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn poll_next(end: &mut Spsc<u32>, wakes: &Arc<Wakes>) -> Poll<Option<Result<u32, ChannelError>>> {
    let waker = waker(wakes.clone());
    Pin::new(end).poll_next(&mut Context::from_waker(&waker))
}

fn start_send(end: &mut Spsc<u32>, message: u32) -> Result<(), ChannelError> {
    Pin::new(end).start_send(message)
}

#[test]
fn a_send_wakes_the_waiting_receiver_once_and_only_the_latest_waker() {
    let (mut left, mut right) = spsc::<u32>();
    let (first, second) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
    // Nobody waits: sending wakes nobody.
    start_send(&mut right, 0).unwrap();
    assert_eq!(poll_next(&mut left, &first), Poll::Ready(Some(Ok(0))));
    assert_eq!(first.0.load(Ordering::SeqCst), 0);
    // The receiver waits, first with one waker, then with another (moved to a new task).
    assert!(poll_next(&mut left, &first).is_pending());
    assert!(poll_next(&mut left, &second).is_pending());
    start_send(&mut right, 1).unwrap();
    start_send(&mut right, 2).unwrap();
    assert_eq!(
        (
            first.0.load(Ordering::SeqCst),
            second.0.load(Ordering::SeqCst)
        ),
        (0, 1)
    );
    assert_eq!(poll_next(&mut left, &second), Poll::Ready(Some(Ok(1))));
    assert_eq!(poll_next(&mut left, &second), Poll::Ready(Some(Ok(2))));
    // Waiting again with the same waker, then the peer is dropped: woken, and the end.
    assert!(poll_next(&mut left, &second).is_pending());
    drop(right);
    assert_eq!(second.0.load(Ordering::SeqCst), 2);
    assert_eq!(poll_next(&mut left, &second), Poll::Ready(None));
}

/// A message that counts its drops, to see that an abort drops the dead session's ones.
#[derive(Debug)]
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn abort_ends_the_peers_pending_receive_drops_queued_messages_and_refuses_use() {
    let (mut left, mut right) = spsc::<Tracked>();
    let dropped = Arc::new(AtomicUsize::new(0));
    let wakes = Arc::new(Wakes::default());
    let waker = waker(wakes.clone());
    let mut cx = Context::from_waker(&waker);
    // The peer waits; two messages wait for `left`.
    assert!(Pin::new(&mut right).poll_next(&mut cx).is_pending());
    Pin::new(&mut right)
        .start_send(Tracked(dropped.clone()))
        .unwrap();
    Pin::new(&mut right)
        .start_send(Tracked(dropped.clone()))
        .unwrap();
    left.abort();
    assert!(left.is_aborted());
    assert_eq!(dropped.load(Ordering::SeqCst), 2, "queued messages dropped");
    assert_eq!(
        wakes.0.load(Ordering::SeqCst),
        1,
        "the waiting peer is woken"
    );
    assert!(matches!(
        Pin::new(&mut right).poll_next(&mut cx),
        Poll::Ready(None)
    ));
    assert!(matches!(
        Pin::new(&mut right).start_send(Tracked(dropped.clone())),
        Err(ChannelError::Disconnected)
    ));
    assert!(matches!(
        Pin::new(&mut left).poll_next(&mut cx),
        Poll::Ready(Some(Err(ChannelError::Aborted)))
    ));
    assert!(matches!(
        Pin::new(&mut left).poll_ready(&mut cx),
        Poll::Ready(Err(ChannelError::Aborted))
    ));
    assert!(matches!(
        Pin::new(&mut left).start_send(Tracked(dropped.clone())),
        Err(ChannelError::Aborted)
    ));
    assert!(matches!(
        Pin::new(&mut left).poll_flush(&mut cx),
        Poll::Ready(Err(ChannelError::Aborted))
    ));
    // Every message is dropped: the two queued, the two refused.
    assert_eq!(dropped.load(Ordering::SeqCst), 4);
}

#[test]
fn a_session_that_begins_after_the_peer_aborted_receives_none_of_its_messages() {
    let (mut left, mut right) = spsc::<u32>();
    let wakes = Arc::new(Wakes::default());
    start_send(&mut right, 1).unwrap();
    // Mid-session, the peer's death still lets what it sent through.
    right.abort();
    assert_eq!(poll_next(&mut left, &wakes), Poll::Ready(Some(Ok(1))));
    start_send(&mut left, 2).unwrap_err();
    // A message queued when the pair died belongs to the dead session: a new session of
    // this end (begin) must not see it.
    let (mut left, mut right) = spsc::<u32>();
    start_send(&mut right, 1).unwrap();
    right.abort();
    left.begin();
    assert_eq!(poll_next(&mut left, &wakes), Poll::Ready(None));
    // Beginning on a live route keeps what is queued.
    let (mut left, mut right) = spsc::<u32>();
    start_send(&mut right, 3).unwrap();
    left.begin();
    assert_eq!(poll_next(&mut left, &wakes), Poll::Ready(Some(Ok(3))));
}

/// An abort through the handle, which may run on another thread than its end, leaves the
/// end's queue to the end: the end still refuses what was queued for it, its own pending
/// receive is woken and fails, and so does a session it begins later. The peer's pending
/// receive ends.
#[test]
fn a_handle_abort_from_another_thread_wakes_both_ends_and_the_end_refuses_what_waits() {
    let (mut left, mut right) = spsc::<u32>();
    let (left_wakes, right_wakes) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
    assert!(poll_next(&mut left, &left_wakes).is_pending());
    assert!(poll_next(&mut right, &right_wakes).is_pending());
    // A message for `left` wakes it once; it does not take it before the abort.
    start_send(&mut right, 5).unwrap();
    assert_eq!(left_wakes.0.load(Ordering::SeqCst), 1);
    assert!(poll_next(&mut left, &left_wakes).is_ready());
    assert!(poll_next(&mut left, &left_wakes).is_pending());
    start_send(&mut right, 6).unwrap();
    let handle = left.handle();
    std::thread::spawn(move || handle.abort()).join().unwrap();
    assert_eq!(right_wakes.0.load(Ordering::SeqCst), 1, "the peer is woken");
    assert_eq!(
        left_wakes.0.load(Ordering::SeqCst),
        2,
        "the aborted end's pending receive is woken too"
    );
    assert_eq!(
        poll_next(&mut left, &left_wakes),
        Poll::Ready(Some(Err(ChannelError::Aborted))),
        "the queued 6 belongs to the aborted end, which refuses it"
    );
    left.begin();
    assert_eq!(
        poll_next(&mut left, &left_wakes),
        Poll::Ready(Some(Err(ChannelError::Aborted)))
    );
    assert_eq!(poll_next(&mut right, &right_wakes), Poll::Ready(None));
    assert_eq!(start_send(&mut right, 7), Err(ChannelError::Disconnected));
}

/// More messages than the inline ring holds, sent while the receiver waits and in bursts
/// across the spill, arrive in order, and a peer that sent them and then went away still
/// delivers all of them before the stream ends.
#[test]
fn bursts_beyond_the_inline_ring_arrive_in_order_before_the_end() {
    let (mut left, mut right) = spsc::<u32>();
    let wakes = Arc::new(Wakes::default());
    let mut next = 0;
    let mut expected = 0;
    for burst in [1, 3, 4, 5, 9, 2, 17] {
        if expected == next {
            // Nothing waits: the receiver waits, and the burst's first message wakes it.
            assert!(poll_next(&mut left, &wakes).is_pending());
        }
        for _ in 0..burst {
            start_send(&mut right, next).unwrap();
            next += 1;
        }
        // Take a little more than half, so the spill stays in use across bursts.
        for _ in 0..burst / 2 + 1 {
            assert_eq!(
                poll_next(&mut left, &wakes),
                Poll::Ready(Some(Ok(expected)))
            );
            expected += 1;
        }
    }
    drop(right);
    while expected < next {
        assert_eq!(
            poll_next(&mut left, &wakes),
            Poll::Ready(Some(Ok(expected)))
        );
        expected += 1;
    }
    assert_eq!(poll_next(&mut left, &wakes), Poll::Ready(None));
}

// A stream session over derive(Roles)-wired Spsc routes.

declare_roles!(Label over Spsc<Label>: Producer(Consumer), Consumer(Producer));

#[derive(Message)]
enum Label {
    Ready(Ready),
    Value(Value),
    Stop(Stop),
}

struct Ready;
struct Value(u64);
struct Stop;

#[session]
type Produce = Receive<Consumer, Ready, Select<Consumer, ProduceChoice>>;

#[session]
enum ProduceChoice {
    Value(Value, Produce),
    Stop(Stop, End),
}

#[session]
type Consume = Send<Producer, Ready, Branch<Producer, ConsumeChoice>>;

#[session]
enum ConsumeChoice {
    Value(Value, Consume),
    Stop(Stop, End),
}

/// Streams `0..n`; with `fail_after`, the source fails after sending that many values.
async fn produce(role: &mut Producer, n: u64, fail_after: Option<u64>) -> Result<(), Error> {
    try_session(role, |mut s: Produce<'_, Producer>| async move {
        for i in 0..n {
            if fail_after == Some(i) {
                return Err(Error::other("the source gave up"));
            }
            let (Ready, choice) = s.receive().await?;
            s = choice.select(Value(i)).await?;
        }
        let (Ready, choice) = s.receive().await?;
        Ok(((), choice.select(Stop).await?))
    })
    .await
}

async fn consume(role: &mut Consumer) -> Result<u64, Error> {
    try_session(role, |mut s: Consume<'_, Consumer>| async move {
        let mut sum = 0;
        loop {
            match s.send(Ready).await?.branch().await? {
                ConsumeChoice::Value(Value(v), next) => {
                    sum += v;
                    s = next;
                }
                ConsumeChoice::Stop(Stop, end) => return Ok((sum, end)),
            }
        }
    })
    .await
}

#[test]
fn sessions_over_derived_spsc_routes_on_the_futures_executor() {
    let Roles(mut source, mut sink) = Roles::default();
    // Roles are reusable: three sessions in a row on the same routes.
    for n in [0, 1, 100] {
        let (sent, sum) = futures::executor::block_on(futures::future::join(
            produce(&mut source, n, None),
            consume(&mut sink),
        ));
        sent.unwrap();
        assert_eq!(sum.unwrap(), n * n.saturating_sub(1) / 2);
    }
}

#[test]
fn sessions_over_derived_spsc_routes_on_tokio_threads() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(async {
        let Roles(mut source, mut sink) = Roles::default();
        let source = tokio::spawn(async move { produce(&mut source, 1000, None).await });
        let sink = tokio::spawn(async move { consume(&mut sink).await });
        source.await.unwrap().unwrap();
        assert_eq!(sink.await.unwrap().unwrap(), 1000 * 999 / 2);
    });
}

#[test]
fn a_failing_role_makes_its_peer_fail_instead_of_hanging() {
    for threads in [false, true] {
        let Roles(mut source, mut sink) = Roles::default();
        let run =
            async move { futures::join!(produce(&mut source, 10, Some(3)), consume(&mut sink)) };
        let (sent, received) = if threads {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build()
                .unwrap();
            runtime.block_on(async { tokio::spawn(run).await }).unwrap()
        } else {
            futures::executor::block_on(run)
        };
        assert!(
            sent.unwrap_err()
                .to_string()
                .ends_with("the source gave up")
        );
        let error = received.unwrap_err();
        assert!(error.is_disconnected(), "{error}");
    }
}
