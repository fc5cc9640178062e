//! `mpst-testbed-echo`: the test bed's own role program, a TCP echo server (a thread
//! per connection) or pinger, configured like every role program of the workspace:
//! through `mpst_wire::env::Sources`, one TOML file (`--config PATH`, or the path in
//! `MPST_CONFIG`) in `mpst-wire`'s format and `MPST_*` variables over it; it exits with
//! a status of `mpst_wire::RoleExit`'s table. It is the pattern role binaries follow.
//!
//! ```toml
//! role = "echo"              # any role name; the protocol is "echo/1" unless given
//! listen = "0.0.0.0:7000"    # an echo: where to listen (no peers)
//! connect_timeout = "10s"    # ping: to connect; echo: to wait for each connection
//! receive_timeout = "10s"    # the longest wait for bytes
//! [peers]
//! ECHO = "bob:7000"          # a ping: the one peer to ping, by host name (no listen)
//! ```
//!
//! `--count N` (default 1): connections an echo serves, round trips a ping makes;
//! `--size N` (default 64): bytes per round trip. An echo prints `listening ADDR` once
//! bound. A ping prints `rtt_us N` per round trip, then `summary count=.. min_us=..
//! median_us=.. max_us=..`. Exit statuses: 0 done, 2 bad configuration or usage, 3
//! could not resolve, bind or connect (or nobody connected to an echo in time), 4 the
//! peer closed, reset or fell silent beyond `receive_timeout`, 5 it echoed other bytes.
//! (The program speaks plain TCP: `[security]` is not read.)

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mpst_wire::RoleExit;
use mpst_wire::env::Sources;

/// A failure and the exit status that reports it.
struct Failure(RoleExit, String);

fn usage(msg: String) -> Failure {
    Failure(RoleExit::Usage, msg)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(exit, msg)) => {
            eprintln!("mpst-testbed-echo: {msg}");
            exit.into()
        }
    }
}

/// The command line: `--config PATH`, `--role NAME`, `--count N`, `--size N`.
struct Args {
    config: Option<String>,
    role: Option<String>,
    count: u32,
    size: usize,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, Failure> {
    let mut parsed = Args {
        config: None,
        role: None,
        count: 1,
        size: 64,
    };
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| usage(format!("{arg} needs a value")))
        };
        let number = |v: String| {
            v.parse::<u32>()
                .map_err(|_| usage(format!("{arg} {v}: expected a whole number")))
        };
        match arg.as_str() {
            "--config" => parsed.config = Some(value()?),
            "--role" => parsed.role = Some(value()?),
            "--count" => parsed.count = number(value()?)?,
            "--size" => parsed.size = number(value()?)? as usize,
            other => return Err(usage(format!("unknown argument `{other}`"))),
        }
    }
    Ok(parsed)
}

fn run() -> Result<(), Failure> {
    let args = parse(std::env::args().skip(1))?;
    let mut sources = Sources::from_process_env()
        .map_err(|e| usage(e.to_string()))?
        .default_protocol("echo/1");
    if let Some(file) = &args.config {
        sources = sources.file(file);
    }
    if let Some(role) = &args.role {
        sources = sources.role(role);
    }
    if !sources.names_a_role() {
        return Err(usage(
            "no configuration: pass --config PATH or set MPST_CONFIG (or MPST_ROLE)".into(),
        ));
    }
    let config = sources.load().map_err(|e| usage(e.to_string()))?;
    let connect = config.get_connect_timeout();
    // "none": wait for ever (a year, as far as a socket's time-out goes).
    let receive = config
        .get_receive_timeout()
        .unwrap_or(Duration::from_secs(365 * 24 * 3600));
    let peers: Vec<&str> = config.peers().collect();
    match (config.listen_address(), peers.as_slice()) {
        (Some(listen), []) => echo(listen, args.count, connect, receive),
        (None, [peer]) => {
            let address = config
                .peer_address(peer)
                .ok_or_else(|| usage(format!("peer {peer} has no address to ping")))?;
            ping(address, args.count, args.size, connect, receive)
        }
        _ => Err(usage(format!(
            "role {}: give either `listen` (an echo) or one peer (a ping)",
            config.role()
        ))),
    }
}

/// Maps an I/O error while talking to the peer to its failure: silence beyond the
/// receive time-out or a broken connection is a lost peer.
fn io_failure(doing: &str, e: std::io::Error) -> Failure {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => {
            Failure(RoleExit::Lost, format!("timed out {doing}"))
        }
        _ => Failure(RoleExit::Lost, format!("{doing}: {e}")),
    }
}

fn echo(listen: &str, count: u32, connect: Duration, receive: Duration) -> Result<(), Failure> {
    let listener = TcpListener::bind(listen)
        .map_err(|e| Failure(RoleExit::Unreachable, format!("binding {listen}: {e}")))?;
    // Tells whoever started it that connections can come (stdout is a pipe in tests).
    println!("listening {listen}");
    let _ = std::io::stdout().flush();
    // Each connection is echoed on its own thread; the echo ends when `count`
    // connections have ended.
    let mut served = Vec::new();
    for _ in 0..count {
        wait_readable(&listener, connect)?;
        let (mut stream, _) = listener
            .accept()
            .map_err(|e| Failure(RoleExit::Unreachable, format!("accepting on {listen}: {e}")))?;
        served.push(std::thread::spawn(move || echo_one(&mut stream, receive)));
    }
    for connection in served {
        match connection.join() {
            Ok(Ok(())) => {}
            // A connection reset or broken by the link ends that connection only.
            Ok(Err(Failure(RoleExit::Lost, msg))) => eprintln!("mpst-testbed-echo: {msg}"),
            Ok(Err(failure)) => return Err(failure),
            Err(_) => {
                return Err(Failure(
                    RoleExit::Internal,
                    "an echo thread panicked".into(),
                ));
            }
        }
    }
    Ok(())
}

/// Echoes one connection until its peer closes it.
fn echo_one(stream: &mut TcpStream, receive: Duration) -> Result<(), Failure> {
    let _ = stream.set_nodelay(true);
    stream
        .set_read_timeout(Some(receive))
        .map_err(|e| io_failure("echoing", e))?;
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = stream
            .read(&mut buf)
            .map_err(|e| io_failure("echoing", e))?;
        if n == 0 {
            return Ok(());
        }
        stream
            .write_all(&buf[..n])
            .map_err(|e| io_failure("echoing", e))?;
    }
}

/// Waits until `listener` has a connection to accept, at most `timeout`.
fn wait_readable(listener: &TcpListener, timeout: Duration) -> Result<(), Failure> {
    let mut fds = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: `fds` is one valid pollfd for the duration of the call.
    match unsafe { libc::poll(&mut fds, 1, ms) } {
        0 => Err(Failure(
            RoleExit::Unreachable,
            format!("nobody connected within {timeout:?} (connect_timeout)"),
        )),
        n if n < 0 => Err(Failure(
            RoleExit::Unreachable,
            format!("polling: {}", std::io::Error::last_os_error()),
        )),
        _ => Ok(()),
    }
}

fn ping(
    peer: &str,
    count: u32,
    size: usize,
    connect: Duration,
    receive: Duration,
) -> Result<(), Failure> {
    let unreachable = |msg: String| Failure(RoleExit::Unreachable, msg);
    let addr = peer
        .to_socket_addrs()
        .map_err(|e| unreachable(format!("resolving {peer}: {e}")))?
        .next()
        .ok_or_else(|| unreachable(format!("{peer} resolves to no address")))?;
    let mut stream = TcpStream::connect_timeout(&addr, connect)
        .map_err(|e| unreachable(format!("connecting to {peer} ({addr}): {e}")))?;
    let _ = stream.set_nodelay(true);
    stream
        .set_read_timeout(Some(receive))
        .map_err(|e| io_failure("waiting for an echo", e))?;
    let mut rtts = Vec::new();
    let mut back = vec![0u8; size];
    for i in 0..count {
        let payload: Vec<u8> = (0..size).map(|k| (k as u32 ^ i) as u8).collect();
        let sent = Instant::now();
        stream
            .write_all(&payload)
            .map_err(|e| io_failure("sending a ping", e))?;
        stream.read_exact(&mut back).map_err(|e| match e.kind() {
            ErrorKind::UnexpectedEof => Failure(RoleExit::Lost, format!("{peer} closed mid-echo")),
            _ => io_failure("waiting for an echo", e),
        })?;
        let rtt = sent.elapsed().as_micros();
        if back != payload {
            let msg = format!("{peer} echoed other bytes on ping {i}");
            return Err(Failure(RoleExit::Protocol, msg));
        }
        println!("rtt_us {rtt}");
        rtts.push(rtt);
    }
    rtts.sort_unstable();
    if let (Some(min), Some(max)) = (rtts.first(), rtts.last()) {
        println!(
            "summary count={} min_us={min} median_us={} max_us={max}",
            rtts.len(),
            rtts[rtts.len() / 2]
        );
    }
    Ok(())
}
