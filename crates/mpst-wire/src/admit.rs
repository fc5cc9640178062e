//! The acceptor's side of one connection: TLS (refusing a plaintext peer with a reason it
//! can read), the hello and its checks — protocol, wanted role, admitted role, the
//! certificate naming the claimed role, the application field, duplicates — then the
//! accept, the dialler's confirmation echoing this side's nonce and, once the connection
//! has a place in the queue and is out of reach of eviction, the final word. The
//! connection is handed out in the same step that finishes writing that word, with no
//! await between: neither the deadline nor eviction can drop it after the word is sent.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::accept::{Expected, Shared};
use crate::codec::{FrameError, HEADER_LENGTH, decode_body};
use crate::config::Security;
use crate::dial::frame_kind;
use crate::error::{Peer, Refusal, WireError, WireErrorKind};
use crate::hello::{
    Confirm, Established, Hello, MAX_HANDSHAKE_FRAME, Reply, decode_hello, encode_message,
    fresh_nonce, read_frame, run_id, transcript, write_frame,
};
use crate::identity::Identity;
use crate::node::Node;
use crate::pending::Slot;
use crate::stream::{Connection, ConnectionInfo, LINGER, Stream, close_gracefully};

/// The first byte of a TLS handshake record.
const TLS_HANDSHAKE: u8 = 0x16;

/// How a handshake ended badly.
enum Outcome {
    /// Refuse: write the reason, then close gracefully (outside the handshake deadline).
    Refuse(Box<Stream>, Refusal, Peer),
    /// Just close (the peer went away, spoke TLS wrongly, or replayed), once logged.
    Fail(WireError, Option<Box<Stream>>),
    /// Close without the final word; already logged and counted (no room in the queue,
    /// or closed to make room meanwhile).
    Dropped,
}

/// Runs the acceptor's side of the handshake on `tcp` from `remote`, within the
/// handshake time-out, and hands the connection out through `slot` exactly when the final
/// word has been sent. A failure is logged and counted before the socket closes; a
/// refusal is then written and the connection closed gracefully.
pub(crate) async fn admit(
    node: &Node,
    expected: &Expected,
    shared: &Arc<Shared>,
    tcp: TcpStream,
    remote: SocketAddr,
    slot: &Slot,
) {
    let _ = tcp.set_nodelay(true);
    // A second handle on the socket keeps it open until the failure is logged, whatever
    // the handshake did with its own (a timed-out handshake drops it).
    let keep = tcp_clone(&tcp);
    let limit = node.config().get_handshake_timeout();
    let outcome = tokio::time::timeout(limit, async {
        let admitted = handshake(node, expected, shared, tcp, remote, slot).await?;
        establish(node, shared, admitted, slot).await
    })
    .await;
    let role = node.role();
    match outcome {
        Ok(Ok(())) | Ok(Err(Outcome::Dropped)) => {}
        Ok(Err(Outcome::Fail(error, stream))) => {
            shared.failed(role, remote, &error);
            drop((stream, keep));
        }
        Ok(Err(Outcome::Refuse(mut stream, refusal, peer))) => {
            shared.failed(
                role,
                remote,
                &WireError::new(peer, WireErrorKind::Refusing(refusal.clone())),
            );
            drop(keep);
            let _ = tokio::time::timeout(LINGER, async {
                if let Ok(frame) = encode_message(&Reply::Refuse(refusal)) {
                    let _ = write_frame(&mut *stream, &frame).await;
                }
                close_gracefully(&mut stream, LINGER).await;
            })
            .await;
        }
        Err(_elapsed) => {
            let error = WireError::new(
                Peer::stranger(remote),
                WireErrorKind::HandshakeTimeout(limit),
            );
            shared.failed(role, remote, &error);
            drop(keep);
        }
    }
}

/// A handshake that passed every check and was confirmed, before its final word.
struct Admitted<'a> {
    stream: Stream,
    info: ConnectionInfo,
    peer: Peer,
    reservation: Reservation<'a>,
    /// What the final word carries.
    transcript: [u8; 32],
}

/// The final word: only with a place in the queue of accepted connections and out of
/// reach of eviction; once it is written, the connection is handed out without another
/// await (so neither the deadline nor an eviction can come between).
async fn establish(
    node: &Node,
    shared: &Shared,
    admitted: Admitted<'_>,
    slot: &Slot,
) -> Result<(), Outcome> {
    let Admitted {
        mut stream,
        info,
        peer,
        reservation,
        transcript,
    } = admitted;
    let remote = info.remote;
    let permit = match slot.tx.try_reserve() {
        Ok(permit) => permit,
        Err(mpsc::error::TrySendError::Full(())) => {
            let cap = slot.tx.max_capacity();
            tracing::warn!(
                role = node.role(),
                %remote,
                "closed before its final word: {cap} accepted connections are waiting to be taken"
            );
            shared.count(|s| s.over_cap += 1);
            return Err(Outcome::Dropped);
        }
        // The acceptor was dropped: nobody takes connections any more.
        Err(mpsc::error::TrySendError::Closed(())) => return Err(Outcome::Dropped),
    };
    if !slot.commit() {
        return Err(Outcome::Dropped);
    }
    let frame = encode_message(&Established { transcript })
        .map_err(|e| Outcome::Fail(WireError::new(peer.clone(), WireErrorKind::Frame(e)), None))?;
    write_frame(&mut stream, &frame)
        .await
        .map_err(|e| Outcome::Fail(WireError::new(peer.clone(), frame_kind(e)), None))?;
    // Sent: from here on, nothing awaits.
    reservation.keep();
    tracing::info!(
        role = node.role(),
        peer = info.peer_role,
        authenticated = info.authenticated,
        %remote,
        "accepted"
    );
    shared.count(|s| s.accepted += 1);
    permit.send(Connection::new(stream, info));
    Ok(())
}

/// Another handle on the same socket (`None` if the system refuses one, e.g. out of
/// file descriptors: then a failure may be logged just after the socket closed).
fn tcp_clone(tcp: &TcpStream) -> Option<socket2::Socket> {
    socket2::SockRef::from(tcp).try_clone().ok()
}

/// A role's connection slot under an exclusive expectation, given back unless kept.
struct Reservation<'a> {
    shared: &'a Shared,
    role: Option<String>,
}

impl Reservation<'_> {
    fn keep(mut self) {
        self.role = None;
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if let Some(role) = self.role.take() {
            let mut admitted = self
                .shared
                .admitted
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if let Some(n) = admitted.get_mut(&role) {
                *n = n.saturating_sub(1);
            }
        }
    }
}

async fn handshake<'a>(
    node: &Node,
    expected: &Expected,
    shared: &'a Arc<Shared>,
    tcp: TcpStream,
    remote: SocketAddr,
    slot: &Slot,
) -> Result<Admitted<'a>, Outcome> {
    let stranger = Peer::stranger(remote);
    let fail =
        |peer: &Peer, kind: WireErrorKind| Outcome::Fail(WireError::new(peer.clone(), kind), None);
    let (mut stream, certificates) = match node.security() {
        Security::InsecurePlaintext => (Stream::Plain(tcp), None),
        Security::MutualTls(identity) => {
            let mut first = [0u8; 1];
            match tcp.peek(&mut first).await {
                Ok(0) => return Err(fail(&stranger, WireErrorKind::Closed)),
                Err(e) => return Err(fail(&stranger, WireErrorKind::Io(e))),
                Ok(_) if first[0] != TLS_HANDSHAKE => {
                    let stream = Box::new(Stream::Plain(tcp));
                    return Err(Outcome::Refuse(stream, Refusal::TlsRequired, stranger));
                }
                Ok(_) => {}
            }
            let acceptor = TlsAcceptor::from(identity.server_config());
            match acceptor.accept(tcp).await {
                Ok(tls) => {
                    let certificates: Vec<CertificateDer<'static>> = tls
                        .get_ref()
                        .1
                        .peer_certificates()
                        .map(|c| c.iter().map(|c| c.clone().into_owned()).collect())
                        .unwrap_or_default();
                    let stream = Stream::Tls(Box::new(tokio_rustls::TlsStream::Server(tls)));
                    (stream, Some(certificates))
                }
                Err(e) => return Err(fail(&stranger, WireErrorKind::Tls(e))),
            }
        }
    };
    let body = match read_frame(&mut stream, MAX_HANDSHAKE_FRAME).await {
        Ok(body) => body,
        Err(FrameError::TooLarge { .. }) => {
            return Err(Outcome::Refuse(
                Box::new(stream),
                Refusal::NotMpst,
                stranger,
            ));
        }
        Err(e) => return Err(fail(&stranger, frame_kind(e))),
    };
    let hello = match decode_hello(&body) {
        Ok(hello) => hello,
        Err(refusal) => return Err(Outcome::Refuse(Box::new(stream), refusal, stranger)),
    };
    let claimed = Peer::Unauthenticated {
        address: remote,
        claimed: Some(hello.from.clone()),
    };
    let refuse = |stream: Stream, refusal: Refusal, peer: &Peer| {
        Outcome::Refuse(Box::new(stream), refusal, peer.clone())
    };
    let protocol = node.config().protocol();
    if hello.protocol != protocol {
        let refusal = Refusal::Protocol {
            ours: protocol.to_owned(),
            theirs: hello.protocol.clone(),
        };
        return Err(refuse(stream, refusal, &claimed));
    }
    if hello.to != node.role() {
        let refusal = Refusal::WrongRole {
            answered: node.role().to_owned(),
            wanted: hello.to.clone(),
        };
        return Err(refuse(stream, refusal, &claimed));
    }
    let Some(count) = expected.count(&hello.from) else {
        let refusal = Refusal::UnknownRole {
            claimed: hello.from.clone(),
        };
        return Err(refuse(stream, refusal, &claimed));
    };
    let peer = match &certificates {
        Some(certificates) => {
            if let Err(refusal) = Identity::check_peer(certificates, &hello.from, protocol) {
                return Err(refuse(stream, refusal, &claimed));
            }
            Peer::Authenticated(hello.from.clone())
        }
        None => claimed,
    };
    if let Err(reason) = node.inner.application.check(&hello.from, &hello.field) {
        return Err(refuse(stream, Refusal::Application(reason), &peer));
    }
    let reservation = if expected.is_exclusive() {
        let mut admitted = shared.admitted.lock().unwrap_or_else(|p| p.into_inner());
        let n = admitted.entry(hello.from.clone()).or_insert(0);
        if *n >= count {
            drop(admitted);
            let refusal = Refusal::Duplicate {
                role: hello.from.clone(),
            };
            return Err(refuse(stream, refusal, &peer));
        }
        *n += 1;
        Reservation {
            shared,
            role: Some(hello.from.clone()),
        }
    } else {
        Reservation { shared, role: None }
    };
    // An expected role, proved (or, in plaintext, claimed): strangers are closed before
    // it to make room. It may still be closed (its dialler then retries) until it
    // commits to its final word.
    slot.vouch();
    let nonce = fresh_nonce();
    let accept = Reply::Accept {
        field: node.inner.application.field(&hello.from),
        nonce,
    };
    let frame = encode_message(&accept).map_err(|e| fail(&peer, WireErrorKind::Frame(e)))?;
    write_frame(&mut stream, &frame)
        .await
        .map_err(|e| fail(&peer, frame_kind(e)))?;
    let confirm = read_frame(&mut stream, MAX_HANDSHAKE_FRAME)
        .await
        .map_err(|e| fail(&peer, frame_kind(e)))?;
    match decode_body::<Confirm>(&confirm) {
        Ok(Confirm::Confirm { nonce: echoed }) if echoed == nonce => {}
        Ok(Confirm::Confirm { .. }) => {
            return Err(fail(&peer, WireErrorKind::Refusing(Refusal::Replay)));
        }
        Ok(Confirm::Abort(refusal)) => return Err(fail(&peer, WireErrorKind::Refused(refusal))),
        Err(e) => return Err(fail(&peer, WireErrorKind::Frame(e))),
    }
    let transcript = transcript(&body, &frame[HEADER_LENGTH..], &confirm);
    let info = info(&hello, &nonce, &peer, remote);
    Ok(Admitted {
        stream,
        info,
        peer,
        reservation,
        transcript,
    })
}

fn info(
    hello: &Hello,
    nonce: &crate::hello::Nonce,
    peer: &Peer,
    remote: SocketAddr,
) -> ConnectionInfo {
    ConnectionInfo {
        peer_role: hello.from.clone(),
        authenticated: matches!(peer, Peer::Authenticated(_)),
        remote,
        run_id: run_id(hello, nonce),
        peer_field: hello.field.clone(),
        dialled: false,
    }
}
