//! The wire format: each label is one frame, a 4-byte big-endian length followed by the
//! label encoded with postcard. Lengths above a configured limit are refused before any
//! byte of the body is buffered; every malformed frame is an error, never a panic.

use std::io;
use std::marker::PhantomData;

use bytes::{Buf, BufMut, BytesMut};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio_util::codec::{Decoder, Encoder};

use super::error::NetErrorKind;

/// The default limit on a frame's body: 16 MiB.
pub const DEFAULT_MAX_FRAME_LENGTH: usize = 16 * 1024 * 1024;

/// Bytes of the length prefix.
const HEADER: usize = 4;

/// Encodes and decodes labels of type `M` as length-prefixed postcard frames.
///
/// The framing is the default of tokio-util's `LengthDelimitedCodec` (4-byte big-endian
/// length, not counting itself), so a peer written with bare tokio-util speaks it too;
/// it is checked here by hand so that an oversized length is a typed error carrying the
/// length.
#[derive(Debug)]
pub struct FrameCodec<M> {
    max: usize,
    /// Where a label is serialised before it is framed, reused from one send to the next.
    scratch: Vec<u8>,
    _message: PhantomData<fn(M) -> M>,
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

impl From<io::Error> for NetErrorKind {
    fn from(error: io::Error) -> Self {
        NetErrorKind::Io(error)
    }
}

impl<M: DeserializeOwned> Decoder for FrameCodec<M> {
    type Item = M;
    type Error = NetErrorKind;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<M>, NetErrorKind> {
        let Some(mut header) = src.get(..HEADER) else {
            return Ok(None);
        };
        let length = usize::try_from(header.get_u32()).unwrap_or(usize::MAX);
        if length > self.max {
            return Err(NetErrorKind::FrameTooLarge {
                length,
                limit: self.max,
            });
        }
        let Some(total) = length.checked_add(HEADER) else {
            return Err(NetErrorKind::FrameTooLarge {
                length,
                limit: self.max,
            });
        };
        if src.len() < total {
            src.reserve(total - src.len());
            return Ok(None);
        }
        src.advance(HEADER);
        let frame = src.split_to(length);
        let (message, rest) = postcard::take_from_bytes(&frame).map_err(NetErrorKind::Decode)?;
        if !rest.is_empty() {
            return Err(NetErrorKind::TrailingBytes { count: rest.len() });
        }
        Ok(Some(message))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<M>, NetErrorKind> {
        match self.decode(src)? {
            Some(message) => Ok(Some(message)),
            None if src.is_empty() => Ok(None),
            None => Err(NetErrorKind::Truncated {
                buffered: src.len(),
            }),
        }
    }
}

/// The postcard flavor that serialises into the codec's scratch vector: a varint is a few
/// inlined pushes. (Serialising straight into the `BytesMut` through `Extend`, as before,
/// cost a `memcpy` call per byte: twice the instructions of the whole hand-written tokio
/// twin on a `Vec<i32>`, callgrind, BENCHMARKS.md.)
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

impl<M: Serialize> Encoder<M> for FrameCodec<M> {
    type Error = NetErrorKind;

    fn encode(&mut self, item: M, dst: &mut BytesMut) -> Result<(), NetErrorKind> {
        self.scratch.clear();
        postcard::serialize_with_flavor(&item, Scratch(&mut self.scratch))
            .map_err(NetErrorKind::Encode)?;
        let length = self.scratch.len();
        match u32::try_from(length) {
            Ok(prefix) if length <= self.max => {
                dst.reserve(HEADER + length);
                dst.put_u32(prefix);
                dst.extend_from_slice(&self.scratch);
                Ok(())
            }
            _ => Err(NetErrorKind::FrameTooLarge {
                length,
                limit: self.max,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    enum Label {
        Ready,
        Value(i64),
        Text(String),
    }

    fn encode(codec: &mut FrameCodec<Label>, labels: Vec<Label>) -> BytesMut {
        let mut buffer = BytesMut::new();
        for label in labels {
            codec.encode(label, &mut buffer).unwrap();
        }
        buffer
    }

    #[test]
    fn frames_round_trip_and_split_anywhere() {
        let mut codec = FrameCodec::<Label>::default();
        let labels = vec![Label::Ready, Label::Value(-7), Label::Text("hé".into())];
        let bytes = encode(&mut codec, labels);
        // Feed one byte at a time: decoding waits for whole frames.
        let mut buffer = BytesMut::new();
        let mut got = Vec::new();
        for byte in bytes {
            buffer.put_u8(byte);
            while let Some(label) = codec.decode(&mut buffer).unwrap() {
                got.push(label);
            }
        }
        let want = vec![Label::Ready, Label::Value(-7), Label::Text("hé".into())];
        assert_eq!(got, want);
        assert!(codec.decode_eof(&mut buffer).unwrap().is_none());
    }

    #[test]
    fn frames_are_those_of_tokio_util_length_delimited_codec() {
        let mut codec = FrameCodec::<Label>::default();
        let body = postcard::to_stdvec(&Label::Value(300)).unwrap();
        let mut buffer = BytesMut::new();
        tokio_util::codec::LengthDelimitedCodec::new()
            .encode(bytes::Bytes::from(body), &mut buffer)
            .unwrap();
        let ours = encode(&mut codec, vec![Label::Value(300)]);
        assert_eq!(buffer, ours);
        assert_eq!(codec.decode(&mut buffer).unwrap(), Some(Label::Value(300)));
    }

    #[test]
    fn an_oversized_length_is_refused_before_the_body_arrives() {
        let mut codec = FrameCodec::<Label>::new(10);
        let mut buffer = BytesMut::from(&[0, 0, 0, 11][..]);
        let error = codec.decode(&mut buffer).unwrap_err();
        assert!(matches!(
            error,
            NetErrorKind::FrameTooLarge {
                length: 11,
                limit: 10
            }
        ));
        let default = FrameCodec::<Label>::default();
        assert_eq!(default.max_frame_length(), 16 * 1024 * 1024);
    }

    #[test]
    fn an_oversized_label_is_not_sent() {
        let mut codec = FrameCodec::<Label>::new(4);
        let mut buffer = BytesMut::from(&b"kept"[..]);
        let error = codec
            .encode(Label::Text("too long".into()), &mut buffer)
            .unwrap_err();
        assert!(matches!(
            error,
            NetErrorKind::FrameTooLarge { length: 10, .. }
        ));
        assert_eq!(&buffer[..], b"kept");
    }

    #[test]
    fn malformed_bodies_are_typed_errors() {
        let mut codec = FrameCodec::<Label>::default();
        // Variant 9 does not exist.
        let mut unknown = BytesMut::from(&[0, 0, 0, 1, 9][..]);
        assert!(matches!(
            codec.decode(&mut unknown),
            Err(NetErrorKind::Decode(_))
        ));
        // `Ready` followed by a stray byte.
        let mut trailing = BytesMut::from(&[0, 0, 0, 2, 0, 0][..]);
        assert!(matches!(
            codec.decode(&mut trailing),
            Err(NetErrorKind::TrailingBytes { count: 1 })
        ));
        // The connection ends half-way through a frame.
        let mut truncated = BytesMut::from(&[0, 0, 0, 5, 1][..]);
        assert!(matches!(
            codec.decode_eof(&mut truncated),
            Err(NetErrorKind::Truncated { buffered: 5 })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic the decoder: each call gives a label, asks for
        /// more bytes, or returns an error.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256),
                                       limit in 0usize..64) {
            let mut codec = FrameCodec::<Label>::new(limit);
            let mut buffer = BytesMut::from(&bytes[..]);
            for _ in 0..=bytes.len() {
                match codec.decode(&mut buffer) {
                    Ok(Some(_)) => continue,
                    Ok(None) | Err(_) => break,
                }
            }
            let _ = codec.decode_eof(&mut buffer);
        }

        /// What is encoded decodes to the same labels.
        #[test]
        fn encoded_labels_decode(values in proptest::collection::vec(any::<i64>(), 0..16)) {
            let mut codec = FrameCodec::<Label>::default();
            let labels: Vec<_> = values.iter().map(|v| Label::Value(*v)).collect();
            let mut buffer = encode(&mut codec, labels);
            let mut got = Vec::new();
            while let Some(Label::Value(v)) = codec.decode(&mut buffer).unwrap() {
                got.push(v);
            }
            prop_assert_eq!(got, values);
        }
    }
}
