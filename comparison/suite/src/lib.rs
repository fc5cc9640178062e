//! The three runtime benchmarks of the PPoPP 2022 paper (§4.1) — stream, double buffering
//! and FFT — written once per implementation: our `mpst`, the bare channels `mpst` runs on
//! (the limit), and (re-exported from the `peers` crate) sesh, ferrite-session, mpstthree
//! (multicrusty), the published rumpsteak 0.1 and, for FFT, rustfft.
//!
//! Every `run` function checks its own result against a reference computed independently
//! and returns [`Mismatch`] when it is wrong, so a fast wrong answer cannot win.

#![warn(missing_docs)]

pub use peers::{
    check_eq, join, receive_bare, spawn, unexpected, BoxError, Crashed, Mismatch, Result,
};

pub mod stream {
    //! Stream (§4.1): `n` values from a source to a sink; see [`peers::stream`].

    pub use peers::stream::*;

    pub mod bare;
    pub mod ours;
    pub mod ours_spsc;
}

pub mod double_buffering {
    //! Double buffering (§4.1): two buffers through a kernel; see [`peers::double_buffering`].

    pub use peers::double_buffering::*;

    pub mod bare;
    pub mod ours;
    pub mod ours_spsc;
}

pub mod fft {
    //! FFT (§4.1): 8-point transforms by 8 roles; see [`peers::fft`].

    pub use peers::fft::*;

    pub mod bare;
    pub mod ours;
    pub mod ours_spsc;
}
