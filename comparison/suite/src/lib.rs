//! The three runtime benchmarks of the PPoPP 2022 paper (§4.1) — stream, double buffering
//! and FFT — written once per implementation: our `mpst`, the bare channels `mpst` runs on
//! (the limit), and (re-exported from the `peers` crate) sesh, ferrite-session, mpstthree
//! (multicrusty), the published rumpsteak 0.1 and, for FFT, rustfft.
//!
//! Every `run` function checks its own result against a reference computed independently
//! and returns [`Mismatch`] when it is wrong, so a fast wrong answer cannot win.

#![warn(missing_docs)]

pub use peers::{
    BoxError, Crashed, Mismatch, Result, check_eq, join, receive_bare, spawn, unexpected,
};

pub mod stream {
    //! Stream (§4.1): `n` values from a source to a sink; see [`peers::stream`].

    pub use peers::stream::*;

    pub mod bare;
    /// Stream with our `mpst`: the paper's types, plain and optimised (unrolled) source, over
    /// `mpst::channel::Unbounded`.
    pub mod ours {
        const WHAT: &str = "stream/ours";
        type Channel = mpst::channel::Unbounded<Label>;
        include!("stream/ours.rs");
    }

    /// `ours` over `mpst::channel::Spsc` instead of `Unbounded`: the same session code on
    /// the route specialised for two owners.
    pub mod ours_spsc {
        const WHAT: &str = "stream/ours-spsc";
        type Channel = mpst::channel::Spsc<Label>;
        include!("stream/ours.rs");
    }
}

pub mod double_buffering {
    //! Double buffering (§4.1): two buffers through a kernel; see [`peers::double_buffering`].

    pub use peers::double_buffering::*;

    pub mod bare;
    /// Double buffering with our `mpst`, plain and optimised kernel (Listing 2 of the paper).
    pub mod ours {
        const WHAT: &str = "double_buffering/ours";
        type Channel = mpst::channel::Unbounded<Label>;
        include!("double_buffering/ours.rs");
    }

    /// `ours` over `mpst::channel::Spsc` instead of `Unbounded`: the same session code on
    /// the route specialised for two owners.
    pub mod ours_spsc {
        const WHAT: &str = "double_buffering/ours-spsc";
        type Channel = mpst::channel::Spsc<Label>;
        include!("double_buffering/ours.rs");
    }
}

pub mod fft {
    //! FFT (§4.1): 8-point transforms by 8 roles; see [`peers::fft`].

    pub use peers::fft::*;

    pub mod bare;
    /// FFT with our `mpst`: eight roles, each routed only to its three butterfly partners;
    /// the projected protocol and the optimised one (every role sends before receiving).
    pub mod ours {
        const WHAT: &str = "fft/ours";
        type Channel = mpst::channel::Unbounded<Label>;
        include!("fft/ours.rs");
    }

    /// `ours` over `mpst::channel::Spsc` instead of `Unbounded`: the same session code on
    /// the route specialised for two owners.
    pub mod ours_spsc {
        const WHAT: &str = "fft/ours-spsc";
        type Channel = mpst::channel::Spsc<Label>;
        include!("fft/ours.rs");
    }
}
