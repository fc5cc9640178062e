//! Fuzzes the Scribble front end: `parse` must never panic, and every diagnostic it
//! returns must point inside the input. Run with `cargo +nightly fuzz run parse` from
//! `crates/mpst-scribble`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let (_module, syntax) = mpst_scribble::syntax::parse_module(source);
    match mpst_scribble::parse(source) {
        Ok(protocols) => {
            assert!(syntax.is_empty());
            for protocol in protocols {
                assert!(!protocol.roles.is_empty());
            }
        }
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            for diagnostic in &diagnostics {
                let spans = std::iter::once(diagnostic.span)
                    .chain(diagnostic.labels.iter().map(|l| l.span));
                for span in spans {
                    assert!(span.start <= span.end && span.end <= source.len());
                    assert!(source.is_char_boundary(span.start));
                    assert!(source.is_char_boundary(span.end));
                }
                let _ = diagnostic.located(source);
            }
        }
    }
});
