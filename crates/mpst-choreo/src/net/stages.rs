//! A probe of where a message's time goes on the TCP transport (feature `stages`, not
//! for production): a hook, set once per process, told when each envelope reaches each
//! stage of its way — its send called, its frame written, read at the peer, filed into
//! the peer's inbox. The evaluation (`send_profile --stages`) puts these beside its own
//! marks and the test bed relay's to tell, stage by stage, where a hop's time goes.
//! Without the feature the marks are empty and compiled away.

#[cfg(feature = "stages")]
use std::sync::OnceLock;
#[cfg(feature = "stages")]
use std::time::Instant;

use crate::transport::Envelope;

/// A stage of an envelope's way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The transport's `send` was called (before the frame is encoded).
    SendCalled,
    /// The frame was written to the socket by the send itself (the `write` returned).
    Written,
    /// The frame was queued for the lane's writer task (the lane was busy, or the
    /// socket took it in part) instead of written by the send.
    Queued,
    /// The frame was read and decoded at the receiving end.
    Read,
    /// The envelope was filed into the receiving endpoint's inbox (`deliver` returned).
    // Marked only with the feature (the envelope is gone once filed: the mark keeps a
    // copy of its key).
    #[cfg_attr(not(feature = "stages"), allow(dead_code))]
    Filed,
}

#[cfg(feature = "stages")]
/// One mark: what, of which envelope, on which lane, when.
#[derive(Debug)]
pub struct Mark<'a> {
    /// The stage reached.
    pub stage: Stage,
    /// The envelope.
    pub envelope: &'a Envelope,
    /// The lane: the dialling end's local TCP port (at the sender its own socket's, at
    /// the receiver its peer's), which is also the port the relay sees the lane come from.
    pub port: u16,
    /// When.
    pub at: Instant,
}

/// What is told of every mark.
#[cfg(feature = "stages")]
pub type Hook = fn(&Mark<'_>);

#[cfg(feature = "stages")]
static HOOK: OnceLock<Hook> = OnceLock::new();

/// Sets the process's hook; `false` when one was set already (it stays).
#[cfg(feature = "stages")]
pub fn set_hook(hook: Hook) -> bool {
    HOOK.set(hook).is_ok()
}

/// Tells the hook, if any, that `envelope` reached `stage` on the lane of `port`.
#[cfg(feature = "stages")]
pub(crate) fn mark(stage: Stage, envelope: &Envelope, port: u16) {
    if let Some(hook) = HOOK.get() {
        hook(&Mark {
            stage,
            envelope,
            port,
            at: Instant::now(),
        });
    }
}

/// Without the feature: nothing.
#[cfg(not(feature = "stages"))]
#[inline(always)]
pub(crate) fn mark(_: Stage, _: &Envelope, _: u16) {}
