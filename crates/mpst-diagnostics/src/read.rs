//! The one reader of input files: a size limit checked while reading, UTF-8 with a
//! byte-order mark allowed, errors that name the file and, for bad text, its line and
//! column as a structured [`Place`].

use std::fmt;
use std::io::Read as _;
use std::path::Path;

use crate::{Place, Source};

/// The largest input file read by default, in bytes (16 MiB). Anything longer is
/// refused before it is read in full, so reading `/dev/zero` stops at once.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Why an input file could not be read: the message, and where in the file when the
/// text itself is wrong (invalid UTF-8, empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// What went wrong, naming the file (without the place).
    pub message: String,
    /// Where, for bad text.
    pub place: Option<Place>,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{place}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads the whole UTF-8 file at `path` (of at most `limit` bytes, any `u64`), without a
/// leading byte-order mark, as a [`Source`] named as `path` displays; `hint` (how to
/// raise the limit) ends the message of a file over it.
///
/// # Errors
/// The file cannot be opened or read; it is over the limit; it is not UTF-8 (located at
/// the first bad byte); it is empty or blank (located at 1:1).
pub fn read(path: &Path, limit: u64, hint: &str) -> Result<Source, ReadError> {
    let shown = path.display();
    let fail = |message: String| ReadError {
        message,
        place: None,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot read {shown}: {e}")))?;
    // Sized from the file's length when it has one (a regular file), so that reading
    // a large input does not copy it while the buffer doubles.
    let expected = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(limit.saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read {shown}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(fail(format!(
            "{shown}: the file is larger than the limit of {} ({limit} bytes){hint}",
            mebibytes(limit)
        )));
    }
    let name = shown.to_string();
    let text = decode(&name, bytes)?;
    Ok(Source { name, text })
}

/// `limit` in MiB, with a fraction when it is not whole (`16 MiB`, `0.5 MiB`).
fn mebibytes(limit: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if limit.is_multiple_of(MIB) {
        format!("{} MiB", limit / MIB)
    } else {
        format!("{:.3} MiB", limit as f64 / MIB as f64)
    }
}

/// The text of `bytes` read from the file `name`: UTF-8, a leading byte-order mark
/// dropped.
///
/// # Errors
/// Blank text, or invalid UTF-8, located.
pub fn decode(name: &str, mut bytes: Vec<u8>) -> Result<String, ReadError> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let at = |line, column| {
        Some(Place {
            file: name.to_string(),
            line,
            column,
        })
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError {
            message: "the file is empty; expected a protocol or a digraph".into(),
            place: at(1, 1),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // The bytes before `valid` are UTF-8 by definition.
        let before = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let (line, column) = mpst_fsm::text::line_column(before, valid);
        ReadError {
            message: format!(
                "invalid UTF-8 (byte 0x{:02x} at offset {valid}); expected UTF-8 text",
                bytes[valid]
            ),
            place: at(line, column),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("mpst-diag-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn utf8_byte_order_mark_is_accepted() {
        let path = temp("bom.scr", b"\xEF\xBB\xBFglobal protocol P(role A) {}");
        let source = read(&path, MAX_INPUT_BYTES, "").unwrap();
        assert_eq!(source.text, "global protocol P(role A) {}");
        assert_eq!(source.name, path.display().to_string());
    }

    #[test]
    fn invalid_utf8_is_an_error_with_a_place() {
        let path = temp("bad.scr", b"ab\ncd\xc3\xa9\xff rest");
        let error = read(&path, MAX_INPUT_BYTES, "").unwrap_err();
        let place = error.place.clone().expect("located");
        assert_eq!((place.line, place.column), (2, 4));
        assert!(error.message.starts_with("invalid UTF-8"), "{error}");
        assert!(error.message.contains("0xff"), "{error}");
        assert!(
            error.to_string().contains("bad.scr:2:4: invalid UTF-8"),
            "{error}"
        );
    }

    #[test]
    fn empty_file_is_an_error_at_its_start() {
        for content in [&b""[..], b"\xEF\xBB\xBF", b" \n\t\n"] {
            let path = temp("empty.scr", content);
            let error = read(&path, MAX_INPUT_BYTES, "").unwrap_err();
            assert!(
                error
                    .to_string()
                    .contains("empty.scr:1:1: the file is empty"),
                "{error}"
            );
        }
    }

    #[test]
    fn input_over_the_size_limit_is_refused_while_reading() {
        let path = temp("big.scr", &[b' '; 100]);
        let error = read(&path, 10, "; raise it").unwrap_err();
        assert!(error.message.contains("larger than the limit"), "{error}");
        assert!(error.message.ends_with("; raise it"), "{error}");
        assert_eq!(error.place, None);
        assert!(read(&path, 100, "").is_err(), "blank, so empty");
    }
}
