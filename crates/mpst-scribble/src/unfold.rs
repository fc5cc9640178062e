//! Unfolding `continue`-led branches, which a directed choice cannot start with.
//!
//! In `rec X { a() from A to B; choice at A { b() from A to B; continue X; } or
//! { continue X; } }` the second branch means "do `X`'s body again", which starts with
//! `a() from A to B`. The choice `C` becomes `rec Y { choice at A { b() ...; continue X; }
//! or { <X's body with C replaced by continue Y> } }`: the branch is `X`'s body unfolded
//! once, looping back to `C` itself through the fresh variable `Y`.
//!
//! Only the shape that is sound and finite this way is unfolded: the branch is reached
//! after at least one message since `rec X` (otherwise the recursion is unguarded, which
//! well-formedness reports), `C` is the only choice of `X`'s body with such a branch, and
//! no `rec` between `rec X` and `C` rebinds a variable that `X`'s body could mean (no
//! capture). Anything else is left as it is, and well-formedness rejects it as before.

use crate::{Global, GlobalProtocol, Name};

/// Unfolds the `continue`-led branches of `protocol` that can be (see the module docs).
pub fn continue_led(protocol: &mut GlobalProtocol) {
    if !has_continue_led(&protocol.body) {
        return;
    }
    let mut fresh = Fresh {
        used: rec_names(&protocol.body),
    };
    let mut outer: Vec<String> = Vec::new();
    unfold_in(&mut protocol.body, &mut outer, &mut fresh);
}

/// Fresh recursion variables: `X_1`, `X_2`, ... avoiding every name of the protocol.
struct Fresh {
    used: std::collections::HashSet<String>,
}

impl Fresh {
    fn name(&mut self, base: &str) -> String {
        let mut n = 1;
        loop {
            let name = format!("{base}_{n}");
            if self.used.insert(name.clone()) {
                return name;
            }
            n += 1;
        }
    }
}

/// The names of every recursion variable of `g`, bound or used.
fn rec_names(g: &Global) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
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

/// Whether `g` has a `continue`-led choice branch anywhere (a cheap test first).
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

/// Visits every `rec` of `g` (outermost first), `outer` holding the variables bound
/// around `g`.
fn unfold_in(g: &mut Global, outer: &mut Vec<String>, fresh: &mut Fresh) {
    if !has_continue_led(g) {
        return;
    }
    let mut node = g;
    loop {
        match node {
            Global::Message { cont, .. } => node = cont,
            Global::Rec { var, body } => {
                unfold_rec(&var.text, body, outer, fresh);
                outer.push(var.text.clone());
                unfold_in(body, outer, fresh);
                outer.pop();
                return;
            }
            Global::Choice { branches, .. } => {
                for branch in branches {
                    unfold_in(branch, outer, fresh);
                }
                return;
            }
            Global::End | Global::Continue(_) => return,
        }
    }
}

/// Unfolds the `continue var`-led branches of the one choice of `body` (the body of
/// `rec var`) that has them, if the unfolding is sound.
fn unfold_rec(var: &str, body: &mut Global, outer: &[String], fresh: &mut Fresh) {
    // The choices of `body` with a branch `continue var`: (choice, guarded, captured).
    let mut found: Vec<(*const Global, bool, bool)> = Vec::new();
    let mut stack: Vec<(&Global, bool, bool)> = vec![(body, false, false)];
    while let Some((g, guarded, captured)) = stack.pop() {
        match g {
            Global::End | Global::Continue(_) => {}
            Global::Message { cont, .. } => stack.push((cont, true, captured)),
            Global::Rec { var: inner, body } => {
                // An inner `rec var` is its own scope.
                if inner.text != var {
                    let captures = outer.contains(&inner.text);
                    stack.push((body, guarded, captured || captures));
                }
            }
            Global::Choice { branches, .. } => {
                let led = branches
                    .iter()
                    .any(|b| matches!(b, Global::Continue(n) if n.text == var));
                if led {
                    found.push((g as *const Global, guarded, captured));
                }
                stack.extend(branches.iter().map(|b| (b, guarded, captured)));
            }
        }
    }
    let [(target, true, false)] = found[..] else {
        return;
    };
    let fresh_var = Name::new(fresh.name(var), Default::default());
    // X's body with the choice replaced by `continue Y`.
    let mut copy = body.clone();
    replace_parallel(body, &mut copy, target, Global::Continue(fresh_var.clone()));
    let Some(choice) = find_mut(body, target) else {
        return;
    };
    let Global::Choice { at, branches, span } = std::mem::replace(choice, Global::End) else {
        return;
    };
    let branches = branches
        .into_iter()
        .map(|b| match b {
            Global::Continue(n) if n.text == var => copy.clone(),
            other => other,
        })
        .collect();
    *choice = Global::Rec {
        var: fresh_var,
        body: Box::new(Global::Choice { at, branches, span }),
    };
}

/// The node of `g` at address `target`, mutably.
fn find_mut(g: &mut Global, target: *const Global) -> Option<&mut Global> {
    let mut stack: Vec<&mut Global> = vec![g];
    while let Some(node) = stack.pop() {
        if std::ptr::eq(&*node, target) {
            return Some(node);
        }
        match node {
            Global::End | Global::Continue(_) => {}
            Global::Message { cont, .. } => stack.push(cont),
            Global::Rec { body, .. } => stack.push(body),
            Global::Choice { branches, .. } => stack.extend(branches.iter_mut()),
        }
    }
    None
}

/// Replaces, in `copy` (a clone of `original`), the node that sits where `target` sits
/// in `original` by `with`.
fn replace_parallel(original: &Global, copy: &mut Global, target: *const Global, with: Global) {
    let mut stack: Vec<(&Global, &mut Global)> = vec![(original, copy)];
    while let Some((o, c)) = stack.pop() {
        if std::ptr::eq(o, target) {
            *c = with;
            return;
        }
        match (o, c) {
            (Global::Message { cont: oc, .. }, Global::Message { cont: cc, .. }) => {
                stack.push((oc, cc))
            }
            (Global::Rec { body: ob, .. }, Global::Rec { body: cb, .. }) => stack.push((ob, cb)),
            (Global::Choice { branches: ob, .. }, Global::Choice { branches: cb, .. }) => {
                stack.extend(ob.iter().zip(cb.iter_mut()))
            }
            _ => {}
        }
    }
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
