//! The handshake at the start of every connection: the dialler says which protocol it
//! runs, which role it is, which role it wants and what session types it runs and
//! expects; the acceptor checks all of it and accepts or refuses with the reason.
//!
//! What each side can check: each process knows only its own role's session type, so it
//! sends that fingerprint and, optionally, the fingerprint it expects of the other role
//! ([`Config::expect`]). Each side compares the other's fingerprint with its
//! expectation, so a version mismatch is caught by whichever side pins the other (both,
//! when every role is built from one binary, as in the examples).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::config::{Config, Fingerprint};
use super::error::{HandshakeError, NetError, NetErrorKind};
use super::io::Connection;

/// "MPST" in ASCII: the first field of every hello.
const MAGIC: u32 = 0x4d50_5354;
/// The version of this handshake and of the framing after it.
const WIRE_VERSION: u16 = 1;
/// Handshake frames are small; a longer one is not from an `mpst` peer.
const MAX_HANDSHAKE_FRAME: usize = 64 * 1024;

/// What the dialler says first.
#[derive(Debug, Serialize, Deserialize)]
struct Hello {
    magic: u32,
    wire: u16,
    protocol: String,
    from: String,
    to: String,
    fingerprint: Option<Fingerprint>,
    /// What the dialler expects of the acceptor's session type.
    expect: Option<Fingerprint>,
}

/// The acceptor's answer.
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    Accept,
    Refuse(HandshakeError),
}

/// Writes one length-prefixed postcard frame.
async fn write_frame<T: Serialize>(
    stream: &mut (impl AsyncWrite + Unpin),
    value: &T,
) -> std::io::Result<()> {
    let body = postcard::to_stdvec(value)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let length = u32::try_from(body.len())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(&body);
    stream.write_all(&frame).await
}

/// Reads one frame, exactly (nothing after it is consumed). `None` when it is not a
/// well-formed handshake frame.
async fn read_frame<T: DeserializeOwned>(
    stream: &mut (impl AsyncRead + Unpin),
) -> std::io::Result<Option<T>> {
    let length = usize::try_from(stream.read_u32().await?).unwrap_or(usize::MAX);
    if length > MAX_HANDSHAKE_FRAME {
        return Ok(None);
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await?;
    Ok(postcard::from_bytes(&body).ok())
}

fn io_error(peer: &str, error: std::io::Error) -> NetError {
    NetError::new(peer, NetErrorKind::Io(error))
}

fn refused(peer: &str, error: HandshakeError) -> NetError {
    NetError::new(peer, NetErrorKind::Handshake(error))
}

/// Checks a fingerprint against an expectation (none on either side: nothing to check).
fn check(
    role: &str,
    expected: Option<&Fingerprint>,
    received: Option<&Fingerprint>,
) -> Result<(), HandshakeError> {
    match (expected, received) {
        (Some(expected), received) if Some(expected) != received => {
            Err(HandshakeError::Fingerprint {
                role: role.to_owned(),
                expected: expected.to_string(),
                received: received.map_or_else(|| "none".to_owned(), ToString::to_string),
            })
        }
        _ => Ok(()),
    }
}

/// Dialler side: introduces this role to `peer` and waits for the answer.
pub(crate) async fn dial(
    config: &Config,
    peer: &str,
    stream: &mut Connection,
) -> Result<(), NetError> {
    let hello = Hello {
        magic: MAGIC,
        wire: WIRE_VERSION,
        protocol: config.protocol.clone(),
        from: config.role.clone(),
        to: peer.to_owned(),
        fingerprint: config.fingerprint,
        expect: config.expect.get(peer).copied(),
    };
    write_frame(stream, &hello)
        .await
        .map_err(|e| io_error(peer, e))?;
    match read_frame::<Reply>(stream).await {
        Ok(Some(Reply::Accept)) => Ok(()),
        Ok(Some(Reply::Refuse(reason))) => {
            Err(refused(peer, HandshakeError::Refused(Box::new(reason))))
        }
        Ok(None) => Err(refused(peer, HandshakeError::NotMpst)),
        Err(e) => Err(io_error(peer, e)),
    }
}

/// Why an accepted connection was turned away, and whether that ends connecting.
#[derive(Debug)]
pub(crate) struct Turned {
    /// The failure, naming the authenticated peer or else the remote address.
    pub(crate) error: NetError,
    /// The refusal concerns a peer this role waits for, authenticated as that peer: the
    /// real peer is incompatible, so waiting longer cannot help.
    pub(crate) fatal: bool,
}

/// Acceptor side: reads a hello from `address`, checks it against this role's
/// configuration and the roles still `awaited` (taking the peer's role out of it when it
/// is admitted), and answers; a refusal is written, the connection shut down and drained
/// so that the dialler reads the reason before any reset. `authenticated` is the role
/// the connection proved (its certificate), if any: then the hello must claim that role,
/// and the peer is named by it; otherwise it is named by its address, never by the role
/// it claims. Returns the peer's role.
pub(crate) async fn accept(
    config: &Config,
    awaited: &Mutex<BTreeSet<String>>,
    address: SocketAddr,
    authenticated: Option<&str>,
    stream: &mut Connection,
) -> Result<String, Turned> {
    let peer = authenticated.map_or_else(|| format!("[{address}]"), str::to_owned);
    let turned = |kind| Turned {
        error: NetError::new(&peer, kind),
        fatal: false,
    };
    let hello = match read_frame::<Hello>(stream).await {
        Ok(Some(hello)) if hello.magic == MAGIC && hello.wire == WIRE_VERSION => hello,
        Ok(_) => {
            refuse(stream, HandshakeError::NotMpst).await;
            return Err(turned(NetErrorKind::Handshake(HandshakeError::NotMpst)));
        }
        Err(e) => return Err(turned(NetErrorKind::Io(e))),
    };
    let verdict = verdict(config, &hello, authenticated, awaited);
    // Only a peer that proved its role and is awaited can make waiting pointless.
    let fatal = authenticated
        .is_some_and(|role| role == hello.from && lock(awaited).contains(role) && verdict.is_err());
    match verdict {
        Ok(()) => match write_frame(stream, &Reply::Accept).await {
            Ok(()) => Ok(hello.from),
            Err(e) => {
                // Not admitted after all: the role may connect again.
                lock(awaited).insert(hello.from);
                Err(turned(NetErrorKind::Io(e)))
            }
        },
        Err(reason) => {
            refuse(stream, reason.clone()).await;
            Err(Turned {
                error: NetError::new(&peer, NetErrorKind::Handshake(reason)),
                fatal,
            })
        }
    }
}

fn lock(awaited: &Mutex<BTreeSet<String>>) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
    awaited
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Checks a hello; on success the claimed role is taken out of `awaited` (atomically, so
/// two connections claiming one role cannot both get in).
fn verdict(
    config: &Config,
    hello: &Hello,
    authenticated: Option<&str>,
    awaited: &Mutex<BTreeSet<String>>,
) -> Result<(), HandshakeError> {
    if hello.protocol != config.protocol {
        return Err(HandshakeError::Protocol {
            ours: config.protocol.clone(),
            theirs: hello.protocol.clone(),
        });
    }
    if hello.to != config.role {
        return Err(HandshakeError::WrongRole {
            answered: config.role.clone(),
            wanted: hello.to.clone(),
        });
    }
    if let Some(proved) = authenticated {
        if proved != hello.from {
            return Err(HandshakeError::Impersonation {
                proved: proved.to_owned(),
                claimed: hello.from.clone(),
            });
        }
    }
    if !config.peers.contains_key(&hello.from) || config.dials(&hello.from) {
        return Err(HandshakeError::UnknownRole {
            claimed: hello.from.clone(),
        });
    }
    check(
        &hello.from,
        config.expect.get(&hello.from),
        hello.fingerprint.as_ref(),
    )?;
    check(
        &config.role,
        hello.expect.as_ref(),
        config.fingerprint.as_ref(),
    )?;
    if !lock(awaited).remove(&hello.from) {
        return Err(HandshakeError::Duplicate {
            role: hello.from.clone(),
        });
    }
    Ok(())
}

/// How long a refusing side waits for the refused peer to read the reason and close.
const LINGER: Duration = Duration::from_secs(1);

/// Writes a refusal, shuts the connection down and reads until the peer closes (at most
/// [`LINGER`]), so that closing never resets the connection before the reason is read.
async fn refuse(stream: &mut Connection, reason: HandshakeError) {
    let _ = tokio::time::timeout(LINGER, async {
        let _ = write_frame(stream, &Reply::Refuse(reason)).await;
        linger_close(stream).await;
    })
    .await;
}

/// Shuts down the writing half, then discards what the peer still sends until it closes.
/// Bound it with a time-out.
pub(crate) async fn linger_close(stream: &mut (impl AsyncRead + AsyncWrite + Unpin)) {
    let _ = stream.shutdown().await;
    let mut discard = [0; 1024];
    while let Ok(1..) = stream.read(&mut discard).await {}
}
