//! The Scribble lexer: source text to tokens with byte spans, comments and whitespace
//! removed, problems reported as [`Diagnostic`]s instead of panics.
//!
//! Identifiers follow nuscr: they start with a letter, a digit or `_` and continue with
//! letters, digits, `_` or primes (`1`, `x'`, `2PC`). Comments are `// ...`, `(*) ...`
//! (to the end of the line), `/* ... */` and nestable `(* ... *)`. A pragma block
//! `(*# ... #*)` is one [`TokenKind::Pragma`] token.

use crate::Span;
use crate::diagnostic::{Collector, Diagnostic, ErrorKind};

/// A reserved word of the dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Keyword {
    /// `module`
    Module,
    /// `import` (reserved, unsupported)
    Import,
    /// `type`
    Type,
    /// `sig`
    Sig,
    /// `as`
    As,
    /// `protocol`
    Protocol,
    /// `global`
    Global,
    /// `nested` (unsupported)
    Nested,
    /// `explicit` (unsupported)
    Explicit,
    /// `aux`
    Aux,
    /// `role`
    Role,
    /// `from`
    From,
    /// `to`
    To,
    /// `choice`
    Choice,
    /// `at`
    At,
    /// `or`
    Or,
    /// `rec`
    Rec,
    /// `continue`
    Continue,
    /// `do`
    Do,
    /// `calls` (unsupported)
    Calls,
    /// `new` (unsupported)
    New,
    /// `connect` (unsupported)
    Connect,
    /// `disconnect` (unsupported)
    Disconnect,
    /// `and` (reserved)
    And,
    /// `wrap` (reserved)
    Wrap,
}

impl Keyword {
    /// The keyword spelled `text`, if any.
    pub fn from_text(text: &str) -> Option<Keyword> {
        use Keyword::*;
        Some(match text {
            "module" => Module,
            "import" => Import,
            "type" => Type,
            "sig" => Sig,
            "as" => As,
            "protocol" => Protocol,
            "global" => Global,
            "nested" => Nested,
            "explicit" => Explicit,
            "aux" => Aux,
            "role" => Role,
            "from" => From,
            "to" => To,
            "choice" => Choice,
            "at" => At,
            "or" => Or,
            "rec" => Rec,
            "continue" => Continue,
            "do" => Do,
            "calls" => Calls,
            "new" => New,
            "connect" => Connect,
            "disconnect" => Disconnect,
            "and" => And,
            "wrap" => Wrap,
            _ => return None,
        })
    }
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A name: role, label, variable, protocol or type component.
    Ident,
    /// A reserved word.
    Keyword(Keyword),
    /// A double-quoted string without newlines, e.g. `"java.lang.String"` (an
    /// unterminated one, reported, stops at the end of the line and has no closing quote).
    Str,
    /// A whole pragma block `(*# ... #*)`.
    Pragma,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `,`
    Comma,
    /// `;`
    Semi,
    /// `:`
    Colon,
    /// `.`
    Dot,
    /// `@`
    At,
    /// Any other operator character (`=`, `+`, `&`, ...), only meaningful inside
    /// constructs we do not support, such as refinement expressions.
    Op,
    /// The end of the input.
    Eof,
}

/// A token and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// The text of a [`TokenKind::Str`] token without its quotes.
pub fn unquote(text: &str) -> &str {
    let text = text.strip_prefix('"').unwrap_or(text);
    text.strip_suffix('"').unwrap_or(text)
}

/// Splits `source` into tokens, ending with one [`TokenKind::Eof`] token. Problems
/// (unexpected characters, unterminated comments or strings) are reported and skipped.
pub fn lex(source: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let (tokens, diagnostics) = lex_collect(source);
    (tokens, diagnostics.finish())
}

/// [`lex`] with the diagnostics still being collected (at most
/// [`crate::diagnostic::MAX_DIAGNOSTICS`] kept).
pub(crate) fn lex_collect(source: &str) -> (Vec<Token>, Collector) {
    let mut lexer = Lexer {
        src: source,
        bytes: source.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diagnostics: Collector::default(),
    };
    lexer.run();
    let end = source.len();
    lexer.tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(end, end),
    });
    (lexer.tokens, lexer.diagnostics)
}

/// Whether `c` may start a name.
fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `c` may continue a name.
fn is_name_continue(c: u8) -> bool {
    is_name_start(c) || c == b'\''
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diagnostics: Collector,
}

impl Lexer<'_> {
    fn starts_with(&self, s: &str) -> bool {
        self.bytes[self.pos..].starts_with(s.as_bytes())
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, self.pos),
        });
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::new(ErrorKind::Syntax, span, message));
    }

    /// Skips to just after the next newline (or to the end).
    fn skip_line(&mut self) {
        match self.bytes[self.pos..].iter().position(|&b| b == b'\n') {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.bytes.len(),
        }
    }

    /// Skips a nestable `(* ... *)` comment whose `(*` starts at `start`.
    fn skip_ml_comment(&mut self, start: usize) {
        let mut depth = 1usize;
        self.pos += 2;
        while self.pos < self.bytes.len() {
            if self.starts_with("(*)") {
                self.pos += 3;
            } else if self.starts_with("*)") {
                self.pos += 2;
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else if self.starts_with("(*") {
                self.pos += 2;
                depth += 1;
            } else {
                self.pos += 1;
            }
        }
        self.error(
            Span::new(start, start + 2),
            "unterminated comment: expected `*)` to close this `(*`",
        );
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let c = self.bytes[self.pos];
            if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if self.starts_with("//") || self.starts_with("(*)") {
                self.skip_line();
            } else if self.starts_with("(*#") {
                match self.src[start + 3..].find("#*)") {
                    Some(i) => {
                        self.pos = start + 3 + i + 3;
                        self.push(TokenKind::Pragma, start);
                    }
                    None => {
                        self.pos = self.bytes.len();
                        self.error(
                            Span::new(start, start + 3),
                            "unterminated pragma: expected `#*)` to close this `(*#`",
                        );
                    }
                }
            } else if self.starts_with("(*") {
                self.skip_ml_comment(start);
            } else if self.starts_with("/*") {
                match self.src[start + 2..].find("*/") {
                    Some(i) => self.pos = start + 2 + i + 2,
                    None => {
                        self.pos = self.bytes.len();
                        self.error(
                            Span::new(start, start + 2),
                            "unterminated comment: expected `*/` to close this `/*`",
                        );
                    }
                }
            } else if is_name_start(c) {
                while self.pos < self.bytes.len() && is_name_continue(self.bytes[self.pos]) {
                    self.pos += 1;
                }
                let kind = match Keyword::from_text(&self.src[start..self.pos]) {
                    Some(k) => TokenKind::Keyword(k),
                    None => TokenKind::Ident,
                };
                self.push(kind, start);
            } else if c == b'"' {
                self.lex_string(start);
            } else {
                self.lex_punct(start, c);
            }
        }
    }

    fn lex_string(&mut self, start: usize) {
        let rest = &self.bytes[start + 1..];
        match rest.iter().position(|&b| b == b'"' || b == b'\n') {
            Some(i) if rest[i] == b'"' => {
                self.pos = start + 1 + i + 1;
                self.push(TokenKind::Str, start);
            }
            found => {
                // Still a string token, so the parser does not report it a second time.
                self.pos = found.map_or(self.bytes.len(), |i| start + 1 + i);
                self.push(TokenKind::Str, start);
                self.error(
                    Span::new(start, self.pos),
                    "unterminated string: expected `\"` before the end of the line",
                );
            }
        }
    }

    fn lex_punct(&mut self, start: usize, c: u8) {
        let kind = match c {
            b'(' => TokenKind::LParen,
            b')' => TokenKind::RParen,
            b'{' => TokenKind::LBrace,
            b'}' => TokenKind::RBrace,
            b'[' => TokenKind::LBracket,
            b']' => TokenKind::RBracket,
            b'<' => TokenKind::Lt,
            b'>' => TokenKind::Gt,
            b',' => TokenKind::Comma,
            b';' => TokenKind::Semi,
            b':' => TokenKind::Colon,
            b'.' => TokenKind::Dot,
            b'@' => TokenKind::At,
            b'=' | b'+' | b'-' | b'*' | b'/' | b'&' | b'|' | b'!' | b'%' | b'#' | b'?' => {
                TokenKind::Op
            }
            _ => {
                // Skip one whole character, which may be several bytes.
                let ch = self.src[start..].chars().next().unwrap_or('\u{fffd}');
                self.pos += ch.len_utf8().max(1);
                self.error(
                    Span::new(start, self.pos),
                    format!("unexpected character `{}`", ch.escape_debug()),
                );
                return;
            }
        };
        self.pos += 1;
        self.push(kind, start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        let (tokens, diags) = lex(src);
        assert!(diags.is_empty(), "{diags:?}");
        tokens.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn names_may_start_with_digits_and_hold_primes() {
        let (tokens, _) = lex("1() x' 2PC");
        let texts: Vec<_> = tokens
            .iter()
            .map(|t| &"1() x' 2PC"[t.span.start..t.span.end])
            .collect();
        assert_eq!(texts, ["1", "(", ")", "x'", "2PC", ""]);
    }

    #[test]
    fn comments_of_every_kind_vanish_and_ml_comments_nest() {
        let src = "a // x\n b /* y */ c (* d (* e *) f *) g (*) h\n i";
        assert_eq!(
            kinds(src),
            vec![TokenKind::Ident; 5]
                .into_iter()
                .chain([TokenKind::Eof])
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn pragma_is_one_token() {
        assert_eq!(
            kinds("(*# RefinementTypes #*) global"),
            [
                TokenKind::Pragma,
                TokenKind::Keyword(Keyword::Global),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn problems_are_reported_with_spans() {
        let (_, diags) = lex("a $ (* open");
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[0].span, Span::new(2, 3));
        assert_eq!(diags[1].span, Span::new(4, 6));
    }
}
