//! The CLI's one loader: every input file is read by the presentation layer's reader
//! ([`mpst_diagnostics::read`]: a size limit checked while reading, UTF-8 with a
//! byte-order mark allowed, errors that name the file and, for bad text, its place),
//! then handed to the Scribble front end ([`scribble`]) or the presentation layer's DOT
//! loader ([`dot`]).

pub mod dot;
pub mod scribble;

use std::path::Path;

use mpst_diagnostics::Source;

use crate::UsageError;

/// The largest input file read, in bytes (16 MiB). Anything longer is refused before
/// it is read in full, so `mpst check /dev/zero` stops at once.
pub use mpst_diagnostics::MAX_INPUT_BYTES;

/// Reads a whole UTF-8 file of at most [`MAX_INPUT_BYTES`], without a leading
/// byte-order mark, or says which file could not be read and why: the limit, invalid
/// UTF-8 (at its line and column), an empty file.
pub fn read(path: &Path) -> Result<String, UsageError> {
    read_source(path, MAX_INPUT_BYTES, "").map(|source| source.text)
}

/// [`read`] with a given limit in bytes (any `u64`: `mpst kmc --max-input-size`),
/// adding `hint` (how to raise the limit) to the message of a file over it; the file
/// named as `path` displays.
pub fn read_source(path: &Path, limit: u64, hint: &str) -> Result<Source, UsageError> {
    mpst_diagnostics::read(path, limit, hint).map_err(UsageError::read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_text_keeps_its_place_and_other_failures_are_plain() {
        let dir = std::env::temp_dir().join(format!("mpst-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.scr");
        std::fs::write(&bad, b"ab\ncd\xff").unwrap();
        let UsageError::At(place, message) = read(&bad).unwrap_err() else {
            panic!("invalid UTF-8 without a place");
        };
        assert_eq!((place.line, place.column), (2, 3));
        assert!(message.starts_with("invalid UTF-8"), "{message}");
        let missing = dir.join("missing.scr");
        let UsageError::Plain(message) = read(&missing).unwrap_err() else {
            panic!("a missing file has no place");
        };
        assert!(message.contains("missing.scr"), "{message}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
