//! Figure 1, concurrent producers: `P1` and `P2` produce values for `Q`, which answers
//! each. `cargo run -p mpst-choreo --example concurrent_producers [-- --in-order]` runs
//! every role here; `-- --role Q --listen ... --peer P1=... --peer P2=...` runs one role
//! over TCP (see `common/mod.rs`). The in-order twin's protocol is
//! `concurrent_producers.scr`.

mod common;

use mpst_choreo_paper::producers::{ConcurrentProducers, InOrderProducers, Params, report};

fn main() -> std::process::ExitCode {
    let params = Params::example();
    common::main(
        ConcurrentProducers(params),
        InOrderProducers(params),
        report,
    )
}
