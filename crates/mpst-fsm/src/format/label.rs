//! Transition labels: `peer!label(x: T, U)`, `peer?label()` and Rumpsteak's `peer?label`.

use crate::{Action, Direction, Message, Payload};

/// Why a label could not be read: a byte range of the label text and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LabelError {
    /// Byte offset in the label text.
    pub offset: usize,
    /// Length in bytes of the offending text.
    pub length: usize,
    /// What was expected.
    pub message: String,
}

fn err(offset: usize, length: usize, message: impl Into<String>) -> LabelError {
    LabelError {
        offset,
        length,
        message: message.into(),
    }
}

/// Characters of role names and labels: nuscr allows digits first and primes.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

fn skip_ws(text: &str, mut i: usize) -> usize {
    while let Some(c) = text[i..].chars().next() {
        if !c.is_whitespace() {
            break;
        }
        i += c.len_utf8();
    }
    i
}

fn name_end(text: &str, i: usize) -> usize {
    text[i..]
        .char_indices()
        .find(|&(_, c)| !is_name_char(c))
        .map_or(text.len(), |(j, _)| i + j)
}

fn found(text: &str, i: usize) -> (usize, String) {
    match text[i..].chars().next() {
        None => (0, "the end of the label".to_owned()),
        Some(c) => (c.len_utf8(), format!("`{}`", c.escape_debug())),
    }
}

/// Reads a transition label. Accepted forms:
/// `peer!label(x: T, U)`, `peer?label()` (nuscr, ours) and `peer?label` (Rumpsteak).
pub(super) fn parse_label(text: &str) -> Result<Action, LabelError> {
    let i = skip_ws(text, 0);
    let peer_end = name_end(text, i);
    if peer_end == i {
        let (len, what) = found(text, i);
        return Err(err(
            i,
            len,
            format!("expected the peer role of the action (as in `peer!label()`), found {what}"),
        ));
    }
    let peer = &text[i..peer_end];
    let i = skip_ws(text, peer_end);
    let direction = match text[i..].chars().next() {
        Some('!') => Direction::Send,
        Some('?') => Direction::Receive,
        _ => {
            let (len, what) = found(text, i);
            return Err(err(
                i,
                len,
                format!(
                    "expected `!` (send) or `?` (receive) after the peer `{peer}`, found {what}"
                ),
            ));
        }
    };
    let i = skip_ws(text, i + 1);
    let label_end = name_end(text, i);
    if label_end == i {
        let (len, what) = found(text, i);
        return Err(err(
            i,
            len,
            format!(
                "expected a message label after `{peer}{}`, found {what}",
                direction.symbol()
            ),
        ));
    }
    let label = &text[i..label_end];
    let mut i = skip_ws(text, label_end);
    let mut payloads = Vec::new();
    if text[i..].starts_with('(') {
        let (list, after) = payload_list(text, i)?;
        payloads = list;
        i = skip_ws(text, after);
    }
    if i < text.len() {
        let (len, what) = found(text, i);
        let message = if text[i..].starts_with(['<', '[', '{']) {
            format!("refinement annotations are not supported: found {what} after the message")
        } else {
            format!("expected the end of the label or a payload list `(...)`, found {what}")
        };
        return Err(err(i, len, message));
    }
    Ok(Action {
        peer: peer.to_owned(),
        direction,
        message: Message::with_payloads(label, payloads),
    })
}

/// The payloads between the `(` at `open` and its matching `)`; returns them and the
/// offset just after the `)`.
fn payload_list(text: &str, open: usize) -> Result<(Vec<Payload>, usize), LabelError> {
    let mut depth = 0usize;
    let mut items = Vec::new();
    let mut item_start = open + 1;
    for (j, c) in text[open + 1..].char_indices() {
        let at = open + 1 + j;
        match c {
            '{' => {
                return Err(err(
                    at,
                    1,
                    "refinement types are not supported: expected a plain payload sort",
                ));
            }
            '(' | '[' | '<' => depth += 1,
            ')' if depth == 0 => {
                items.push((item_start, at));
                let payloads = if items.len() == 1 && text[open + 1..at].trim().is_empty() {
                    Vec::new()
                } else {
                    items
                        .into_iter()
                        .map(|(s, e)| payload(text, s, e))
                        .collect::<Result<_, _>>()?
                };
                return Ok((payloads, at + 1));
            }
            ')' | ']' | '>' => {
                if depth == 0 {
                    return Err(err(at, 1, format!("unbalanced `{c}` in the payload list")));
                }
                depth -= 1;
            }
            ',' if depth == 0 => {
                items.push((item_start, at));
                item_start = at + 1;
            }
            _ => {}
        }
    }
    Err(err(open, 1, "expected `)` to close this payload list"))
}

/// One payload `name: Sort` or `Sort` in `text[start..end]`.
fn payload(text: &str, start: usize, end: usize) -> Result<Payload, LabelError> {
    let item = &text[start..end];
    let lead = item.len() - item.trim_start().len();
    let trimmed = item.trim();
    let at = start + lead;
    if trimmed.is_empty() {
        return Err(err(
            at,
            0,
            "expected a payload sort (as in `x: i32` or `i32`)",
        ));
    }
    let (name, sort, sort_at) = match single_colon(trimmed) {
        Some(colon) => {
            let name = trimmed[..colon].trim_end();
            let rest = &trimmed[colon + 1..];
            let sort = rest.trim();
            let sort_at = at + colon + 1 + (rest.len() - rest.trim_start().len());
            if name.is_empty() || !name.chars().all(is_name_char) {
                return Err(err(
                    at,
                    colon,
                    format!("expected a payload name before `:`, found `{name}`"),
                ));
            }
            (Some(name), sort, sort_at)
        }
        None => (None, trimmed, at),
    };
    if sort.is_empty() {
        return Err(err(sort_at, 0, "expected a payload sort after `:`"));
    }
    if let Some(k) = single_colon(sort) {
        return Err(err(
            sort_at + k,
            1,
            format!("unexpected `:` in the payload sort `{sort}`"),
        ));
    }
    if let Some((k, c)) = sort.char_indices().find(|&(_, c)| !is_sort_char(c)) {
        return Err(err(
            sort_at + k,
            c.len_utf8(),
            format!(
                "unexpected `{}` in the payload sort `{sort}`: expected a type",
                c.escape_debug()
            ),
        ));
    }
    Ok(match name {
        Some(name) => Payload::named(name, sort),
        None => Payload::new(sort),
    })
}

/// Characters of payload sorts: Rust and Scribble type names, paths and generics
/// (`Vec<(u8, i32)>`, `[u8; 4]`, `&str`, `std::string::String`, `a.B`).
fn is_sort_char(c: char) -> bool {
    is_name_char(c) || "_':.<>()[], &;*".contains(c)
}

/// The position of the first `:` that is not part of `::`, outside brackets.
fn single_colon(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'<' => depth += 1,
            b')' | b']' | b'>' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => {
                let prev = i > 0 && bytes[i - 1] == b':';
                let next = bytes.get(i + 1) == Some(&b':');
                if !prev && !next {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_dialect() {
        let a = parse_label("s!ready()").unwrap();
        assert_eq!(a, Action::send("s", Message::new("ready")));
        let a = parse_label("T?ready").unwrap();
        assert_eq!(a, Action::receive("T", Message::new("ready")));
        let a = parse_label("k?value(x: int, std::string::String, Vec<(u8, i32)>)").unwrap();
        assert_eq!(
            a.message.payloads,
            vec![
                Payload::named("x", "int"),
                Payload::new("std::string::String"),
                Payload::new("Vec<(u8, i32)>"),
            ]
        );
        let a = parse_label(" 1 ! x' ( ) ").unwrap();
        assert_eq!(a.to_string(), "1!x'()");
    }

    #[test]
    fn rejects_with_positions() {
        let e = parse_label("s#ready()").unwrap_err();
        assert_eq!((e.offset, e.length), (1, 1));
        let e = parse_label("s!ready(x: )").unwrap_err();
        assert_eq!(e.offset, 10);
        let e = parse_label("s!ready(i32").unwrap_err();
        assert_eq!(e.offset, 7);
        let e = parse_label("s!ready()<x: int>").unwrap_err();
        assert!(e.message.contains("refinement"), "{}", e.message);
        let e = parse_label("s!l(n: int{n > 0})").unwrap_err();
        assert!(e.message.contains("refinement"), "{}", e.message);
        assert_eq!(e.offset, 10);
        let e = parse_label("s!l(i32,)").unwrap_err();
        assert!(
            e.message.contains("expected a payload sort"),
            "{}",
            e.message
        );
        assert!(parse_label("").is_err());
        assert!(parse_label("s!").is_err());
        assert!(parse_label("s!l)").is_err());
    }
}
