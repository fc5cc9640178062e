//! Dialling one peer: connect, then the TLS and `mpst` handshakes within the handshake
//! time-out, retrying with back-off while the peer is not up or the connection breaks
//! during its handshakes, until the connection deadline.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio::time::{sleep_until, timeout_at, Instant};

use super::config::Config;
use super::connect::deadline_after;
use super::error::{NetError, NetErrorKind};
use super::handshake;
use super::io::Connection;

pub(crate) fn timed_out(peer: &str, address: SocketAddr, last: Option<io::Error>) -> NetError {
    NetError::new(peer, NetErrorKind::ConnectTimeout { address, last })
}

/// Whether an I/O error means the connection broke (worth another try), rather than a
/// verdict such as an untrusted certificate.
fn broke(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
            | io::ErrorKind::TimedOut
    )
}

/// Dials `peer` at `address` until it is connected and has accepted this role, or the
/// deadline passes. A refusal, or a failure that retrying cannot cure, ends it at once.
pub(crate) async fn dial(
    config: &Config,
    peer: &str,
    address: SocketAddr,
    deadline: Instant,
) -> Result<(String, Connection), NetError> {
    let mut last = None;
    let mut pause = Duration::from_millis(5);
    loop {
        match timeout_at(deadline, TcpStream::connect(address)).await {
            Err(_elapsed) => return Err(timed_out(peer, address, last)),
            Ok(Err(error)) => last = Some(error),
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                let attempt = deadline_after(config.handshake_timeout).min(deadline);
                let connected = async {
                    let mut connection = secure(config, peer, address, stream).await?;
                    handshake::dial(config, peer, &mut connection).await?;
                    Ok::<_, NetError>(connection)
                };
                match timeout_at(attempt, connected).await {
                    Ok(Ok(connection)) => return Ok((peer.to_owned(), connection)),
                    Ok(Err(NetError {
                        kind: NetErrorKind::Io(error) | NetErrorKind::Tls(error),
                        ..
                    })) if broke(&error) => last = Some(error),
                    Ok(Err(error)) => return Err(error),
                    Err(_elapsed) => {
                        last = Some(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("no handshake within {:?}", config.handshake_timeout),
                        ));
                    }
                }
            }
        }
        // Not listening yet, or the connection broke: back off (up to 100 ms) and retry
        // before the deadline.
        let next = Instant::now() + pause;
        if next >= deadline {
            return Err(timed_out(peer, address, last));
        }
        sleep_until(next).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// Runs the TLS client handshake on a dialled stream when the configuration asks for TLS.
#[allow(clippy::unused_async)] // async only with feature `tls`
async fn secure(
    config: &Config,
    peer: &str,
    address: SocketAddr,
    stream: TcpStream,
) -> Result<Connection, NetError> {
    #[cfg(feature = "tls")]
    if let Some(tls) = &config.tls {
        return tls.connect(peer, address, stream).await;
    }
    let _ = (config, peer, address);
    Ok(Connection::Plain(stream))
}
