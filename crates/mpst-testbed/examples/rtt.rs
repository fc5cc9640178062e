//! Measures round trips through one relayed link: `cargo run -p mpst-testbed --example
//! rtt -- DELAY_MS [PINGS]` (as root) prints the percentiles of PINGS (default 200)
//! 64-byte TCP round trips between threads in two hosts whose link adds DELAY_MS one
//! way, so the relay's own cost and its timer's precision can be read off (ideal:
//! 2 x DELAY_MS).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use mpst_testbed::{Impairment, TestBed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let delay_ms: u64 = args.next().ok_or("usage: rtt DELAY_MS [PINGS]")?.parse()?;
    let pings: usize = args.next().map_or(Ok(200), |p| p.parse())?;
    let bed = TestBed::builder()
        .host("a")
        .host("b")
        .link(
            "a",
            "b",
            Impairment::none().delay(Duration::from_millis(delay_ms)),
        )
        .tcp_port(7000)
        .build()?;
    // An echo thread inside host b.
    let listener = bed.host("b").run(|| TcpListener::bind("0.0.0.0:7000"))??;
    std::thread::spawn(move || -> std::io::Result<()> {
        let (mut stream, _) = listener.accept()?;
        stream.set_nodelay(true)?;
        let mut buf = [0u8; 64];
        loop {
            stream.read_exact(&mut buf)?;
            stream.write_all(&buf)?;
        }
    });
    // The pinger's socket is made inside host a and dials b by the address its name has there.
    let b = SocketAddr::from((bed.host("a").resolve("b").ok_or("b unresolved")?, 7000));
    let mut stream = bed.host("a").run(|| TcpStream::connect(b))??;
    stream.set_nodelay(true)?;
    let mut buf = [7u8; 64];
    let mut rtts = Vec::with_capacity(pings);
    for _ in 0..pings {
        let sent = Instant::now();
        stream.write_all(&buf)?;
        stream.read_exact(&mut buf)?;
        rtts.push(sent.elapsed());
    }
    rtts.sort_unstable();
    let pct = |p: usize| rtts[(rtts.len() - 1) * p / 100].as_secs_f64() * 1000.0;
    println!(
        "one-way delay {delay_ms} ms, {pings} round trips: p10 {:.2} ms, median {:.2} ms, \
         p90 {:.2} ms (ideal {} ms)",
        pct(10),
        pct(50),
        pct(90),
        2 * delay_ms
    );
    Ok(())
}
