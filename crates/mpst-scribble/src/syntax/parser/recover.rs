//! Error recovery: skipping the rest of a broken statement or declaration so parsing
//! can go on and report later, independent errors too.

use super::Parser;
use crate::syntax::lexer::{Keyword, TokenKind};

impl Parser<'_> {
    /// Skips a balanced group opened by the next token (`{`, `(`, `[` or `<`), or nothing
    /// if the next token opens none. Stops at the end of the file.
    pub(super) fn skip_group(&mut self) {
        let (open, close) = match self.peek_kind() {
            TokenKind::LBrace => (TokenKind::LBrace, TokenKind::RBrace),
            TokenKind::LParen => (TokenKind::LParen, TokenKind::RParen),
            TokenKind::LBracket => (TokenKind::LBracket, TokenKind::RBracket),
            TokenKind::Lt => (TokenKind::Lt, TokenKind::Gt),
            _ => return,
        };
        let mut depth = 0usize;
        loop {
            let kind = self.bump().kind;
            if kind == open {
                depth += 1;
            } else if kind == close {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else if kind == TokenKind::Eof {
                return;
            }
        }
    }

    /// Skips the rest of a broken statement: up to and including the next `;`, or up to
    /// a balanced closing `}`, without leaving the enclosing block.
    pub(super) fn recover_statement(&mut self) {
        let start = self.pos;
        let mut depth = 0usize;
        loop {
            match self.peek_kind() {
                TokenKind::Eof => break,
                TokenKind::Semi if depth == 0 => {
                    self.bump();
                    break;
                }
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace if depth == 0 => break,
                _ if depth == 0 && self.at_declaration_only() => break,
                TokenKind::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        // `choice ... or { }`, `par ... and { }`, `interruptible ... with
                        // { }`: skip the following groups too.
                        if self.at_kw(Keyword::Or)
                            || self.at_kw(Keyword::And)
                            || self.at_word("with")
                        {
                            continue;
                        }
                        // `continue X with { ... };` ends with the `;`.
                        self.eat(TokenKind::Semi);
                        break;
                    }
                }
                _ => {}
            }
            self.bump();
        }
        // Always make progress, but never consume the `}` that closes the block.
        if self.pos == start && !self.at(TokenKind::RBrace) && !self.at_declaration_only() {
            self.bump();
        }
    }

    /// Whether the next token starts a top-level declaration.
    fn at_declaration(&self) -> bool {
        use Keyword::*;
        match self.peek_kind() {
            TokenKind::Pragma | TokenKind::Eof => true,
            TokenKind::Keyword(kw) => matches!(
                kw,
                Global | Aux | Protocol | Explicit | Nested | Module | Import | Type | Sig
            ),
            _ => false,
        }
    }

    /// Whether the next token can only start a top-level declaration, never an
    /// interaction: a block that meets one was left unclosed.
    pub(super) fn at_declaration_only(&self) -> bool {
        use Keyword::*;
        matches!(
            self.peek_kind(),
            TokenKind::Keyword(Global | Aux | Protocol | Explicit | Module | Import | Type | Sig)
        )
    }

    /// Skips to the next top-level declaration, jumping over balanced braces. `item` is
    /// the token index where the broken declaration started: a declaration keyword
    /// there is the broken one's own and is skipped, any later one is kept.
    pub(super) fn recover_top(&mut self, item: usize) {
        loop {
            if self.at_declaration() && (self.pos != item || self.at(TokenKind::Eof)) {
                return;
            }
            if self.at(TokenKind::LBrace) {
                self.skip_group();
            } else {
                self.bump();
            }
        }
    }
}
