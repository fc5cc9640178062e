//! Figures 2 and 15, concurrent send: `KS` and `CS` send a key and a text to `S`, which
//! forwards both to `C` in whichever order they arrive. `cargo run -p mpst-choreo
//! --example concurrent_send [-- --in-order]` runs every role here; `-- --role S ...`
//! runs one role over TCP (see `common/mod.rs`). The in-order twin's protocol is
//! `concurrent_send.scr`.

mod common;

use mpst_choreo_paper::concurrent_send::{ConcurrentSend, Costs, InOrderSend, report};

/// The client whose key and text are sent.
const CLIENT: u64 = 7;

/// Session `n` (`--sessions N`) sends the key and text of client `CLIENT + n`.
fn main() -> std::process::ExitCode {
    let costs = Costs::example();
    let client = |n: u64| CLIENT.wrapping_add(n);
    let out_of_order = |n| ConcurrentSend {
        client: client(n),
        costs,
    };
    let in_order = |n| InOrderSend {
        client: client(n),
        costs,
    };
    common::main_sessions(out_of_order, in_order, report)
}
