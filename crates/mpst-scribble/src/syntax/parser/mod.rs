//! The Scribble parser: tokens to a [`Module`] syntax tree, recovering after errors.
//!
//! A hand-written recursive-descent parser. After a syntax error inside a protocol body
//! it skips to the next `;` or to the end of the enclosing braces and carries on, so one
//! run reports every independent error; at the top level it skips to the next
//! declaration. Constructs of Scribble we do not support are recognised, reported as
//! [`ErrorKind::Unsupported`] naming the construct, and skipped the same way.

mod body;
mod recover;

use crate::diagnostic::{Collector, Diagnostic, ErrorKind};
use crate::syntax::ast::{Annotation, Module, Pragma, Protocol, TypeDecl, TypeDeclKind};
use crate::syntax::lexer::{Keyword, Token, TokenKind, lex_collect, unquote};
use crate::{Name, Span};

/// Blocks may nest this deep; deeper input is rejected instead of exhausting the stack.
pub const MAX_NESTING: usize = 128;

/// Parses a whole file. The tree holds everything that parsed; the diagnostics say what
/// did not (syntax errors and unsupported constructs), in source order.
///
/// At most [`crate::diagnostic::MAX_DIAGNOSTICS`] diagnostics are returned, then one
/// that counts the rest.
pub fn parse_module(source: &str) -> (Module, Vec<Diagnostic>) {
    let (module, diagnostics) = parse_collect(source);
    (module, diagnostics.finish())
}

/// [`parse_module`] with the diagnostics still being collected.
pub(crate) fn parse_collect(source: &str) -> (Module, Collector) {
    let (tokens, diagnostics) = lex_collect(source);
    let mut parser = Parser {
        src: source,
        tokens,
        pos: 0,
        prev_end: 0,
        depth: 0,
        diagnostics,
    };
    let module = parser.module();
    (module, parser.diagnostics)
}

/// Marks a failure whose diagnostic has already been recorded.
#[derive(Debug)]
struct Reported;

type PResult<T> = Result<T, Reported>;

/// The parser's state: the tokens, where it is, and what went wrong so far.
struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// The end of the last token consumed.
    prev_end: usize,
    /// How many blocks are open.
    depth: usize,
    diagnostics: Collector,
}

/// Words that describe a token kind in "expected ..." messages.
fn kind_name(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::LParen => "`(`",
        TokenKind::RParen => "`)`",
        TokenKind::LBrace => "`{`",
        TokenKind::RBrace => "`}`",
        TokenKind::LBracket => "`[`",
        TokenKind::RBracket => "`]`",
        TokenKind::Lt => "`<`",
        TokenKind::Gt => "`>`",
        TokenKind::Comma => "`,`",
        TokenKind::Semi => "`;`",
        TokenKind::Colon => "`:`",
        TokenKind::Dot => "`.`",
        TokenKind::At => "`@`",
        TokenKind::Str => "a string",
        TokenKind::Ident => "a name",
        _ => "a token",
    }
}

impl<'a> Parser<'a> {
    // ----- token access -------------------------------------------------------------

    fn peek(&self) -> Token {
        self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_kind(&self) -> TokenKind {
        self.peek().kind
    }

    fn nth_kind(&self, n: usize) -> TokenKind {
        self.tokens[(self.pos + n).min(self.tokens.len() - 1)].kind
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.peek_kind() == kind
    }

    fn at_kw(&self, kw: Keyword) -> bool {
        self.at(TokenKind::Keyword(kw))
    }

    fn text(&self, token: Token) -> &'a str {
        &self.src[token.span.start..token.span.end]
    }

    /// Whether the next token is the identifier `word` (a contextual keyword).
    fn at_word(&self, word: &str) -> bool {
        self.at(TokenKind::Ident) && self.text(self.peek()) == word
    }

    /// Consumes one token (never the final end-of-file token).
    fn bump(&mut self) -> Token {
        let token = self.peek();
        if token.kind != TokenKind::Eof {
            self.pos += 1;
            self.prev_end = token.span.end;
        }
        token
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// How the next token reads in an error message.
    fn describe_next(&self) -> String {
        let token = self.peek();
        match token.kind {
            TokenKind::Eof => "end of file".to_string(),
            TokenKind::Keyword(_) => format!("keyword `{}`", self.text(token)),
            TokenKind::Pragma => "a pragma block".to_string(),
            _ => {
                let text = self.text(token);
                if text.chars().count() > 24 {
                    let short: String = text.chars().take(24).collect();
                    format!("`{short}...`")
                } else {
                    format!("`{text}`")
                }
            }
        }
    }

    /// The span from `start` to the end of the last consumed token.
    fn span_from(&self, start: usize) -> Span {
        Span::new(start, self.prev_end.max(start))
    }

    // ----- errors -------------------------------------------------------------------

    /// Reports "expected `what`, found ..." at the next token.
    fn error_expected(&mut self, what: &str) -> Reported {
        let message = format!("expected {what}, found {}", self.describe_next());
        let span = self.peek().span;
        self.diagnostics
            .push(Diagnostic::new(ErrorKind::Syntax, span, message));
        Reported
    }

    /// Reports "expected `what`, found ..." for a token missing after the previous one:
    /// at the next token if it is on the same line, else just after the previous token
    /// (a missing `;` is reported where it belongs, not on the next line).
    fn error_missing(&mut self, what: &str) -> Reported {
        let next = self.peek().span;
        let between = &self.src[self.prev_end.min(next.start)..next.start];
        if self.pos > 0 && between.contains('\n') {
            let message = format!("expected {what}, found {}", self.describe_next());
            let span = Span::new(self.prev_end, self.prev_end);
            self.diagnostics
                .push(Diagnostic::new(ErrorKind::Syntax, span, message));
            Reported
        } else {
            self.error_expected(what)
        }
    }

    fn expect(&mut self, kind: TokenKind, context: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(token) => Ok(token),
            None => Err(self.error_missing(&format!("{} {context}", kind_name(kind)))),
        }
    }

    fn expect_kw(&mut self, kw: Keyword, spelled: &str, context: &str) -> PResult<Token> {
        if self.at_kw(kw) {
            Ok(self.bump())
        } else {
            Err(self.error_missing(&format!("`{spelled}` {context}")))
        }
    }

    /// A name (role, label, protocol, variable); `what` says which, for the error.
    fn name(&mut self, what: &str) -> PResult<Name> {
        match self.eat(TokenKind::Ident) {
            Some(token) => Ok(Name::new(self.text(token), token.span)),
            None => Err(self.error_expected(what)),
        }
    }

    /// A dotted name `a.b.c`, kept verbatim without spaces.
    fn qualified_name(&mut self, what: &str) -> PResult<Name> {
        let first = self.name(what)?;
        let mut text = first.text;
        let start = first.span.start;
        while self.at(TokenKind::Dot) {
            self.bump();
            let part = self.name("a name after `.`")?;
            text.push('.');
            text.push_str(&part.text);
        }
        Ok(Name::new(text, self.span_from(start)))
    }

    fn unsupported(&mut self, span: Span, construct: &str) {
        self.diagnostics.push(
            Diagnostic::new(
                ErrorKind::Unsupported,
                span,
                format!("{construct} are not supported"),
            )
            .with_note("mpst supports messages, choice, rec/continue and do"),
        );
    }

    // ----- top level ----------------------------------------------------------------

    fn module(&mut self) -> Module {
        let mut module = Module::default();
        loop {
            let item = self.pos;
            let result = match self.peek_kind() {
                TokenKind::Eof => break,
                TokenKind::Pragma => {
                    self.pragma(&mut module.pragmas);
                    Ok(())
                }
                TokenKind::Keyword(Keyword::Module) => self.module_decl(&mut module),
                TokenKind::Keyword(Keyword::Type) => {
                    self.type_decl(TypeDeclKind::Type, &mut module)
                }
                TokenKind::Keyword(Keyword::Sig) => self.type_decl(TypeDeclKind::Sig, &mut module),
                TokenKind::Keyword(Keyword::Import) => {
                    let span = self.bump().span;
                    self.unsupported(span, "imports of other modules");
                    Err(Reported)
                }
                TokenKind::Keyword(Keyword::Nested) => {
                    let span = self.bump().span;
                    self.eat(TokenKind::Keyword(Keyword::Protocol));
                    self.unsupported(span, "nested protocols");
                    Err(Reported)
                }
                _ => self.protocol().map(|p| {
                    if let Some(p) = p {
                        module.protocols.push(p);
                    }
                }),
            };
            if result.is_err() {
                self.recover_top(item);
            }
        }
        module
    }

    /// `(*# A, B: v #*)`: the entries are kept, none is rejected.
    fn pragma(&mut self, pragmas: &mut Vec<Pragma>) {
        let token = self.bump();
        let inner = &self.text(token)[3..token.span.end - token.span.start - 3];
        for entry in inner.split(',') {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let (key, value) = match entry.split_once(':') {
                Some((k, v)) => (k.trim(), Some(v.trim().to_string())),
                None => (entry, None),
            };
            pragmas.push(Pragma {
                key: key.to_string(),
                value,
                span: token.span,
            });
        }
    }

    /// `module a.b.c;`
    fn module_decl(&mut self, module: &mut Module) -> PResult<()> {
        self.bump();
        let name = self.qualified_name("a module name after `module`")?;
        self.expect(TokenKind::Semi, "after the module name")?;
        module.name = Some(name);
        Ok(())
    }

    /// `type <java> "java.lang.Integer" from "rt.jar" as Int;` (and `sig`).
    fn type_decl(&mut self, kind: TypeDeclKind, module: &mut Module) -> PResult<()> {
        let start = self.bump().span.start;
        self.expect(TokenKind::Lt, "to open the schema, as in `<java>`")?;
        let schema = self.name("a schema name such as `java`")?;
        self.expect(TokenKind::Gt, "after the schema name")?;
        let external = self.expect(TokenKind::Str, "naming the external type")?;
        self.expect_kw(Keyword::From, "from", "after the external name")?;
        let source = self.expect(TokenKind::Str, "naming where the type comes from")?;
        self.expect_kw(Keyword::As, "as", "after the source")?;
        let alias = self.name("an alias name after `as`")?;
        self.expect(TokenKind::Semi, "after the type declaration")?;
        module.type_decls.push(TypeDecl {
            kind,
            schema: schema.text,
            external: unquote(self.text(external)).to_string(),
            source: unquote(self.text(source)).to_string(),
            alias,
            span: self.span_from(start),
        });
        Ok(())
    }

    /// An optional annotation `@"..."`.
    fn annotation(&mut self) -> PResult<Option<Annotation>> {
        let Some(at) = self.eat(TokenKind::At) else {
            return Ok(None);
        };
        let text = self.expect(TokenKind::Str, "after `@` in an annotation")?;
        Ok(Some(Annotation {
            text: unquote(self.text(text)).to_string(),
            span: Span::new(at.span.start, text.span.end),
        }))
    }

    /// `[explicit] [aux] global [protocol] Name(role A, ...) [@"..."] { ... }`.
    /// `Ok(None)`: the protocol was parsed but uses an unsupported header.
    fn protocol(&mut self) -> PResult<Option<Protocol>> {
        let start = self.peek().span.start;
        let mut aux = false;
        let mut supported = true;
        loop {
            if self.at_kw(Keyword::Aux) {
                self.bump();
                aux = true;
            } else if self.at_kw(Keyword::Explicit) {
                let span = self.bump().span;
                self.unsupported(span, "explicit connections (`explicit` protocols)");
                supported = false;
            } else {
                break;
            }
        }
        if self.at_word("local") && self.nth_kind(1) == TokenKind::Keyword(Keyword::Protocol) {
            let span = self.bump().span;
            self.bump();
            self.unsupported(span, "local protocols");
            return Err(Reported);
        }
        if self.eat(TokenKind::Keyword(Keyword::Global)).is_some() {
            self.eat(TokenKind::Keyword(Keyword::Protocol));
        } else if self.eat(TokenKind::Keyword(Keyword::Protocol)).is_none() {
            return Err(self.error_expected("`global protocol`"));
        }
        let name = self.name("a protocol name")?;
        if self.at(TokenKind::Lt) {
            let from = self.peek().span.start;
            self.skip_group();
            let span = self.span_from(from);
            self.unsupported(span, "protocol parameters (`<...>`)");
            supported = false;
        }
        let roles = self.role_decls()?;
        let annotation = self.annotation()?;
        let body = self.block()?;
        let protocol = Protocol {
            name,
            aux,
            roles,
            annotation,
            body,
            span: self.span_from(start),
        };
        Ok(supported.then_some(protocol))
    }

    /// `(role A, role B)`
    fn role_decls(&mut self) -> PResult<Vec<Name>> {
        self.expect(TokenKind::LParen, "to open the role list")?;
        let mut roles = Vec::new();
        loop {
            self.expect_kw(Keyword::Role, "role", "to declare a role")?;
            roles.push(self.name("a role name after `role`")?);
            if self.eat(TokenKind::Comma).is_some() {
                continue;
            }
            if self.at(TokenKind::Semi) && self.nth_kind(1) == TokenKind::Keyword(Keyword::New) {
                let start = self.bump().span.start;
                while !self.at(TokenKind::RParen) && !self.at(TokenKind::Eof) {
                    self.bump();
                }
                let span = self.span_from(start);
                self.unsupported(span, "dynamically created roles (`new role`)");
                return Err(Reported);
            }
            self.expect(TokenKind::RParen, "or `,` after a role declaration")?;
            return Ok(roles);
        }
    }
}
