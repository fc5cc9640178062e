//! [`Connection`]: the byte stream under a route — plain TCP, or TLS over TCP with
//! feature `tls` — so that framing, handshakes and routes are written once for both.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A connected byte stream to a peer.
#[derive(Debug)]
#[non_exhaustive]
pub enum Connection {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS over TCP (feature `tls`).
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    #[cfg(feature = "tls")]
    Tls(Box<tokio_rustls::TlsStream<TcpStream>>),
}

impl Connection {
    /// The TCP stream under the connection (under the TLS layer, if any).
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Connection::Plain(stream) => stream,
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => stream.get_ref().0,
        }
    }

    /// The TCP stream under the connection; a TLS session is dropped without closing it.
    pub fn into_tcp(self) -> TcpStream {
        match self {
            Connection::Plain(stream) => stream,
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => match *stream {
                tokio_rustls::TlsStream::Client(s) => s.into_inner().0,
                tokio_rustls::TlsStream::Server(s) => s.into_inner().0,
            },
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_flush(cx),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(stream) => stream.is_write_vectored(),
            #[cfg(feature = "tls")]
            Connection::Tls(stream) => stream.is_write_vectored(),
        }
    }
}
