//! Parsing protocol bodies: blocks and the interactions inside them.

use super::{MAX_NESTING, PResult, Parser, Reported};
use crate::Span;
use crate::diagnostic::{Diagnostic, ErrorKind};
use crate::syntax::ast::{Block, Interaction, InteractionKind, PayloadDecl};
use crate::syntax::lexer::{Keyword, TokenKind};

impl Parser<'_> {
    /// `{ interaction* }`, recovering inside after each broken statement.
    pub(super) fn block(&mut self) -> PResult<Block> {
        if self.depth >= MAX_NESTING && self.at(TokenKind::LBrace) {
            self.diagnostics.push(Diagnostic::new(
                ErrorKind::Syntax,
                self.peek().span,
                format!("blocks are nested too deeply (more than {MAX_NESTING} levels)"),
            ));
            self.skip_group();
            return Err(Reported);
        }
        let open = self.expect(TokenKind::LBrace, "to open a block")?;
        self.depth += 1;
        let mut interactions = Vec::new();
        while !self.at(TokenKind::RBrace) && !self.at(TokenKind::Eof) && !self.at_declaration_only()
        {
            match self.interaction() {
                Ok(Some(interaction)) => interactions.push(interaction),
                Ok(None) => {}
                Err(Reported) => self.recover_statement(),
            }
        }
        self.depth -= 1;
        if self.eat(TokenKind::RBrace).is_none() {
            let diagnostic = Diagnostic::new(
                ErrorKind::Syntax,
                self.peek().span,
                format!(
                    "expected `}}` to close the block, found {}",
                    self.describe_next()
                ),
            )
            .with_label(open.span, "block opened here");
            self.diagnostics.push(diagnostic);
            return Err(Reported);
        }
        Ok(Block {
            interactions,
            span: self.span_from(open.span.start),
        })
    }

    /// One interaction. `Ok(None)`: an unsupported construct, reported and skipped.
    fn interaction(&mut self) -> PResult<Option<Interaction>> {
        let start = self.peek().span.start;
        let kind = match self.peek_kind() {
            TokenKind::Keyword(Keyword::Choice) => self.choice()?,
            TokenKind::Keyword(Keyword::Rec) => self.rec()?,
            TokenKind::Keyword(Keyword::Continue) => match self.continue_()? {
                Some(kind) => kind,
                None => return Ok(None),
            },
            TokenKind::Keyword(Keyword::Do) => self.do_()?,
            TokenKind::Keyword(Keyword::Connect | Keyword::Disconnect) => {
                return self.skip_unsupported("explicit connections (`connect`/`disconnect`)");
            }
            TokenKind::Keyword(Keyword::Nested) => {
                let span = self.bump().span;
                self.eat(TokenKind::Keyword(Keyword::Protocol));
                self.unsupported(span, "nested protocols");
                return Err(Reported);
            }
            TokenKind::Ident => {
                if let Some(construct) = self.unsupported_statement() {
                    return self.skip_unsupported(construct);
                }
                self.message()?
            }
            _ => {
                return Err(self.error_expected(
                    "an interaction (a message, `choice`, `rec`, `continue` or `do`)",
                ));
            }
        };
        let span = self.span_from(start);
        let annotation = self.annotation()?;
        Ok(Some(Interaction {
            kind,
            annotation,
            span,
        }))
    }

    /// Recognises statements of Scribble we do not support, from their first tokens.
    fn unsupported_statement(&self) -> Option<&'static str> {
        let next = self.nth_kind(1);
        if self.at_word("par") && next == TokenKind::LBrace {
            Some("parallel compositions (`par`)")
        } else if self.at_word("interruptible")
            && matches!(next, TokenKind::LBrace | TokenKind::Ident)
        {
            Some("interruptible blocks (`interruptible`)")
        } else if self.at_word("accept") && next == TokenKind::Ident {
            Some("explicit connections (`accept`)")
        } else if next == TokenKind::Keyword(Keyword::Calls) {
            Some("nested protocol calls (`calls`)")
        } else {
            None
        }
    }

    /// Reports `construct` at the statement's first token and skips the statement.
    fn skip_unsupported(&mut self, construct: &str) -> PResult<Option<Interaction>> {
        let span = self.peek().span;
        self.unsupported(span, construct);
        Err(Reported)
    }

    /// `choice at A { ... } or { ... } ...`
    fn choice(&mut self) -> PResult<InteractionKind> {
        self.bump();
        self.expect_kw(Keyword::At, "at", "after `choice`")?;
        let at = self.name("the choosing role after `choice at`")?;
        let mut branches = vec![self.block()?];
        while self.eat(TokenKind::Keyword(Keyword::Or)).is_some() {
            branches.push(self.block()?);
        }
        Ok(InteractionKind::Choice { at, branches })
    }

    /// `rec X { ... }`
    fn rec(&mut self) -> PResult<InteractionKind> {
        self.bump();
        let var = self.name("a recursion variable after `rec`")?;
        if self.at(TokenKind::LBracket) {
            let start = self.peek().span.start;
            self.skip_group();
            let span = self.span_from(start);
            self.unsupported(span, "recursion variables with refinements (`rec X [...]`)");
        }
        let body = self.block()?;
        Ok(InteractionKind::Rec { var, body })
    }

    /// `continue X;`. `Ok(None)`: an unsupported form, reported.
    fn continue_(&mut self) -> PResult<Option<InteractionKind>> {
        self.bump();
        let var = self.name("a recursion variable after `continue`")?;
        if self.at(TokenKind::LBracket) {
            let start = self.peek().span.start;
            self.skip_group();
            let span = self.span_from(start);
            self.unsupported(
                span,
                "recursion with refinement arguments (`continue X [...]`)",
            );
            self.expect(TokenKind::Semi, "after `continue`")?;
            return Ok(None);
        }
        if self.at_word("with") {
            let span = self.peek().span;
            self.unsupported(span, "`continue ... with` blocks");
            return Err(Reported);
        }
        self.expect(TokenKind::Semi, &format!("after `continue {}`", var.text))?;
        Ok(Some(InteractionKind::Continue { var }))
    }

    /// `do P(A, B);`
    fn do_(&mut self) -> PResult<InteractionKind> {
        self.bump();
        let protocol = self.name("a protocol name after `do`")?;
        let mut roles = Vec::new();
        let mut args_span = protocol.span;
        if let Some(open) = self.eat(TokenKind::LParen) {
            if !self.at(TokenKind::RParen) {
                loop {
                    roles.push(self.name("a role name")?);
                    if self.eat(TokenKind::Comma).is_none() {
                        break;
                    }
                }
            }
            self.expect(TokenKind::RParen, "or `,` after a role argument")?;
            args_span = self.span_from(open.span.start);
        }
        self.expect(
            TokenKind::Semi,
            &format!("after `do {}(...)`", protocol.text),
        )?;
        Ok(InteractionKind::Do {
            protocol,
            roles,
            args_span,
        })
    }

    /// `label(payloads) from A to B, C;`
    fn message(&mut self) -> PResult<InteractionKind> {
        let label = self.name("a message label")?;
        let mut payloads = Vec::new();
        if self.eat(TokenKind::LParen).is_some() {
            if !self.at(TokenKind::RParen) {
                loop {
                    payloads.push(self.payload()?);
                    if self.eat(TokenKind::Comma).is_none() {
                        break;
                    }
                }
            }
            self.expect(TokenKind::RParen, "or `,` after a payload")?;
        }
        if self.at_kw(Keyword::Connect) {
            let span = self.peek().span;
            self.unsupported(span, "explicit connections (`connect`)");
            return Err(Reported);
        }
        if !self.at_kw(Keyword::From) {
            let what = format!("`from` after message `{}`", label.text);
            return Err(self.error_expected(&what));
        }
        self.bump();
        let from = self.name("the sending role after `from`")?;
        self.expect_kw(Keyword::To, "to", &format!("after `from {}`", from.text))?;
        let mut to = vec![self.name("a receiving role after `to`")?];
        while self.eat(TokenKind::Comma).is_some() {
            to.push(self.name("a receiving role after `,`")?);
        }
        let last = &to[to.len() - 1].text;
        self.expect(TokenKind::Semi, &format!("or `,` after receiver `{last}`"))?;
        Ok(InteractionKind::Message {
            label,
            payloads,
            from,
            to,
        })
    }

    /// `x: T`, `T`, `a.b.T`; delegation `P@A` and refinements `x: T{e}` are reported.
    fn payload(&mut self) -> PResult<PayloadDecl> {
        let start = self.peek().span.start;
        if self.at(TokenKind::Ident) && self.nth_kind(1) == TokenKind::At {
            self.bump();
            self.bump();
            self.name("a role after `@` in a delegation")?;
            let span = self.span_from(start);
            self.unsupported(span, "delegation payloads (`Protocol@Role`)");
            return Err(Reported);
        }
        let mut name = None;
        if self.at(TokenKind::Ident) && self.nth_kind(1) == TokenKind::Colon {
            name = Some(self.name("a payload name")?);
            self.bump();
        }
        let ty = self.qualified_name("a payload type")?;
        if self.at(TokenKind::LBrace) {
            let from = self.peek().span.start;
            self.skip_group();
            let span = Span::new(start, self.prev_end.max(from));
            self.unsupported(span, "refinement types (`x: T{...}`)");
        }
        Ok(PayloadDecl {
            name,
            ty,
            span: self.span_from(start),
        })
    }
}
