//! A text syntax for [`LocalType`]s, the paper's notation in ASCII (or with `µ`), so
//! that examples and tests read like the paper: `rec t. p?l. t`,
//! `p!{a(). end, b(i32). t}`, `µx. s!ready(). s?value(x: i32). x`.
//!
//! ```text
//! type    ::= "end" | ("rec" | "mu" | "µ") var "." type | var
//!           | peer ("!" | "?") branch | peer ("!" | "?") "{" branch ("," branch)* ","? "}"
//!           | "+{" peer "!" branch ("," peer "!" branch)* ","? "}"
//!           | "&{" peer "?" branch ("," peer "?" branch)* ","? "}"
//! branch  ::= label ("(" (payload ("," payload)*)? ")")? "." type
//! payload ::= sort | name ":" sort
//! ```
//! Identifiers are `[A-Za-z_][A-Za-z0-9_]*`; `end`, `rec` and `mu` are reserved.
//! `+{b!l1(). T1, c!l2(). T2}` is an internal choice whose branches go to different
//! peers ([`LocalType::Select`]), `&{b?l1(). T1, c?l2(). T2}` an external choice whose
//! branches come from different peers ([`LocalType::Offer`]). It accepts everything
//! [`LocalType`]'s `Display` prints.

use crate::{Direction, LocalType, Message, Payload};

/// Why [`LocalType::parse`] rejected its input, with the position of the problem.
///
/// It displays as `line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct LocalParseError {
    /// Byte offset in the input.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl LocalType {
    /// Parses the text syntax described in this module's documentation.
    ///
    /// ```
    /// use mpst_fsm::LocalType;
    /// let t = LocalType::parse("rec t. c!{add(). a?add(). t, sub(). a?add(). t}").unwrap();
    /// assert_eq!(t.to_string(), "rec t. c!{add(). a?add(). t, sub(). a?add(). t}");
    /// let err = LocalType::parse("p!{a(). end").unwrap_err();
    /// assert_eq!((err.line, err.column), (1, 12));
    /// ```
    pub fn parse(input: &str) -> Result<LocalType, LocalParseError> {
        let mut parser = Parser { input, pos: 0 };
        let ty = parser.ty()?;
        parser.skip_ws();
        if parser.pos < input.len() {
            return Err(parser.error("expected the end of the input"));
        }
        Ok(ty)
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.input.len() - trimmed.len();
    }

    fn error(&self, expected: &str) -> LocalParseError {
        let found = match self.rest().chars().next() {
            None => "the end of the input".to_string(),
            Some(c) => format!("`{c}`"),
        };
        let (line, column) = crate::text::line_column(self.input, self.pos);
        LocalParseError {
            offset: self.pos,
            line,
            column,
            message: format!("{expected}, found {found}"),
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), LocalParseError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{token}`")))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, LocalParseError> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return Err(self.error(&format!("expected {what}")));
        }
        let ident = rest[..len].to_string();
        self.pos += len;
        Ok(ident)
    }

    fn ty(&mut self) -> Result<LocalType, LocalParseError> {
        self.skip_ws();
        if self.eat("µ") {
            return self.rec();
        }
        if self.eat("+") {
            return self.select();
        }
        if self.eat("&") {
            return self.offer();
        }
        let word = self.ident("a local type (`end`, `rec`, a variable or `peer!`/`peer?`)")?;
        match word.as_str() {
            "end" => return Ok(LocalType::End),
            "rec" | "mu" => return self.rec(),
            _ => {}
        }
        let direction = if self.eat("!") {
            Direction::Send
        } else if self.eat("?") {
            Direction::Receive
        } else {
            return Ok(LocalType::Var(word));
        };
        let branches = if self.eat("{") {
            let mut branches = vec![self.branch()?];
            while self.eat(",") {
                self.skip_ws();
                if self.rest().starts_with('}') {
                    break;
                }
                branches.push(self.branch()?);
            }
            self.expect("}")?;
            branches
        } else {
            vec![self.branch()?]
        };
        Ok(LocalType::Choice {
            direction,
            peer: word,
            branches,
        })
    }

    /// After `+`: `{peer!branch, ...}`.
    fn select(&mut self) -> Result<LocalType, LocalParseError> {
        self.expect("{")?;
        let mut branches = vec![self.select_branch()?];
        while self.eat(",") {
            self.skip_ws();
            if self.rest().starts_with('}') {
                break;
            }
            branches.push(self.select_branch()?);
        }
        self.expect("}")?;
        Ok(LocalType::Select { branches })
    }

    /// After `&`: `{peer?branch, ...}`.
    fn offer(&mut self) -> Result<LocalType, LocalParseError> {
        self.expect("{")?;
        let mut branches = vec![self.offer_branch()?];
        while self.eat(",") {
            self.skip_ws();
            if self.rest().starts_with('}') {
                break;
            }
            branches.push(self.offer_branch()?);
        }
        self.expect("}")?;
        Ok(LocalType::Offer { branches })
    }

    fn offer_branch(&mut self) -> Result<(String, Message, LocalType), LocalParseError> {
        let peer = self.ident("a peer")?;
        self.expect("?")?;
        let (message, cont) = self.branch()?;
        Ok((peer, message, cont))
    }

    fn select_branch(&mut self) -> Result<(String, Message, LocalType), LocalParseError> {
        let peer = self.ident("a peer")?;
        self.expect("!")?;
        let (message, cont) = self.branch()?;
        Ok((peer, message, cont))
    }

    fn rec(&mut self) -> Result<LocalType, LocalParseError> {
        let var = self.ident("a recursion variable")?;
        self.expect(".")?;
        Ok(LocalType::Rec(var, Box::new(self.ty()?)))
    }

    fn branch(&mut self) -> Result<(Message, LocalType), LocalParseError> {
        let label = self.ident("a label")?;
        let mut payloads = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                let first = self.ident("a payload sort")?;
                payloads.push(if self.eat(":") {
                    Payload::named(first, self.ident("a payload sort")?)
                } else {
                    Payload::new(first)
                });
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.error("expected `,` or `)`"));
                }
            }
        }
        self.expect(".")?;
        Ok((Message::with_payloads(label, payloads), self.ty()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_paper_notation() {
        let t = LocalType::parse("µt.p?l.t").unwrap();
        assert_eq!(
            t,
            LocalType::rec(
                "t",
                LocalType::receive("p", Message::new("l"), LocalType::var("t"))
            )
        );
        let t = LocalType::parse("mu x . s!{value(x: i32, u64). x, stop(). end,}").unwrap();
        assert_eq!(
            t.to_string(),
            "rec x. s!{value(x: i32, u64). x, stop(). end}"
        );
    }

    #[test]
    fn errors_carry_positions() {
        let err = LocalType::parse("rec t.\n  p?l(i32 t").unwrap_err();
        assert_eq!((err.line, err.column, err.offset), (2, 11, 17));
        assert!(err.message.starts_with("expected `,` or `)`"), "{err}");
        let err = LocalType::parse("p!l(). end end").unwrap_err();
        assert_eq!(err.column, 12);
        assert!(
            LocalType::parse("")
                .unwrap_err()
                .message
                .contains("end of the input")
        );
        assert!(LocalType::parse("p!{}").is_err());
        let err = LocalType::parse("+{b!x(). end, c?y(). end}").unwrap_err();
        assert_eq!(err.column, 16);
        assert!(err.message.starts_with("expected `!`"), "{err}");
    }

    #[test]
    fn parses_choices_from_several_peers() {
        let text = "rec t. &{b?l1(). t, c?l2(i32). end, c?l1(). t}";
        let t = LocalType::parse(text).unwrap();
        assert_eq!(t.to_string(), text);
        let fsm = t.to_fsm("a").unwrap();
        let from: Vec<String> = fsm
            .transitions(0)
            .iter()
            .map(|t| t.action.to_string())
            .collect();
        assert_eq!(from, ["b?l1()", "c?l1()", "c?l2(i32)"]);
        // One label from each of two peers is two branches; twice from one peer is not.
        assert_eq!(
            LocalType::parse("&{b?x(). end, b?x(). end}")
                .unwrap()
                .to_fsm("a"),
            Err(crate::LocalTypeError::DuplicateLabel("x".into()))
        );
        let err = LocalType::parse("&{b?x(). end, c!y(). end}").unwrap_err();
        assert!(err.message.starts_with("expected `?`"), "{err}");
    }

    #[test]
    fn parses_choices_to_several_peers() {
        let text = "rec t. +{b!l1(). c!l2(). t, c!l2(). b!l1(). end}";
        let t = LocalType::parse(text).unwrap();
        assert_eq!(t.to_string(), text);
        let LocalType::Rec(_, body) = &t else {
            panic!("expected a recursion: {t:?}");
        };
        assert!(matches!(&**body, LocalType::Select { branches } if branches.len() == 2));
        let fsm = t.to_fsm("a").unwrap();
        assert_eq!(fsm.state_count(), 4);
        let peers: Vec<&str> = fsm
            .transitions(0)
            .iter()
            .map(|t| t.action.peer.as_str())
            .collect();
        assert_eq!(peers, ["b", "c"]);
        assert_eq!(
            LocalType::parse("+{b!x(). end, c!x(). end}")
                .unwrap()
                .to_fsm("a"),
            Err(crate::LocalTypeError::DuplicateLabel("x".into()))
        );
    }
}
