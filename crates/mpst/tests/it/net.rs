//! Connection set-up, handshakes and transport faults of `mpst::net` over loopback
//! sockets: every test binds 127.0.0.1:0 and is bounded in time.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use mpst::net::{
    Connections, Fingerprint, NetConfig, NetError, NetErrorKind, Refusal, TcpRoute, WireErrorKind,
};
use tokio::io::AsyncWriteExt;
use tokio::time::{Instant, timeout};

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Label {
    Ping(u32),
    Pong(u32),
}

fn first_and_second(first: &Label, second: &Label) -> u32 {
    match (first, second) {
        (Label::Ping(x), Label::Ping(y)) => x + y,
        _ => 0,
    }
}

const LOOPBACK: &str = "127.0.0.1:0";
const BOUND: Duration = Duration::from_secs(10);

fn any_port() -> SocketAddr {
    LOOPBACK.parse().unwrap()
}

/// Runs a test body with a hard bound.
async fn bounded<T>(body: impl Future<Output = T>) -> T {
    timeout(BOUND, body).await.expect("test timed out")
}

/// `A` dials `B`; returns both sides' connections (B is bound first so A knows where).
async fn pair(
    a: NetConfig,
    b: NetConfig,
) -> (Result<Connections, NetError>, Result<Connections, NetError>) {
    let b = b.listen(any_port()).bind().await.unwrap();
    let address = b.local_addr().unwrap();
    let a = tokio::spawn(a.peer("B", address).connect());
    let b = tokio::spawn(b.connect());
    (a.await.unwrap(), b.await.unwrap())
}

async fn connected(a: NetConfig, b: NetConfig) -> (TcpRoute<Label>, TcpRoute<Label>) {
    let (a, b) = pair(a, b.peer_without_address("A")).await;
    (
        a.unwrap().route("B").unwrap(),
        b.unwrap().route("A").unwrap(),
    )
}

fn config(role: &str) -> NetConfig {
    NetConfig::new("ping/1", role)
        .insecure_plaintext()
        .connect_timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn three_roles_started_in_any_order_exchange_labels() {
    bounded(async {
        let c = config("C")
            .listen(any_port())
            .peer_without_address("A")
            .peer_without_address("B");
        let c = c.bind().await.unwrap();
        let c_at = c.local_addr().unwrap();
        let b = config("B")
            .listen(any_port())
            .peer_without_address("A")
            .peer("C", c_at);
        let b = b.bind().await.unwrap();
        let b_at = b.local_addr().unwrap();
        // C first, then A, then B: the diallers retry until their peers are up.
        let c = tokio::spawn(c.connect());
        let a = tokio::spawn(config("A").peer("B", b_at).peer("C", c_at).connect());
        let b = tokio::spawn(b.connect());
        let (mut a, mut b, mut c) = (
            a.await.unwrap().unwrap(),
            b.await.unwrap().unwrap(),
            c.await.unwrap().unwrap(),
        );
        let (mut ab, mut ac) = (
            a.route::<Label>("B").unwrap(),
            a.route::<Label>("C").unwrap(),
        );
        let (mut ba, mut bc) = (
            b.route::<Label>("A").unwrap(),
            b.route::<Label>("C").unwrap(),
        );
        let (mut ca, mut cb) = (
            c.route::<Label>("A").unwrap(),
            c.route::<Label>("B").unwrap(),
        );
        // Unflushed sends go out when the sender waits on a receive from that peer.
        ab.feed(Label::Ping(1)).await.unwrap();
        ab.feed(Label::Ping(2)).await.unwrap();
        let b_side = async {
            let first = ba.next().await.unwrap().unwrap();
            let second = ba.next().await.unwrap().unwrap();
            ba.send(Label::Pong(first_and_second(&first, &second)))
                .await
                .unwrap();
            (first, second)
        };
        let (pong, pings) = tokio::join!(ab.next(), b_side);
        assert_eq!(pings, (Label::Ping(1), Label::Ping(2)));
        assert_eq!(pong.unwrap().unwrap(), Label::Pong(3));
        ac.send(Label::Ping(3)).await.unwrap();
        bc.send(Label::Pong(4)).await.unwrap();
        assert_eq!(ca.next().await.unwrap().unwrap(), Label::Ping(3));
        assert_eq!(cb.next().await.unwrap().unwrap(), Label::Pong(4));
        assert!(a.route::<Label>("B").is_err(), "a route is taken once");
    })
    .await;
}

#[tokio::test]
async fn toml_configurations_connect() {
    bounded(async {
        let text = |b: &str| {
            format!("protocol = \"ping/1\"\nconnect_timeout = \"5s\"\n[security]\ninsecure_plaintext = true\n[roles]\nA = \"127.0.0.1:0\"\nB = \"{b}\"\n")
        };
        let b = NetConfig::from_toml(&text(LOOPBACK), "B").unwrap().bind().await.unwrap();
        let a = NetConfig::from_toml(&text(&b.local_addr().unwrap().to_string()), "A").unwrap();
        let a = tokio::spawn(a.connect());
        let mut b = b.connect().await.unwrap();
        let mut a = a.await.unwrap().unwrap();
        let mut ab = a.route::<Label>("B").unwrap();
        ab.send(Label::Ping(7)).await.unwrap();
        let mut ba = b.route::<Label>("A").unwrap();
        assert_eq!(ba.next().await.unwrap().unwrap(), Label::Ping(7));
    })
    .await;
}

/// The refusal a dialler read from the side it dialled.
fn refusal(result: Result<Connections, NetError>) -> (String, Refusal) {
    match result {
        Err(NetError {
            peer,
            kind: NetErrorKind::Wire(WireErrorKind::Refused(reason)),
        }) => (peer, reason),
        other => panic!("expected a refused handshake, got {other:?}"),
    }
}

/// The time-out of an acceptor that only strangers reached: its error names the role it
/// waited for, and its text the last connection it turned away, by address.
fn turned_away(result: Result<Connections, NetError>, waited_for: &str) -> String {
    match result {
        Err(
            error @ NetError {
                kind: NetErrorKind::Wire(WireErrorKind::NotConnected { .. }),
                ..
            },
        ) if error.peer == waited_for => error.to_string(),
        other => panic!("expected a time-out waiting for {waited_for}, got {other:?}"),
    }
}

fn short(config: NetConfig) -> NetConfig {
    config.connect_timeout(Duration::from_millis(500))
}

#[tokio::test]
async fn another_protocol_version_is_refused_on_both_sides() {
    bounded(async {
        let b = short(NetConfig::new("ping/2", "B").insecure_plaintext());
        let (a, b) = pair(config("A"), b.peer_without_address("A")).await;
        // A plaintext dialler proves nothing: B turns it away by address and goes on
        // waiting for the real A until its deadline.
        let last = turned_away(b, "A");
        assert!(
            last.contains("unauthenticated peer at 127.0.0.1:"),
            "{last}"
        );
        assert!(
            last.contains(r#"protocol "ping/1" is not "ping/2""#),
            "{last}"
        );
        let (peer, reason) = refusal(a);
        assert!(
            peer.starts_with("[127.0.0.1:"),
            "plaintext proves nothing: {peer}"
        );
        assert!(matches!(reason, Refusal::Protocol { .. }), "{reason}");
    })
    .await;
}

#[tokio::test]
async fn another_session_type_is_refused_naming_the_role() {
    bounded(async {
        let a = config("A").fingerprint(Fingerprint::of_bytes(b"A v2"));
        let b = short(config("B"))
            .peer_without_address("A")
            .expect("A", Fingerprint::of_bytes(b"A v1"));
        let (a, b) = pair(a, b).await;
        let last = turned_away(b, "A");
        assert!(last.contains("role A runs another session type"), "{last}");
        let (peer, reason) = refusal(a);
        assert!(
            peer.starts_with("[127.0.0.1:"),
            "plaintext proves nothing: {peer}"
        );
        assert!(
            matches!(&reason, Refusal::Application(text)
                if text.contains("role A runs another session type")),
            "{reason}"
        );
        // The dialler's expectation of the acceptor is checked too.
        let a = config("A").expect("B", Fingerprint::of_bytes(b"B v1"));
        let b = short(config("B"))
            .peer_without_address("A")
            .fingerprint(Fingerprint::of_bytes(b"B v2"));
        let (_, b) = pair(a, b).await;
        assert!(turned_away(b, "A").contains("role B runs another session type"));
    })
    .await;
}

#[tokio::test]
async fn unknown_and_wrong_roles_are_refused() {
    bounded(async {
        // "AA" is not a peer of B: refused, named by its address, and B waits on.
        let b = short(config("B"))
            .listen(any_port())
            .peer_without_address("A")
            .bind()
            .await
            .unwrap();
        let b_at = b.local_addr().unwrap();
        let stranger = tokio::spawn(config("AA").peer("B", b_at).connect());
        let last = turned_away(b.connect().await, "A");
        assert!(
            last.contains("unauthenticated peer at 127.0.0.1:"),
            "{last}"
        );
        assert!(last.contains("role AA is unknown"), "{last}");
        assert!(matches!(
            refusal(stranger.await.unwrap()).1,
            Refusal::UnknownRole { .. }
        ));
        // A wants C but reaches B.
        let b = short(config("B"))
            .listen(any_port())
            .peer_without_address("A")
            .bind()
            .await
            .unwrap();
        let b_at = b.local_addr().unwrap();
        let lost = tokio::spawn(config("A").peer("C", b_at).connect());
        let last = turned_away(b.connect().await, "A");
        assert!(last.contains("wanted role C but B answered"), "{last}");
        let (peer, reason) = refusal(lost.await.unwrap());
        assert!(
            peer.starts_with("[127.0.0.1:"),
            "plaintext proves nothing: {peer}"
        );
        assert_eq!(
            reason,
            Refusal::WrongRole {
                answered: "B".into(),
                wanted: "C".into()
            }
        );
    })
    .await;
}

#[tokio::test]
async fn a_peer_that_never_connects_times_out_naming_it() {
    bounded(async {
        let started = Instant::now();
        let b = config("B").listen(any_port()).peer_without_address("A");
        let error = b
            .connect_timeout(Duration::from_millis(300))
            .connect()
            .await
            .unwrap_err();
        assert_eq!(error.peer, "A");
        assert!(
            matches!(
                error.kind,
                NetErrorKind::Wire(WireErrorKind::NotConnected { attempts: 0, .. })
            ),
            "{error}"
        );
        assert!(started.elapsed() >= Duration::from_millis(300));
        // Dialling a port nobody listens on: retried until the deadline, with the cause.
        let closed = tokio::net::TcpListener::bind(LOOPBACK)
            .await
            .unwrap()
            .local_addr()
            .unwrap();
        let a = config("A")
            .peer("B", closed)
            .connect_timeout(Duration::from_millis(300));
        let error = a.connect().await.unwrap_err();
        assert_eq!(error.peer, "B");
        match &error.kind {
            NetErrorKind::Wire(WireErrorKind::NotConnected {
                address,
                attempts,
                errors,
            }) => {
                assert_eq!(*address, closed.to_string());
                assert!(*attempts > 1, "retried: {error}");
                let last = errors.last().unwrap();
                assert!(last.error.contains("refused"), "{error}");
            }
            other => panic!("expected a connection time-out, got {other:?}"),
        }
    })
    .await;
}

/// The error the receiving route ends with; the route yields nothing after it.
async fn receive_error(route: &mut TcpRoute<Label>) -> NetError {
    let error = match route.next().await {
        Some(Err(error)) => error,
        other => panic!("expected an error, got {other:?}"),
    };
    assert!(route.next().await.is_none(), "a failed route ends");
    error
}

#[tokio::test]
async fn a_malformed_frame_from_a_raw_socket_is_a_decode_error() {
    bounded(async {
        let (a, mut b) = connected(config("A"), config("B")).await;
        let mut raw = a.into_inner().unwrap();
        raw.write_all(&[0, 0, 0, 1, 99]).await.unwrap();
        let error = receive_error(&mut b).await;
        assert_eq!(error.peer, "A");
        assert!(matches!(error.kind, NetErrorKind::Decode(_)), "{error}");
    })
    .await;
}

#[tokio::test]
async fn an_oversized_frame_is_refused_from_its_header() {
    bounded(async {
        let b = config("B").max_frame_length(1024);
        let (a, mut b) = connected(config("A"), b).await;
        let mut raw = a.into_inner().unwrap();
        raw.write_all(&(1u32 << 30).to_be_bytes()).await.unwrap();
        let error = receive_error(&mut b).await;
        assert_eq!(error.peer, "A");
        assert!(
            matches!(
                error.kind,
                NetErrorKind::FrameTooLarge {
                    length: 1_073_741_824,
                    limit: 1024
                }
            ),
            "{error}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_reset_connection_is_an_error_naming_the_peer() {
    bounded(async {
        let (a, mut b) = connected(config("A"), config("B")).await;
        let raw = a.into_inner().unwrap();
        // Linger 0: closing sends RST instead of FIN.
        // (Deprecated because a non-zero linger blocks on drop; zero does not.)
        #[allow(deprecated)]
        raw.tcp().set_linger(Some(Duration::ZERO)).unwrap();
        drop(raw);
        let error = receive_error(&mut b).await;
        assert_eq!(error.peer, "A");
        assert!(error.is_disconnected(), "{error}");
        // Sending on the failed route fails too.
        assert!(b.send(Label::Pong(1)).await.is_err());
    })
    .await;
}

#[tokio::test]
async fn a_peer_closing_between_frames_or_within_one_is_reported() {
    bounded(async {
        let (a, mut b) = connected(config("A"), config("B")).await;
        drop(a);
        assert!(b.next().await.is_none(), "a clean close ends the stream");
        assert!(b.is_closed());
        let (a, mut b) = connected(config("A"), config("B")).await;
        let mut raw = a.into_inner().unwrap();
        raw.write_all(&[0, 0, 0, 9, 1]).await.unwrap();
        drop(raw);
        let error = receive_error(&mut b).await;
        assert!(
            matches!(error.kind, NetErrorKind::Truncated { buffered: 5 }),
            "{error}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_slow_peer_hits_the_receive_timeout() {
    bounded(async {
        let b = config("B").receive_timeout(Duration::from_millis(200));
        let (mut a, mut b) = connected(config("A"), b).await;
        // In time: the timer restarts with every receive.
        a.send(Label::Ping(1)).await.unwrap();
        assert_eq!(b.next().await.unwrap().unwrap(), Label::Ping(1));
        let started = Instant::now();
        let error = receive_error(&mut b).await;
        assert_eq!(error.peer, "A");
        assert!(
            matches!(error.kind, NetErrorKind::ReceiveTimeout(d) if d == Duration::from_millis(200))
        );
        assert!(started.elapsed() >= Duration::from_millis(200));
        drop(a);
    })
    .await;
}

#[tokio::test]
async fn a_role_connecting_twice_is_refused_as_a_duplicate() {
    bounded(async {
        let b = config("B")
            .listen(any_port())
            .peer_without_address("A")
            .peer_without_address("AA");
        let b = b.bind().await.unwrap();
        let b_at = b.local_addr().unwrap();
        let b = tokio::spawn(b.connect());
        let first = config("A").peer("B", b_at).connect().await.unwrap();
        // B now waits for AA only; a second A is refused, and B waits on.
        let second = config("A").peer("B", b_at).connect().await;
        assert_eq!(refusal(second).1, Refusal::Duplicate { role: "A".into() });
        let aa = config("AA").peer("B", b_at).connect().await.unwrap();
        let mut b = b.await.unwrap().unwrap();
        assert!(b.route::<Label>("A").is_ok() && b.route::<Label>("AA").is_ok());
        drop((first, aa));
    })
    .await;
}

#[tokio::test]
async fn without_tls_or_the_plaintext_opt_in_nothing_connects() {
    let error = NetConfig::new("ping/1", "A")
        .peer("B", any_port())
        .connect()
        .await
        .unwrap_err();
    assert_eq!(error.peer, "A");
    assert!(error.to_string().contains("insecure_plaintext"), "{error}");
}

#[tokio::test]
async fn consecutive_sends_coalesce_until_a_flush_or_the_threshold() {
    bounded(async {
        let a = config("A").flush_threshold(64);
        let (mut a, mut b) = connected(a, config("B")).await;
        // Each `Ping(n)` is a 4-byte header, a 1-byte tag (a label, not an
        // acknowledgement) and 2 bytes of postcard.
        for n in 0..3 {
            a.feed(Label::Ping(n)).await.unwrap();
        }
        assert_eq!(a.unflushed(), 21, "three sends, nothing written yet");
        a.flush().await.unwrap();
        assert_eq!(a.unflushed(), 0, "one flush writes them all");
        // Past the threshold, the buffer goes out without waiting for a flush: before each
        // send, so it never holds more than the threshold plus one label.
        for n in 0..10 {
            a.feed(Label::Ping(n)).await.unwrap();
        }
        assert_eq!(a.unflushed(), 70, "63 bytes were under the threshold of 64");
        a.feed(Label::Ping(10)).await.unwrap();
        assert_eq!(
            a.unflushed(),
            7,
            "the 70 bytes went out before the eleventh send"
        );
        a.flush().await.unwrap();
        for n in (0..3).chain(0..11) {
            assert_eq!(b.next().await.unwrap().unwrap(), Label::Ping(n));
        }
    })
    .await;
}
