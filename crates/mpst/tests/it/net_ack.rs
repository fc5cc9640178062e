//! Acknowledgements over `mpst::net` on loopback: a role that only sends learns within
//! its idle time-out that a peer stopped answering (however much TCP buffers), a peer
//! that is there but busy elsewhere keeps it going, a forged acknowledgement is a
//! protocol error naming the peer, and a peer of the older link version is refused at
//! the set-up naming both versions.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::{LINK_VERSION, NetConfig, NetError, NetErrorKind, Stream, TcpRoute};
use mpst::{End, Error, Message, Payload, Role, Send, session, try_session};
use tokio::io::AsyncWriteExt;
use tokio::time::{Instant, timeout};

#[derive(Message, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
enum Label {
    Tick(Tick),
}

#[derive(Payload, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Tick(u32);

const BOUND: Duration = Duration::from_secs(20);
/// Slack on top of the idle time-out for a loaded machine (two cores, five builds).
const SLACK: Duration = Duration::from_secs(3);
/// The pause of the slow sender between two labels.
const PAUSE: Duration = Duration::from_millis(60);

/// A (dialling) and B (accepting) on loopback, plain TCP, A with `idle` as its idle
/// time-out.
async fn pair(idle: Duration) -> (TcpRoute<Label>, TcpRoute<Label>) {
    let b = NetConfig::new("ticks/1", "B")
        .insecure_plaintext()
        .idle_timeout(idle)
        .listen("127.0.0.1:0")
        .peer_without_address("A");
    let b = b.bind().await.unwrap();
    let a = NetConfig::new("ticks/1", "A")
        .insecure_plaintext()
        .idle_timeout(idle)
        .peer("B", b.local_addr().unwrap());
    let (a, b) = tokio::join!(a.connect(), b.connect());
    (
        a.unwrap().route::<Label>("B").unwrap(),
        b.unwrap().route::<Label>("A").unwrap(),
    )
}

/// B's end as a raw socket: it reads nothing and acknowledges nothing (a peer cut off
/// behind a relay that still takes bytes, or one that stopped reading).
fn raw(b: TcpRoute<Label>) -> Stream {
    b.into_inner().expect("B's connection is open")
}

/// Sends a label every [`PAUSE`] (each flushed) until a send fails.
async fn send_slowly(a: &mut TcpRoute<Label>) -> (NetError, u32) {
    for n in 0.. {
        if let Err(error) = a.send(Label::Tick(Tick(n))).await {
            return (error, n);
        }
        tokio::time::sleep(PAUSE).await;
    }
    unreachable!("the loop ends with an error")
}

/// A peer that takes the bytes but never acknowledges them fails a slow pure sender
/// within its idle time-out, naming the peer — long before TCP's buffers would fill.
#[tokio::test]
async fn a_slow_sender_whose_peer_acknowledges_nothing_fails_within_the_idle_timeout() {
    timeout(BOUND, async {
        let idle = Duration::from_millis(400);
        let (mut a, b) = pair(idle).await;
        let _silent = raw(b);
        let start = Instant::now();
        let (error, sent) = send_slowly(&mut a).await;
        let waited = start.elapsed();
        assert_eq!(error.peer, "B", "{error}");
        assert!(
            matches!(error.kind, NetErrorKind::Unacknowledged { labels, timeout }
                if labels >= 1 && timeout == idle),
            "{error}"
        );
        assert!(error.to_string().contains("said nothing"), "{error}");
        assert!(
            waited >= idle,
            "failed after {waited:?}, before the idle time-out"
        );
        assert!(waited < idle + SLACK, "failed only after {waited:?}");
        assert!(sent >= 2, "{sent} labels sent before failing");
        // The route is closed: later sends fail at once.
        assert!(a.send(Label::Tick(Tick(0))).await.is_err());
    })
    .await
    .expect("bounded");
}

/// Closing the route waits for every label to be acknowledged: with a silent peer it
/// fails within the idle time-out instead of reporting success.
#[tokio::test]
async fn closing_waits_for_acknowledgements_and_fails_when_none_come() {
    timeout(BOUND, async {
        let idle = Duration::from_millis(400);
        let (mut a, b) = pair(idle).await;
        let _silent = raw(b);
        a.feed(Label::Tick(Tick(1))).await.unwrap();
        let start = Instant::now();
        let error = a.close().await.unwrap_err();
        let waited = start.elapsed();
        assert_eq!(error.peer, "B", "{error}");
        assert!(
            matches!(error.kind, NetErrorKind::Unacknowledged { labels: 1, .. }),
            "{error}"
        );
        assert!(waited >= idle && waited < idle + SLACK, "{waited:?}");
    })
    .await
    .expect("bounded");
}

/// A peer that is there but whose session looks elsewhere (its route is not polled)
/// still acknowledges, so a slow sender goes on well past the idle time-out, and
/// closing succeeds once every label is acknowledged; the peer then reads them all.
#[tokio::test]
async fn a_peer_busy_elsewhere_still_acknowledges_so_a_slow_sender_goes_on() {
    timeout(BOUND, async {
        // Generous: a loaded machine may leave the peer's task without a turn for a while.
        let idle = Duration::from_secs(1);
        let (mut a, mut b) = pair(idle).await;
        let count = 25u32;
        let start = Instant::now();
        for n in 0..count {
            a.send(Label::Tick(Tick(n))).await.unwrap();
            tokio::time::sleep(PAUSE).await;
        }
        assert!(
            start.elapsed() > idle,
            "the run must outlast the idle time-out"
        );
        a.close().await.unwrap();
        assert_eq!(a.unacknowledged(), 0);
        for n in 0..count {
            assert_eq!(b.next().await.unwrap().unwrap(), Label::Tick(Tick(n)));
        }
    })
    .await
    .expect("bounded");
}

/// Writes `frame` (a length prefix, then the body) to B's raw end, after A's first label.
async fn after_one_label(frame: &[u8]) -> NetError {
    let (mut a, b) = pair(Duration::from_secs(5)).await;
    let mut b = raw(b);
    a.send(Label::Tick(Tick(1))).await.unwrap();
    b.write_all(frame).await.unwrap();
    b.flush().await.unwrap();
    let error = a.close().await.unwrap_err();
    drop(b);
    error
}

/// An acknowledgement of more labels than were sent is a protocol error naming the
/// peer, read from its own connection; so is a frame of an unknown kind. Never a panic.
#[tokio::test]
async fn a_forged_or_malformed_acknowledgement_is_a_protocol_error_naming_the_peer() {
    timeout(BOUND, async {
        // Tag 1 (acknowledgement), count 5: one label was sent.
        let error = after_one_label(&[0, 0, 0, 2, 1, 5]).await;
        assert_eq!(error.peer, "B", "{error}");
        assert!(
            matches!(
                error.kind,
                NetErrorKind::Overacknowledged {
                    acknowledged: 5,
                    sent: 1
                }
            ),
            "{error}"
        );
        assert!(error.to_string().contains("protocol error"), "{error}");
        // The largest count there is.
        let mut huge = vec![0, 0, 0, 11, 1];
        huge.extend_from_slice(&[0xff; 9]);
        huge.push(0x01);
        let error = after_one_label(&huge).await;
        assert!(
            matches!(
                error.kind,
                NetErrorKind::Overacknowledged {
                    acknowledged: u64::MAX,
                    ..
                }
            ),
            "{error}"
        );
        // An unknown tag, a count cut short.
        for frame in [&[0, 0, 0, 1, 9][..], &[0, 0, 0, 2, 1, 0x80]] {
            let error = after_one_label(frame).await;
            assert_eq!(error.peer, "B", "{error}");
            assert!(matches!(error.kind, NetErrorKind::Decode(_)), "{error}");
        }
    })
    .await
    .expect("bounded");
}

/// A role of the previous link version (bare labels, no acknowledgements: its hello
/// field holds the fingerprints alone) is refused at the set-up, and the refusal it
/// reads names both versions.
#[tokio::test]
async fn a_peer_of_the_older_link_version_is_refused_naming_both_versions() {
    timeout(BOUND, async {
        /// The version-1 field: the fingerprints (none, none), nothing after them.
        struct Version1;
        impl mpst_wire::Application for Version1 {
            fn field(&self, _peer: &str) -> Vec<u8> {
                vec![0, 0]
            }
        }
        let b = NetConfig::new("ticks/1", "B")
            .insecure_plaintext()
            .connect_timeout(Duration::from_secs(3))
            .listen("127.0.0.1:0")
            .peer_without_address("A");
        let b = b.bind().await.unwrap();
        let at = b.local_addr().unwrap().to_string();
        let b = tokio::spawn(b.connect());
        let old = mpst_wire::WireConfig::new("ticks/1", "A")
            .insecure_plaintext()
            .connect_timeout(Duration::from_secs(3))
            .peer("B", at.clone());
        let old = mpst_wire::Node::new(old)
            .unwrap()
            .with_application(Version1);
        let deadline = mpst_wire::deadline_after(Duration::from_secs(3));
        let error = old.dial_at("B", &at, deadline).await.unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("version 1") && text.contains(&format!("version {LINK_VERSION}")),
            "{text}"
        );
        // B never got a peer A it can talk to.
        let b = b.await.unwrap().unwrap_err();
        assert_eq!(b.peer, "A", "{b}");
    })
    .await
    .expect("bounded");
}

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] TcpRoute<Label>);

#[session]
type Ticks = Send<B, Tick, Send<B, Tick, Send<B, Tick, Send<B, Tick, End>>>>;

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] TcpRoute<Label>);

/// A session that only sends, slowly, to a peer that acknowledges nothing fails at a
/// send within the idle time-out with the runtime's transport error naming the peer.
#[tokio::test]
async fn a_session_that_only_sends_slowly_fails_naming_a_silent_peer() {
    timeout(BOUND, async {
        let idle = Duration::from_millis(300);
        let (a, b) = pair(idle).await;
        let _silent = raw(b);
        let mut role = A(a);
        let start = Instant::now();
        let error = try_session(&mut role, |s: Ticks<'_, A>| async move {
            let s = s.send(Tick(0)).await?;
            tokio::time::sleep(idle * 2).await;
            let s = s.send(Tick(1)).await?;
            tokio::time::sleep(idle * 2).await;
            let s = s.send(Tick(2)).await?;
            let s = s.send(Tick(3)).await?;
            Ok(((), s))
        })
        .await
        .unwrap_err();
        let waited = start.elapsed();
        let net = mpst::net::net_error(&error).unwrap_or_else(|| panic!("{error}"));
        assert_eq!(net.peer, "B", "{error}");
        assert!(
            matches!(net.kind, NetErrorKind::Unacknowledged { .. }),
            "{error}"
        );
        assert!(
            matches!(error, Error::Send(_) | Error::Receive(_)),
            "{error}"
        );
        assert!(waited < 4 * idle + SLACK, "{waited:?}");
    })
    .await
    .expect("bounded");
}

/// A peer that reads everything and closes at once (its route dropped, its process
/// ending) still tells the sender it read it all: closing succeeds, not "closed with
/// labels unacknowledged".
#[tokio::test]
async fn a_peer_that_reads_everything_and_closes_at_once_acknowledges_it_all() {
    timeout(BOUND, async {
        let (mut a, mut b) = pair(Duration::from_secs(5)).await;
        for n in 0..3 {
            a.feed(Label::Tick(Tick(n))).await.unwrap();
        }
        a.flush().await.unwrap();
        for n in 0..3 {
            assert_eq!(b.next().await.unwrap().unwrap(), Label::Tick(Tick(n)));
        }
        drop(b);
        a.close().await.unwrap();
        assert_eq!(a.unacknowledged(), 0);
    })
    .await
    .expect("bounded");
}

/// Routes need no time driver of tokio's: on a runtime built without `enable_time`,
/// labels go both ways, each side acknowledges what it read, and closing (which waits
/// for every acknowledgement) succeeds at both ends — nothing panics. The runtime runs
/// on a thread of its own so that the test can bound it without a timer of that runtime.
#[test]
fn routes_acknowledge_and_close_on_a_runtime_without_timers() {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .expect("runtime");
        let outcome = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let at = listener.local_addr()?;
            let (a, b) = tokio::join!(tokio::net::TcpStream::connect(at), listener.accept());
            let max = mpst::net::DEFAULT_MAX_FRAME_LENGTH;
            let mut a = TcpRoute::<Label>::new(a?, "B", max);
            let mut b = TcpRoute::<Label>::new(b?.0, "A", max);
            a.send(Label::Tick(Tick(1))).await?;
            let one = b.next().await.transpose()?;
            b.send(Label::Tick(Tick(2))).await?;
            let two = a.next().await.transpose()?;
            let (closed_a, closed_b) = tokio::join!(a.close(), b.close());
            closed_a?;
            closed_b?;
            Ok::<_, Box<dyn std::error::Error + std::marker::Send + Sync>>((
                one,
                two,
                a.unacknowledged(),
            ))
        });
        let _ = done.send(outcome.map_err(|error| error.to_string()));
    });
    let outcome = result
        .recv_timeout(BOUND)
        .expect("the runtime's thread ends in time, without a panic");
    assert_eq!(
        outcome,
        Ok((Some(Label::Tick(Tick(1))), Some(Label::Tick(Tick(2))), 0))
    );
}
