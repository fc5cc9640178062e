//! Wall-clock ping-pong round trips over loopback: ChoRus's HTTP transport against
//! `mpst-choreo`'s TCP (plaintext by its explicit opt-in, like ChoRus's plain HTTP, and
//! with mutual TLS, its default) and QUIC transports (out of order and in order), each in one
//! process with both roles. `loopback [ROUNDS] [REPEATS]` prints one Markdown row per
//! implementation: the median over REPEATS of the mean round trip of ROUNDS ping-pongs
//! (after 50 warm-up ping-pongs), in microseconds, and the load average.
//!
//! `loopback memory [RUNS] [REPEATS]` times the three choreographies in memory instead
//! (ChoRus's local transport, a thread per location; ours over `InMemory` on a
//! current-thread tokio runtime): the median over REPEATS of the mean time of one run.

use std::time::Duration;

use choreo_comparison::{chorus, ours};

const WARMUP: u64 = 50;

/// A free loopback port for ChoRus, whose HTTP servers take fixed ports.
fn free_port() -> Result<u16, String> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The in-memory wall-clock table.
fn memory(runs: u64, repeats: u64) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    println!("load average before: {}", load());
    println!(
        "| choreography | ChoRus 0.5 (µs/run) | ours, out of order | ours, in order | ours / ChoRus | in order / ChoRus |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for choreography in choreo_comparison::CHOREOGRAPHIES {
        let mut samples = [vec![], vec![], vec![]];
        for _ in 0..repeats {
            let start = std::time::Instant::now();
            chorus::local(choreography, runs)?;
            samples[0].push(start.elapsed().as_secs_f64() * 1e6 / runs as f64);
            for (slot, in_order) in [(1, false), (2, true)] {
                let start = std::time::Instant::now();
                runtime.block_on(ours::in_memory(choreography, in_order, runs))?;
                samples[slot].push(start.elapsed().as_secs_f64() * 1e6 / runs as f64);
            }
        }
        let [c, o, i] = samples.map(median);
        println!(
            "| {choreography} | {c:.2} | {o:.2} | {i:.2} | {:.2} | {:.2} |",
            o / c,
            i / c
        );
    }
    println!("load average after: {}", load());
    Ok(())
}

fn main() -> Result<(), String> {
    if std::env::args().nth(1).as_deref() == Some("memory") {
        let args: Vec<u64> = std::env::args()
            .skip(2)
            .filter_map(|a| a.parse().ok())
            .collect();
        return memory(
            args.first().copied().unwrap_or(2000),
            args.get(1).copied().unwrap_or(5),
        );
    }
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(500);
    let repeats = args.get(1).copied().unwrap_or(5);
    let per_round = |took: Duration| took.as_secs_f64() * 1e6 / rounds as f64;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    println!("load average before: {}", load());
    println!("| implementation | transport | round trip (µs, median of {repeats}) | all samples |");
    println!("|---|---|---:|---|");
    let mut rows: Vec<(&str, &str, Vec<f64>)> = vec![
        ("ChoRus 0.5", "HTTP (tiny_http + ureq)", vec![]),
        ("ours, out of order", "TCP, plaintext", vec![]),
        ("ours, in order", "TCP, plaintext", vec![]),
        ("ours, out of order", "TCP, mutual TLS", vec![]),
        ("ours, in order", "TCP, mutual TLS", vec![]),
        ("ours, out of order", "QUIC", vec![]),
        ("ours, in order", "QUIC", vec![]),
    ];
    for _ in 0..repeats {
        // Alternate the implementations so that load changes hit all of them alike.
        let ports = (free_port()?, free_port()?);
        rows[0]
            .2
            .push(per_round(chorus::ping_pong_http(WARMUP, rounds, ports)?));
        for (row, (net, in_order)) in [
            (ours::Net::TcpPlain, false),
            (ours::Net::TcpPlain, true),
            (ours::Net::TcpTls, false),
            (ours::Net::TcpTls, true),
            (ours::Net::Quic, false),
            (ours::Net::Quic, true),
        ]
        .into_iter()
        .enumerate()
        {
            let took = runtime.block_on(ours::ping_pong_net(net, in_order, WARMUP, rounds))?;
            rows[row + 1].2.push(per_round(took));
        }
    }
    for (implementation, transport, samples) in rows {
        let all: Vec<String> = samples.iter().map(|s| format!("{s:.1}")).collect();
        println!(
            "| {implementation} | {transport} | {:.1} | {} |",
            median(samples.clone()),
            all.join(", ")
        );
    }
    println!("load average after: {}", load());
    Ok(())
}
