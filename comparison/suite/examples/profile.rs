//! Runs one implementation many times on a current-thread tokio runtime, for a profiler:
//! `valgrind --tool=callgrind target/release/examples/profile stream ours 50 2000`.
//! Instruction counts divided by the iteration count are a noise-free cost per run,
//! which PROFILE.md uses to compare ours with the bare channels and rumpsteak.

use std::process::ExitCode;
use std::sync::Arc;

use comparison::{Result, double_buffering, fft, stream};

async fn once(
    protocol: &str,
    implementation: &str,
    n: usize,
    problem: &Arc<fft::Problem>,
) -> Result {
    match (protocol, implementation) {
        ("stream", "ours") => stream::ours::run(n, false).await,
        ("stream", "ours-optimised") => stream::ours::run(n, true).await,
        ("stream", "ours-spsc") => stream::ours_spsc::run(n, false).await,
        ("stream", "ours-spsc-optimised") => stream::ours_spsc::run(n, true).await,
        ("stream", "bare") => stream::bare::run(n, false).await,
        ("stream", "bare-optimised") => stream::bare::run(n, true).await,
        ("stream", "rumpsteak") => stream::rumpsteak::run(n, false).await,
        ("stream", "rumpsteak-optimised") => stream::rumpsteak::run(n, true).await,
        ("double_buffering", "ours") => double_buffering::ours::run(n, false).await,
        ("double_buffering", "ours-optimised") => double_buffering::ours::run(n, true).await,
        ("double_buffering", "ours-spsc") => double_buffering::ours_spsc::run(n, false).await,
        ("double_buffering", "bare") => double_buffering::bare::run(n, false).await,
        ("double_buffering", "bare-optimised") => double_buffering::bare::run(n, true).await,
        ("double_buffering", "rumpsteak") => double_buffering::rumpsteak::run(n, false).await,
        ("fft", "ours") => fft::ours::run(problem.clone(), false).await,
        ("fft", "ours-optimised") => fft::ours::run(problem.clone(), true).await,
        ("fft", "ours-spsc") => fft::ours_spsc::run(problem.clone(), false).await,
        ("fft", "bare") => fft::bare::run(problem.clone(), false).await,
        ("fft", "bare-optimised") => fft::bare::run(problem.clone(), true).await,
        ("fft", "rumpsteak") => fft::rumpsteak::run(problem.clone()).await,
        _ => Err(format!("unknown protocol/implementation {protocol}/{implementation}").into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [protocol, implementation, n, iterations] = args.as_slice() else {
        eprintln!("usage: profile PROTOCOL IMPLEMENTATION N ITERATIONS");
        return ExitCode::from(2);
    };
    let (Ok(n), Ok(iterations)) = (n.parse::<usize>(), iterations.parse::<usize>()) else {
        eprintln!("profile: N and ITERATIONS must be numbers");
        return ExitCode::from(2);
    };
    let problem = Arc::new(fft::Problem::new(if protocol == "fft" { n } else { 0 }));
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("profile: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        for _ in 0..iterations {
            once(protocol, implementation, n, &problem).await?;
        }
        Ok::<_, comparison::BoxError>(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("profile: {e}");
            ExitCode::FAILURE
        }
    }
}
