//! mpst-session's integration tests: sessions in memory and over TCP, errors, aborts, verification, compile-fail cases.
//!
//! One integration-test binary for the crate (one link instead of one per file):
//! each former `tests/NAME.rs` is the module `NAME` here, so its tests are named
//! `NAME::test` (`cargo test -p mpst-session -- NAME::` runs one file's tests). A new test
//! file goes in this directory with a `mod` line below.

mod support;

mod abort_paths;
mod channels;
mod choose;
mod deadlines;
mod errors;
mod failures;
mod flush;
mod introspect;
// Connection set-up, handshakes and faults over loopback sockets.
#[cfg(feature = "tcp")]
mod net;
// Acknowledgements: a silent peer fails a slow pure sender within its idle time-out;
// forged counts and older link versions are refused.
#[cfg(feature = "tcp")]
mod net_ack;
// Attacks from plain sockets: strangers, impersonators, refusals, stopped and closed
// peers (docs/SECURITY.md, section mpst::net).
#[cfg(feature = "tls")]
mod net_attacks;
// Sessions over TCP: the runtime's errors, flushes and aborts on real sockets.
#[cfg(feature = "tcp")]
mod net_session;
// Identities: role certificates generated at test time or as files, refused authorities.
#[cfg(feature = "tls")]
mod net_tls;
mod offer;
mod offer_early;
mod offer_props;
mod protocols;
mod serialize;
mod serialize_labels;
mod spsc;
mod two_adder;
mod ui;
mod verify_kmc;
mod wiring;
// Offer over TCP routes on loopback.
#[cfg(feature = "tcp")]
mod offer_net;
