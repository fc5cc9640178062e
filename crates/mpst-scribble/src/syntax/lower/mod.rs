//! Lowering a checked syntax tree to [`GlobalProtocol`]s.
//!
//! - A sequence becomes nested continuations; whatever follows a `choice` is appended to
//!   every branch, and whatever follows a `rec` block becomes what its body does when it
//!   does not `continue`.
//! - A multicast `from A to B, C` becomes one message per receiver, in order.
//! - `do P(A, B)` inlines `P`'s body with its roles replaced by the arguments. A `do`
//!   that reaches a call already being inlined (same protocol, same roles; direct or
//!   mutual recursion) becomes `continue` to a `rec` wrapped around that inlining; it
//!   must be in tail position, as a global type cannot express anything else.
//! - Recursion variables are renamed (`X` to `X_2`) when a binding would capture a
//!   variable of an enclosing `rec`, so appending continuations never changes meaning.
//! - Annotations are dropped. Spans stay those of the source text where a node was
//!   written (inside the callee for inlined nodes); a `choice` spans `choice at A`.
//!
//! Appending continuations copies them, so the size of the result is bounded by
//! [`MAX_NODES`]; larger expansions are reported instead of exhausting memory.

use std::borrow::Cow;
use std::collections::HashMap;

use mpst_fsm::{Message, Payload};

use crate::diagnostic::{Diagnostic, ErrorKind};
use crate::syntax::ast::{Block, Interaction, InteractionKind, Module, Protocol};
use crate::{Global, GlobalProtocol, Name, Span};

/// The largest number of nodes a lowered protocol may have.
pub const MAX_NODES: usize = 100_000;

/// How deep `do` inlining may nest.
pub const MAX_INLINE_DEPTH: usize = 64;

/// Lowers every protocol of a module that [`super::check`] accepted. A problem that
/// only inlining reveals (non-tail recursive `do`, blow-up past [`MAX_NODES`]) is an
/// [`ErrorKind::Unsupported`] diagnostic.
pub fn lower(module: &Module) -> Result<Vec<GlobalProtocol>, Vec<Diagnostic>> {
    let mut protocols = HashMap::new();
    for protocol in &module.protocols {
        protocols
            .entry(protocol.name.text.as_str())
            .or_insert(protocol);
    }
    let mut lowered = Vec::new();
    let mut diagnostics = Vec::new();
    for protocol in &module.protocols {
        let mut lowerer = Lowerer {
            protocols: &protocols,
            frames: Vec::new(),
            in_scope: Vec::new(),
            next_id: 0,
            nodes: 0,
            root: protocol,
            diagnostics: &mut diagnostics,
        };
        if let Ok(global) = lowerer.protocol(protocol) {
            lowered.push(GlobalProtocol {
                name: protocol.name.clone(),
                roles: protocol.roles.clone(),
                body: global,
            });
        }
    }
    if diagnostics.is_empty() {
        Ok(lowered)
    } else {
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        Err(diagnostics)
    }
}

/// Lowering of the current protocol stopped; the diagnostic is recorded.
struct Stop;

/// A lowered continuation, its size, and an identity used to recognise tail calls.
#[derive(Clone)]
struct Cont {
    global: Global,
    size: usize,
    id: usize,
}

/// One protocol being inlined.
struct Frame<'m> {
    protocol: &'m str,
    /// Parameter role -> argument role.
    subst: Vec<(&'m str, String)>,
    /// The argument roles, in the callee's parameter order (the call's identity).
    args: Vec<String>,
    /// The variable a recursive call continues to.
    var: Name,
    used: bool,
    /// The identity of the continuation the inlining was given.
    cont_id: usize,
    /// Source recursion variable -> lowered name.
    vars: Vec<(&'m str, String)>,
}

struct Lowerer<'a, 'm> {
    protocols: &'a HashMap<&'m str, &'m Protocol>,
    frames: Vec<Frame<'m>>,
    /// Lowered recursion variables bound around the current point.
    in_scope: Vec<String>,
    next_id: usize,
    nodes: usize,
    root: &'m Protocol,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl<'m> Lowerer<'_, 'm> {
    fn protocol(&mut self, protocol: &'m Protocol) -> Result<Global, Stop> {
        let end = self.cont(Global::End, 1);
        let args = protocol.roles.iter().map(|r| r.text.clone()).collect();
        self.inline(protocol, args, &protocol.name, Cow::Owned(end))
            .map(|(global, _)| global)
    }

    fn cont(&mut self, global: Global, size: usize) -> Cont {
        self.next_id += 1;
        Cont {
            global,
            size,
            id: self.next_id,
        }
    }

    fn stop(&mut self, kind: ErrorKind, span: Span, message: String) -> Stop {
        self.diagnostics.push(Diagnostic::new(kind, span, message));
        Stop
    }

    /// Counts `n` new nodes against the budget.
    fn grow(&mut self, n: usize) -> Result<(), Stop> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            let span = self.root.name.span;
            let message = format!(
                "protocol `{}` is too large once `do` and the continuations of `choice` are \
                 expanded (more than {MAX_NODES} interactions)",
                self.root.name.text
            );
            return Err(self.stop(ErrorKind::Unsupported, span, message));
        }
        Ok(())
    }

    /// The continuation as an owned tree, counting a copy against the budget.
    fn take(&mut self, k: Cow<'_, Cont>) -> Result<(Global, usize), Stop> {
        match k {
            Cow::Owned(k) => Ok((k.global, k.size)),
            Cow::Borrowed(k) => {
                self.grow(k.size)?;
                Ok((k.global.clone(), k.size))
            }
        }
    }

    /// A fresh lowered variable name based on `base`, distinct from those in scope.
    fn fresh(&self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.in_scope.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    fn frame(&self) -> &Frame<'m> {
        &self.frames[self.frames.len() - 1]
    }

    /// `role` as seen from the current inlining.
    fn role(&self, role: &Name) -> Name {
        let text = self
            .frame()
            .subst
            .iter()
            .find(|(param, _)| *param == role.text)
            .map_or_else(|| role.text.clone(), |(_, arg)| arg.clone());
        Name::new(text, role.span)
    }

    /// Inlines `protocol` with `args`, followed by `k`.
    fn inline(
        &mut self,
        protocol: &'m Protocol,
        args: Vec<String>,
        at: &Name,
        k: Cow<'_, Cont>,
    ) -> Result<(Global, usize), Stop> {
        if self.frames.len() >= MAX_INLINE_DEPTH {
            let message = format!("`do` calls nest more than {MAX_INLINE_DEPTH} deep");
            return Err(self.stop(ErrorKind::Unsupported, at.span, message));
        }
        let var = Name::new(self.fresh(&protocol.name.text), at.span);
        let subst = protocol
            .roles
            .iter()
            .map(|r| r.text.as_str())
            .zip(args.iter().cloned())
            .collect();
        self.in_scope.push(var.text.clone());
        self.frames.push(Frame {
            protocol: &protocol.name.text,
            subst,
            args,
            var,
            used: false,
            cont_id: k.id,
            vars: Vec::new(),
        });
        let result = self.seq(&protocol.body, k);
        let frame = self.frames.pop();
        self.in_scope.pop();
        let (body, size) = result?;
        match frame {
            Some(frame) if frame.used => Ok((
                Global::Rec {
                    var: frame.var,
                    body: Box::new(body),
                },
                size + 1,
            )),
            _ => Ok((body, size)),
        }
    }

    /// A block followed by `k`, built from its end so sequences need no deep recursion.
    fn seq(&mut self, block: &'m Block, k: Cow<'_, Cont>) -> Result<(Global, usize), Stop> {
        let items = &block.interactions;
        let Some((last, rest)) = items.split_last() else {
            return self.take(k);
        };
        let (mut global, mut size) = self.interaction(last, k)?;
        for item in rest.iter().rev() {
            let k = self.cont(global, size);
            (global, size) = self.interaction(item, Cow::Owned(k))?;
        }
        Ok((global, size))
    }

    fn interaction(
        &mut self,
        item: &'m Interaction,
        k: Cow<'_, Cont>,
    ) -> Result<(Global, usize), Stop> {
        match &item.kind {
            InteractionKind::Message {
                label,
                payloads,
                from,
                to,
            } => {
                let message = Message::with_payloads(
                    label.text.clone(),
                    payloads
                        .iter()
                        .map(|p| Payload {
                            name: p.name.as_ref().map(|n| n.text.clone()),
                            ty: p.ty.text.clone(),
                        })
                        .collect(),
                );
                let (mut global, mut size) = self.take(k)?;
                self.grow(to.len())?;
                let from = self.role(from);
                for receiver in to.iter().rev() {
                    global = Global::Message {
                        from: from.clone(),
                        to: self.role(receiver),
                        message: message.clone(),
                        span: item.span,
                        cont: Box::new(global),
                    };
                    size += 1;
                }
                Ok((global, size))
            }
            InteractionKind::Choice { at, branches } => {
                self.grow(1)?;
                let mut lowered = Vec::with_capacity(branches.len());
                let mut size = 1;
                if let Some((last, others)) = branches.split_last() {
                    for branch in others {
                        let (global, n) = self.seq(branch, Cow::Borrowed(&*k))?;
                        lowered.push(global);
                        size += n;
                    }
                    let (global, n) = self.seq(last, k)?;
                    lowered.push(global);
                    size += n;
                }
                Ok((
                    Global::Choice {
                        at: self.role(at),
                        branches: lowered,
                        span: Span::new(item.span.start, at.span.end),
                    },
                    size,
                ))
            }
            InteractionKind::Rec { var, body } => {
                self.grow(1)?;
                let lowered = self.fresh(&var.text);
                self.in_scope.push(lowered.clone());
                let frame = self.frames.len() - 1;
                self.frames[frame].vars.push((&var.text, lowered.clone()));
                let result = self.seq(body, k);
                self.frames[frame].vars.pop();
                self.in_scope.pop();
                let (body, size) = result?;
                Ok((
                    Global::Rec {
                        var: Name::new(lowered, var.span),
                        body: Box::new(body),
                    },
                    size + 1,
                ))
            }
            InteractionKind::Continue { var } => {
                self.grow(1)?;
                let bound = self
                    .frame()
                    .vars
                    .iter()
                    .rev()
                    .find(|(source, _)| *source == var.text)
                    .map(|(_, lowered)| lowered.clone());
                match bound {
                    Some(lowered) => Ok((Global::Continue(Name::new(lowered, var.span)), 1)),
                    None => {
                        let message = format!("`continue {}` is not inside `rec`", var.text);
                        Err(self.stop(ErrorKind::UnboundVariable, var.span, message))
                    }
                }
            }
            InteractionKind::Do {
                protocol, roles, ..
            } => self.do_(item, protocol, roles, k),
        }
    }

    fn do_(
        &mut self,
        item: &Interaction,
        protocol: &Name,
        roles: &[Name],
        k: Cow<'_, Cont>,
    ) -> Result<(Global, usize), Stop> {
        let args: Vec<String> = roles.iter().map(|r| self.role(r).text).collect();
        let active = self
            .frames
            .iter()
            .position(|f| f.protocol == protocol.text && f.args == args);
        if let Some(index) = active {
            if self.frames[index].cont_id != k.id {
                let message = format!(
                    "recursive `do {}` must be the last interaction of the protocol it \
                     recurses into (a global type cannot return from recursion)",
                    protocol.text
                );
                return Err(self.stop(ErrorKind::Unsupported, item.span, message));
            }
            self.grow(1)?;
            let frame = &mut self.frames[index];
            frame.used = true;
            return Ok((
                Global::Continue(Name::new(frame.var.text.clone(), protocol.span)),
                1,
            ));
        }
        let Some(callee) = self.protocols.get(protocol.text.as_str()).copied() else {
            let message = format!("no protocol named `{}` in this file", protocol.text);
            return Err(self.stop(ErrorKind::UnknownProtocol, protocol.span, message));
        };
        if callee.roles.len() != args.len() {
            let message = format!(
                "protocol `{}` takes {} roles but {} were given",
                protocol.text,
                callee.roles.len(),
                args.len()
            );
            return Err(self.stop(ErrorKind::ArityMismatch, item.span, message));
        }
        self.inline(callee, args, protocol, k)
    }
}
