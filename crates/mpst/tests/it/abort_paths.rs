//! The two ways a failed session aborts its role: out of band, through the handles
//! `try_session` takes when the session begins (`Unbounded` and `Spsc` roles, which are
//! `Role::DETACHED`), and in place, from the session state's destructor (`Bounded`). The
//! same failures run over each route type and must end the same way; the handles are also
//! tested on bare route ends.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::task::noop_waker;
use futures::{FutureExt, Sink, SinkExt, Stream};
use mpst::channel::{Abort, AbortHandle, ChannelError, spsc, unbounded};
use mpst::{Error, ReceiveErrorKind, Role, SendErrorKind};

macro_rules! over {
    ($name:ident, $channel:ty, detached = $detached:expr) => {
        mod $name {
            use super::*;
            use crate::support::{adder, declare_roles, run_until_stalled};
            use mpst::{try_session, End};

            declare_roles!(Label over $channel: C(S), S(C));

            adder!();

            #[test]
            fn the_role_aborts_the_expected_way() {
                assert_eq!(<C as Role>::DETACHED, $detached);
                assert_eq!(<S as Role>::DETACHED, $detached);
                assert_eq!([<C as Role>::BUFFERED, <S as Role>::BUFFERED], [false; 2]);
            }

            #[test]
            fn a_whole_session_still_runs() {
                let Roles(mut c, mut s) = Roles::default();
                let (sum, served) = run_until_stalled(async move {
                    futures::join!(client(&mut c, 1, 2), server(&mut s))
                });
                assert_eq!((sum.unwrap(), served.unwrap()), (3, 3));
            }

            #[test]
            fn a_dropped_session_releases_the_peer_and_spends_the_role() {
                let Roles(mut c, mut s) = Roles::default();
                let (served, again) = run_until_stalled(async move {
                    // The client sends one number, then its session future is dropped.
                    let mut cancelled =
                        Box::pin(try_session(&mut c, |s: Client<'_, C>| async move {
                            let s = s.send(Add(100)).await?;
                            std::future::pending::<()>().await;
                            let (Sum(sum), end) = s.send(Add(0)).await?.receive().await?;
                            Ok((sum, end))
                        }));
                    assert!((&mut cancelled).now_or_never().is_none());
                    drop(cancelled);
                    let served = server(&mut s).await;
                    (served, client(&mut c, 1, 2).await)
                });
                let Err(Error::Receive(error)) = served else {
                    panic!("the server must fail, got {served:?}");
                };
                assert!(
                    matches!(error.kind, ReceiveErrorKind::Disconnected),
                    "{error}"
                );
                assert_eq!(error.peer, "C");
                let Err(Error::Send(error)) = again else {
                    panic!("the spent client must refuse to send, got {again:?}");
                };
                let SendErrorKind::Transport(cause) = &error.kind else {
                    panic!("expected the channel's error, got {error}");
                };
                assert_eq!(
                    cause.downcast_ref::<ChannelError>(),
                    Some(&ChannelError::Aborted)
                );
            }

            #[test]
            fn a_session_that_returns_an_error_releases_the_waiting_peer() {
                let Roles(mut c, mut s) = Roles::default();
                let (failed, served) = run_until_stalled(async move {
                    let mut serving = Box::pin(server(&mut s));
                    assert!((&mut serving).now_or_never().is_none(), "the server waits");
                    let failed = try_session(&mut c, |s: Client<'_, C>| async move {
                        drop(s);
                        Err::<(i32, End<'_, C>), _>(Error::other("gave up"))
                    })
                    .await;
                    (failed, serving.await)
                });
                assert!(failed.is_err());
                let Err(Error::Receive(error)) = served else {
                    panic!("the server must fail, got {served:?}");
                };
                assert!(
                    matches!(error.kind, ReceiveErrorKind::Disconnected),
                    "{error}"
                );
            }
        }
    };
}

over!(
    unbounded_routes,
    mpst::channel::Unbounded<Label>,
    detached = true
);
over!(spsc_routes, mpst::channel::Spsc<Label>, detached = true);
over!(bounded_routes, mpst::channel::Bounded<Label, 4>, detached = false);

fn poll_next<S: Stream + Unpin>(stream: &mut S) -> Poll<Option<S::Item>> {
    let waker = noop_waker();
    Pin::new(stream).poll_next(&mut Context::from_waker(&waker))
}

#[test]
fn an_unbounded_handle_aborts_its_end_without_borrowing_it() {
    let (mut left, mut right) = unbounded::<u32>();
    futures::executor::block_on(left.send(1)).unwrap();
    assert!(
        poll_next(&mut right).is_ready(),
        "the first message arrives"
    );
    assert!(poll_next(&mut right).is_pending(), "the peer waits");
    let handle = left.handle();
    handle.abort();
    drop(handle);
    // The peer's pending receive ends, and it can no longer send to the aborted end.
    assert!(matches!(poll_next(&mut right), Poll::Ready(None)));
    assert!(matches!(
        Pin::new(&mut right).start_send(2),
        Err(ChannelError::Disconnected)
    ));
    // The aborted end refuses to send at once, and to receive from its next session on.
    assert!(left.is_aborted());
    assert!(matches!(
        Pin::new(&mut left).start_send(3),
        Err(ChannelError::Aborted)
    ));
    left.begin();
    assert!(matches!(
        poll_next(&mut left),
        Poll::Ready(Some(Err(ChannelError::Aborted)))
    ));
}

#[test]
fn a_spsc_handle_aborts_its_end_without_borrowing_it() {
    let (mut left, mut right) = spsc::<u32>();
    futures::executor::block_on(right.send(7)).unwrap();
    assert!(poll_next(&mut right).is_pending(), "the peer waits");
    let handle = left.handle();
    handle.abort();
    drop(handle);
    assert!(left.is_aborted() && left.is_closed());
    assert!(matches!(poll_next(&mut right), Poll::Ready(None)));
    assert!(matches!(
        Pin::new(&mut right).start_send(1),
        Err(ChannelError::Disconnected)
    ));
    // The message queued for the aborted end was dropped; it refuses use.
    assert!(matches!(
        poll_next(&mut left),
        Poll::Ready(Some(Err(ChannelError::Aborted)))
    ));
    assert!(matches!(
        Pin::new(&mut left).start_send(2),
        Err(ChannelError::Aborted)
    ));
}

#[test]
fn the_in_memory_routes_hold_nothing_to_flush() {
    let buffered = [
        <mpst::channel::Unbounded<u32> as Abort>::BUFFERED,
        <mpst::channel::Spsc<u32> as Abort>::BUFFERED,
        <mpst::channel::Bounded<u32, 1> as Abort>::BUFFERED,
    ];
    assert_eq!(buffered, [false; 3]);
}

#[test]
fn only_routes_that_abort_out_of_band_say_so() {
    let detached = [
        <mpst::channel::Unbounded<u32> as Abort>::DETACHED,
        <mpst::channel::Spsc<u32> as Abort>::DETACHED,
        <mpst::channel::Bounded<u32, 1> as Abort>::DETACHED,
        <mpst::channel::BoundedEnd<u32> as Abort>::DETACHED,
    ];
    assert_eq!(detached, [true, true, false, false]);
}

/// A peer that finished and was dropped before this role's session began (its task ended
/// before this role's task first ran, as on a multi-thread runtime) leaves its messages
/// to be received; a peer that aborted leaves none.
#[test]
fn begin_keeps_what_a_dropped_peer_sent_and_drops_what_an_aborted_one_sent() {
    let (mut left, mut right) = unbounded::<u32>();
    Pin::new(&mut right).start_send(5).unwrap();
    drop(right);
    left.begin();
    assert!(matches!(poll_next(&mut left), Poll::Ready(Some(Ok(5)))));
    assert!(matches!(poll_next(&mut left), Poll::Ready(None)));

    let (mut left, mut right) = unbounded::<u32>();
    Pin::new(&mut right).start_send(6).unwrap();
    right.abort();
    left.begin();
    assert!(matches!(poll_next(&mut left), Poll::Ready(None)));

    let (mut left, mut right) = unbounded::<u32>();
    Pin::new(&mut right).start_send(7).unwrap();
    right.handle().abort();
    left.begin();
    assert!(matches!(poll_next(&mut left), Poll::Ready(None)));
}
