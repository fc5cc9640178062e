//! Asynchronous multiparty subtyping: is an optimised FSM a safe replacement for the
//! projected one? The bounded, sound and terminating algorithm of PPoPP 2022 (§3.2,
//! Fig. 5) as implemented in its Appendix B.5, written from scratch.
//!
//! # The algorithm
//!
//! The search walks both machines together, depth first, one pair of states at a time.
//! Each side keeps a *prefix*: the actions it performed that the other side has not
//! matched yet. At every configuration it
//!
//! 1. **reduces** the prefixes (\[SUB\] with \[→I\], \[→O\], \[→A\], \[→B\]): the subtype's oldest
//!    pending action is matched with the supertype's first equal action, provided that
//!    everything it overtakes may be overtaken — a receive only overtakes receives from
//!    other peers, a send overtakes receives and sends to other peers. When the oldest
//!    pending action can *never* be matched (it would overtake a send, or a different
//!    message with the same peer and direction stands in the way) the path fails at once
//!    (fail early);
//! 2. succeeds by **assumption** (\[ASM\]) when the pair of states was already visited on
//!    this path with exactly the same pending actions, provided the subtype did not
//!    *forget* anything meanwhile: every pending action of the supertype must have the
//!    peer and direction of some action the subtype performed since (`act(ρ') ⊇
//!    act(π')`). If that check fails the configuration repeats forever, so the path fails
//!    with [`Reason::ForgottenAction`];
//! 3. succeeds at **end** (\[END\]) when both machines have ended with empty prefixes;
//! 4. fails when the pair has already been visited `visits` times on this path (the
//!    bound of \[µL\]/\[µR\]);
//! 5. otherwise pushes one transition of each side onto the prefixes and recurses, with
//!    the quantifiers of \[OI\] (∀∀), \[OO\] (∀ subtype, ∃ supertype), \[II\] (∀ supertype, ∃
//!    subtype) and \[IO\] (∃∃).
//!
//! Prefixes are never copied: removals are marked lazily and undone through snapshots.
//! The history (the assumptions Σ with their remaining visits) is a hash map holding an
//! entry only for the pairs on the current path, so memory grows with the depth of the
//! search, not with `|M| × |M'|`. The search uses an explicit stack.
//!
//! # Example
//!
//! ```
//! use mpst_fsm::{subtype::{is_subtype, Reason}, LocalType};
//!
//! let projected = LocalType::parse("rec x. s!ready(). s?value(). t?ready(). t!value(). x")?
//!     .to_fsm("k")?;
//! let optimised =
//!     LocalType::parse("s!ready(). rec x. s!ready(). s?value(). t?ready(). t!value(). x")?
//!         .to_fsm("k")?;
//! assert!(is_subtype(&optimised, &projected, 10).is_ok());
//!
//! // Receiving before sending can deadlock (Example 2 of the paper):
//! let t_p = LocalType::parse("q!l1(). q?l2(). end")?.to_fsm("p")?;
//! let t_p_reordered = LocalType::parse("q?l2(). q!l1(). end")?.to_fsm("p")?;
//! let err = is_subtype(&t_p_reordered, &t_p, 10).unwrap_err();
//! assert!(matches!(err.reason, Reason::ReceiveOvertakesSend { .. }));
//! println!("{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod explain;
mod machine;
mod prefix;
mod visitor;

pub use explain::{NotSubtype, Reason, Side, Stats};

use crate::Fsm;

/// The default bound on how many times one pair of states may be visited on one search
/// path (the `--visits` of `mpst subtype`). Unrolling `n` messages ahead typically
/// needs a bound of about `n`; branching protocols cost more as the bound grows.
pub const DEFAULT_VISITS: usize = 100;

/// Checks that `sub` is an asynchronous subtype of `sup` (`sub ≤ sup`): a process
/// following `sub` can safely replace one following `sup`.
///
/// `visits` bounds how many times each pair of states may be visited on one search
/// path (\[µL\]/\[µR\]); it must be at least 1 for anything to be explored. The check is
/// sound (an `Ok` is a proof) and terminates, but it is not complete: with a bound too
/// small a true subtype is rejected with [`Reason::BoundReached`].
///
/// Actions are compared by peer, direction, label and payload *sorts* (payload names
/// are ignored). Role names are not compared.
///
/// # Errors
/// A [`NotSubtype`] explaining where and why no rule applied. A failing check
/// runs the search twice: the second run records the prefixes and paths, so that
/// successful checks never pay for explanations.
// The explanation is the point of the error value (several prefixes and paths), so it
// is large; returning it unboxed keeps the API simple for callers that box it anyway.
#[allow(clippy::result_large_err)]
pub fn is_subtype(sub: &Fsm, sup: &Fsm, visits: usize) -> Result<Stats, NotSubtype> {
    visitor::check(sub, sup, visits).map_err(|e| *e)
}
