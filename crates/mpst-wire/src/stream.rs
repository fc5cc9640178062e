//! An established connection: the byte stream (plain TCP or TLS) and what the handshake
//! established — the peer's role (authenticated or merely claimed), its address, its
//! application field, and the connection's run id.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use crate::codec::FrameCodec;
use crate::error::Peer;

/// The byte stream of a connection: plain TCP, or TLS over TCP.
#[derive(Debug)]
pub enum Stream {
    /// Plain TCP ([`Security::InsecurePlaintext`](crate::Security::InsecurePlaintext)).
    Plain(TcpStream),
    /// TLS over TCP (client or server side).
    Tls(Box<tokio_rustls::TlsStream<TcpStream>>),
}

impl Stream {
    /// The TCP socket underneath.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref().0,
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }
}

/// A connection's run id: the SHA-256 of both sides' fresh nonces (and the protocol and
/// roles), the same on both ends and different for every connection. Bind it into
/// message keys or check it per frame, and bytes recorded from another connection are
/// refused.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RunId(pub [u8; 32]);

impl RunId {
    /// The run id as bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The first 8 bytes as a number (big-endian), e.g. to mix into a 64-bit token.
    pub fn as_u64(&self) -> u64 {
        let mut first = [0; 8];
        first.copy_from_slice(&self.0[..8]);
        u64::from_be_bytes(first)
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::names::hex(&self.0))
    }
}

impl fmt::Debug for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RunId({self})")
    }
}

/// What the handshake established about a connection.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    /// The peer's role: proved by its certificate under mutual TLS, only claimed in
    /// plaintext.
    pub peer_role: String,
    /// Whether the peer's role is proved (mutual TLS).
    pub authenticated: bool,
    /// The peer's address.
    pub remote: SocketAddr,
    /// The connection's run id (both sides' nonces).
    pub run_id: RunId,
    /// The application field the peer sent (fingerprints, a program name, lanes).
    pub peer_field: Vec<u8>,
    /// Whether this side dialled (rather than accepted) the connection.
    pub dialled: bool,
}

impl ConnectionInfo {
    /// The peer, for errors: its role when authenticated, else its address and the role
    /// it claimed.
    pub fn peer(&self) -> Peer {
        if self.authenticated {
            Peer::Authenticated(self.peer_role.clone())
        } else {
            Peer::Unauthenticated {
                address: self.remote,
                claimed: Some(self.peer_role.clone()),
            }
        }
    }
}

/// An established connection: a stream past its handshake, and what the handshake
/// established.
#[derive(Debug)]
pub struct Connection {
    stream: Stream,
    info: ConnectionInfo,
}

impl Connection {
    pub(crate) fn new(stream: Stream, info: ConnectionInfo) -> Self {
        Self { stream, info }
    }

    /// What the handshake established.
    pub fn info(&self) -> &ConnectionInfo {
        &self.info
    }

    /// The peer's role (proved under mutual TLS, claimed in plaintext).
    pub fn peer_role(&self) -> &str {
        &self.info.peer_role
    }

    /// The peer, for errors (see [`ConnectionInfo::peer`]).
    pub fn peer(&self) -> Peer {
        self.info.peer()
    }

    /// Whether the peer's role is proved.
    pub fn is_authenticated(&self) -> bool {
        self.info.authenticated
    }

    /// The peer's address.
    pub fn remote_addr(&self) -> SocketAddr {
        self.info.remote
    }

    /// The connection's run id.
    pub fn run_id(&self) -> RunId {
        self.info.run_id
    }

    /// The application field the peer sent.
    pub fn peer_field(&self) -> &[u8] {
        &self.info.peer_field
    }

    /// The stream and the handshake's results.
    pub fn into_parts(self) -> (Stream, ConnectionInfo) {
        (self.stream, self.info)
    }

    /// The stream.
    pub fn into_stream(self) -> Stream {
        self.stream
    }

    /// The stream, mutably (e.g. to write raw frames).
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// The connection as a tokio-util `Framed` of values `M`, frames limited to
    /// `max_frame_length` bytes; the handshake's results beside it.
    pub fn framed<M>(
        self,
        max_frame_length: usize,
    ) -> (Framed<Stream, FrameCodec<M>>, ConnectionInfo) {
        (
            Framed::new(self.stream, FrameCodec::new(max_frame_length)),
            self.info,
        )
    }
}

/// The longest a refusing side waits for the refused peer to read its reason and close.
pub const LINGER: Duration = Duration::from_secs(2);

/// Closes a stream gracefully: shuts down its write side (TLS: `close_notify` first), then
/// reads and discards what the peer still sends until it closes, for at most `linger`
/// and 64 KiB — so that the peer reads everything written before, never a reset.
pub async fn close_gracefully(stream: &mut Stream, linger: Duration) {
    let _ = tokio::time::timeout(linger, async {
        let _ = stream.flush().await;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        let mut drained = 0usize;
        while drained < 64 * 1024 {
            match stream.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    })
    .await;
}
