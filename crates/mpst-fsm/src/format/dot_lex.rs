//! The DOT tokenizer: identifiers, numerals, quoted strings, punctuation and comments.

use std::borrow::Cow;

use super::DotError;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind<'a> {
    /// An identifier, numeral or quoted string (`quoted`), already unescaped: a slice
    /// of the input unless unescaping changed it, so that reading allocates nothing
    /// per token.
    Id {
        text: Cow<'a, str>,
        quoted: bool,
    },
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Equal,
    Colon,
    /// `->`.
    Arrow,
    /// `--` (undirected edge, rejected by the parser).
    Dash,
    /// End of input.
    Eof,
}

/// A token with its byte range in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token<'a> {
    pub kind: Kind<'a>,
    pub start: usize,
    pub end: usize,
}

impl Token<'_> {
    /// How the token reads in an error message, e.g. `` `->` `` or `end of input`.
    pub fn describe(&self, input: &str) -> String {
        match &self.kind {
            Kind::Eof => "end of input".to_owned(),
            Kind::Id { .. } => {
                let raw = input.get(self.start..self.end).unwrap_or("");
                let short: String = raw.chars().take(40).collect();
                if short.len() < raw.len() {
                    format!("`{short}...`")
                } else {
                    format!("`{short}`")
                }
            }
            other => format!("`{}`", punct(other)),
        }
    }

    /// Whether the token is the unquoted keyword `kw` (DOT keywords ignore case).
    pub fn is_keyword(&self, kw: &str) -> bool {
        matches!(&self.kind, Kind::Id { text, quoted: false } if text.eq_ignore_ascii_case(kw))
    }
}

fn punct(kind: &Kind<'_>) -> &'static str {
    match kind {
        Kind::LBrace => "{",
        Kind::RBrace => "}",
        Kind::LBracket => "[",
        Kind::RBracket => "]",
        Kind::Semi => ";",
        Kind::Comma => ",",
        Kind::Equal => "=",
        Kind::Colon => ":",
        Kind::Arrow => "->",
        Kind::Dash => "--",
        Kind::Id { .. } | Kind::Eof => "",
    }
}

/// An on-demand tokenizer over a DOT input.
pub(super) struct Lexer<'a> {
    input: &'a str,
    pos: usize,
}

fn is_id_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || !c.is_ascii()
}

fn is_id_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || !c.is_ascii()
}

impl<'a> Lexer<'a> {
    /// A tokenizer at the start of `input`.
    #[cfg(test)]
    pub fn new(input: &'a str) -> Self {
        Lexer { input, pos: 0 }
    }

    /// A tokenizer at byte `pos` of `input` (a character boundary), positions still
    /// counted from the start of `input`.
    pub fn new_at(input: &'a str, pos: usize) -> Self {
        Lexer { input, pos }
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error(&self, offset: usize, length: usize, message: impl Into<String>) -> DotError {
        DotError::at(self.input, offset, length, message)
    }

    /// Skips whitespace, `//` and `/* */` comments and `#` lines (C preprocessor
    /// output, which Graphviz ignores).
    fn skip_trivia(&mut self) -> Result<(), DotError> {
        loop {
            // ASCII whitespace byte by byte, then any other Unicode whitespace.
            let bytes = self.input.as_bytes();
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            let rest = self.rest();
            let trimmed = match rest.as_bytes().first() {
                Some(b) if b.is_ascii() => rest,
                _ => rest.trim_start(),
            };
            self.pos += rest.len() - trimmed.len();
            let at_line_start = || {
                let before = &self.input[..self.pos];
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                before[line_start..].trim().is_empty()
            };
            if trimmed.starts_with("//") || (trimmed.starts_with('#') && at_line_start()) {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else if let Some(body) = trimmed.strip_prefix("/*") {
                match body.find("*/") {
                    Some(end) => self.pos += end + 4,
                    None => {
                        return Err(self.error(
                            self.pos,
                            2,
                            "unterminated comment: expected `*/` to close this `/*`",
                        ));
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    /// The next token; [`Kind::Eof`] at the end (repeatedly).
    pub fn next_token(&mut self) -> Result<Token<'a>, DotError> {
        self.skip_trivia()?;
        let start = self.pos;
        let Some(c) = self.peek_char() else {
            return Ok(Token {
                kind: Kind::Eof,
                start,
                end: start,
            });
        };
        let rest = self.rest();
        let single = |kind: Kind<'a>| (kind, 1);
        let (kind, len) = match c {
            '{' => single(Kind::LBrace),
            '}' => single(Kind::RBrace),
            '[' => single(Kind::LBracket),
            ']' => single(Kind::RBracket),
            ';' => single(Kind::Semi),
            ',' => single(Kind::Comma),
            '=' => single(Kind::Equal),
            ':' => single(Kind::Colon),
            '-' if rest.starts_with("->") => (Kind::Arrow, 2),
            '-' if rest.starts_with("--") => (Kind::Dash, 2),
            '"' => return self.quoted(),
            '<' => {
                return Err(self.error(
                    start,
                    1,
                    "HTML-like strings `<...>` are not supported: expected an identifier or a quoted string",
                ))
            }
            c if c.is_ascii_digit() || c == '-' || c == '.' => return self.numeral(),
            c if is_id_start(c) => {
                // ASCII letters, digits and `_` byte by byte; the rest char by char.
                let ascii = rest
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count();
                let len = rest[ascii..]
                    .char_indices()
                    .find(|&(_, c)| !is_id_continue(c))
                    .map_or(rest.len(), |(i, _)| ascii + i);
                let text = Cow::Borrowed(&rest[..len]);
                (
                    Kind::Id {
                        text,
                        quoted: false,
                    },
                    len,
                )
            }
            other => {
                return Err(self.error(
                    start,
                    other.len_utf8(),
                    format!("unexpected character `{}`", other.escape_debug()),
                ))
            }
        };
        self.pos += len;
        Ok(Token {
            kind,
            start,
            end: self.pos,
        })
    }

    /// `-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)`.
    fn numeral(&mut self) -> Result<Token<'a>, DotError> {
        let start = self.pos;
        let bytes = self.rest().as_bytes();
        let mut i = usize::from(bytes.first() == Some(&b'-'));
        let int_digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += int_digits;
        let mut frac_digits = 0;
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            frac_digits = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            i += frac_digits;
        }
        if int_digits + frac_digits == 0 {
            return Err(self.error(
                start,
                i.max(1),
                "expected a number, an identifier or a quoted string",
            ));
        }
        self.pos += i;
        Ok(Token {
            kind: Kind::Id {
                text: Cow::Borrowed(&self.input[start..self.pos]),
                quoted: false,
            },
            start,
            end: self.pos,
        })
    }

    /// A double-quoted string; `\"` and `\\` are unescaped, `\` before a newline joins
    /// lines, other escapes (`\n`, `\l`, ...) are kept verbatim as Graphviz does.
    fn quoted(&mut self) -> Result<Token<'a>, DotError> {
        let start = self.pos;
        match unescape(&self.input[start..]) {
            Some((text, len)) => {
                self.pos += len;
                Ok(Token {
                    kind: Kind::Id { text, quoted: true },
                    start,
                    end: self.pos,
                })
            }
            None => Err(self.error(
                start,
                1,
                "unterminated string: expected a closing `\"` for this one",
            )),
        }
    }
}

/// Unescapes the quoted string at the start of `raw` (which begins with `"`); returns
/// the text and the number of bytes consumed, or `None` if it is not closed. A string
/// without a backslash is a slice of `raw`.
fn unescape(raw: &str) -> Option<(Cow<'_, str>, usize)> {
    let body = &raw[1..];
    match body.find(['"', '\\']) {
        Some(end) if body.as_bytes()[end] == b'"' => {
            return Some((Cow::Borrowed(&body[..end]), end + 2));
        }
        None => return None,
        Some(_) => {}
    }
    let mut text = String::new();
    let mut chars = raw.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((Cow::Owned(text), i + 1)),
            '\\' => match chars.peek().map(|&(_, c)| c) {
                Some(q @ ('"' | '\\')) => {
                    text.push(q);
                    chars.next();
                }
                Some('\n') => {
                    chars.next();
                }
                Some('\r') => {
                    chars.next();
                    if chars.peek().map(|&(_, c)| c) == Some('\n') {
                        chars.next();
                    }
                }
                _ => text.push('\\'),
            },
            c => text.push(c),
        }
    }
    None
}

/// The input byte offset of byte `content_offset` of the text of `token` (an
/// [`Kind::Id`]), accounting for the quote and escapes.
pub(super) fn source_offset(input: &str, token: &Token<'_>, content_offset: usize) -> usize {
    let quoted = matches!(token.kind, Kind::Id { quoted: true, .. });
    if !quoted {
        return token.start + content_offset;
    }
    let raw = input.get(token.start..token.end).unwrap_or("");
    let mut produced = 0;
    let mut chars = raw.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if produced >= content_offset || c == '"' {
            return token.start + i;
        }
        if c == '\\' {
            match chars.peek().map(|&(_, c)| c) {
                Some('"' | '\\') => {
                    chars.next();
                    produced += 1;
                }
                Some('\n' | '\r') => {
                    chars.next();
                }
                _ => produced += 1,
            }
        } else {
            produced += c.len_utf8();
        }
    }
    token.end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &str) -> Vec<Kind<'_>> {
        let mut lexer = Lexer::new(input);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token().unwrap();
            if t.kind == Kind::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    fn id(text: &str, quoted: bool) -> Kind<'_> {
        Kind::Id {
            text: Cow::Borrowed(text),
            quoted,
        }
    }

    #[test]
    fn tokens_comments_and_escapes() {
        let got = kinds("a->-1.5 /* c */ \"x\\\"y\\\\z\\\nw\" // end\n# pre\n[ ]");
        assert_eq!(
            got,
            vec![
                id("a", false),
                Kind::Arrow,
                id("-1.5", false),
                id("x\"y\\zw", true),
                Kind::LBracket,
                Kind::RBracket,
            ]
        );
    }

    #[test]
    fn maps_content_offsets_back_through_escapes() {
        let input = r#""a\"b""#;
        let mut lexer = Lexer::new(input);
        let t = lexer.next_token().unwrap();
        assert_eq!(source_offset(input, &t, 0), 1);
        assert_eq!(source_offset(input, &t, 2), 4);
    }

    #[test]
    fn unterminated_things_are_errors() {
        assert!(Lexer::new("\"abc").next_token().is_err());
        assert!(Lexer::new("/* abc").next_token().is_err());
        assert!(Lexer::new("-").next_token().is_err());
        assert!(Lexer::new("<b>").next_token().is_err());
    }
}
