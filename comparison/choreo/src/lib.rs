//! The same three choreographies written idiomatically with `mpst-choreo` ([`ours`]) and
//! with ChoRus 0.5 ([`chorus`]): a two-party ping-pong, Figure 2's concurrent send of the
//! Ozone paper ("Ozone: Fully Out-of-Order Choreographies", Plyukhin, Peressotti and
//! Montesi, ECOOP 2024) and a three-party pipeline whose source chooses what the middle
//! stage computes. Each run checks its answer at the role that holds it, so a fast wrong
//! answer cannot win.
//!
//! `examples/choreo_profile.rs` runs them in memory under callgrind (instructions per run);
//! `src/bin/loopback.rs` times round trips over loopback (ChoRus's HTTP transport against
//! our TCP and QUIC transports).

#![warn(missing_docs)]

pub mod chorus;
pub mod ours;

/// The ping each run sends (run `i` sends `i`); the pong is one more.
pub fn pong_of(ping: u64) -> u64 {
    ping + 1
}

/// The key service's key for a client (Figure 2).
pub fn key_of(client: u64) -> String {
    format!("key-of-{client}")
}

/// The content service's text for a client (Figure 2).
pub fn text_of(client: u64) -> String {
    format!("content-for-{client}")
}

/// What the pipeline's middle stage computes, chosen by the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
    /// The stage doubles the value.
    Double,
    /// The stage adds one.
    Increment,
}

/// The source's choice for an input: even inputs are doubled, odd ones incremented.
pub fn mode_of(input: u64) -> Mode {
    if input.is_multiple_of(2) {
        Mode::Double
    } else {
        Mode::Increment
    }
}

/// The middle stage's computation.
pub fn stage(mode: Mode, value: u64) -> u64 {
    match mode {
        Mode::Double => value * 2,
        Mode::Increment => value + 1,
    }
}

/// What the pipeline's sink holds after a run with `input`: the stage's result plus ten.
pub fn pipeline_of(input: u64) -> u64 {
    stage(mode_of(input), input) + 10
}

/// The three choreographies, by the names the binaries take.
pub const CHOREOGRAPHIES: [&str; 3] = ["ping_pong", "concurrent_send", "pipeline"];

/// A wrong answer of run `run`: what was expected and what arrived.
pub fn mismatch(
    what: &str,
    run: u64,
    expected: &dyn std::fmt::Debug,
    got: &dyn std::fmt::Debug,
) -> String {
    format!("{what}: run {run}: expected {expected:?}, got {got:?}")
}
