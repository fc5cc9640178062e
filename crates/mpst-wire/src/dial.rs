//! Dialling a peer: resolve `host:port` again on every attempt, connect, secure (TLS),
//! and run the dialler's side of the handshake, which ends only with the acceptor's
//! final word ([`crate::hello::Established`]); retry with exponential back-off until a
//! deadline that cannot overflow (the pauses shortened near it, so the whole time is
//! used), keeping the last attempts' errors for the final error.

use std::collections::VecDeque;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpStream, lookup_host};
use tokio::time::Instant;
use tokio_rustls::TlsConnector;

use crate::codec::{FrameError, HEADER_LENGTH, decode_body};
use crate::config::Security;
use crate::error::{Attempt, Peer, Refusal, WireError, WireErrorKind, is_disconnect};
use crate::hello::{
    Confirm, Established, Hello, MAX_HANDSHAKE_FRAME, Nonce, Reply, encode_hello, encode_message,
    fresh_nonce, read_frame, run_id, transcript, write_frame,
};
use crate::identity::Identity;
use crate::node::Node;
use crate::stream::{Connection, ConnectionInfo, LINGER, Stream, close_gracefully};

/// How many attempts' errors a dialling error keeps (the last ones).
pub const KEPT_ATTEMPTS: usize = 8;
/// The first pause between two attempts.
pub const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause between two attempts.
pub const MAX_PAUSE: Duration = Duration::from_millis(500);

/// The pause after `pause`: doubled, at most [`MAX_PAUSE`].
pub fn next_pause(pause: Duration) -> Duration {
    pause.saturating_mul(2).min(MAX_PAUSE)
}

/// How long to wait before the next attempt when `left` remains before the deadline:
/// `pause`, but at most half of what is left, so attempts go on until the deadline (the
/// last one cut off by it) instead of stopping where the next full pause would cross
/// it; `None` once nothing is left.
pub fn pause_before(pause: Duration, left: Duration) -> Option<Duration> {
    if left.is_zero() {
        return None;
    }
    Some(pause.min(left / 2))
}

/// The earlier of two optional deadlines (`None`: no deadline).
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Runs `future` until `deadline` (`None`: without one); `None` when it passed.
pub(crate) async fn until<T>(
    deadline: Option<Instant>,
    future: impl std::future::Future<Output = T>,
) -> Option<T> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, future).await.ok(),
        None => Some(future.await),
    }
}

/// What one attempt came to.
enum Failure {
    /// Worth another attempt (not up yet, closed before answering, too busy).
    Retry(Attempt),
    /// A definite answer: a refusal, a certificate that does not fit.
    Final(WireError),
}

pub(crate) async fn dial(
    node: &Node,
    peer: &str,
    address: &str,
    deadline: Option<Instant>,
) -> Result<Connection, WireError> {
    if let Err(e) = crate::names::check_role_name(peer) {
        return Err(WireError::config(node.role(), e));
    }
    let mut attempts = 0u32;
    let mut errors: VecDeque<Attempt> = VecDeque::new();
    let mut pause = FIRST_PAUSE;
    loop {
        attempts = attempts.saturating_add(1);
        match until(deadline, attempt(node, peer, address, deadline)).await {
            Some(Ok(connection)) => return Ok(connection),
            Some(Err(Failure::Final(error))) => return Err(error),
            Some(Err(Failure::Retry(failed))) => {
                tracing::debug!(role = node.role(), peer, target = %failed.target, error = %failed.error, "dial attempt failed");
                if errors.len() == KEPT_ATTEMPTS {
                    errors.pop_front();
                }
                errors.push_back(failed);
            }
            None => break,
        }
        let wait = match deadline {
            Some(deadline) => {
                match pause_before(pause, deadline.saturating_duration_since(Instant::now())) {
                    Some(wait) => wait,
                    None => break,
                }
            }
            None => pause,
        };
        tokio::time::sleep(wait).await;
        pause = next_pause(pause);
    }
    Err(WireError::new(
        Peer::Expected(peer.to_owned()),
        WireErrorKind::NotConnected {
            address: address.to_owned(),
            attempts,
            errors: errors.into(),
        },
    ))
}

/// One attempt: resolve, connect to each address in turn, secure and handshake.
async fn attempt(
    node: &Node,
    peer: &str,
    address: &str,
    deadline: Option<Instant>,
) -> Result<Connection, Failure> {
    let resolved: Vec<SocketAddr> = match lookup_host(address).await {
        Ok(addresses) => addresses.collect(),
        Err(e) => {
            return Err(Failure::Retry(Attempt {
                target: address.to_owned(),
                error: format!("cannot resolve: {e}"),
            }));
        }
    };
    let mut last = Attempt {
        target: address.to_owned(),
        error: "resolved to no address".into(),
    };
    for remote in resolved {
        let tcp = match TcpStream::connect(remote).await {
            Ok(tcp) => tcp,
            Err(e) => {
                last = Attempt {
                    target: format!("{address} ({remote})"),
                    error: e.to_string(),
                };
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        return match secure_and_greet(node, peer, remote, tcp, deadline).await {
            Ok(connection) => Ok(connection),
            Err(error) if retryable(&error.kind) => Err(Failure::Retry(Attempt {
                target: format!("{address} ({remote})"),
                error: error.kind.to_string(),
            })),
            Err(error) => Err(Failure::Final(error)),
        };
    }
    Err(Failure::Retry(last))
}

/// Whether a failed handshake is worth another attempt: the other side closed or reset
/// before answering (not up yet, too busy, restarting), not a definite answer.
fn retryable(kind: &WireErrorKind) -> bool {
    match kind {
        WireErrorKind::Io(e) | WireErrorKind::Tls(e) | WireErrorKind::Frame(FrameError::Io(e)) => {
            is_disconnect(e.kind()) || e.kind() == io::ErrorKind::TimedOut
        }
        WireErrorKind::HandshakeTimeout(_) => true,
        _ => false,
    }
}

/// The dialler's side of one connection. Until the acceptor's reply, it is bounded by
/// the handshake time-out from the connection; after it, by the handshake time-out from
/// the reply: the acceptor's own deadline started before it sent the reply, so a final
/// word it sends in time arrives within that bound. Both are cut by `deadline`.
async fn secure_and_greet(
    node: &Node,
    peer: &str,
    remote: SocketAddr,
    tcp: TcpStream,
    deadline: Option<Instant>,
) -> Result<Connection, WireError> {
    let limit = node.config().get_handshake_timeout();
    let phase = || earliest(deadline, Instant::now().checked_add(limit));
    let timed_out =
        |who: &Peer| WireError::new(who.clone(), WireErrorKind::HandshakeTimeout(limit));
    let stranger = Peer::stranger(remote);
    let first = until(phase(), greet(node, peer, remote, tcp))
        .await
        .ok_or_else(|| timed_out(&stranger))??;
    let Greeted {
        mut stream,
        who,
        hello,
        hello_body,
        reply,
        field,
        nonce,
    } = first;
    let fail = |kind: WireErrorKind| WireError::new(who.clone(), kind);
    if let Err(reason) = node.inner.application.check(peer, &field) {
        let refusal = Refusal::Application(reason);
        if let Ok(frame) = encode_message(&Confirm::Abort(refusal.clone())) {
            let _ = until(phase(), write_frame(&mut stream, &frame)).await;
        }
        close_gracefully(&mut stream, LINGER).await;
        return Err(fail(WireErrorKind::Refusing(refusal)));
    }
    let confirm =
        encode_message(&Confirm::Confirm { nonce }).map_err(|e| fail(WireErrorKind::Frame(e)))?;
    let expected = transcript(&hello_body, &reply, &confirm[HEADER_LENGTH..]);
    let finish = async {
        write_frame(&mut stream, &confirm)
            .await
            .map_err(|e| fail(frame_kind(e)))?;
        let body = read_frame(&mut stream, MAX_HANDSHAKE_FRAME)
            .await
            .map_err(|e| fail(frame_kind(e)))?;
        match decode_body::<Established>(&body) {
            Ok(word) if word.transcript == expected => Ok(()),
            Ok(_) => Err(fail(WireErrorKind::Refusing(Refusal::Replay))),
            Err(_) => Err(fail(WireErrorKind::Refusing(Refusal::NotMpst))),
        }
    };
    until(phase(), finish)
        .await
        .ok_or_else(|| timed_out(&who))??;
    let info = ConnectionInfo {
        peer_role: peer.to_owned(),
        authenticated: matches!(who, Peer::Authenticated(_)),
        remote,
        run_id: run_id(&hello, &nonce),
        peer_field: field,
        dialled: true,
    };
    Ok(Connection::new(stream, info))
}

/// The dialler's side up to the acceptor's accept.
struct Greeted {
    stream: Stream,
    who: Peer,
    hello: Hello,
    hello_body: Vec<u8>,
    /// The accept's body, as read.
    reply: Vec<u8>,
    field: Vec<u8>,
    nonce: Nonce,
}

/// TLS (if any), the hello, and the acceptor's reply: its accept, or its refusal as an
/// error.
async fn greet(
    node: &Node,
    peer: &str,
    remote: SocketAddr,
    tcp: TcpStream,
) -> Result<Greeted, WireError> {
    let (mut stream, authenticated) = match node.security() {
        Security::InsecurePlaintext => (Stream::Plain(tcp), false),
        Security::MutualTls(identity) => {
            let name = Identity::server_name(peer, node.config().protocol())
                .map_err(|e| WireError::config(node.role(), e))?;
            let connector = TlsConnector::from(identity.client_config());
            match connector.connect(name, tcp).await {
                Ok(tls) => (
                    Stream::Tls(Box::new(tokio_rustls::TlsStream::Client(tls))),
                    true,
                ),
                Err(e) => {
                    return Err(WireError::new(
                        Peer::stranger(remote),
                        WireErrorKind::Tls(e),
                    ));
                }
            }
        }
    };
    let who = if authenticated {
        Peer::Authenticated(peer.to_owned())
    } else {
        Peer::stranger(remote)
    };
    let fail = |kind: WireErrorKind| WireError::new(who.clone(), kind);
    let hello = Hello {
        protocol: node.config().protocol().to_owned(),
        from: node.role().to_owned(),
        to: peer.to_owned(),
        field: node.inner.application.field(peer),
        nonce: fresh_nonce(),
    };
    let frame = encode_hello(&hello).map_err(|e| fail(WireErrorKind::Frame(e)))?;
    write_frame(&mut stream, &frame)
        .await
        .map_err(|e| fail(frame_kind(e)))?;
    let reply = read_frame(&mut stream, MAX_HANDSHAKE_FRAME)
        .await
        .map_err(|e| fail(frame_kind(e)))?;
    let (field, nonce) = match decode_body::<Reply>(&reply) {
        Ok(Reply::Accept { field, nonce }) => (field, nonce),
        Ok(Reply::Refuse(refusal)) => return Err(fail(WireErrorKind::Refused(refusal))),
        Err(_) => {
            return Err(fail(WireErrorKind::Refusing(Refusal::NotMpst)));
        }
    };
    let mut hello_body = frame;
    hello_body.drain(..HEADER_LENGTH);
    Ok(Greeted {
        stream,
        who,
        hello,
        hello_body,
        reply,
        field,
        nonce,
    })
}

/// A frame error as an error kind: I/O stays I/O (so disconnects are seen as such).
pub(crate) fn frame_kind(error: FrameError) -> WireErrorKind {
    match error {
        FrameError::Io(e) => WireErrorKind::Io(e),
        other => WireErrorKind::Frame(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_up_to_its_cap_and_never_overflows() {
        let mut pause = FIRST_PAUSE;
        let mut seen = vec![pause];
        for _ in 0..10 {
            pause = next_pause(pause);
            seen.push(pause);
        }
        assert_eq!(seen[1], FIRST_PAUSE * 2);
        assert!(seen.windows(2).all(|w| w[1] >= w[0] && w[1] <= MAX_PAUSE));
        assert_eq!(*seen.last().unwrap(), MAX_PAUSE);
        assert_eq!(next_pause(Duration::MAX), MAX_PAUSE);
        let accept = crate::accept::next_accept_pause(Duration::MAX);
        assert_eq!(accept, crate::accept::MAX_ACCEPT_PAUSE);
        assert_eq!(
            crate::accept::next_accept_pause(crate::accept::FIRST_ACCEPT_PAUSE),
            crate::accept::FIRST_ACCEPT_PAUSE * 2
        );
    }

    #[test]
    fn pauses_shrink_near_the_deadline_so_the_whole_time_is_used() {
        let ms = Duration::from_millis;
        // Far from the deadline: the back-off as it is.
        assert_eq!(pause_before(ms(10), ms(1000)), Some(ms(10)));
        assert_eq!(pause_before(MAX_PAUSE, Duration::MAX), Some(MAX_PAUSE));
        // A pause that would cross the deadline is cut to half of what is left, so
        // another attempt still starts before it (the old rule gave up here).
        assert_eq!(pause_before(ms(500), ms(320)), Some(ms(160)));
        assert_eq!(
            pause_before(ms(500), ms(1)),
            Some(Duration::from_micros(500))
        );
        // Nothing left: give up.
        assert_eq!(pause_before(ms(500), Duration::ZERO), None);
    }

    #[test]
    fn only_a_peer_gone_before_answering_is_worth_another_attempt() {
        let io = |kind| WireErrorKind::Io(io::Error::from(kind));
        assert!(retryable(&io(io::ErrorKind::UnexpectedEof)));
        assert!(retryable(&io(io::ErrorKind::ConnectionReset)));
        assert!(retryable(&WireErrorKind::HandshakeTimeout(
            Duration::from_secs(1)
        )));
        assert!(!retryable(&WireErrorKind::Tls(io::Error::from(
            io::ErrorKind::InvalidData
        ))));
        assert!(!retryable(&WireErrorKind::Refused(Refusal::NotMpst)));
    }
}
