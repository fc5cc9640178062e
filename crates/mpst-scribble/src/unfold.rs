//! Unfolding `continue`-led branches, which a directed choice cannot start with.
//!
//! In `rec X { a() from A to B; choice at A { b() from A to B; continue X; } or
//! { continue X; } }` the second branch means "do `X`'s body again", which starts with
//! `a() from A to B`. The protocol is read as a graph whose `rec` and `continue` nodes
//! are jumps, and written back as a global type in which every branch that jumped back
//! to a message starts with copies of the messages up to the next choice, followed by a
//! jump to that choice: here `rec X { a() from A to B; rec X_1 { choice at A { b() ...;
//! continue X; } or { a() from A to B; continue X_1; } } }`. Both denote the same (regular) tree of
//! interactions, so this accepts every such branch a global type can express: several
//! of them, in nested choices, to an outer `rec`, through inner ones.
//!
//! A branch that jumps back to a choice (no message since that choice: the recursion
//! is unguarded) stays a `continue`, and a `rec X { continue X; }` loop leaves the
//! protocol as it is, so well-formedness reports them as before. A protocol without
//! `continue`-led branches is not touched.
//!
//! The graph has one node per node of the protocol; writing it back visits each once
//! and copies, per `continue`-led branch, the messages from where it jumps to up to the
//! next choice. Both walks go along message sequences by iteration, and recurse only into
//! choices and recursions.

use std::collections::HashSet;

use mpst_fsm::Message;

use crate::{Global, GlobalProtocol, Name, Span};

/// Unfolds the `continue`-led branches of `protocol` (see the module docs).
pub fn continue_led(protocol: &mut GlobalProtocol) {
    if !has_continue_led(&protocol.body) {
        return;
    }
    let mut graph = Graph::default();
    let mut env = Vec::new();
    let Some(root) = graph.build(&protocol.body, &mut env) else {
        return;
    };
    let count = graph.nodes.len();
    let mut writer = Writer {
        names: vec![None; count],
        on_path: vec![false; count],
        target: vec![false; count],
        used: rec_names(&protocol.body),
        graph: &graph,
    };
    for (id, node) in graph.nodes.iter().enumerate() {
        if let Node::Jump { var: Some(var), .. } = node {
            // Outer `rec`s are built first: a node that starts several recursions is
            // named after the outermost.
            if let Some(to) = graph.resolve(id) {
                writer.names[to.node].get_or_insert_with(|| var.clone());
            }
        }
    }
    if let Some(body) = writer.write(root, false) {
        protocol.body = body;
    }
}

/// One node of the protocol read as a graph.
#[derive(Debug)]
enum Node {
    End,
    Message {
        from: Name,
        to: Name,
        message: Message,
        span: Span,
        next: usize,
    },
    Choice {
        at: Name,
        branches: Vec<usize>,
        span: Span,
    },
    /// A `rec X` (with `var`) or a `continue X` (with `at`): goes on at `target`.
    Jump {
        target: usize,
        var: Option<Name>,
        at: Option<Name>,
    },
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
}

/// Where a chain of jumps leads, and the `continue` it started with, if any.
struct Resolved {
    node: usize,
    via: Option<Name>,
}

impl Graph {
    /// Adds `g` (with `env` the enclosing `rec` variables and their nodes); `None` if a
    /// variable is unbound, which the checks before this reported.
    fn build(&mut self, g: &Global, env: &mut Vec<(String, usize)>) -> Option<usize> {
        let mut spine = Vec::new();
        let mut current = g;
        while let Global::Message {
            from,
            to,
            message,
            span,
            cont,
        } = current
        {
            spine.push((from, to, message, *span));
            current = cont;
        }
        let mut next = match current {
            Global::Message { .. } => unreachable!("the loop above consumed messages"),
            Global::End => self.push(Node::End),
            Global::Continue(var) => {
                let (_, target) = env.iter().rev().find(|(v, _)| *v == var.text)?;
                let jump = Node::Jump {
                    target: *target,
                    var: None,
                    at: Some(var.clone()),
                };
                self.push(jump)
            }
            Global::Rec { var, body } => {
                let id = self.push(Node::End);
                env.push((var.text.clone(), id));
                let body = self.build(body, env);
                env.pop();
                self.nodes[id] = Node::Jump {
                    target: body?,
                    var: Some(var.clone()),
                    at: None,
                };
                id
            }
            Global::Choice { at, branches, span } => {
                let branches = branches
                    .iter()
                    .map(|b| self.build(b, env))
                    .collect::<Option<Vec<_>>>()?;
                self.push(Node::Choice {
                    at: at.clone(),
                    branches,
                    span: *span,
                })
            }
        };
        for (from, to, message, span) in spine.into_iter().rev() {
            next = self.push(Node::Message {
                from: from.clone(),
                to: to.clone(),
                message: message.clone(),
                span,
                next,
            });
        }
        Some(next)
    }

    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The message, choice or end a chain of jumps from `id` leads to; `None` for a
    /// loop of jumps (an unguarded recursion).
    fn resolve(&self, mut id: usize) -> Option<Resolved> {
        let mut via = None;
        for _ in 0..=self.nodes.len() {
            match &self.nodes[id] {
                Node::Jump { target, at, .. } => {
                    if via.is_none() {
                        via.clone_from(at);
                    }
                    id = *target;
                }
                _ => return Some(Resolved { node: id, via }),
            }
        }
        None
    }
}

/// Writes the graph back as a global type.
struct Writer<'g> {
    graph: &'g Graph,
    /// The `rec` variable a node is known by, or the fresh one given to it.
    names: Vec<Option<Name>>,
    /// The nodes being written around the current point.
    on_path: Vec<bool>,
    /// The nodes on the path that something jumps back to: they get a `rec`.
    target: Vec<bool>,
    /// Every variable of the protocol, so fresh ones differ.
    used: HashSet<String>,
}

impl Writer<'_> {
    /// Writes the node `id` leads to; `head` if it starts a branch of a choice.
    fn write(&mut self, id: usize, head: bool) -> Option<Global> {
        let graph = self.graph;
        // Messages along the way: (node, whether it is a copy of one on the path).
        let mut spine: Vec<(usize, bool)> = Vec::new();
        let mut resolved = graph.resolve(id)?;
        let mut head = head;
        let last = loop {
            let n = resolved.node;
            match &graph.nodes[n] {
                Node::Message { next, .. } if !self.on_path[n] => {
                    self.on_path[n] = true;
                    spine.push((n, false));
                    resolved = graph.resolve(*next)?;
                    head = false;
                }
                Node::Message { next, .. } if head => {
                    // A branch that jumps back to a message: copies of the messages up
                    // to the next choice, then a jump to it. (Jumping back right after
                    // the first message would be as sound, but a role that learns of
                    // the choice later then sees a recursion where another branch has
                    // a reception, which projection cannot merge.)
                    spine.push((n, true));
                    resolved = graph.resolve(*next)?;
                }
                _ if self.on_path[n] => {
                    self.target[n] = true;
                    let name = self.name(n);
                    let span = resolved.via.as_ref().map_or(name.span, |v| v.span);
                    break Global::Continue(Name::new(name.text, span));
                }
                Node::End => break Global::End,
                Node::Choice { at, branches, span } => {
                    self.on_path[n] = true;
                    let written = branches
                        .iter()
                        .map(|b| self.write(*b, true))
                        .collect::<Option<Vec<_>>>();
                    self.on_path[n] = false;
                    let choice = Global::Choice {
                        at: at.clone(),
                        branches: written?,
                        span: *span,
                    };
                    break self.wrap(n, choice);
                }
                Node::Message { .. } | Node::Jump { .. } => {
                    unreachable!("resolved nodes are not jumps; messages are handled above")
                }
            }
        };
        let mut global = last;
        for (n, copy) in spine.into_iter().rev() {
            let Node::Message {
                from,
                to,
                message,
                span,
                ..
            } = &graph.nodes[n]
            else {
                unreachable!("the spine holds messages");
            };
            global = Global::Message {
                from: from.clone(),
                to: to.clone(),
                message: message.clone(),
                span: *span,
                cont: Box::new(global),
            };
            if !copy {
                self.on_path[n] = false;
                global = self.wrap(n, global);
            }
        }
        Some(global)
    }

    /// `global` (written for node `n`) inside a `rec` if something jumps back to `n`.
    fn wrap(&mut self, n: usize, global: Global) -> Global {
        if !std::mem::take(&mut self.target[n]) {
            return global;
        }
        Global::Rec {
            var: self.name(n),
            body: Box::new(global),
        }
    }

    fn name(&mut self, n: usize) -> Name {
        if let Some(name) = &self.names[n] {
            return name.clone();
        }
        let mut i = 1;
        let text = loop {
            let text = format!("X_{i}");
            if self.used.insert(text.clone()) {
                break text;
            }
            i += 1;
        };
        let name = Name::new(text, Span::default());
        self.names[n] = Some(name.clone());
        name
    }
}

/// The names of every recursion variable of `g`, bound or used.
fn rec_names(g: &Global) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        match g {
            Global::End => {}
            Global::Continue(n) => {
                names.insert(n.text.clone());
            }
            Global::Message { cont, .. } => stack.push(cont),
            Global::Rec { var, body } => {
                names.insert(var.text.clone());
                stack.push(body);
            }
            Global::Choice { branches, .. } => stack.extend(branches),
        }
    }
    names
}

/// Whether `g` has a `continue`-led choice branch anywhere.
fn has_continue_led(g: &Global) -> bool {
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        match g {
            Global::End | Global::Continue(_) => {}
            Global::Message { cont, .. } => stack.push(cont),
            Global::Rec { body, .. } => stack.push(body),
            Global::Choice { branches, .. } => {
                if branches.iter().any(|b| matches!(b, Global::Continue(_))) {
                    return true;
                }
                stack.extend(branches);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::{check, parse, project};

    fn local(source: &str, role: &str) -> String {
        let protocols = parse(source).expect("parses");
        assert!(
            check(&protocols[0]).is_empty(),
            "{:?}",
            check(&protocols[0])
        );
        project(&protocols[0], role).expect("projects").to_string()
    }

    #[test]
    fn continue_led_branch_is_unfolded_into_a_loop_back_to_its_choice() {
        let source = "global protocol P(role A, role B) {
            rec X { a() from A to B; choice at A { b() from A to B; continue X; } or { continue X; } }
        }";
        let b = local(source, "B");
        assert!(b.contains("A?{a()") || b.contains("A?a()"), "{b}");
        assert!(b.contains("b()"), "{b}");
    }

    #[test]
    fn unguarded_continue_led_branch_is_still_rejected() {
        let source = "global protocol P(role A, role B) {
            rec X { choice at A { a() from A to B; continue X; } or { continue X; } }
        }";
        let protocols = parse(source).expect("parses");
        let errors = check(&protocols[0]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].kind, crate::ErrorKind::UnguardedVariable);
    }
}
