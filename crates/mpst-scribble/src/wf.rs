//! Well-formedness of global protocols, with nuscr's error classes.
//!
//! [`check`] reports, all at once:
//! - duplicate and unbound roles, reflexive messages ([`ErrorKind::ReflexiveMessage`]);
//! - unbound recursion variables and unguarded ones: `rec X { continue X; }`, or any path
//!   from `rec X` to `continue X` without an interaction;
//! - choices that are not directed: every branch must start (looking through `rec` and
//!   nested choices at the same role) with a message from the chooser and their labels
//!   must be pairwise distinct (across all receivers: a choice is named by its label).
//!   The first messages may go to different receivers; each receiver learns the choice
//!   from the first message it gets, and every other role must be able to merge its
//!   branches;
//! - roles whose projections of the branches of a choice cannot be merged
//!   ([`ErrorKind::Unmergeable`]), found by projecting every role.
//!
//! A declared role that takes part in no interaction is not an error (nuscr accepts it
//! too): its projection is `end`. [`unused_roles`] lists such roles so tools can warn.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::project::projection_errors;
use crate::{Diagnostic, ErrorKind, Global, GlobalProtocol, Name, Span};

/// Every well-formedness error of `protocol`; empty when it is well-formed and every
/// role can be projected.
///
/// Structural errors (roles, variables, directedness) are reported, in source order;
/// projection errors (unmergeable roles) only when there is no structural error, since
/// they would mostly repeat them.
pub fn check(protocol: &GlobalProtocol) -> Vec<Diagnostic> {
    let mut errors = structural(protocol);
    if errors.is_empty() {
        errors = projection_errors(protocol);
    }
    errors.sort_by_key(|d| (d.span.start, d.span.end));
    errors
}

/// The declared roles of `protocol` that take part in no interaction, in declaration
/// order. Not an error: such a role's projection is `end`.
pub fn unused_roles(protocol: &GlobalProtocol) -> Vec<&Name> {
    let mut used = FxHashSet::default();
    let mut stack = vec![&protocol.body];
    while let Some(g) = stack.pop() {
        match g {
            Global::End | Global::Continue(_) => {}
            Global::Message { from, to, cont, .. } => {
                used.insert(from.text.as_str());
                used.insert(to.text.as_str());
                stack.push(cont);
            }
            Global::Choice { at, branches, .. } => {
                used.insert(at.text.as_str());
                stack.extend(branches);
            }
            Global::Rec { body, .. } => stack.push(body),
        }
    }
    protocol
        .roles
        .iter()
        .filter(|r| !used.contains(r.text.as_str()))
        .collect()
}

/// Where a branch starts: its first message, or whatever comes first.
pub(crate) fn first_span(g: &Global) -> Option<Span> {
    match g {
        Global::End => None,
        Global::Message { span, .. } => Some(*span),
        Global::Choice { span, .. } => Some(*span),
        Global::Rec { var, body } => first_span(body).or(Some(var.span)),
        Global::Continue(name) => Some(name.span),
    }
}

/// The errors that need no projection, in source order.
pub(crate) fn structural(protocol: &GlobalProtocol) -> Vec<Diagnostic> {
    let mut checker = Checker {
        roles: FxHashMap::default(),
        role_list: protocol
            .roles
            .iter()
            .map(|r| format!("`{}`", r.text))
            .collect::<Vec<_>>()
            .join(", "),
        errors: Vec::new(),
    };
    for role in &protocol.roles {
        if let Some(first) = checker.roles.get(role.text.as_str()) {
            checker.errors.push(
                Diagnostic::new(
                    ErrorKind::DuplicateRole,
                    role.span,
                    format!("role `{}` is declared twice", role.text),
                )
                .with_label(first.span, "first declared here"),
            );
        } else {
            checker.roles.insert(role.text.as_str(), role);
        }
    }
    let mut env = Vec::new();
    checker.walk(&protocol.body, &mut env, 0);
    checker.errors
}

/// A first message of a choice branch: sender, receiver, label, where.
type First<'g> = (&'g Name, &'g Name, &'g str, Span);

struct Checker<'g> {
    roles: FxHashMap<&'g str, &'g Name>,
    role_list: String,
    errors: Vec<Diagnostic>,
}

impl<'g> Checker<'g> {
    fn role(&mut self, name: &Name) {
        if !self.roles.contains_key(name.text.as_str()) {
            self.errors.push(
                Diagnostic::new(
                    ErrorKind::UnboundRole,
                    name.span,
                    format!("role `{}` is not declared by this protocol", name.text),
                )
                .with_note(format!("the declared roles are {}", self.role_list)),
            );
        }
    }

    /// `env`: recursion variables in scope with the number of messages on the path
    /// when they were bound; `seen`: messages on the path so far.
    fn walk(&mut self, g: &'g Global, env: &mut Vec<(&'g Name, u32)>, seen: u32) {
        let mut g = g;
        let mut seen = seen;
        while let Global::Message {
            from,
            to,
            span,
            cont,
            ..
        } = g
        {
            self.role(from);
            self.role(to);
            if from.text == to.text {
                self.errors.push(
                    Diagnostic::new(
                        ErrorKind::ReflexiveMessage,
                        *span,
                        format!("role `{}` sends a message to itself", from.text),
                    )
                    .with_note("a message must go from one role to a different role"),
                );
            }
            seen += 1;
            g = cont;
        }
        match g {
            Global::End | Global::Message { .. } => {}
            Global::Continue(name) => match env.iter().rev().find(|(v, _)| v.text == name.text) {
                None => self.errors.push(Diagnostic::new(
                    ErrorKind::UnboundVariable,
                    name.span,
                    format!(
                        "`continue {}` has no enclosing `rec {}`",
                        name.text, name.text
                    ),
                )),
                Some(&(binder, bound)) if bound == seen => self.errors.push(
                    Diagnostic::new(
                        ErrorKind::UnguardedVariable,
                        name.span,
                        format!(
                            "`continue {}` is reached without any interaction since `rec {}`",
                            name.text, name.text
                        ),
                    )
                    .with_label(binder.span, "the recursion starts here")
                    .with_note("every path through a recursion must contain a message"),
                ),
                Some(_) => {}
            },
            Global::Rec { var, body } => {
                env.push((var, seen));
                self.walk(body, env, seen);
                env.pop();
            }
            Global::Choice { at, branches, span } => {
                self.role(at);
                self.directed(at, branches, *span, env, seen);
                for branch in branches {
                    self.walk(branch, env, seen);
                }
            }
        }
    }

    fn directed(
        &mut self,
        at: &'g Name,
        branches: &'g [Global],
        span: Span,
        env: &[(&'g Name, u32)],
        seen: u32,
    ) {
        if branches.is_empty() {
            self.errors.push(Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                "a choice needs at least one branch",
            ));
            return;
        }
        // The first first message, and the first message of each label: looking a
        // label up is constant time, so wide choices are checked in linear time.
        let mut first0: Option<First<'g>> = None;
        let mut labels: FxHashMap<&'g str, Span> = FxHashMap::default();
        for branch in branches {
            let mut firsts = Vec::new();
            let mut inner = Vec::new();
            if let Err(e) = self.firsts(at, branch, span, env, seen, &mut inner, &mut firsts) {
                if let Some(e) = e {
                    self.errors
                        .push(e.with_label(at.span, "the choice is made here"));
                }
                return;
            }
            for first in firsts {
                if let Some(e) = self.clash(at, first0, &labels, first) {
                    self.errors
                        .push(e.with_label(at.span, "the choice is made here"));
                    return;
                }
                first0.get_or_insert(first);
                labels.insert(first.2, first.3);
            }
        }
    }

    /// Why `first` cannot start a branch of the choice at `at` given the earlier ones.
    fn clash(
        &self,
        at: &Name,
        first0: Option<First<'g>>,
        labels: &FxHashMap<&'g str, Span>,
        first: First<'g>,
    ) -> Option<Diagnostic> {
        let (from, _to, label, span) = first;
        if from.text != at.text {
            return Some(Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                format!(
                    "this branch starts with a message from `{}`, but `{}` makes the choice",
                    from.text, at.text
                ),
            ));
        }
        // Branches may start with messages to different receivers: each receiver learns
        // the choice from the first message it gets, and projection checks that every
        // other role can tell the branches apart (or behaves alike in all of them).
        first0?;
        let dup = labels.get(label)?;
        Some(
            Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                format!("label `{label}` starts two branches of this choice"),
            )
            .with_label(*dup, "the other branch starts here")
            .with_note("the receiver tells branches apart by their first label"),
        )
    }

    /// Collects the first messages of `g`, a branch of the choice at `at`. `Err(None)`
    /// when the branch starts with an unguarded `continue`, which `walk` reports.
    #[allow(clippy::too_many_arguments)]
    fn firsts(
        &self,
        at: &'g Name,
        g: &'g Global,
        span: Span,
        env: &[(&'g Name, u32)],
        seen: u32,
        inner: &mut Vec<&'g str>,
        out: &mut Vec<First<'g>>,
    ) -> Result<(), Option<Diagnostic>> {
        match g {
            Global::Message {
                from,
                to,
                message,
                span,
                ..
            } => {
                out.push((from, to, message.label.as_str(), *span));
                Ok(())
            }
            Global::Rec { var, body } => {
                inner.push(var.text.as_str());
                let r = self.firsts(at, body, span, env, seen, inner, out);
                inner.pop();
                r
            }
            Global::Choice {
                at: nested,
                branches,
                span: nested_span,
            } => {
                if nested.text != at.text {
                    return Err(Some(Diagnostic::new(
                        ErrorKind::UndirectedChoice,
                        *nested_span,
                        format!(
                            "this branch starts with a choice at `{}`, but `{}` makes the enclosing choice",
                            nested.text, at.text
                        ),
                    )));
                }
                for branch in branches {
                    self.firsts(at, branch, *nested_span, env, seen, inner, out)?;
                }
                Ok(())
            }
            Global::Continue(name) => {
                let unguarded = inner.contains(&name.text.as_str())
                    || env
                        .iter()
                        .rev()
                        .find(|(v, _)| v.text == name.text)
                        .is_none_or(|&(_, bound)| bound == seen);
                if unguarded {
                    return Err(None);
                }
                Err(Some(
                    Diagnostic::new(
                        ErrorKind::UndirectedChoice,
                        name.span,
                        format!(
                            "this branch starts with `continue {}` instead of a message from `{}`",
                            name.text, at.text
                        ),
                    )
                    .with_note(format!(
                        "a branch may start with `continue {}` when `rec {}` starts with a \
                         message, or with a choice that `{}` makes too and that a message \
                         separates from this one (the branch then takes that choice's \
                         branches, as long as the copies keep the protocol within twice its \
                         size)",
                        name.text, name.text, at.text
                    )),
                ))
            }
            Global::End => Err(Some(Diagnostic::new(
                ErrorKind::UndirectedChoice,
                span,
                format!(
                    "a branch of this choice is empty; it must start with a message from `{}`",
                    at.text
                ),
            ))),
        }
    }
}
