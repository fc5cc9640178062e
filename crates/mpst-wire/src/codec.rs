//! The one frame format of both runtimes: a 4-byte big-endian length, then the body (a
//! value encoded with postcard). Lengths above a limit are refused from the header,
//! before any byte of the body is buffered; every malformed frame is a typed
//! [`FrameError`], never a panic.

use std::io;
use std::marker::PhantomData;

use bytes::{Buf, BufMut, BytesMut};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::codec::{Decoder, Encoder};

/// The default limit on a frame's body: 16 MiB.
pub const DEFAULT_MAX_FRAME_LENGTH: usize = 16 * 1024 * 1024;

/// Bytes of the length prefix.
pub const HEADER_LENGTH: usize = 4;

/// What is wrong with a frame (or with the connection carrying it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The socket failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A frame's length prefix exceeds the limit (sending or receiving).
    #[error("frame of {length} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The announced (or encoded) length in bytes.
        length: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The body did not decode as a value of the expected type.
    #[error("malformed frame: {0}")]
    Decode(postcard::Error),
    /// The body decoded, but bytes were left over after the value.
    #[error("malformed frame: {count} bytes after the value")]
    TrailingBytes {
        /// How many bytes were left over.
        count: usize,
    },
    /// The connection ended in the middle of a frame.
    #[error("connection closed in the middle of a frame ({buffered} bytes received)")]
    Truncated {
        /// How many bytes of the unfinished frame had arrived.
        buffered: usize,
    },
    /// A value could not be encoded.
    #[error("could not encode a value: {0}")]
    Encode(postcard::Error),
}

/// Encodes and decodes values of type `M` as length-prefixed postcard frames, for
/// tokio-util's `Framed`, `FramedRead` and `FramedWrite`.
///
/// The framing is the default of tokio-util's `LengthDelimitedCodec` (4-byte big-endian
/// length, not counting itself), so a peer written with bare tokio-util speaks it too; it
/// is checked here by hand so that an oversized length is a typed error carrying it.
/// `FrameCodec<bytes::Bytes>` is not special: use [`decode_body`] on raw frames instead.
#[derive(Debug)]
pub struct FrameCodec<M> {
    max: usize,
    /// Where a value is serialised before it is framed, reused from one send to the next.
    scratch: Vec<u8>,
    _message: PhantomData<fn(M) -> M>,
}

impl<M> Clone for FrameCodec<M> {
    fn clone(&self) -> Self {
        Self::new(self.max)
    }
}

impl<M> Default for FrameCodec<M> {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_FRAME_LENGTH)
    }
}

impl<M> FrameCodec<M> {
    /// A codec refusing frames whose body exceeds `max_frame_length` bytes.
    pub fn new(max_frame_length: usize) -> Self {
        Self {
            max: max_frame_length,
            scratch: Vec::new(),
            _message: PhantomData,
        }
    }

    /// The limit on a frame's body, in bytes.
    pub fn max_frame_length(&self) -> usize {
        self.max
    }
}

/// The length announced by a frame header, refused when above `limit`.
pub fn check_header(header: [u8; HEADER_LENGTH], limit: usize) -> Result<usize, FrameError> {
    let length = usize::try_from(u32::from_be_bytes(header)).unwrap_or(usize::MAX);
    if length > limit {
        return Err(FrameError::TooLarge { length, limit });
    }
    Ok(length)
}

/// Decodes a whole frame body: trailing bytes are an error too, not ignored.
pub fn decode_body<M: DeserializeOwned>(body: &[u8]) -> Result<M, FrameError> {
    let (message, rest) = postcard::take_from_bytes(body).map_err(FrameError::Decode)?;
    if !rest.is_empty() {
        return Err(FrameError::TrailingBytes { count: rest.len() });
    }
    Ok(message)
}

/// What a decoder returns at the end of its input, given what `decode` found there: a
/// frame, nothing (all consumed), or [`FrameError::Truncated`] when bytes of a frame that
/// never completed are left in `src`.
pub fn at_eof<T>(decoded: Option<T>, src: &BytesMut) -> Result<Option<T>, FrameError> {
    match decoded {
        Some(item) => Ok(Some(item)),
        None if src.is_empty() => Ok(None),
        None => Err(FrameError::Truncated {
            buffered: src.len(),
        }),
    }
}

/// Takes the next whole frame's body off the front of `src` (`None`: not all there yet,
/// room reserved for the rest), refusing a length above `limit` from its header.
pub fn take_frame(src: &mut BytesMut, limit: usize) -> Result<Option<BytesMut>, FrameError> {
    let Some(header) = src.get(..HEADER_LENGTH) else {
        return Ok(None);
    };
    let mut prefix = [0; HEADER_LENGTH];
    prefix.copy_from_slice(header);
    let length = check_header(prefix, limit)?;
    let Some(total) = length.checked_add(HEADER_LENGTH) else {
        return Err(FrameError::TooLarge { length, limit });
    };
    if src.len() < total {
        src.reserve(total - src.len());
        return Ok(None);
    }
    src.advance(HEADER_LENGTH);
    Ok(Some(src.split_to(length)))
}

impl<M: DeserializeOwned> Decoder for FrameCodec<M> {
    type Item = M;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<M>, FrameError> {
        match take_frame(src, self.max)? {
            Some(frame) => decode_body(&frame).map(Some),
            None => Ok(None),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<M>, FrameError> {
        let decoded = self.decode(src)?;
        at_eof(decoded, src)
    }
}

/// The postcard flavor that serialises into the codec's scratch vector: a varint is a few
/// inlined pushes (serialising into the `BytesMut` through `Extend` cost a `memcpy` call
/// per byte, see `crates/mpst/BENCHMARKS.md`).
struct Scratch<'a>(&'a mut Vec<u8>);

impl postcard::ser_flavors::Flavor for Scratch<'_> {
    type Output = ();

    #[inline]
    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.0.push(byte);
        Ok(())
    }

    #[inline]
    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        if bytes.len() <= 8 {
            // Varints and small scalars: pushes beat a `memcpy` call.
            self.0.reserve(bytes.len());
            for &byte in bytes {
                self.0.push(byte);
            }
        } else {
            self.0.extend_from_slice(bytes);
        }
        Ok(())
    }

    #[inline]
    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// Appends `value`, serialised with postcard, to `out` (the codec's fast path: varints
/// as inlined pushes), e.g. after a tag byte of the caller's own framing.
pub fn serialize_into<T: Serialize + ?Sized>(
    value: &T,
    out: &mut Vec<u8>,
) -> Result<(), FrameError> {
    postcard::serialize_with_flavor(value, Scratch(out)).map_err(FrameError::Encode)
}

impl<M: Serialize> Encoder<M> for FrameCodec<M> {
    type Error = FrameError;

    fn encode(&mut self, item: M, dst: &mut BytesMut) -> Result<(), FrameError> {
        self.scratch.clear();
        serialize_into(&item, &mut self.scratch)?;
        put_frame(&self.scratch, self.max, dst)
    }
}

/// Appends `body` to `dst` as one frame, refused (and nothing appended) above `limit`.
pub fn put_frame(body: &[u8], limit: usize, dst: &mut BytesMut) -> Result<(), FrameError> {
    let length = body.len();
    match u32::try_from(length) {
        Ok(prefix) if length <= limit => {
            dst.reserve(HEADER_LENGTH + length);
            dst.put_u32(prefix);
            dst.extend_from_slice(body);
            Ok(())
        }
        _ => Err(FrameError::TooLarge { length, limit }),
    }
}

/// Encodes `value` as one whole frame (header and body), refused above `limit`.
pub fn encode_frame<T: Serialize + ?Sized>(value: &T, limit: usize) -> Result<Vec<u8>, FrameError> {
    let body = postcard::to_stdvec(value).map_err(FrameError::Encode)?;
    let mut frame = BytesMut::new();
    put_frame(&body, limit, &mut frame)?;
    Ok(frame.to_vec())
}

#[cfg(test)]
mod tests;
