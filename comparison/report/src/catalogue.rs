//! What the suite contains: protocols, implementations, what each peer cannot express, and
//! the numbers the paper published (Appendix C.1), for context.

/// A protocol of the suite.
pub struct Protocol {
    /// Criterion group id.
    pub id: &'static str,
    /// Heading in the report.
    pub title: &'static str,
    /// What `n` is.
    pub n: &'static str,
}

/// The three protocols, in report order.
pub const PROTOCOLS: [Protocol; 3] = [
    Protocol {
        id: "stream",
        title: "Stream",
        n: "values streamed",
    },
    Protocol {
        id: "double_buffering",
        title: "Double buffering",
        n: "buffer size (two buffers cross)",
    },
    Protocol {
        id: "fft",
        title: "FFT",
        n: "rows of the n × 8 matrix (8-point FFT per row)",
    },
];

/// An implementation of the suite.
pub struct Implementation {
    /// Benchmark id prefix.
    pub id: &'static str,
    /// Which version of the protocol it runs.
    pub variant: Variant,
    /// One line for the legend of the report.
    pub about: &'static str,
}

/// The projected protocol or the one optimised by asynchronous message reordering.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Variant {
    /// As projected from the global type.
    Plain,
    /// Reordered (unrolled stream, kernel sending both `ready`s, FFT roles sending first).
    Optimised,
}

/// Every implementation, in report order.
pub const IMPLEMENTATIONS: [Implementation; 10] = [
    Implementation {
        id: "ours",
        variant: Variant::Plain,
        about: "our `mpst` (path dependency), tokio tasks",
    },
    Implementation {
        id: "ours-optimised",
        variant: Variant::Optimised,
        about: "our `mpst`, AMR-optimised role",
    },
    Implementation {
        id: "bare",
        variant: Variant::Plain,
        about: "hand-written on `mpst::channel::Unbounded`, no session types (the limit)",
    },
    Implementation {
        id: "bare-optimised",
        variant: Variant::Optimised,
        about: "the same, with the optimised message order",
    },
    Implementation {
        id: "rumpsteak",
        variant: Variant::Plain,
        about: "rumpsteak 0.1.0 from crates.io",
    },
    Implementation {
        id: "rumpsteak-optimised",
        variant: Variant::Optimised,
        about: "rumpsteak 0.1.0, AMR-optimised role",
    },
    Implementation {
        id: "ferrite",
        variant: Variant::Plain,
        about: "ferrite-session 0.3.0 (binary sessions, tokio)",
    },
    Implementation {
        id: "sesh",
        variant: Variant::Plain,
        about: "sesh 0.1.1 (binary sessions, OS threads, synchronous channels)",
    },
    Implementation {
        id: "mpstthree",
        variant: Variant::Plain,
        about: "mpstthree 0.1.17 = multicrusty (multiparty, OS threads)",
    },
    Implementation {
        id: "rustfft",
        variant: Variant::Plain,
        about: "rustfft 6.4 (sequential, SIMD), FFT only",
    },
];

/// Where a peer cannot (or, in this suite, does not) run a protocol, and why.
pub const GAPS: [(&str, &str, &str); 9] = [
    (
        "stream",
        "sesh, ferrite, mpstthree",
        "optimised (unrolled) source not expressible: sending values before the `ready`s breaks duality (binary) or the projected role stack (multicrusty); the paper's Table 1 marks it ✗",
    ),
    (
        "double_buffering",
        "sesh, ferrite",
        "no multiparty sessions: written as two binary sessions held by the kernel (the paper does the same), so no multiparty deadlock-freedom guarantee",
    ),
    (
        "double_buffering",
        "sesh, ferrite, mpstthree",
        "optimised kernel not expressible: its `!ready.!ready.?value…` with the source is not dual to the source's type, and multicrusty has no asynchronous subtyping",
    ),
    (
        "fft",
        "sesh",
        "twelve binary sessions, one per butterfly pair (no multiparty sessions); optimised order not expressible",
    ),
    (
        "fft",
        "mpstthree",
        "optimised order (both roles of a pair send first) not expressible",
    ),
    (
        "fft",
        "ferrite",
        "a ferrite process provides one session, so each stage is four binary sessions (upper role provides, lower is client) and all roles synchronise between stages, as in the paper; optimised order not expressible",
    ),
    (
        "fft",
        "rumpsteak",
        "optimised order not benchmarked (the paper found it makes little difference for FFT)",
    ),
    (
        "all",
        "sesh, mpstthree",
        "not async: each run spawns OS threads (one per role); the tokio runtime plays no part, shown as runtime `threads`",
    ),
    (
        "all",
        "rustfft",
        "sequential, no runtime (`sequential`); FFT only",
    ),
];

/// The paper's Appendix C.1 throughputs (n/µs) on a 16-core Opteron: (protocol, n, columns).
pub const PUBLISHED_COLUMNS: [(&str, &[&str]); 3] = [
    (
        "stream",
        &[
            "sesh",
            "mpstthree",
            "ferrite",
            "rumpsteak",
            "rumpsteak-optimised",
        ],
    ),
    (
        "double_buffering",
        &[
            "sesh",
            "mpstthree",
            "ferrite",
            "rumpsteak",
            "rumpsteak-optimised",
        ],
    ),
    (
        "fft",
        &["sesh", "mpstthree", "ferrite", "rustfft", "rumpsteak"],
    ),
];

/// Rows of the paper's tables: (protocol, n, throughputs in the order of `PUBLISHED_COLUMNS`).
pub const PUBLISHED: [(&str, usize, [f64; 5]); 15] = [
    (
        "stream",
        10,
        [0.019389, 0.011678, 0.011386, 0.202587, 0.215583],
    ),
    (
        "stream",
        30,
        [0.034193, 0.015160, 0.013463, 0.427489, 0.437795],
    ),
    (
        "stream",
        50,
        [0.040315, 0.016577, 0.014126, 0.545378, 0.583366],
    ),
    (
        "double_buffering",
        5000,
        [6.929567, 5.675414, 7.617643, 27.704354, 32.340989],
    ),
    (
        "double_buffering",
        15000,
        [18.739983, 16.187341, 20.429845, 56.813002, 67.884430],
    ),
    (
        "double_buffering",
        25000,
        [28.609966, 25.050058, 29.629025, 75.848611, 96.010424],
    ),
    (
        "fft",
        1000,
        [0.551154, 0.810134, 1.458279, 9.320778, 5.038554],
    ),
    (
        "fft",
        3000,
        [1.510567, 2.163629, 3.496405, 9.333569, 8.421026],
    ),
    (
        "fft",
        5000,
        [2.303627, 3.261020, 4.811375, 9.323199, 9.316716],
    ),
    // Rows the suite does not run, kept so the table is the paper's complete.
    (
        "stream",
        20,
        [0.028142, 0.014325, 0.012994, 0.336988, 0.356978],
    ),
    (
        "stream",
        40,
        [0.036566, 0.016072, 0.013671, 0.488886, 0.517468],
    ),
    (
        "double_buffering",
        10000,
        [13.138401, 11.254181, 14.649028, 44.154722, 50.126532],
    ),
    (
        "double_buffering",
        20000,
        [24.103215, 20.481378, 25.506427, 67.595301, 82.039366],
    ),
    (
        "fft",
        2000,
        [1.050958, 1.515538, 2.513855, 9.313359, 7.206404],
    ),
    (
        "fft",
        4000,
        [1.935263, 2.783617, 4.198723, 9.336939, 9.262763],
    ),
];
