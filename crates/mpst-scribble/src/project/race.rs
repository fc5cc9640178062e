//! The safety judge of receptions merged from different senders: a role whose projection
//! waits on several peers at once (an `Offer`, the role learns a choice from whichever
//! peer speaks first) is well-formed only when k-MC proves the whole system of
//! projections safe.
//!
//! The merge rule alone (branches distinguishable by sender and label) does not make the
//! race safe: when the chooser may also reach the role directly, the role can take the
//! chooser's message first and leave the other sender's message unread for ever
//! (`invalid/offer_race.scr`). scribble-java checks such protocols by exploring its
//! global model; here the projections' k-MC check (Lange and Yoshida, "Verifying
//! Asynchronous Interactions via Communicating Session Automata", CAV 2019) does it, for
//! a small bound and a bounded number of configurations, on the machines as the runtime
//! runs them (`mpst_fsm::kmc::check_kmc_offer`). Protocols where every role receives from one peer at a
//! time are not checked here: nuscr's rules make them safe.

use mpst_fsm::Fsm;
use mpst_fsm::kmc::{OFFER_K as K, check_kmc_offer, offer_options, offer_state};

use crate::{Diagnostic, ErrorKind, GlobalProtocol};

/// The first role with a state that receives from several peers, with those peers.
fn racing(fsms: &[Fsm]) -> Option<(String, Vec<String>)> {
    fsms.iter().find_map(|fsm| {
        let (_, peers) = offer_state(fsm)?;
        Some((
            fsm.role().to_string(),
            peers.into_iter().map(str::to_string).collect(),
        ))
    })
}

/// Why the projections `fsms` of `protocol` are not known to be safe, when some role
/// receives from several peers at once and k-MC does not prove the system, as the
/// runtime runs it ([`check_kmc_offer`]), for `k = 2`; `None` otherwise.
pub(crate) fn check(protocol: &GlobalProtocol, fsms: &[Fsm]) -> Option<Diagnostic> {
    let (role, peers) = racing(fsms)?;
    let options = offer_options();
    let why = match check_kmc_offer(fsms, &options) {
        Ok(report) if report.is_kmc() => return None,
        Ok(report) => report.violation.map(|v| v.to_string()),
        Err(e) => Some(e.to_string()),
    };
    let peers: Vec<String> = peers.iter().map(|p| format!("`{p}`")).collect();
    let mut diagnostic = Diagnostic::new(
        ErrorKind::Unmergeable,
        protocol.name.span,
        format!(
            "role `{role}` learns a choice from whichever of {} speaks first, but k-MC \
             does not prove the projections safe (k = {K})",
            peers.join(" and ")
        ),
    )
    .with_note(
        "a role may wait on several peers only when, in every run, the first message any \
         of them sends it there is one it takes (the runtime fails on any other) and no \
         message is left unread",
    );
    if let Some(why) = why {
        diagnostic = diagnostic.with_note(format!("k-MC: {why}"));
    }
    Some(diagnostic)
}
