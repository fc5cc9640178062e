//! The Ozone evaluation (§5.3 of the paper) reproduced in Rust: three benchmarks —
//! concurrent producers ([`producers`]), concurrent send ([`send`]) and model serving
//! ([`serving`]) — each implemented three ways ([`drive::Implementation`]): an in-order
//! choreography, an out-of-order choreography (`mpst-choreo` futures and integrity
//! keys) and hand-written `ractor` actors, all on an in-memory transport, under
//! open-loop load ([`load`]). [`report`] turns the results into `evaluation/`;
//! [`impaired`] runs them with every role on its own host behind delayed links.

#![warn(missing_docs)]

pub mod busy;
pub mod clock;
pub mod drive;
pub mod experiments;
pub mod hops;
pub mod impaired;
pub mod lateness;
pub mod load;
pub mod markdown;
pub mod open_loop;
pub mod producers;
pub mod profile;
pub mod report;
pub mod send;
pub mod send_rounds;
pub mod serving;
pub mod svg;
pub mod why;
