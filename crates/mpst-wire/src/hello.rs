//! The one versioned handshake of both runtimes, run on every connection after TLS (if
//! any) and before any application frame:
//!
//! 1. the dialler sends a **hello**: magic `MPST`, wire version, then (postcard) the
//!    protocol, its role (`from`), the role it wants (`to`), its application field and a
//!    fresh random nonce;
//! 2. the acceptor answers **accept** (its application field and its own fresh nonce) or
//!    **refuse** with a [`Refusal`], written before the connection is shut down
//!    gracefully so the dialler reads the reason;
//! 3. the dialler answers **confirm**, echoing the acceptor's nonce (bytes recorded from
//!    another connection carry another nonce and are refused), or **abort** with its
//!    own refusal (e.g. the acceptor's application field does not suit it);
//! 4. the acceptor's final word, **established**, carries the [`transcript`] hash of the
//!    three messages before it (so a word recorded from another connection, which had
//!    another acceptor nonce, is refused). The acceptor sends it only once it will yield
//!    the connection, and from then on never closes it to make room or for its
//!    deadline; the dialler counts the connection as established only once it has read
//!    and checked this word. Before it, either side may still close the connection, and
//!    the dialler then retries: a dialler never holds a connection the acceptor dropped.
//!
//! Both nonces make the connection's [`RunId`]. Every frame here is a frame of
//! [`crate::codec`], at most [`MAX_HANDSHAKE_FRAME`] bytes; decoding never panics.

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::codec::{FrameError, HEADER_LENGTH, check_header, decode_body, encode_frame};
use crate::error::Refusal;
use crate::stream::RunId;

/// The first four bytes of every hello body.
pub const MAGIC: [u8; 4] = *b"MPST";
/// The version of this handshake and of the framing after it.
///
/// Version 3 added the acceptor's final word ([`Established`]); a peer of another version
/// is refused with [`Refusal::Version`], naming both.
pub const WIRE_VERSION: u16 = 3;
/// Handshake frames are small; a longer one is not from an `mpst` peer.
pub const MAX_HANDSHAKE_FRAME: usize = 64 * 1024;

/// A fresh random nonce.
pub type Nonce = [u8; 32];

/// What the dialler says first (after the magic and the version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol the dialler runs.
    pub protocol: String,
    /// The dialler's role.
    pub from: String,
    /// The role it wants to reach.
    pub to: String,
    /// The application's field (opaque here).
    pub field: Vec<u8>,
    /// The dialler's fresh nonce.
    pub nonce: Nonce,
}

/// The acceptor's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// Accepted, with the acceptor's application field and fresh nonce.
    Accept {
        /// The acceptor's application field.
        field: Vec<u8>,
        /// The acceptor's fresh nonce.
        nonce: Nonce,
    },
    /// Refused, and why.
    Refuse(Refusal),
}

/// The dialler's last word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Confirm {
    /// Goes ahead, echoing the acceptor's nonce.
    Confirm {
        /// The acceptor's nonce, echoed.
        nonce: Nonce,
    },
    /// Refuses the acceptor, and why.
    Abort(Refusal),
}

/// The acceptor's final word: the connection is established. The dialler checks
/// `transcript` against its own [`transcript`] of this connection's hello, reply and
/// confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Established {
    /// SHA-256 over this handshake's first three messages (see [`transcript`]).
    pub transcript: [u8; 32],
}

/// A hello as one frame: magic, version, postcard body.
pub fn encode_hello(hello: &Hello) -> Result<Vec<u8>, FrameError> {
    let mut body = MAGIC.to_vec();
    body.extend_from_slice(&WIRE_VERSION.to_be_bytes());
    body.extend(postcard::to_stdvec(hello).map_err(FrameError::Encode)?);
    let mut frame = bytes::BytesMut::new();
    crate::codec::put_frame(&body, MAX_HANDSHAKE_FRAME, &mut frame)?;
    Ok(frame.to_vec())
}

/// Decodes a hello frame's body; the refusal to answer when it is not one of this wire
/// version.
pub fn decode_hello(body: &[u8]) -> Result<Hello, Refusal> {
    let Some((magic, rest)) = body.split_first_chunk::<4>() else {
        return Err(Refusal::NotMpst);
    };
    if *magic != MAGIC {
        return Err(Refusal::NotMpst);
    }
    let Some((version, rest)) = rest.split_first_chunk::<2>() else {
        return Err(Refusal::NotMpst);
    };
    let version = u16::from_be_bytes(*version);
    if version != WIRE_VERSION {
        return Err(Refusal::Version {
            ours: WIRE_VERSION,
            theirs: version,
        });
    }
    decode_body(rest).map_err(|_| Refusal::NotMpst)
}

/// Encodes a reply or a confirmation as one frame.
pub fn encode_message<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    encode_frame(message, MAX_HANDSHAKE_FRAME)
}

/// Reads one frame's body, exactly (nothing after it is consumed), refusing lengths
/// above `limit` from the header.
pub async fn read_frame(
    stream: &mut (impl AsyncRead + Unpin),
    limit: usize,
) -> Result<Vec<u8>, FrameError> {
    let mut header = [0; HEADER_LENGTH];
    stream.read_exact(&mut header).await?;
    let length = check_header(header, limit)?;
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await?;
    Ok(body)
}

/// Writes one whole frame and flushes it.
pub async fn write_frame(
    stream: &mut (impl AsyncWrite + Unpin),
    frame: &[u8],
) -> Result<(), FrameError> {
    stream.write_all(frame).await?;
    stream.flush().await?;
    Ok(())
}

/// A fresh random nonce from the system's generator.
pub fn fresh_nonce() -> Nonce {
    use ring::rand::SecureRandom;
    let mut nonce = [0; 32];
    // The system generator fails only if the OS has none; a zero nonce then still
    // differs per side by the roles, but warn loudly.
    if ring::rand::SystemRandom::new().fill(&mut nonce).is_err() {
        tracing::error!("the system random generator failed; the nonce is not fresh");
    }
    nonce
}

/// The run id of a connection: SHA-256 over a label, the protocol, both roles and both
/// nonces, each length-prefixed.
pub fn run_id(hello: &Hello, acceptor_nonce: &Nonce) -> RunId {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [
        b"mpst-wire run id".as_slice(),
        hello.protocol.as_bytes(),
        hello.from.as_bytes(),
        hello.to.as_bytes(),
        &hello.nonce,
        acceptor_nonce,
    ] {
        context.update(&(part.len() as u64).to_be_bytes());
        context.update(part);
    }
    let mut id = [0; 32];
    id.copy_from_slice(context.finish().as_ref());
    RunId(id)
}

/// The hash the acceptor's final word carries: SHA-256 over a label and the bodies of
/// this connection's hello, the acceptor's reply and the dialler's confirmation (each
/// length-prefixed). Both nonces are in it, so it differs on every connection.
pub fn transcript(hello: &[u8], reply: &[u8], confirm: &[u8]) -> [u8; 32] {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [b"mpst-wire established".as_slice(), hello, reply, confirm] {
        context.update(&(part.len() as u64).to_be_bytes());
        context.update(part);
    }
    let mut hash = [0; 32];
    hash.copy_from_slice(context.finish().as_ref());
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Hello {
        Hello {
            protocol: "ping/1".into(),
            from: "A".into(),
            to: "B".into(),
            field: vec![1, 2, 3],
            nonce: [7; 32],
        }
    }

    #[test]
    fn a_hello_round_trips_and_other_bytes_are_refused() {
        let frame = encode_hello(&hello()).unwrap();
        assert_eq!(decode_hello(&frame[4..]), Ok(hello()));
        assert_eq!(decode_hello(b"GET / HTTP/1.1"), Err(Refusal::NotMpst));
        assert_eq!(decode_hello(b"MP"), Err(Refusal::NotMpst));
        let mut other_version = frame[4..].to_vec();
        other_version[5] = 9;
        assert_eq!(
            decode_hello(&other_version),
            Err(Refusal::Version {
                ours: WIRE_VERSION,
                theirs: WIRE_VERSION & 0xff00 | 9
            })
        );
        let mut trailing = frame[4..].to_vec();
        trailing.push(0);
        assert_eq!(decode_hello(&trailing), Err(Refusal::NotMpst));
    }

    #[test]
    fn run_ids_depend_on_both_nonces() {
        let a = run_id(&hello(), &[1; 32]);
        assert_ne!(a, run_id(&hello(), &[2; 32]));
        let mut other = hello();
        other.nonce = [8; 32];
        assert_ne!(a, run_id(&other, &[1; 32]));
        assert_eq!(a, run_id(&hello(), &[1; 32]));
        assert_ne!(fresh_nonce(), fresh_nonce());
    }

    #[test]
    fn a_transcript_depends_on_every_message_and_where_each_ends() {
        let t = transcript(b"hello", b"reply", b"confirm");
        assert_eq!(t, transcript(b"hello", b"reply", b"confirm"));
        assert_ne!(t, transcript(b"hellO", b"reply", b"confirm"));
        assert_ne!(t, transcript(b"hello", b"replY", b"confirm"));
        assert_ne!(t, transcript(b"hello", b"reply", b"confirM"));
        // Moving a byte from one message to the next changes it too.
        assert_ne!(t, transcript(b"hell", b"oreply", b"confirm"));
    }
}
