//! What travels on a session connection once `mpst_wire` has set it up: frames of the
//! wire's format (a 4-byte big-endian length, then the body) whose body starts with a
//! tag — a label of the protocol, or an acknowledgement of how many labels the sender of
//! the acknowledgement has read — and the link version that says so in the hello.

use bytes::{Buf, BytesMut};
use mpst_wire::FrameError;
use mpst_wire::codec::{at_eof, put_frame, take_frame};
use tokio_util::bytes;
use tokio_util::codec::{Decoder, Encoder};

/// The version of what travels on a session connection, sent in the hello after the
/// session-type fingerprints: 2 since every frame carries a tag and the reading end
/// acknowledges the labels it read (a frame of its own). Version 1 sent bare labels and no
/// version; a peer of another version is refused at the set-up, naming both, instead
/// of failing later on a frame it cannot read or an acknowledgement that never comes.
pub const LINK_VERSION: u8 = 2;

/// The byte that announces the link version after the fingerprints in the hello field
/// (an older peer reads the fingerprints and ignores what follows them).
const VERSION_MARK: u8 = b'v';

/// The tag of a label frame's body.
const TAG_LABEL: u8 = 0;
/// The tag of an acknowledgement frame's body.
const TAG_ACK: u8 = 1;

/// The suffix of the hello field that announces this side's link version.
pub(super) fn version_suffix() -> [u8; 2] {
    [VERSION_MARK, LINK_VERSION]
}

/// The link version announced by what follows the fingerprints in a peer's hello field
/// (nothing: version 1), or why it cannot be spoken with.
pub(super) fn check_version(rest: &[u8]) -> Result<(), String> {
    let version = match rest {
        [] => 1,
        [VERSION_MARK, version] => *version,
        _ => {
            return Err(format!(
                "a hello field with {} unexpected bytes after the fingerprints",
                rest.len()
            ));
        }
    };
    if version == LINK_VERSION {
        return Ok(());
    }
    Err(format!(
        "the peer speaks session link version {version}, this side version {LINK_VERSION}: \
         run the same mpst release at every role"
    ))
}

/// A frame's body, by its tag.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Body {
    /// A label, still encoded (postcard), without its tag.
    Label(BytesMut),
    /// The peer has read this many labels of this connection so far.
    Ack(u64),
}

/// Reads a frame's body by its tag: an unknown tag or a malformed count is a typed
/// error, never a panic.
pub(super) fn classify(mut body: BytesMut) -> Result<Body, FrameError> {
    let Some(&tag) = body.first() else {
        return Err(FrameError::Decode(
            postcard::Error::DeserializeUnexpectedEnd,
        ));
    };
    body.advance(1);
    match tag {
        TAG_LABEL => Ok(Body::Label(body)),
        TAG_ACK => mpst_wire::codec::decode_body::<u64>(&body).map(Body::Ack),
        _ => Err(FrameError::Decode(postcard::Error::DeserializeBadEnum)),
    }
}

/// Appends an acknowledgement of `read` labels to `dst`, as one frame.
pub(super) fn put_ack(read: u64, dst: &mut BytesMut) {
    let mut body = vec![TAG_ACK];
    // A u64 always encodes, in at most 10 bytes: far below any frame limit.
    let _ = mpst_wire::codec::serialize_into(&read, &mut body);
    let _ = put_frame(&body, usize::MAX, dst);
}

/// Appends `label` to `dst` as one label frame, serialised through `scratch`; refused
/// (nothing appended) above `limit`.
pub(super) fn put_label<M: serde::Serialize>(
    label: &M,
    scratch: &mut Vec<u8>,
    limit: usize,
    dst: &mut BytesMut,
) -> Result<(), FrameError> {
    scratch.clear();
    scratch.push(TAG_LABEL);
    mpst_wire::codec::serialize_into(label, scratch)?;
    let length = scratch.len() - 1;
    if length > limit {
        return Err(FrameError::TooLarge { length, limit });
    }
    put_frame(scratch, usize::MAX, dst)
}

/// Splits the connection's bytes into frame bodies (the wire's framing, lengths above
/// the limit refused from the header); what a body holds is [`classify`]'s to say.
#[derive(Debug)]
pub(super) struct RawCodec {
    /// The limit on a label (its body is one byte more, the tag).
    max: usize,
}

impl RawCodec {
    /// Bodies of labels up to `max_frame_length` bytes (plus their tag).
    pub(super) fn new(max_frame_length: usize) -> Self {
        Self {
            max: max_frame_length,
        }
    }
}

impl Decoder for RawCodec {
    type Item = BytesMut;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, FrameError> {
        // A body may be one byte, the tag, above the label limit; the error gives the
        // announced length and the label limit.
        take_frame(src, self.max.saturating_add(1)).map_err(|error| match error {
            FrameError::TooLarge { length, .. } => FrameError::TooLarge {
                length,
                limit: self.max,
            },
            other => other,
        })
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, FrameError> {
        let decoded = self.decode(src)?;
        at_eof(decoded, src)
    }
}

/// Only to satisfy `Framed`'s `Sink` bound: frames are appended to its write buffer
/// directly ([`put_label`], [`put_ack`]).
impl Encoder<&[u8]> for RawCodec {
    type Error = FrameError;

    fn encode(&mut self, body: &[u8], dst: &mut BytesMut) -> Result<(), FrameError> {
        put_frame(body, self.max.saturating_add(1), dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8], max: usize) -> Vec<Result<Body, String>> {
        let mut codec = RawCodec::new(max);
        let mut src = BytesMut::from(bytes);
        let mut out = Vec::new();
        loop {
            match codec.decode_eof(&mut src) {
                Ok(Some(body)) => out.push(classify(body).map_err(|e| e.to_string())),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn labels_and_acknowledgements_round_trip_in_one_stream() {
        let mut dst = BytesMut::new();
        let mut scratch = Vec::new();
        put_label(&(7u8, "seven"), &mut scratch, 64, &mut dst).unwrap();
        put_ack(300, &mut dst);
        put_ack(u64::MAX, &mut dst);
        let got = frames(&dst, 64);
        assert_eq!(got.len(), 3);
        let Ok(Body::Label(label)) = &got[0] else {
            panic!("{got:?}")
        };
        let label: (u8, String) = mpst_wire::codec::decode_body(label).unwrap();
        assert_eq!(label, (7, "seven".to_owned()));
        assert_eq!(got[1], Ok(Body::Ack(300)));
        assert_eq!(got[2], Ok(Body::Ack(u64::MAX)));
    }

    #[test]
    fn malformed_bodies_are_errors_not_panics() {
        // An empty body, an unknown tag, a truncated count, a count with bytes after it.
        for body in [&[][..], &[9, 1], &[TAG_ACK, 0x80], &[TAG_ACK, 1, 2]] {
            let mut bytes = (body.len() as u32).to_be_bytes().to_vec();
            bytes.extend_from_slice(body);
            let got = frames(&bytes, 64);
            assert!(matches!(&got[..], [Err(_)]), "{body:?}: {got:?}");
        }
        // A frame cut short, and one above the limit (refused from its header).
        assert!(
            frames(&[0, 0, 0, 5, 0, 1], 64)[0]
                .as_ref()
                .is_err_and(|e| e.contains("middle of a frame"))
        );
        assert!(
            frames(&[0, 0, 1, 0], 64)[0]
                .as_ref()
                .is_err_and(|e| e.contains("exceeds the limit"))
        );
        // A label at the limit passes, one byte more is refused when sending (the tag is
        // not counted).
        let mut dst = BytesMut::new();
        let mut scratch = Vec::new();
        assert!(put_label(&[1u8; 8], &mut scratch, 8, &mut dst).is_ok());
        assert!(matches!(
            put_label(&[1u8; 9], &mut scratch, 8, &mut dst),
            Err(FrameError::TooLarge {
                length: 9,
                limit: 8
            })
        ));
    }

    #[test]
    fn the_version_in_the_hello_names_both_sides() {
        assert_eq!(check_version(&version_suffix()), Ok(()));
        let old = check_version(&[]).unwrap_err();
        assert!(
            old.contains("version 1") && old.contains("version 2"),
            "{old}"
        );
        let newer = check_version(&[VERSION_MARK, 3]).unwrap_err();
        assert!(
            newer.contains("version 3") && newer.contains("version 2"),
            "{newer}"
        );
        assert!(check_version(&[1, 2, 3]).is_err());
    }
}
