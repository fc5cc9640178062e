//! Positions in text: the one place where a byte offset becomes the 1-based line and
//! column a person reads. Every reader, diagnostic and renderer of the workspace (DOT,
//! local types, Scribble, the CLI, the build helper) locates with this module.

/// The start of every line of a text, to locate many offsets in one pass over it.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// The byte offset where each line starts (the first is 0).
    starts: Vec<usize>,
    /// The length of the text in bytes.
    len: usize,
}

impl LineIndex {
    /// The index of `text`'s lines.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// The 0-based index of the line holding byte `offset` (past the end: the last).
    pub fn line(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The length in bytes of the longest line touched by the bytes `start..end`, with
    /// its line break.
    pub fn longest_between(&self, start: usize, end: usize) -> usize {
        let (first, last) = (self.line(start), self.line(end));
        (first..=last)
            .map(|l| self.starts.get(l + 1).copied().unwrap_or(self.len) - self.starts[l])
            .max()
            .unwrap_or(0)
    }

    /// The 1-based line and column (in characters) of byte `offset` of `text` (the
    /// text this index was made of). Offsets past the end, or inside a character, are
    /// moved back to the end or to the character's start, never a panic.
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset);
        let line = self.line(offset);
        let start = self.starts[line].min(offset);
        (line + 1, text[start..offset].chars().count() + 1)
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`. Offsets past
/// the end are clamped to the end, offsets inside a character moved to its start. To
/// locate many offsets of one text, build a [`LineIndex`] once.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset);
    LineIndex::new(&text[..offset]).line_column(text, offset)
}

/// `offset` clamped into `text` and moved back to a character boundary.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The bytes `start..end` clamped into `text` on character boundaries, never reversed.
pub fn clamp_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let start = floor_char_boundary(text, start);
    start..floor_char_boundary(text, end).max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one_in_characters_and_clamps() {
        let src = "ab\ncdé\nf";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 3), (2, 1));
        assert_eq!(line_column(src, 7), (2, 4));
        // Inside `é`: its start.
        assert_eq!(line_column(src, 6), (2, 3));
        assert_eq!(line_column(src, 1000), (3, 2));
        let index = LineIndex::new(src);
        for offset in 0..=src.len() + 2 {
            assert_eq!(index.line_column(src, offset), line_column(src, offset));
        }
    }

    #[test]
    fn longest_line_and_clamped_ranges() {
        let src = "a\nbbbb\ncc";
        let index = LineIndex::new(src);
        assert_eq!(index.longest_between(0, 0), 2);
        assert_eq!(index.longest_between(0, 4), 5);
        assert_eq!(index.longest_between(8, 100), 2);
        assert_eq!(clamp_range("é", 1, 0), 0..0);
        assert_eq!(clamp_range("ab", 1, 9), 1..2);
    }
}
