//! The model-serving pipeline of §5.3: gateway -> two workers -> batcher -> two models,
//! predictions back through the batcher. `cargo run -p mpst-choreo --example
//! model_serving [-- --in-order]` runs every role here; `-- --role Batcher ...` runs one
//! role over TCP (see `common/mod.rs`). The in-order twin's protocol is
//! `model_serving.scr`.

mod common;

use mpst_choreo_paper::pipeline::{ModelServing, Params, report};

fn main() -> std::process::ExitCode {
    let params = Params::example();
    common::main(
        ModelServing::out_of_order(params),
        ModelServing::in_order(params),
        report,
    )
}
