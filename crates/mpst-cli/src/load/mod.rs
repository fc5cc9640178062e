//! The CLI's one loader: every input file is read here ([`read`]: a size limit checked
//! while reading, UTF-8 with a byte-order mark allowed, errors that name the file and, for
//! bad text, the line and column), then handed to the Scribble front end ([`scribble`])
//! or the DOT reader with the same sort rule ([`dot`]).

pub mod dot;
pub mod scribble;

use std::io::Read as _;
use std::path::Path;

use crate::UsageError;

/// The largest input file read, in bytes (16 MiB). Anything longer is refused before
/// it is read in full, so `mpst check /dev/zero` stops at once.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a whole UTF-8 file of at most [`MAX_INPUT_BYTES`], without a leading
/// byte-order mark, or says which file could not be read and why: the limit, invalid
/// UTF-8 (with its line and column), an empty file.
pub fn read(path: &Path) -> Result<String, UsageError> {
    read_limited(path, MAX_INPUT_BYTES)
}

/// [`read`] with a given limit in bytes (any `u64`: `mpst kmc --max-input-size`).
pub fn read_limited(path: &Path, limit: u64) -> Result<String, UsageError> {
    read_limited_or(path, limit, "")
}

/// [`read_limited`], adding `hint` (how to raise the limit) to the message of a file
/// over it.
pub fn read_limited_or(path: &Path, limit: u64, hint: &str) -> Result<String, UsageError> {
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
    // Sized from the file's length when it has one (a regular file), so that reading
    // a large input does not copy it while the buffer doubles.
    let expected = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(limit.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(UsageError(format!(
            "{shown}: the file is larger than the limit of {} ({limit} bytes){hint}",
            mebibytes(limit)
        )));
    }
    decode(&shown.to_string(), bytes)
}

/// `limit` in MiB, with a fraction when it is not whole (`16 MiB`, `0.5 MiB`).
fn mebibytes(limit: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if limit % MIB == 0 {
        format!("{} MiB", limit / MIB)
    } else {
        format!("{:.3} MiB", limit as f64 / MIB as f64)
    }
}

/// The text of `bytes` read from `name`: UTF-8, a leading byte-order mark dropped.
pub fn decode(name: &str, mut bytes: Vec<u8>) -> Result<String, UsageError> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(UsageError(format!(
            "{name}:1:1: the file is empty; expected a protocol or a digraph"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let (line, column) = line_column(&bytes[..valid]);
        UsageError(format!(
            "{name}:{line}:{column}: invalid UTF-8 (byte 0x{:02x} at offset {valid}); expected UTF-8 text",
            bytes[valid]
        ))
    })
}

/// The 1-based line and column (in characters) just after `valid`, which is UTF-8.
fn line_column(valid: &[u8]) -> (usize, usize) {
    let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = std::str::from_utf8(&valid[line_start..])
        .map_or(valid.len() - line_start, |s| s.chars().count())
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mpst-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn utf8_byte_order_mark_is_accepted() {
        let path = temp("bom.scr", b"\xEF\xBB\xBFglobal protocol P(role A) {}");
        assert_eq!(read(&path).unwrap(), "global protocol P(role A) {}");
    }

    #[test]
    fn invalid_utf8_is_an_error_with_a_position() {
        let path = temp("bad.scr", b"ab\ncd\xc3\xa9\xff rest");
        let UsageError(message) = read(&path).unwrap_err();
        assert!(message.contains("bad.scr:2:4: invalid UTF-8"), "{message}");
        assert!(message.contains("0xff"), "{message}");
    }

    #[test]
    fn empty_file_is_an_error_with_a_position() {
        for content in [&b""[..], b"\xEF\xBB\xBF", b" \n\t\n"] {
            let path = temp("empty.scr", content);
            let UsageError(message) = read(&path).unwrap_err();
            assert!(
                message.contains("empty.scr:1:1: the file is empty"),
                "{message}"
            );
        }
    }

    #[test]
    fn input_over_the_size_limit_is_refused_while_reading() {
        let path = temp("big.scr", &[b' '; 100]);
        let UsageError(message) = read_limited(&path, 10).unwrap_err();
        assert!(message.contains("larger than the limit"), "{message}");
        assert!(read_limited(&path, 100).is_err(), "blank, so empty");
    }
}
