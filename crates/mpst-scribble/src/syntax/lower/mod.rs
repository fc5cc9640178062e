//! Lowering a checked syntax tree to [`GlobalProtocol`]s.
//!
//! - A sequence becomes nested continuations; whatever follows a `choice` is appended to
//!   every branch, and whatever follows a `rec` block becomes what its body does when it
//!   does not `continue`.
//! - A multicast `from A to B, C` becomes one message per receiver, in order.
//! - `do P(A, B)` inlines `P`'s body with its roles replaced by the arguments. A `do`
//!   that reaches a call already being inlined (same protocol, same roles; direct or
//!   mutual recursion) becomes `continue` to a `rec` wrapped around that inlining. If
//!   it is not in tail position and the callee can finish, the protocol counts its
//!   pending calls, which no global type can express: unsupported (see `returns.rs`).
//! - Interactions after a `rec` or `do` that never finishes (no path goes on with
//!   them) are reported as unreachable, as scribble-java does.
//! - Recursion variables are renamed (`X` to `X_2`) when a binding would capture a
//!   variable of an enclosing `rec`, so appending continuations never changes meaning.
//! - Annotations are dropped. Spans stay those of the source text where a node was
//!   written (inside the callee for inlined nodes); a `choice` spans `choice at A`.
//!
//! Appending continuations copies them, so the size of the result is bounded by
//! [`MAX_NODES`] per protocol and [`MAX_FILE_NODES`] per file, and its depth (the longest path, which sequences lengthen) by
//! [`MAX_DEPTH`]; larger expansions are reported instead of exhausting memory or the
//! stack of whoever walks the result recursively.

mod returns;
mod tree;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use mpst_fsm::{Message, Payload};

use crate::diagnostic::{Diagnostic, ErrorKind};
use crate::syntax::ast::{Block, Interaction, InteractionKind, Module, Protocol};
use crate::{Global, GlobalProtocol, Name, Span};
use tree::Tree;

/// The largest number of nodes a lowered protocol may have.
pub const MAX_NODES: usize = 200_000;

/// The largest number of nodes the lowering of a whole file may build (counting the
/// protocols that turn out too large), so a file of many exploding protocols is
/// rejected in bounded time.
pub const MAX_FILE_NODES: usize = 1_000_000;

/// The longest path (consecutive plus nested interactions) a lowered protocol may have.
pub const MAX_DEPTH: usize = 10_000;

/// How deeply choices, recursions and `do` calls may nest once `do` is inlined.
pub const MAX_LOWERED_NESTING: usize = 256;

/// Lowers every protocol of a module that [`super::check`] accepted. A problem that
/// only inlining reveals (non-tail recursive `do`, expansion past [`MAX_NODES`],
/// [`MAX_DEPTH`] or [`MAX_LOWERED_NESTING`]) is an [`ErrorKind::Unsupported`]
/// diagnostic.
pub fn lower(module: &Module) -> Result<Vec<GlobalProtocol>, Vec<Diagnostic>> {
    let mut protocols = HashMap::new();
    for protocol in &module.protocols {
        protocols
            .entry(protocol.name.text.as_str())
            .or_insert(protocol);
    }
    let mut lowered = Vec::new();
    let mut diagnostics = Vec::new();
    let mut file_nodes = 0;
    let mut finishing = None;
    let mut unreachable = HashSet::new();
    for protocol in &module.protocols {
        if file_nodes > MAX_FILE_NODES {
            diagnostics.push(Diagnostic::new(
                ErrorKind::Unsupported,
                protocol.name.span,
                format!(
                    "not lowered: the protocols before `{}` already expand to more than \
                     {MAX_FILE_NODES} nodes in all",
                    protocol.name.text
                ),
            ));
            break;
        }
        let mut lowerer = Lowerer {
            protocols: &protocols,
            frames: Vec::new(),
            in_scope: Vec::new(),
            next_id: 0,
            nodes: 0,
            nesting: 0,
            taken: Vec::new(),
            root: protocol,
            finishing: &mut finishing,
            unreachable: &mut unreachable,
            diagnostics: &mut diagnostics,
        };
        let result = lowerer.protocol(protocol);
        file_nodes += lowerer.nodes;
        if let Ok(body) = result {
            lowered.push(GlobalProtocol {
                name: protocol.name.clone(),
                roles: protocol.roles.clone(),
                body,
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

/// A lowered continuation and an identity used to recognise tail calls.
#[derive(Clone)]
struct Cont {
    tree: Tree,
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
    nesting: usize,
    /// Per continuation id: whether some path went on with it.
    taken: Vec<bool>,
    root: &'m Protocol,
    /// The protocols that can finish, computed when first needed.
    finishing: &'a mut Option<HashSet<&'m str>>,
    /// Where unreachable interactions were reported (an inlined protocol is lowered
    /// once per call).
    unreachable: &'a mut HashSet<Span>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

impl<'m> Lowerer<'_, 'm> {
    fn protocol(&mut self, protocol: &'m Protocol) -> Result<Global, Stop> {
        let end = self.cont(Tree::end());
        let args = protocol.roles.iter().map(|r| r.text.clone()).collect();
        let tree = self.inline(protocol, args, &protocol.name, Cow::Owned(end))?;
        Ok(tree.global)
    }

    fn cont(&mut self, tree: Tree) -> Cont {
        self.next_id += 1;
        self.taken.push(false);
        Cont {
            tree,
            id: self.next_id,
        }
    }

    fn was_taken(&self, id: usize) -> bool {
        self.taken.get(id - 1).copied().unwrap_or(true)
    }

    fn stop(&mut self, kind: ErrorKind, span: Span, message: String) -> Stop {
        self.diagnostics.push(Diagnostic::new(kind, span, message));
        Stop
    }

    fn too_large(&mut self, what: String) -> Stop {
        let span = self.root.name.span;
        let message = format!(
            "protocol `{}` is too large once `do` calls are inlined and what follows each \
             `choice` is copied into its branches: {what}",
            self.root.name.text
        );
        self.stop(ErrorKind::Unsupported, span, message)
    }

    /// Counts `n` more nodes against the budget.
    fn grow(&mut self, n: usize) -> Result<(), Stop> {
        self.nodes += n;
        if self.nodes > MAX_NODES {
            return Err(self.too_large(format!("more than {MAX_NODES} nodes")));
        }
        Ok(())
    }

    /// A new node above subtrees of total `size` and greatest `depth`.
    fn node(&mut self, global: Global, size: usize, depth: usize) -> Result<Tree, Stop> {
        self.grow(1)?;
        if depth + 1 > MAX_DEPTH {
            return Err(self.too_large(format!("more than {MAX_DEPTH} interactions in a row")));
        }
        Ok(Tree {
            global,
            size: size + 1,
            depth: depth + 1,
        })
    }

    /// The continuation as an owned tree, counting a copy against the budget.
    fn take(&mut self, k: Cow<'_, Cont>) -> Result<Tree, Stop> {
        if let Some(taken) = self.taken.get_mut(k.id - 1) {
            *taken = true;
        }
        match k {
            Cow::Owned(k) => Ok(k.tree),
            Cow::Borrowed(k) => {
                self.grow(k.tree.size)?;
                Ok(k.tree.copy())
            }
        }
    }

    /// Runs `f` one nesting level deeper, within [`MAX_LOWERED_NESTING`].
    fn nested<T>(
        &mut self,
        span: Span,
        f: impl FnOnce(&mut Self) -> Result<T, Stop>,
    ) -> Result<T, Stop> {
        if self.nesting >= MAX_LOWERED_NESTING {
            let message = format!(
                "choices, recursions and `do` calls nest more than {MAX_LOWERED_NESTING} \
                 deep once `do` calls are inlined"
            );
            return Err(self.stop(ErrorKind::Unsupported, span, message));
        }
        self.nesting += 1;
        let result = f(self);
        self.nesting -= 1;
        result
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
    ) -> Result<Tree, Stop> {
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
        let result = self.nested(at.span, |this| this.seq(&protocol.body, k));
        let frame = self.frames.pop();
        self.in_scope.pop();
        let body = result?;
        match frame {
            Some(frame) if frame.used => self.node(
                Global::Rec {
                    var: frame.var,
                    body: Box::new(body.global),
                },
                body.size,
                body.depth,
            ),
            _ => Ok(body),
        }
    }

    /// A block followed by `k`, built from its end so sequences need no deep recursion.
    fn seq(&mut self, block: &'m Block, k: Cow<'_, Cont>) -> Result<Tree, Stop> {
        let Some((last, rest)) = block.interactions.split_last() else {
            return self.take(k);
        };
        let mut tree = self.interaction(last, k)?;
        let mut next = last;
        for item in rest.iter().rev() {
            let k = self.cont(tree);
            let id = k.id;
            tree = self.interaction(item, Cow::Owned(k))?;
            if !self.was_taken(id) {
                self.unreachable(item, next);
            }
            next = item;
        }
        Ok(tree)
    }

    fn interaction(&mut self, item: &'m Interaction, k: Cow<'_, Cont>) -> Result<Tree, Stop> {
        match &item.kind {
            InteractionKind::Message {
                label,
                payloads,
                from,
                to,
            } => {
                let payloads = payloads
                    .iter()
                    .map(|p| Payload {
                        name: p.name.as_ref().map(|n| n.text.clone()),
                        ty: crate::sorts::normal_sort(&p.ty.text),
                    })
                    .collect();
                let message = Message::with_payloads(label.text.clone(), payloads);
                let mut tree = self.take(k)?;
                let from = self.role(from);
                for receiver in to.iter().rev() {
                    let global = Global::Message {
                        from: from.clone(),
                        to: self.role(receiver),
                        message: message.clone(),
                        span: item.span,
                        cont: Box::new(tree.global),
                    };
                    tree = self.node(global, tree.size, tree.depth)?;
                }
                Ok(tree)
            }
            InteractionKind::Choice { at, branches } => {
                let mut lowered = Vec::with_capacity(branches.len());
                let (mut size, mut depth) = (0, 0);
                if let Some((last, others)) = branches.split_last() {
                    for branch in others {
                        let k = Cow::Borrowed(&*k);
                        let tree = self.nested(branch.span, |this| this.seq(branch, k))?;
                        size += tree.size;
                        depth = depth.max(tree.depth);
                        lowered.push(tree.global);
                    }
                    let tree = self.nested(last.span, |this| this.seq(last, k))?;
                    size += tree.size;
                    depth = depth.max(tree.depth);
                    lowered.push(tree.global);
                }
                let global = Global::Choice {
                    at: self.role(at),
                    branches: lowered,
                    span: Span::new(item.span.start, at.span.end),
                };
                self.node(global, size, depth)
            }
            InteractionKind::Rec { var, body } => {
                let lowered = self.fresh(&var.text);
                self.in_scope.push(lowered.clone());
                let frame = self.frames.len() - 1;
                self.frames[frame].vars.push((&var.text, lowered.clone()));
                let result = self.nested(body.span, |this| this.seq(body, k));
                self.frames[frame].vars.pop();
                self.in_scope.pop();
                let body = result?;
                let global = Global::Rec {
                    var: Name::new(lowered, var.span),
                    body: Box::new(body.global),
                };
                self.node(global, body.size, body.depth)
            }
            InteractionKind::Continue { var } => {
                let bound = self
                    .frame()
                    .vars
                    .iter()
                    .rev()
                    .find(|(source, _)| *source == var.text)
                    .map(|(_, lowered)| lowered.clone());
                match bound {
                    Some(lowered) => {
                        self.node(Global::Continue(Name::new(lowered, var.span)), 0, 0)
                    }
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

    /// Reports `next`, which follows `item` that never finishes, once per place.
    fn unreachable(&mut self, item: &Interaction, next: &Interaction) {
        if self.unreachable.insert(next.span) {
            self.diagnostics.push(returns::unreachable(item, next));
        }
    }

    /// Whether the protocol named `name` can reach the end of its body.
    fn can_finish(&mut self, name: &str) -> bool {
        let protocols = self.protocols;
        self.finishing
            .get_or_insert_with(|| returns::finishing(protocols))
            .contains(name)
    }

    fn do_(
        &mut self,
        item: &Interaction,
        protocol: &Name,
        roles: &[Name],
        k: Cow<'_, Cont>,
    ) -> Result<Tree, Stop> {
        let args: Vec<String> = roles.iter().map(|r| self.role(r).text).collect();
        let active = self
            .frames
            .iter()
            .position(|f| f.protocol == protocol.text && f.args == args);
        if let Some(index) = active {
            if self.frames[index].cont_id != k.id && self.can_finish(&protocol.text) {
                let diagnostic = returns::counting(item.span, &protocol.text);
                self.diagnostics.push(diagnostic);
                return Err(Stop);
            }
            // In tail position, or the callee never finishes: the call loops back, and
            // what follows, if anything, is reported unreachable by `seq`.
            let frame = &mut self.frames[index];
            frame.used = true;
            let var = Name::new(frame.var.text.clone(), protocol.span);
            return self.node(Global::Continue(var), 0, 0);
        }
        let Some(callee) = self.protocols.get(protocol.text.as_str()).copied() else {
            let message = format!("no protocol named `{}` in this file", protocol.text);
            return Err(self.stop(ErrorKind::UnknownProtocol, protocol.span, message));
        };
        if callee.roles.len() != args.len() {
            let given = args.len();
            let message = format!(
                "protocol `{}` takes {} but {given} {} given",
                protocol.text,
                mpst_fsm::format::count(callee.roles.len(), "role"),
                if given == 1 { "was" } else { "were" }
            );
            return Err(self.stop(ErrorKind::ArityMismatch, item.span, message));
        }
        self.inline(callee, args, protocol, k)
    }
}
