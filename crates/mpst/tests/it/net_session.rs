//! Sessions over `mpst::net` on loopback: the same session code as in memory, with the
//! transport's failures surfacing as the runtime's typed errors naming the peer, and a
//! failed session closing its connections so that its peers fail at once.

use std::time::Duration;

use mpst::net::{NetConfig, NetError, NetErrorKind, TcpRoute};
use mpst::{
    End, Error, Message, Payload, Receive, ReceiveErrorKind, Role, Send, session, try_session,
    try_session_until,
};
use tokio::time::{Instant, timeout};

type Route = mpst::net::TcpRoute<Label>;

#[derive(Role)]
#[message(Label)]
struct A(#[route(B)] Route);

#[derive(Role)]
#[message(Label)]
struct B(#[route(A)] Route);

#[derive(Message, serde::Serialize, serde::Deserialize)]
enum Label {
    Add(Add),
    Sum(Sum),
}

#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Add(i32);
#[derive(Payload, serde::Serialize, serde::Deserialize)]
struct Sum(i32);

#[session]
type Client = Send<B, Add, Send<B, Add, Send<B, Add, Receive<B, Sum, End>>>>;
#[session]
type Server = Receive<A, Add, Receive<A, Add, Receive<A, Add, Send<A, Sum, End>>>>;

const BOUND: Duration = Duration::from_secs(10);

/// Connects A (dialling) and B (accepting) on loopback.
async fn roles(b: NetConfig) -> (A, B) {
    let any = "127.0.0.1:0";
    // Not a test of security: plain TCP, asked for by name.
    let b = b.insecure_plaintext().listen(any).peer_without_address("A");
    let b = b.bind().await.unwrap();
    let a = NetConfig::new("adder/1", "A")
        .insecure_plaintext()
        .peer("B", b.local_addr().unwrap());
    let (a, b) = tokio::join!(a.connect(), b.connect());
    (
        a.unwrap().into_role().unwrap(),
        b.unwrap().into_role().unwrap(),
    )
}

async fn client(role: &mut A) -> Result<i32, Error> {
    try_session(role, |s: Client<'_, A>| async move {
        let s = s
            .send(Add(1))
            .await?
            .send(Add(2))
            .await?
            .send(Add(3))
            .await?;
        let (Sum(sum), end) = s.receive().await?;
        Ok((sum, end))
    })
    .await
}

async fn server(role: &mut B) -> Result<(), Error> {
    try_session(role, serve).await
}

/// B's session body.
async fn serve(s: Server<'_, B>) -> Result<((), End<'_, B>), Error> {
    let (Add(x), s) = s.receive().await?;
    let (Add(y), s) = s.receive().await?;
    let (Add(z), s) = s.receive().await?;
    Ok(((), s.send(Sum(x + y + z)).await?))
}

/// The transport error under a receive error, if that is what `error` is.
fn transport(error: &Error) -> Option<&NetError> {
    match error {
        Error::Receive(e) => match &e.kind {
            ReceiveErrorKind::Transport(_) => mpst::net::net_error(error),
            _ => None,
        },
        _ => None,
    }
}

#[tokio::test]
async fn a_session_runs_over_tcp_and_roles_are_reused() {
    timeout(BOUND, async {
        let (mut a, mut b) = roles(NetConfig::new("adder/1", "B")).await;
        for _ in 0..3 {
            let (sum, served) = tokio::join!(client(&mut a), server(&mut b));
            served.unwrap();
            assert_eq!(sum.unwrap(), 6);
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_slow_peer_fails_the_receive_naming_it_within_the_timeout() {
    timeout(BOUND, async {
        let b = NetConfig::new("adder/1", "B").receive_timeout(Duration::from_millis(200));
        let (a, mut b) = roles(b).await;
        let started = Instant::now();
        let error = server(&mut b).await.unwrap_err();
        assert_eq!(error.peer(), Some("A"));
        let cause = transport(&error).unwrap_or_else(|| panic!("{error}"));
        assert_eq!(cause.peer, "A");
        assert!(
            matches!(cause.kind, NetErrorKind::ReceiveTimeout(_)),
            "{error}"
        );
        assert!(started.elapsed() >= Duration::from_millis(200));
        drop(a);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn idle_connection_in_the_middle_of_a_frame_fails_at_the_idle_timeout() {
    timeout(BOUND, async {
        // No receive time-out at all: only the idle time-out ends the wait.
        let b = NetConfig::new("adder/1", "B")
            .receive_timeout(Duration::MAX)
            .idle_timeout(Duration::from_millis(200));
        let (a, mut b) = roles(b).await;
        let A(route) = a;
        // A frame of 9 bytes, of which one arrives; the socket stays open.
        let mut raw = TcpRoute::into_inner(route).unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut raw, &[0, 0, 0, 9, 1])
            .await
            .unwrap();
        let started = Instant::now();
        let error = server(&mut b).await.unwrap_err();
        let cause = transport(&error).unwrap_or_else(|| panic!("{error}"));
        assert_eq!(cause.peer, "A");
        assert!(
            matches!(cause.kind, NetErrorKind::IdleTimeout(d) if d == Duration::from_millis(200)),
            "{error}"
        );
        assert!(
            error.to_string().contains("stuck in the middle of a frame"),
            "{error}"
        );
        assert!(started.elapsed() >= Duration::from_millis(200));
        drop(raw);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_failed_session_closes_its_connections_so_the_peer_fails_at_once() {
    timeout(BOUND, async {
        let (mut a, mut b) = roles(NetConfig::new("adder/1", "B")).await;
        // A gives up after one send; its routes are aborted, which closes the socket.
        let quitter = try_session(&mut a, |s: Client<'_, A>| async move {
            let _s = s.send(Add(1)).await?;
            Err::<(i32, End<'_, A>), _>(Error::other("gave up"))
        });
        let (quit, served) = tokio::join!(quitter, server(&mut b));
        assert!(quit.is_err());
        let error = served.unwrap_err();
        assert_eq!(error.peer(), Some("A"));
        assert!(mpst::net::is_disconnected(&error), "{error}");
        // A's routes refuse later use: the dead session cannot leak into another one.
        let again = client(&mut a).await.unwrap_err();
        assert_eq!(again.peer(), Some("B"));
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_malformed_frame_fails_the_session_naming_the_peer() {
    timeout(BOUND, async {
        let (a, mut b) = roles(NetConfig::new("adder/1", "B")).await;
        let A(route) = a;
        let mut raw = TcpRoute::into_inner(route).unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut raw, &[0, 0, 0, 2, 7, 7])
            .await
            .unwrap();
        let error = server(&mut b).await.unwrap_err();
        let cause = transport(&error).unwrap_or_else(|| panic!("{error}"));
        assert_eq!(cause.peer, "A");
        assert!(matches!(cause.kind, NetErrorKind::Decode(_)), "{error}");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_session_deadline_ends_the_session_and_its_peer_learns_of_it() {
    timeout(BOUND, async {
        let (mut a, mut b) = roles(NetConfig::new("adder/1", "B")).await;
        // B gives its whole session 200 ms; A only sends once it hears B has given up,
        // so B's deadline passes first, always, while B waits for A's first number.
        let deadline = tokio::time::sleep(Duration::from_millis(200));
        let error = try_session_until(&mut b, deadline, serve)
            .await
            .unwrap_err();
        assert!(error.is_timeout(), "{error}");
        let Error::Receive(waiting) = &error else {
            panic!("expected a receive that timed out, got {error}");
        };
        assert!(
            matches!(waiting.kind, ReceiveErrorKind::TimedOut),
            "{error}"
        );
        assert_eq!((waiting.role, waiting.peer), ("B", "A"));
        assert!(
            waiting.state_name().starts_with("Receive<A, Add, "),
            "{error}"
        );
        // B's session future was dropped: its routes were aborted, so A fails at once
        // (closed or reset, depending on whether A's sends raced B's close), not by its own
        // receive time-out (30 s, beyond the test's bound).
        let error = client(&mut a).await.unwrap_err();
        assert_eq!(error.peer(), Some("B"));
        assert!(mpst::net::is_disconnected(&error), "{error}");
        assert!(!error.is_timeout(), "{error}");
    })
    .await
    .unwrap();
}

/// The handshake's fingerprints come from the serialised session types: equal types give
/// equal fingerprints, different ones differ.
#[cfg(feature = "serialize")]
#[test]
fn fingerprints_follow_the_session_types() {
    use mpst::net::Fingerprint;
    let client = Fingerprint::of::<Client<'static, A>>().unwrap();
    assert_eq!(client, Fingerprint::of::<Client<'static, A>>().unwrap());
    assert_ne!(client, Fingerprint::of::<Server<'static, B>>().unwrap());
    #[session]
    type Shorter = Send<B, Add, Receive<B, Sum, End>>;
    assert_ne!(client, Fingerprint::of::<Shorter<'static, A>>().unwrap());
}

/// A role that only sends is bounded too: its peer (there, but stuck: its route's task
/// reads 1 MiB ahead, then only repeats its acknowledgement) takes nothing more, so once
/// TCP's buffers are full the sends wait, and after the idle time-out without any byte
/// taken the send fails naming the peer. (Two worker threads: the peer's task must get
/// turns while the sender's loop runs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sender_whose_peer_takes_nothing_fails_at_the_idle_timeout_naming_it() {
    timeout(BOUND, async {
        let idle = Duration::from_secs(1);
        let b = NetConfig::new("adder/1", "B")
            .insecure_plaintext()
            .listen("127.0.0.1:0")
            .peer_without_address("A");
        let b = b.bind().await.unwrap();
        let a = NetConfig::new("adder/1", "A")
            .insecure_plaintext()
            .idle_timeout(idle)
            .peer("B", b.local_addr().unwrap());
        let (a, b) = tokio::join!(a.connect(), b.connect());
        let A(mut route) = a.unwrap().into_role().unwrap();
        // B keeps its end open and never reads from it.
        let B(stuck) = b.unwrap().into_role().unwrap();
        let mut sent = 0u64;
        let mut last_sent = Instant::now();
        let error = loop {
            // Buffered sends: a write goes out each time 8 KiB are buffered.
            match futures::SinkExt::feed(&mut route, Label::Add(Add(7))).await {
                Ok(()) => {
                    sent += 1;
                    last_sent = Instant::now();
                }
                Err(error) => break error,
            }
        };
        let waited = last_sent.elapsed();
        assert_eq!(error.peer, "B", "{error}");
        // The bytes stop moving (SendTimeout); on a machine so loaded that the peer's
        // task gets no turn for the idle time-out, its silence is what shows first
        // (Unacknowledged). Either way the idle time-out, naming the peer.
        assert!(
            matches!(error.kind, NetErrorKind::SendTimeout(d)
                | NetErrorKind::Unacknowledged { timeout: d, .. } if d == idle),
            "{error}"
        );
        let text = error.to_string();
        assert!(
            text.contains("took none of the bytes sent to it") || text.contains("said nothing"),
            "{error}"
        );
        assert!(sent > 1000, "only {sent} sends went out before the wait");
        assert!(waited >= idle, "failed {waited:?} after the last send");
        // The route is closed now: later sends fail at once.
        let again = futures::SinkExt::feed(&mut route, Label::Add(Add(8))).await;
        assert!(matches!(again, Err(NetError { .. })));
        drop(stuck);
    })
    .await
    .unwrap();
}
