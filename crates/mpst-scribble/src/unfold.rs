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
//! A branch that jumps back to an enclosing choice by the same role, with messages since
//! that choice (nuscr's `ChoiceRec`: `rec X { choice at A { .. } or { m() from A to B;
//! choice at A { continue X; } or { .. } } }`), does what one of that choice's branches
//! does: it is replaced by copies of those branches, each going on as its original does
//! (only while the protocol written back is at most twice as large as the graph, see
//! [`Writer::jumps_to_choice`]). A branch that jumps back to a choice with no message
//! since it (the recursion is unguarded) stays a `continue`, and a `rec X { continue X; }`
//! loop leaves the protocol as it is, so well-formedness reports them as before. A
//! protocol without `continue`-led branches is not touched.
//!
//! The graph has one node per node of the protocol; writing it back visits each once
//! and copies, per `continue`-led branch, the messages from where it jumps to up to the
//! next choice, or the branches of the choice it jumps to (bounded as above). Both walks
//! go along message sequences by iteration, and recurse only into choices and
//! recursions.

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
        choices: Vec::new(),
        messages: 0,
        written: 0,
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
    /// The choices being written around the current point, outermost first, each with
    /// the number of messages written on the path when it was entered.
    choices: Vec<(usize, usize)>,
    /// The number of messages written on the path to the current point.
    messages: usize,
    /// How many messages and choices have been written.
    written: usize,
}

impl<'g> Writer<'g> {
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
                    self.written += 1;
                    let messages = self.messages + spine.len();
                    self.messages = messages;
                    self.choices.push((n, messages));
                    let mut written = Some(Vec::with_capacity(branches.len()));
                    for &b in branches {
                        let flattened = match self.jumps_to_choice(b, n, at) {
                            Some(choice) => choice.iter().map(|c| self.write(*c, true)).collect(),
                            None => vec![self.write(b, true)],
                        };
                        for branch in flattened {
                            match (&mut written, branch) {
                                (Some(all), Some(branch)) => all.push(branch),
                                _ => written = None,
                            }
                        }
                    }
                    self.choices.pop();
                    self.messages = messages - spine.len();
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
        self.written += spine.len();
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

    /// The branches of the choice that branch `b` of the choice `n` at `at` jumps back
    /// to, when `b` starts with a `continue` to an enclosing choice by the same role with
    /// a message since it: `b` then does what one of those branches does, so it is
    /// replaced by them, as `rec X { choice at A { m() from A to B; ..; choice at A {
    /// continue X; } or { .. } } }` means `.. choice at A { m() from A to B; ..; } or
    /// { .. }` (nuscr's `ChoiceRec`). `None` otherwise, and once the protocol written so
    /// far is twice as large as the graph (each replacement writes that choice's branches
    /// again; without a bound nested ones could multiply): the branch then stays a
    /// `continue`, which well-formedness reports as before.
    fn jumps_to_choice(&mut self, b: usize, n: usize, at: &Name) -> Option<&'g [usize]> {
        let graph = self.graph;
        let resolved = graph.resolve(b)?;
        resolved.via.as_ref()?;
        let target = resolved.node;
        let Node::Choice {
            at: by, branches, ..
        } = &graph.nodes[target]
        else {
            return None;
        };
        // Jumping to the choice itself, or with no message since the choice jumped to,
        // is an unguarded recursion: left for well-formedness to report.
        let &(_, since) = self.choices.iter().find(|(c, _)| *c == target)?;
        if target == n || since == self.messages || by.text != at.text {
            return None;
        }
        (self.written <= 2 * graph.nodes.len()).then_some(branches.as_slice())
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

    /// The first error of the first protocol of `source`.
    fn first_error(source: &str) -> crate::Diagnostic {
        let protocols = parse(source).expect("parses");
        let errors = check(&protocols[0]);
        errors.into_iter().next().expect("an error")
    }

    #[test]
    fn a_branch_that_jumps_back_to_an_enclosing_choice_is_replaced_by_its_branches() {
        let source = "global protocol P(role A, role B) {
            rec X { choice at A { a() from A to B; continue X; }
                    or { b() from A to B; choice at A { continue X; } or { c() from A to B; } } }
        }";
        // After `b`, B may get `a` (the outer choice again), `b` (then the inner choice
        // again) or `c`.
        let b = local(source, "B");
        assert_eq!(
            b,
            "rec X. A?{a(). X, b(). rec X_1. A?{a(). X, b(). X_1, c(). end}}"
        );
    }

    #[test]
    fn replacing_branches_is_bounded_by_the_size_of_the_protocol() {
        // Every branch of the outer choice jumps back to it from several places: each
        // replacement copies the other branches, which hold jumps of their own, so
        // without a bound the copies would multiply with every branch.
        let (branches, sites) = (6, 4);
        let arms: Vec<String> = (0..branches)
            .map(|b| {
                let mut arm = format!("s{b}() from A to B;");
                for i in (0..sites).rev() {
                    arm = format!(
                        "m{b}_{i}() from A to B; choice at A {{ continue X; }} or {{ {arm} }}"
                    );
                }
                format!("{{ {arm} }}")
            })
            .collect();
        let source = format!(
            "global protocol P(role A, role B) {{ rec X {{ choice at A {} }} }}",
            arms.join(" or ")
        );
        // Parsing unfolds: the protocol as written has 3 nodes per site (a message, a
        // choice, a `continue`), 2 per branch (its last message and `end`) and 2 more.
        let protocols = parse(&source).expect("parses");
        let written = branches * (3 * sites + 2) + 2;
        let unfolded = size(&protocols[0].body);
        assert!(
            unfolded > written,
            "branches are replaced: {unfolded} nodes"
        );
        assert!(unfolded <= 8 * written, "{written} -> {unfolded} nodes");
    }

    /// The number of nodes of a global type.
    fn size(g: &crate::Global) -> usize {
        use crate::Global;
        match g {
            Global::End | Global::Continue(_) => 1,
            Global::Message { cont, .. } => 1 + size(cont),
            Global::Rec { body, .. } => 1 + size(body),
            Global::Choice { branches, .. } => 1 + branches.iter().map(size).sum::<usize>(),
        }
    }

    #[test]
    fn jumps_to_a_choice_that_cannot_be_its_branches_are_rejected_as_before() {
        // By another role: the branch would start with a message from `B`.
        let other_chooser = "global protocol P(role A, role B) {
            rec X { choice at A { a() from A to B; choice at B { continue X; } or { n() from B to A; } }
                    or { s() from A to B; } }
        }";
        let error = first_error(other_chooser);
        assert_eq!(error.kind, crate::ErrorKind::UndirectedChoice);
        assert_eq!(
            error.message,
            "this branch starts with `continue X` instead of a message from `B`"
        );
        assert!(
            error.notes[0].contains("a choice that `B` makes too"),
            "{:?}",
            error.notes
        );
        // No message since the choice jumped to: an unguarded recursion.
        let unguarded = "global protocol P(role A, role B) {
            rec X { choice at A { choice at A { continue X; } or { a() from A to B; } }
                    or { b() from A to B; } }
        }";
        let error = first_error(unguarded);
        assert_eq!(error.kind, crate::ErrorKind::UnguardedVariable, "{error:?}");
    }
}
