//! Figure 17, concurrent clients: the concurrent-send procedure called for two clients
//! `C1` and `C2` at once, each call with its own session token. `cargo run -p
//! mpst-choreo --example concurrent_clients [-- --in-order]` runs every role here;
//! `-- --role S ...` runs one role over TCP (see `common/mod.rs`). The in-order twin's
//! protocol is `concurrent_clients.scr`.

mod common;

use mpst_choreo_paper::clients::{ConcurrentClients, InOrderClients, Params, report};

fn main() -> std::process::ExitCode {
    let params = Params::example();
    common::main(ConcurrentClients(params), InOrderClients(params), report)
}
