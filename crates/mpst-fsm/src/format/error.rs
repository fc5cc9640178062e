//! [`DotError`]: why a DOT input could not be read, and where.

/// Why [`parse_dot`](super::parse_dot) rejected its input, with the position of the
/// offending text.
///
/// `line` and `column` are 1-based; `column` counts characters (Unicode scalar
/// values), `offset` and `length` count bytes of the input, so that
/// `&input[offset..offset + length]` is the offending text (possibly empty, e.g. at the
/// end of the input). Tools such as `codespan-reporting` take the byte range directly.
///
/// It displays as `line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct DotError {
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column (in characters) of the error.
    pub column: usize,
    /// Byte offset of the error in the input.
    pub offset: usize,
    /// Length in bytes of the offending text (0 when pointing between characters).
    pub length: usize,
    /// What went wrong, usually "expected X, found Y".
    pub message: String,
}

impl DotError {
    /// An error covering `input[offset..offset + length]`; line and column are computed
    /// from `input`. Out-of-range or non-boundary offsets are clamped, never panic.
    pub fn at(input: &str, offset: usize, length: usize, message: impl Into<String>) -> Self {
        let offset = crate::text::floor_char_boundary(input, offset);
        let length = length.min(input.len() - offset);
        let (line, column) = crate::text::line_column(input, offset);
        DotError {
            line,
            column,
            offset,
            length,
            message: message.into(),
        }
    }

    /// The byte range `offset..offset + length` of the offending text.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.length
    }
}
