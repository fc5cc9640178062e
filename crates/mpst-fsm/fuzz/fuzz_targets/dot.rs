//! Fuzzes the DOT reader: it must never panic, its errors must point inside the
//! input, and whatever it accepts must survive a write -> read round trip.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mpst_fsm::format::{parse_dot, write_dot};

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    match parse_dot(input) {
        Ok(fsms) => {
            for fsm in fsms {
                let text = write_dot(&fsm);
                let back = parse_dot(&text).expect("the reader accepts the writer's output");
                assert!(back.len() == 1 && back[0].is_isomorphic(&fsm), "{text}");
            }
        }
        Err(err) => {
            assert!(err.offset + err.length <= input.len());
            assert!(err.line >= 1 && err.column >= 1);
        }
    }
});
