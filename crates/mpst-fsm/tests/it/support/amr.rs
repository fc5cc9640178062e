//! Random asynchronous message reorderings of a local type: unrolling a recursion,
//! swapping two consecutive single actions, and pushing a single action into every
//! branch of the choice after it. Some moves are safe (a send moved before a receive,
//! receives from different peers swapped), others are not (a receive moved before a
//! send, two sends to one peer swapped): the subtyping check must tell them apart.

use mpst_fsm::LocalType;

use super::Rng;

/// Replaces the free occurrences of `var` in `t` by `with` (one unrolling of `rec var. t`
/// when `with` is that recursion).
pub fn substitute(t: &LocalType, var: &str, with: &LocalType) -> LocalType {
    match t {
        LocalType::Var(v) if v == var => with.clone(),
        LocalType::Rec(v, _) if v == var => t.clone(),
        LocalType::Rec(v, body) => LocalType::Rec(v.clone(), Box::new(substitute(body, var, with))),
        LocalType::Choice {
            direction,
            peer,
            branches,
        } => LocalType::Choice {
            direction: *direction,
            peer: peer.clone(),
            branches: branches
                .iter()
                .map(|(m, c)| (m.clone(), substitute(c, var, with)))
                .collect(),
        },
        other => other.clone(),
    }
}

/// The move applicable at the root of `t`, if `kind` is possible there.
fn apply_here(t: &LocalType, kind: usize) -> Option<LocalType> {
    match (kind, t) {
        (0, LocalType::Rec(v, body)) => Some(substitute(body, v, t)),
        (
            1 | 2,
            LocalType::Choice {
                direction,
                peer,
                branches,
            },
        ) if branches.len() == 1 => {
            let (message, next) = &branches[0];
            let LocalType::Choice {
                direction: d2,
                peer: p2,
                branches: b2,
            } = next
            else {
                return None;
            };
            // kind 1: swap two single actions; kind 2: distribute into a choice.
            if (kind == 1) != (b2.len() == 1) {
                return None;
            }
            let inner = |cont: &LocalType| LocalType::Choice {
                direction: *direction,
                peer: peer.clone(),
                branches: vec![(message.clone(), cont.clone())],
            };
            Some(LocalType::Choice {
                direction: *d2,
                peer: p2.clone(),
                branches: b2.iter().map(|(m, c)| (m.clone(), inner(c))).collect(),
            })
        }
        _ => None,
    }
}

/// Counts the positions where move `kind` applies.
fn count(t: &LocalType, kind: usize) -> usize {
    let here = usize::from(apply_here(t, kind).is_some());
    here + match t {
        LocalType::Rec(_, body) => count(body, kind),
        LocalType::Choice { branches, .. } => branches.iter().map(|(_, c)| count(c, kind)).sum(),
        _ => 0,
    }
}

/// Applies move `kind` at the `index`-th position (pre-order) where it applies.
fn apply_at(t: &LocalType, kind: usize, index: &mut usize) -> Option<LocalType> {
    if let Some(moved) = apply_here(t, kind) {
        if *index == 0 {
            return Some(moved);
        }
        *index -= 1;
    }
    match t {
        LocalType::Rec(v, body) => {
            apply_at(body, kind, index).map(|b| LocalType::Rec(v.clone(), Box::new(b)))
        }
        LocalType::Choice {
            direction,
            peer,
            branches,
        } => {
            for (i, (_, c)) in branches.iter().enumerate() {
                if let Some(moved) = apply_at(c, kind, index) {
                    let mut branches = branches.clone();
                    branches[i].1 = moved;
                    return Some(LocalType::Choice {
                        direction: *direction,
                        peer: peer.clone(),
                        branches,
                    });
                }
            }
            None
        }
        _ => None,
    }
}

fn size(t: &LocalType) -> usize {
    match t {
        LocalType::Rec(_, body) => 1 + size(body),
        LocalType::Choice { branches, .. } => {
            1 + branches.iter().map(|(_, c)| size(c)).sum::<usize>()
        }
        _ => 1,
    }
}

/// One random move, if any applies (unrolling only while the type stays small).
pub fn one_move(t: &LocalType, rng: &mut Rng) -> Option<LocalType> {
    let mut kinds: Vec<usize> = (0..3)
        .filter(|&k| (k != 0 || size(t) < 40) && count(t, k) > 0)
        .collect();
    if kinds.is_empty() {
        return None;
    }
    // Favour swaps: they are what changes behaviour.
    if kinds.len() > 1 && kinds[0] == 0 && rng.chance(60) {
        kinds.remove(0);
    }
    let kind = kinds[rng.below(kinds.len())];
    let mut index = rng.below(count(t, kind));
    apply_at(t, kind, &mut index)
}

/// Between one and `max` random moves; `None` if nothing changed.
pub fn reorder(t: &LocalType, rng: &mut Rng, max: usize) -> Option<LocalType> {
    let moves = 1 + rng.below(max);
    let mut current = t.clone();
    for _ in 0..moves {
        match one_move(&current, rng) {
            Some(next) => current = next,
            None => break,
        }
    }
    (current != *t).then_some(current)
}
