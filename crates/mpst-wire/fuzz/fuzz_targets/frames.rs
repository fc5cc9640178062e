//! Fuzzes the shared frame decoder: arbitrary bytes, cut into arbitrary reads, must
//! decode to values, wait for more, or fail with an error — never panic, never allocate
//! past the frame limit.

#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use mpst_wire::FrameCodec;
use tokio_util::codec::Decoder;

#[derive(Debug, serde::Serialize, serde::Deserialize)]
enum Label {
    Ready,
    Value(i64),
    Text(String),
    Bytes(Vec<u8>),
    Nested(Option<Box<Label>>),
    Pair(u8, f64),
    Record { id: u32, tags: Vec<String> },
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the read size, the second the frame limit.
    let (Some(&step), Some(&limit)) = (data.first(), data.get(1)) else {
        return;
    };
    let step = usize::from(step).max(1);
    let mut codec = FrameCodec::<Label>::new(usize::from(limit) * 16);
    let mut buffer = BytesMut::new();
    for chunk in data[2..].chunks(step) {
        buffer.extend_from_slice(chunk);
        loop {
            match codec.decode(&mut buffer) {
                Ok(Some(_label)) => continue,
                Ok(None) => break,
                Err(_) => return,
            }
        }
    }
    let _ = codec.decode_eof(&mut buffer);
});
