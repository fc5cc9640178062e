//! Binding checks on the syntax tree: every role, recursion variable and protocol a
//! protocol mentions must be declared, `do` must pass as many roles as the callee takes,
//! and `continue` must end its block. Every problem is reported, not just the first.

use std::collections::HashMap;

use crate::Name;
use crate::diagnostic::{Diagnostic, ErrorKind};
use crate::syntax::ast::{Block, InteractionKind, Module, Protocol};

/// All binding errors of `module`, in source order.
pub fn check(module: &Module) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut table: HashMap<&str, &Protocol> = HashMap::new();
    for protocol in &module.protocols {
        match table.get(protocol.name.text.as_str()) {
            Some(first) => diagnostics.push(
                Diagnostic::new(
                    ErrorKind::DuplicateProtocol,
                    protocol.name.span,
                    format!("protocol `{}` is declared twice", protocol.name.text),
                )
                .with_label(first.name.span, "first declared here"),
            ),
            None => {
                table.insert(&protocol.name.text, protocol);
            }
        }
    }
    for protocol in &module.protocols {
        let mut checker = Checker {
            protocol,
            table: &table,
            vars: Vec::new(),
            diagnostics: &mut diagnostics,
        };
        checker.roles();
        checker.block(&protocol.body);
    }
    diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
    diagnostics
}

/// Finds the first earlier name equal to each name and reports the repeats.
fn duplicates(names: &[Name]) -> Vec<(&Name, &Name)> {
    let mut seen: HashMap<&str, &Name> = HashMap::new();
    let mut repeats = Vec::new();
    for name in names {
        match seen.get(name.text.as_str()) {
            Some(first) => repeats.push((*first, name)),
            None => {
                seen.insert(&name.text, name);
            }
        }
    }
    repeats
}

/// `note`, followed by "did you mean `X`?" when one candidate is a likely typo of
/// `wrong`: the same up to case, or at most one edit away (for names of 3+ characters).
fn with_suggestion(note: String, wrong: &str, candidates: &[&str]) -> String {
    let close = candidates.iter().find(|c| {
        c.eq_ignore_ascii_case(wrong) || (wrong.chars().count() >= 3 && within_one_edit(c, wrong))
    });
    match close {
        Some(c) => format!("{note}; did you mean `{c}`?"),
        None => note,
    }
}

/// Whether `a` becomes `b` by at most one insertion, deletion or substitution.
fn within_one_edit(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let prefix = short.iter().zip(&long).take_while(|(x, y)| x == y).count();
    if prefix == short.len() {
        true
    } else if short.len() == long.len() {
        short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

struct Checker<'a, 'm> {
    protocol: &'m Protocol,
    table: &'a HashMap<&'m str, &'m Protocol>,
    /// The recursion variables in scope, innermost last.
    vars: Vec<&'m str>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl<'m> Checker<'_, 'm> {
    fn roles(&mut self) {
        for (first, repeat) in duplicates(&self.protocol.roles) {
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::DuplicateRole,
                    repeat.span,
                    format!(
                        "role `{}` is declared twice in protocol `{}`",
                        repeat.text, self.protocol.name.text
                    ),
                )
                .with_label(first.span, "first declared here"),
            );
        }
    }

    fn role(&mut self, role: &Name) {
        if self.protocol.roles.iter().any(|r| r.text == role.text) {
            return;
        }
        let mut declared: Vec<&str> = Vec::new();
        for r in &self.protocol.roles {
            if !declared.contains(&r.text.as_str()) {
                declared.push(&r.text);
            }
        }
        self.diagnostics.push(
            Diagnostic::new(
                ErrorKind::UnboundRole,
                role.span,
                format!(
                    "role `{}` is not declared in protocol `{}`",
                    role.text, self.protocol.name.text
                ),
            )
            .with_label(self.protocol.name.span, "protocol declared here")
            .with_note(with_suggestion(
                format!("declared roles: {}", declared.join(", ")),
                &role.text,
                &declared,
            )),
        );
    }

    fn block(&mut self, block: &'m Block) {
        let mut after_continue: Option<&Name> = None;
        for interaction in &block.interactions {
            if let Some(var) = after_continue.take() {
                self.diagnostics.push(
                    Diagnostic::new(
                        ErrorKind::Syntax,
                        interaction.span,
                        format!(
                            "expected `}}` after `continue {}`: a `continue` must be the last \
                             interaction of its block",
                            var.text
                        ),
                    )
                    .with_label(var.span, "the block continues here"),
                );
            }
            match &interaction.kind {
                InteractionKind::Message { from, to, .. } => {
                    self.role(from);
                    for receiver in to {
                        self.role(receiver);
                    }
                }
                InteractionKind::Choice { at, branches } => {
                    self.role(at);
                    for branch in branches {
                        self.block(branch);
                    }
                }
                InteractionKind::Rec { var, body } => {
                    self.vars.push(&var.text);
                    self.block(body);
                    self.vars.pop();
                }
                InteractionKind::Continue { var } => {
                    if !self.vars.contains(&var.text.as_str()) {
                        self.diagnostics.push(Diagnostic::new(
                            ErrorKind::UnboundVariable,
                            var.span,
                            format!(
                                "`continue {}` is not inside a `rec {}` block",
                                var.text, var.text
                            ),
                        ));
                    }
                    after_continue = Some(var);
                }
                InteractionKind::Do {
                    protocol,
                    roles,
                    args_span,
                } => self.do_(protocol, roles, *args_span),
            }
        }
    }

    fn do_(&mut self, protocol: &Name, roles: &[Name], args_span: crate::Span) {
        for role in roles {
            self.role(role);
        }
        for (first, repeat) in duplicates(roles) {
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::DuplicateRole,
                    repeat.span,
                    format!(
                        "role `{}` is passed twice to `do {}`",
                        repeat.text, protocol.text
                    ),
                )
                .with_label(first.span, "first passed here"),
            );
        }
        let Some(callee) = self.table.get(protocol.text.as_str()) else {
            let mut diagnostic = Diagnostic::new(
                ErrorKind::UnknownProtocol,
                protocol.span,
                format!("no protocol named `{}` in this file", protocol.text),
            );
            let mut known: Vec<&str> = self.table.keys().copied().collect();
            if !known.is_empty() {
                known.sort_unstable();
                diagnostic = diagnostic.with_note(with_suggestion(
                    format!("protocols: {}", known.join(", ")),
                    &protocol.text,
                    &known,
                ));
            }
            self.diagnostics.push(diagnostic);
            return;
        };
        if callee.roles.len() != roles.len() {
            let expected: Vec<&str> = callee.roles.iter().map(|r| r.text.as_str()).collect();
            self.diagnostics.push(
                Diagnostic::new(
                    ErrorKind::ArityMismatch,
                    args_span,
                    format!(
                        "protocol `{}` takes {} role{} ({}) but {} {} given",
                        protocol.text,
                        expected.len(),
                        if expected.len() == 1 { "" } else { "s" },
                        expected.join(", "),
                        roles.len(),
                        if roles.len() == 1 { "was" } else { "were" },
                    ),
                )
                .with_label(callee.name.span, "protocol declared here"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_apart() {
        assert!(within_one_edit("Loop", "Lop"));
        assert!(within_one_edit("Lop", "Loop"));
        assert!(within_one_edit("Loop", "Loap"));
        assert!(within_one_edit("Loop", "Loop"));
        assert!(!within_one_edit("Loop", "Lp"));
        assert!(!within_one_edit("Loop", "Lopa"));
        assert!(!within_one_edit("abc", "xyz"));
    }

    #[test]
    fn suggestions_only_for_likely_typos() {
        assert_eq!(
            with_suggestion("n".into(), "sub", &["Main", "Sub"]),
            "n; did you mean `Sub`?"
        );
        assert_eq!(with_suggestion("n".into(), "C", &["A", "B"]), "n");
        assert_eq!(with_suggestion("n".into(), "Xyz", &["Abc"]), "n");
    }
}
