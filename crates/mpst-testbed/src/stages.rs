//! A probe of the relay's share of a message's time (feature `stages`, not for tests or
//! production): a hook, set once per process, told of every TCP chunk the relay carried,
//! when it was read from one end and when its write to the other end returned, and the
//! connection it belongs to (the dialling end's TCP port). The evaluation puts these
//! beside the transports' own marks (`send_profile --stages`).

use std::sync::OnceLock;
use std::time::Instant;

/// One chunk the relay carried.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    /// The connection: the dialling end's TCP port.
    pub port: u16,
    /// Whether the chunk went from the dialling end to the accepting one.
    pub from_dialler: bool,
    /// When the relay's read of it returned.
    pub read: Instant,
    /// When the relay's write of it to the other end returned.
    pub written: Instant,
    /// Its length.
    pub bytes: usize,
}

/// What is told of every chunk.
pub type Hook = fn(&Chunk);

static HOOK: OnceLock<Hook> = OnceLock::new();

/// Sets the process's hook; `false` when one was set already (it stays).
pub fn set_hook(hook: Hook) -> bool {
    HOOK.set(hook).is_ok()
}

/// Tells the hook, if any, of `chunk`.
pub(crate) fn carried(chunk: &Chunk) {
    if let Some(hook) = HOOK.get() {
        hook(chunk);
    }
}
