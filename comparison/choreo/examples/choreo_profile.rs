//! Runs one choreography K times in memory, for callgrind:
//! `valgrind --tool=callgrind target/release/examples/choreo_profile CHOREOGRAPHY IMPL K`
//! with IMPL `chorus` (ChoRus's local transport, one thread per location), `ours`
//! (`mpst-choreo` out of order over `InMemory`, one tokio task per role on a
//! current-thread runtime) or `ours-in-order` (the blocking operators, same transport).
//! Each run checks its answer; K = 0 measures the start-up alone. With `--features
//! mimalloc` every implementation allocates with mimalloc instead of glibc's malloc.

use std::process::ExitCode;

/// With `--features mimalloc`, every implementation allocates with mimalloc.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [choreography, implementation, runs] = args.as_slice() else {
        eprintln!("usage: choreo_profile CHOREOGRAPHY IMPL RUNS");
        return ExitCode::from(2);
    };
    let Ok(runs) = runs.parse::<u64>() else {
        eprintln!("choreo_profile: RUNS must be a number");
        return ExitCode::from(2);
    };
    let result = match implementation.as_str() {
        "chorus" => choreo_comparison::chorus::local(choreography, runs),
        "ours" | "ours-in-order" => {
            let in_order = implementation == "ours-in-order";
            match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime.block_on(choreo_comparison::ours::in_memory(
                    choreography,
                    in_order,
                    runs,
                )),
                Err(e) => Err(e.to_string()),
            }
        }
        other => Err(format!("unknown implementation {other}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("choreo_profile: {e}");
            ExitCode::FAILURE
        }
    }
}
