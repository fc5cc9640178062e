//! Where a hop's time goes, stage by stage (`send_profile --stages`, feature `stages`):
//! concurrent send with no service costs at 0 ms on a bed, the implementations taking
//! turns, every stage of the key's way timestamped — on one clock, as every host is a
//! thread of this process: due -> `ks`'s send called -> its frame written -> the relay's
//! read and write -> read at `s` -> filed into `s`'s inbox or the actor's mailbox -> the
//! forward's send called -> written -> the relay -> read at `c` -> filed -> `c`'s receive
//! completes (the recorder's answer). The choreographies' marks come from
//! `mpst_choreo::net::stages`, the relay's from `mpst_testbed::stages`, the actors' from
//! their links here ([`actor`]). Without the feature [`actor`] is empty and nothing is
//! recorded.

#[cfg(feature = "stages")]
pub use probe::{STEPS, Table, run};

/// A stage of a message's way (the choreographies' stages and the actors' alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// The send was called (a choreography's transport `send`, an actor link's `send`).
    SendCalled,
    /// The frame's `write` returned (in the send itself, or in the link's task).
    Written,
    /// Queued for a writer task instead of written by the send (choreographies).
    Queued,
    /// Read and decoded at the receiving host.
    Read,
    /// Filed into the endpoint's inbox, or the actor's mailbox.
    Filed,
}

/// Marks an actor's message `(key, session)` (`key`: a key, else a text) reaching
/// `stage` at role `at` on the connection of the dialler's `port`; nothing without the
/// feature `stages`.
#[inline(always)]
pub fn actor(stage: Stage, at: &'static str, (key, session): (bool, u64), port: u16) {
    #[cfg(feature = "stages")]
    probe::record(probe::Event::Mark {
        stage,
        at,
        what: probe::What::Label { key, session },
        port,
        when: std::time::Instant::now(),
    });
    #[cfg(not(feature = "stages"))]
    let _ = (stage, at, key, session, port);
}

/// Concurrent send's role names as `'static` strings (`?` for any other).
pub fn role(name: &str) -> &'static str {
    match name {
        "KS" => "KS",
        "CS" => "CS",
        "S" => "S",
        "C" => "C",
        _ => "?",
    }
}

#[cfg(feature = "stages")]
mod probe;
