//! Reading the digraphs of a large DOT input on several threads: a light scan finds
//! where top-level digraphs start, the input is cut at the starts nearest to equal
//! shares, and each share is read by a parser of its own.
//!
//! Why the answer is the sequential reader's, always: a parser holds no state between
//! two digraphs but its position, so a parser started at a digraph's first token reads
//! exactly what the sequential parser reads from there. Each share but the last is
//! read from its first token until the next token starts at or beyond the cut; the
//! share is used only if it stops *exactly* at the cut (then the next share starts
//! where the sequential parser would be) or stops on an error (the error the
//! sequential parser meets first). Shares are merged in input order with the
//! sequential checks between digraphs (one digraph per role); if the scan was misled
//! (it only follows braces, strings and comments), a share overshoots its cut and the
//! input is read again sequentially.

use super::DotError;
use super::dot_spans::LocatedFsm;

/// Inputs shorter than this are read on one thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// What a parser read from one share of the input.
pub(super) struct Share {
    /// The digraphs read, each with the span of the token that starts it.
    pub machines: Vec<(std::ops::Range<usize>, LocatedFsm)>,
    /// The error that stopped it, if one did.
    pub error: Option<DotError>,
    /// Where the next token starts when it stopped.
    pub stop: usize,
}

/// Offsets where a top-level item (a digraph) starts: the first token of the input
/// and the first after each `}` that closes the outermost brace. Follows quoted
/// strings (with `\` escapes), `//` and `/* */` comments and `#` lines only.
pub(super) fn digraph_starts(input: &str) -> Vec<usize> {
    let b = input.as_bytes();
    let mut starts = Vec::new();
    let (mut i, mut depth, mut at_top, mut line_start) = (0, 0usize, true, true);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr(b, i, b'\n');
                continue;
            }
            b'#' if line_start => {
                i = memchr(b, i, b'\n');
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = input[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                continue;
            }
            _ => {}
        }
        line_start = false;
        if depth == 0 && at_top {
            starts.push(i);
            at_top = false;
        }
        match c {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => depth += 1,
            b'}' if depth > 0 => {
                depth -= 1;
                at_top = depth == 0;
            }
            _ => {}
        }
        i += 1;
    }
    starts
}

/// The offset of the next `byte` at or after `from`, or the end.
fn memchr(b: &[u8], from: usize, byte: u8) -> usize {
    b[from..]
        .iter()
        .position(|&x| x == byte)
        .map_or(b.len(), |p| from + p)
}

/// Reads `input` in shares on up to `available_parallelism` threads when it is large
/// and has several digraphs; `read(start, cut)` reads the digraphs from `start` until
/// the next token starts at or beyond `cut`. `None` when the input is read in one
/// share (small, a single digraph, one core) or a share overshot its cut: read it
/// sequentially then.
pub(super) fn read_shares<F>(input: &str, read: F) -> Option<Vec<Share>>
where
    F: Fn(usize, usize) -> Share + Sync,
{
    if input.len() < PARALLEL_MIN_BYTES {
        return None;
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 {
        return None;
    }
    let starts = digraph_starts(input);
    // The digraph start nearest to each equal share's end, in increasing order.
    let mut cuts: Vec<usize> = (1..threads)
        .filter_map(|i| {
            let target = input.len() * i / threads;
            let j = starts.partition_point(|&s| s < target);
            let near = [j.checked_sub(1), Some(j)]
                .into_iter()
                .flatten()
                .filter_map(|j| starts.get(j).copied())
                .min_by_key(|&s| s.abs_diff(target))?;
            (near > 0).then_some(near)
        })
        .collect();
    cuts.dedup();
    if cuts.is_empty() {
        return None;
    }
    let bounds: Vec<(usize, usize)> = std::iter::once(0)
        .chain(cuts.iter().copied())
        .zip(cuts.iter().copied().chain(std::iter::once(usize::MAX)))
        .collect();
    let read = &read;
    let shares: Vec<Share> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds[1..]
            .iter()
            .map(|&(start, cut)| scope.spawn(move || read(start, cut)))
            .collect();
        let first = read(bounds[0].0, bounds[0].1);
        std::iter::once(Some(first))
            .chain(handles.into_iter().map(|h| h.join().ok()))
            .collect::<Option<Vec<Share>>>()
    })?;
    // A share that ended neither on an error nor exactly at its cut was misled.
    for (share, &(_, cut)) in shares.iter().zip(&bounds) {
        if share.error.is_some() {
            break;
        }
        if cut != usize::MAX && share.stop != cut {
            return None;
        }
    }
    Some(shares)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_follow_braces_strings_and_comments() {
        let input = "digraph a { x [label=\"}\"]; }\n// digraph c {\n# digraph d\n\
                     strict digraph b { /* } */ { } }  digraph e {}";
        let starts = digraph_starts(input);
        let words: Vec<&str> = starts
            .iter()
            .map(|&s| input[s..].split_whitespace().next().unwrap())
            .collect();
        assert_eq!(words, ["digraph", "strict", "digraph"]);
        assert_eq!(&input[starts[2]..], "digraph e {}");
    }
}
