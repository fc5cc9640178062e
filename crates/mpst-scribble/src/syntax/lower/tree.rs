//! Lowered trees with their measures, and copying them without deep recursion.

use crate::Global;

/// A lowered global type with its number of nodes and its depth (longest path).
#[derive(Debug, Clone)]
pub(super) struct Tree {
    pub(super) global: Global,
    pub(super) size: usize,
    pub(super) depth: usize,
}

impl Tree {
    /// The empty protocol.
    pub(super) fn end() -> Tree {
        Tree {
            global: Global::End,
            size: 1,
            depth: 1,
        }
    }

    /// A copy whose cost in stack is the nesting of choices and recursions, not the
    /// length of message sequences (the derived `Clone` recurses once per message).
    pub(super) fn copy(&self) -> Tree {
        Tree {
            global: copy_global(&self.global),
            size: self.size,
            depth: self.depth,
        }
    }
}

/// Copies `global`, iterating along message sequences.
pub(super) fn copy_global(global: &Global) -> Global {
    let mut spine = Vec::new();
    let mut current = global;
    let last = loop {
        match current {
            Global::Message {
                from,
                to,
                message,
                span,
                cont,
            } => {
                spine.push((from, to, message, *span));
                current = cont;
            }
            Global::End => break Global::End,
            Global::Continue(var) => break Global::Continue(var.clone()),
            Global::Choice { at, branches, span } => {
                break Global::Choice {
                    at: at.clone(),
                    branches: branches.iter().map(copy_global).collect(),
                    span: *span,
                };
            }
            Global::Rec { var, body } => {
                break Global::Rec {
                    var: var.clone(),
                    body: Box::new(copy_global(body)),
                };
            }
        }
    };
    spine
        .into_iter()
        .rev()
        .fold(last, |cont, (from, to, message, span)| Global::Message {
            from: from.clone(),
            to: to.clone(),
            message: message.clone(),
            span,
            cont: Box::new(cont),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Name, Span};
    use mpst_fsm::Message;

    #[test]
    fn copy_equals_the_original_and_survives_long_sequences() {
        let mut global = Global::Choice {
            at: Name::new("A", Span::new(0, 1)),
            branches: vec![
                Global::End,
                Global::Continue(Name::new("X", Span::new(2, 3))),
            ],
            span: Span::new(0, 1),
        };
        for i in 0..50_000 {
            global = Global::Message {
                from: Name::new("A", Span::new(i, i + 1)),
                to: Name::new("B", Span::new(i, i + 1)),
                message: Message::new("m"),
                span: Span::new(i, i + 1),
                cont: Box::new(global),
            };
        }
        let copy = copy_global(&global);
        // Compare iteratively too: the derived `PartialEq` recurses per message.
        let (mut a, mut b) = (&global, &copy);
        let mut steps = 0;
        while let (
            Global::Message {
                cont: ca, span: sa, ..
            },
            Global::Message {
                cont: cb, span: sb, ..
            },
        ) = (a, b)
        {
            assert_eq!(sa, sb);
            a = ca;
            b = cb;
            steps += 1;
        }
        assert_eq!(steps, 50_000);
        assert_eq!(a, b);
        // Dismantle iteratively so the test does not rely on a deep drop.
        for g in [global, copy] {
            let mut next = Some(g);
            while let Some(Global::Message { cont, .. }) = next {
                next = Some(*cont);
            }
        }
    }
}
