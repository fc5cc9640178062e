//! The codec against hand-made and generated frames: round trips, splits anywhere,
//! tokio-util's framing, limits, malformed bodies, and arbitrary bytes (proptest).

use super::*;
use proptest::prelude::*;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    let bytes = encode(&mut codec, labels.clone());
    let mut buffer = BytesMut::new();
    let mut got = Vec::new();
    for byte in bytes {
        buffer.put_u8(byte);
        while let Some(label) = codec.decode(&mut buffer).unwrap() {
            got.push(label);
        }
    }
    assert_eq!(got, labels);
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
    assert_eq!(encode_frame(&Label::Value(300), 16).unwrap(), ours.to_vec());
}

#[test]
fn an_oversized_length_is_refused_before_the_body_arrives() {
    let mut codec = FrameCodec::<Label>::new(10);
    let mut buffer = BytesMut::from(&[0, 0, 0, 11][..]);
    let error = codec.decode(&mut buffer).unwrap_err();
    assert!(matches!(
        error,
        FrameError::TooLarge {
            length: 11,
            limit: 10
        }
    ));
    let mut huge = BytesMut::from(&[0xff, 0xff, 0xff, 0xff][..]);
    assert!(matches!(
        FrameCodec::<Label>::default().decode(&mut huge),
        Err(FrameError::TooLarge {
            length: 0xffff_ffff,
            ..
        })
    ));
    assert_eq!(
        FrameCodec::<Label>::default().max_frame_length(),
        16 * 1024 * 1024
    );
}

#[test]
fn an_oversized_value_is_not_sent() {
    let mut codec = FrameCodec::<Label>::new(4);
    let mut buffer = BytesMut::from(&b"kept"[..]);
    let error = codec
        .encode(Label::Text("too long".into()), &mut buffer)
        .unwrap_err();
    assert!(matches!(error, FrameError::TooLarge { length: 10, .. }));
    assert_eq!(&buffer[..], b"kept");
}

#[test]
fn malformed_bodies_are_typed_errors() {
    let mut codec = FrameCodec::<Label>::default();
    let mut unknown = BytesMut::from(&[0, 0, 0, 1, 9][..]);
    assert!(matches!(
        codec.decode(&mut unknown),
        Err(FrameError::Decode(_))
    ));
    let mut trailing = BytesMut::from(&[0, 0, 0, 2, 0, 0][..]);
    assert!(matches!(
        codec.decode(&mut trailing),
        Err(FrameError::TrailingBytes { count: 1 })
    ));
    let mut truncated = BytesMut::from(&[0, 0, 0, 5, 1][..]);
    assert!(matches!(
        codec.decode_eof(&mut truncated),
        Err(FrameError::Truncated { buffered: 5 })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary bytes never panic the decoder: each call gives a value, asks for more
    /// bytes, or returns an error; a buffered partial frame never exceeds the limit.
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

    /// What is encoded decodes to the same values, however the bytes are split.
    #[test]
    fn encoded_values_decode_across_any_split(
        values in proptest::collection::vec(any::<i64>(), 0..16),
        texts in proptest::collection::vec(".{0,20}", 0..4),
        split in any::<prop::sample::Index>(),
    ) {
        let mut codec = FrameCodec::<Label>::default();
        let labels: Vec<_> = values.iter().map(|v| Label::Value(*v))
            .chain(texts.into_iter().map(Label::Text)).collect();
        let bytes = encode(&mut codec, labels.clone());
        let at = if bytes.is_empty() { 0 } else { split.index(bytes.len() + 1) };
        let mut buffer = BytesMut::from(&bytes[..at]);
        let mut got = Vec::new();
        while let Some(label) = codec.decode(&mut buffer).unwrap() {
            got.push(label);
        }
        buffer.extend_from_slice(&bytes[at..]);
        while let Some(label) = codec.decode(&mut buffer).unwrap() {
            got.push(label);
        }
        prop_assert_eq!(got, labels);
        prop_assert!(codec.decode_eof(&mut buffer).unwrap().is_none());
    }

    /// Any hello body decodes or is refused, never panics; an encoded hello decodes.
    #[test]
    fn hellos_decode_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..128),
                                    from in ".{0,8}", field in proptest::collection::vec(any::<u8>(), 0..8)) {
        let _ = crate::hello::decode_hello(&bytes);
        let mut with_magic = b"MPST\0\x02".to_vec();
        with_magic.extend_from_slice(&bytes);
        let _ = crate::hello::decode_hello(&with_magic);
        let hello = crate::hello::Hello { protocol: "p".into(), from, to: "B".into(), field, nonce: [3; 32] };
        let frame = crate::hello::encode_hello(&hello).unwrap();
        prop_assert_eq!(crate::hello::decode_hello(&frame[4..]), Ok(hello));
    }
}
