//! Fuzzes the handshake's decoders: a hello body (magic, version, postcard), the
//! acceptor's reply, the dialler's confirmation and the acceptor's final word. Each decodes or is refused with a
//! typed reason; none panics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mpst_wire::codec::decode_body;
use mpst_wire::hello::{decode_hello, Confirm, Established, Reply};

fuzz_target!(|data: &[u8]| {
    let _ = decode_hello(data);
    // The same bytes behind a valid magic and version reach the postcard decoder.
    let mut framed = b"MPST".to_vec();
    framed.extend_from_slice(&mpst_wire::hello::WIRE_VERSION.to_be_bytes());
    framed.extend_from_slice(data);
    if let Ok(hello) = decode_hello(&framed) {
        // What decodes re-encodes to a hello that decodes the same.
        let frame = mpst_wire::hello::encode_hello(&hello).expect("a decoded hello encodes");
        assert_eq!(decode_hello(&frame[4..]), Ok(hello));
    }
    let _ = decode_body::<Reply>(data);
    let _ = decode_body::<Confirm>(data);
    let _ = decode_body::<Established>(data);
});
