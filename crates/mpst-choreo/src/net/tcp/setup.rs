//! Setting up one TCP connection (a lane) before any envelope crosses it: the dialler
//! greets with its program, its role, the role it wants and its lane count; the acceptor
//! checks them and answers with a fresh nonce (the run), or refuses with a reason that it
//! writes and flushes before it closes, so the dialler reads why. Every later frame
//! carries the run, so bytes recorded from another run are refused.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::codec::{Framed, LengthDelimitedCodec};

use crate::net::{decode_error, io_error};
use crate::role::RoleName;
use crate::transport::{Envelope, TransportCause, TransportError};

/// The version of the set-up; a peer speaking another is refused.
pub(super) const VERSION: u32 = 2;

/// The largest frame accepted before a connection is set up: a greeting is small, so a
/// stranger cannot make this side buffer more than this per connection.
pub(super) const SETUP_LIMIT: usize = 4 * 1024;

/// A byte stream under the framing (plain TCP, or TLS over it).
pub(super) trait Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Stream for T {}

/// A framed connection.
pub(super) type Conn = Framed<Box<dyn Stream>, LengthDelimitedCodec>;

/// The frames of the set-up.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Setup {
    /// The dialler's greeting.
    Hello {
        /// [`VERSION`].
        version: u32,
        /// The program both ends run (the choreography's name).
        program: String,
        /// The dialling role.
        from: RoleName,
        /// The role it wants to reach.
        to: RoleName,
        /// How many connections the dialler opens to it.
        lanes: u32,
    },
    /// The acceptor's answer: the run, a fresh nonce that every later frame carries.
    Accept {
        /// The nonce.
        run: u64,
    },
    /// The acceptor refuses, and says why.
    Refuse {
        /// Why.
        reason: String,
    },
}

/// What travels on a lane once it is set up.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Frame {
    /// One message, tagged with the lane's run.
    Message {
        /// The nonce the acceptor chose for this lane.
        run: u64,
        /// The message.
        envelope: Envelope,
    },
    /// The sender will send nothing more on this lane.
    Bye {
        /// The nonce the acceptor chose for this lane.
        run: u64,
    },
}

/// A fresh, unpredictable nonce from the operating system.
pub(super) fn nonce() -> u64 {
    use rand::TryRng;
    let mut bytes = [0u8; 8];
    match rand::rngs::SysRng.try_fill_bytes(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        // No system randomness: a nonce that still differs per process and instant.
        Err(_) => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            let nanos = now.map(|d| d.as_nanos() as u64).unwrap_or(0);
            nanos ^ u64::from(std::process::id()).rotate_left(32)
        }
    }
}

fn encode<T: Serialize>(value: &T) -> bytes::Bytes {
    // Encoding our own enums into a Vec cannot fail.
    bytes::Bytes::from(postcard::to_stdvec(value).unwrap_or_default())
}

/// A codec whose frame limit is the set-up's until [`set_limit`] raises it.
pub(super) fn codec() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .max_frame_length(SETUP_LIMIT)
        .new_codec()
}

/// Raises the frame limit once the connection is set up.
pub(super) fn set_limit(conn: &mut Conn, max: usize) {
    conn.codec_mut().set_max_frame_length(max);
}

/// Dials `addr` until it answers or `deadline` passes (retrying every `retry`, resolving
/// nothing: the address is given), then greets `to` and waits for its answer.
pub(super) async fn dial(
    to: &RoleName,
    addr: SocketAddr,
    (deadline, retry, handshake): (Instant, Duration, Duration),
    hello: &Setup,
) -> Result<(Conn, u64), TransportError> {
    let stream = connect(to, addr, deadline, retry).await?;
    let mut conn = Framed::new(Box::new(stream) as Box<dyn Stream>, codec());
    let answer = async {
        conn.send(encode(hello)).await?;
        conn.next().await.transpose()
    };
    let answer = tokio::time::timeout(handshake, answer).await;
    let refused = |why: String| TransportError::new(to.clone(), TransportCause::Refused(why));
    let frame = match answer {
        Err(_) => return Err(refused(format!("no answer within {handshake:?}"))),
        Ok(Err(e)) => return Err(io_error(to, e.kind(), format!("set-up failed: {e}"))),
        Ok(Ok(None)) => return Err(refused("closed without an answer".into())),
        Ok(Ok(Some(frame))) => frame,
    };
    match postcard::from_bytes::<Setup>(&frame) {
        Ok(Setup::Accept { run }) => Ok((conn, run)),
        Ok(Setup::Refuse { reason }) => Err(refused(reason)),
        Ok(Setup::Hello { .. }) => Err(decode_error(to, "a greeting instead of an answer")),
        Err(e) => Err(decode_error(to, format!("undecodable answer: {e}"))),
    }
}

/// Connects to `addr`, retrying until `deadline` while nobody listens yet.
async fn connect(
    peer: &RoleName,
    addr: SocketAddr,
    deadline: Instant,
    retry: Duration,
) -> Result<TcpStream, TransportError> {
    loop {
        match TcpStream::connect(addr).await {
            Ok(stream) => {
                // Latency over throughput: small choreography messages go out at once.
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) if Instant::now().checked_add(retry).is_none_or(|t| t >= deadline) => {
                let message = format!("cannot connect to {addr} before the deadline: {e}");
                return Err(io_error(peer, e.kind(), message));
            }
            Err(_) => tokio::time::sleep(retry).await,
        }
    }
}

/// What the acceptor checks a greeting against.
pub(super) struct Expect<'a> {
    pub(super) role: &'a RoleName,
    pub(super) program: &'a str,
    pub(super) peers: &'a HashSet<RoleName>,
}

/// The acceptor's half: reads the greeting, checks it, and answers with a fresh run (or
/// a refusal, flushed before the connection closes). Returns the peer, its lane count
/// and the run; the error is the reason, already told to the peer when it could be.
pub(super) async fn greet(
    conn: &mut Conn,
    expect: &Expect<'_>,
) -> Result<(RoleName, u32, u64), String> {
    let frame = match conn.next().await {
        Some(Ok(frame)) => frame,
        Some(Err(e)) => return Err(format!("bad greeting: {e}")),
        None => return Err("closed before its greeting".into()),
    };
    let checked = match postcard::from_bytes::<Setup>(&frame) {
        Ok(Setup::Hello {
            version,
            program,
            from,
            to,
            lanes,
        }) => check(expect, version, &program, &from, &to).map(|()| (from, lanes)),
        Ok(_) => Err("the first frame is not a greeting".to_string()),
        Err(e) => Err(format!("undecodable greeting of {} bytes: {e}", frame.len())),
    };
    match checked {
        Ok((from, lanes)) => {
            let run = nonce();
            conn.send(encode(&Setup::Accept { run }))
                .await
                .map_err(|e| format!("cannot answer: {e}"))?;
            Ok((from, lanes, run))
        }
        Err(reason) => {
            // Written and flushed before the close, so the dialler reads why.
            let refusal = encode(&Setup::Refuse {
                reason: reason.clone(),
            });
            let _ = conn.send(refusal).await;
            let _ = SinkExt::<bytes::Bytes>::close(conn).await;
            Err(reason)
        }
    }
}

fn check(
    expect: &Expect<'_>,
    version: u32,
    program: &str,
    from: &RoleName,
    to: &RoleName,
) -> Result<(), String> {
    if version != VERSION {
        return Err(format!("set-up version {version}, this side speaks {VERSION}"));
    }
    if program != expect.program {
        return Err(format!(
            "runs program {program:?}, this side runs {:?}",
            expect.program
        ));
    }
    if to != expect.role {
        return Err(format!("greeted role {to}, but this is {}", expect.role));
    }
    if !expect.peers.contains(from) {
        return Err(format!("claims role {from}, which is no peer of {to}"));
    }
    Ok(())
}
