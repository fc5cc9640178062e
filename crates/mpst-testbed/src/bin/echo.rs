//! `mpst-testbed-echo`: the test bed's own role program, a TCP echo server (a thread
//! per connection) or pinger
//! configured by one TOML file (`--config PATH`, or the path in `MPST_CONFIG`), that
//! exits with a status saying what happened. It is the pattern role binaries follow.
//!
//! ```toml
//! mode = "ping"            # "echo": serve; "ping": measure round trips
//! listen = "0.0.0.0:7000"  # echo: where to listen
//! peer = "bob:7000"        # ping: whom to ping, by host name
//! count = 20               # echo: connections to serve; ping: round trips
//! size = 64                # ping: bytes per round trip
//! timeout_ms = 10000       # the whole run's time-out
//! ```
//!
//! An echo prints `listening ADDR` once bound. A ping prints `rtt_us N` per round trip, then `summary count=.. min_us=.. median_us=..
//! max_us=..`. Exit statuses: 0 done, 2 bad configuration, 3 could not resolve, bind or
//! connect, 4 the peer closed, reset or echoed wrong bytes, 5 timed out.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde::Deserialize;

/// The configuration file's contents.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    mode: Mode,
    listen: Option<String>,
    peer: Option<String>,
    count: u32,
    #[serde(default = "default_size")]
    size: usize,
    #[serde(default = "default_timeout")]
    timeout_ms: u64,
}

fn default_size() -> usize {
    64
}

fn default_timeout() -> u64 {
    10_000
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Echo,
    Ping,
}

/// A failure and the exit status that reports it.
struct Failure(u8, String);

fn config_error(msg: String) -> Failure {
    Failure(2, msg)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(code, msg)) => {
            eprintln!("mpst-testbed-echo: {msg}");
            ExitCode::from(code)
        }
    }
}

fn run() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = match args.as_slice() {
        [flag, path] if flag == "--config" => path.clone(),
        [] => std::env::var("MPST_CONFIG").map_err(|_| {
            config_error("no configuration: pass --config PATH or set MPST_CONFIG".into())
        })?,
        _ => return Err(config_error(format!("usage: --config PATH (got {args:?})"))),
    };
    let text =
        std::fs::read_to_string(&path).map_err(|e| config_error(format!("reading {path}: {e}")))?;
    let config: Config = toml::from_str(&text).map_err(|e| config_error(format!("{path}: {e}")))?;
    let deadline = Instant::now() + Duration::from_millis(config.timeout_ms);
    match config.mode {
        Mode::Echo => {
            let listen = config
                .listen
                .as_deref()
                .ok_or_else(|| config_error(format!("{path}: mode \"echo\" needs `listen`")))?;
            echo(listen, config.count, deadline)
        }
        Mode::Ping => {
            let peer = config
                .peer
                .as_deref()
                .ok_or_else(|| config_error(format!("{path}: mode \"ping\" needs `peer`")))?;
            ping(peer, config.count, config.size, deadline)
        }
    }
}

/// Time left before `deadline`, or the time-out failure.
fn left(deadline: Instant, doing: &str) -> Result<Duration, Failure> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| Failure(5, format!("timed out {doing}")))
}

/// Maps an I/O error while talking to the peer to its failure.
fn io_failure(doing: &str, e: std::io::Error) -> Failure {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => Failure(5, format!("timed out {doing}")),
        _ => Failure(4, format!("{doing}: {e}")),
    }
}

fn echo(listen: &str, count: u32, deadline: Instant) -> Result<(), Failure> {
    let listener =
        TcpListener::bind(listen).map_err(|e| Failure(3, format!("binding {listen}: {e}")))?;
    // Tells whoever started it that connections can come (stdout is a pipe in tests).
    println!("listening {listen}");
    let _ = std::io::stdout().flush();
    // Each connection is echoed on its own thread; the echo ends when `count`
    // connections have ended.
    let mut served = Vec::new();
    for _ in 0..count {
        wait_readable(&listener, left(deadline, "waiting for a connection")?)?;
        let (mut stream, _) = listener
            .accept()
            .map_err(|e| Failure(3, format!("accepting on {listen}: {e}")))?;
        served.push(std::thread::spawn(move || echo_one(&mut stream, deadline)));
    }
    for connection in served {
        match connection.join() {
            Ok(Ok(())) => {}
            // A connection reset or broken by the link ends that connection only.
            Ok(Err(Failure(4, msg))) => eprintln!("mpst-testbed-echo: {msg}"),
            Ok(Err(failure)) => return Err(failure),
            Err(_) => return Err(Failure(4, "an echo thread panicked".into())),
        }
    }
    Ok(())
}

/// Echoes one connection until its peer closes it.
fn echo_one(stream: &mut TcpStream, deadline: Instant) -> Result<(), Failure> {
    let _ = stream.set_nodelay(true);
    let mut buf = [0u8; 16 * 1024];
    loop {
        stream
            .set_read_timeout(Some(left(deadline, "echoing")?))
            .map_err(|e| io_failure("echoing", e))?;
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
        0 => Err(Failure(5, "timed out waiting for a connection".into())),
        n if n < 0 => Err(Failure(
            3,
            format!("polling: {}", std::io::Error::last_os_error()),
        )),
        _ => Ok(()),
    }
}

fn ping(peer: &str, count: u32, size: usize, deadline: Instant) -> Result<(), Failure> {
    let addr = peer
        .to_socket_addrs()
        .map_err(|e| Failure(3, format!("resolving {peer}: {e}")))?
        .next()
        .ok_or_else(|| Failure(3, format!("{peer} resolves to no address")))?;
    let mut stream = TcpStream::connect_timeout(&addr, left(deadline, "connecting")?)
        .map_err(|e| Failure(3, format!("connecting to {peer} ({addr}): {e}")))?;
    let _ = stream.set_nodelay(true);
    let mut rtts = Vec::new();
    let mut back = vec![0u8; size];
    for i in 0..count {
        let payload: Vec<u8> = (0..size).map(|k| (k as u32 ^ i) as u8).collect();
        let sent = Instant::now();
        stream
            .write_all(&payload)
            .map_err(|e| io_failure("sending a ping", e))?;
        stream
            .set_read_timeout(Some(left(deadline, "waiting for an echo")?))
            .map_err(|e| io_failure("waiting for an echo", e))?;
        stream.read_exact(&mut back).map_err(|e| match e.kind() {
            ErrorKind::UnexpectedEof => Failure(4, format!("{peer} closed mid-echo")),
            _ => io_failure("waiting for an echo", e),
        })?;
        let rtt = sent.elapsed().as_micros();
        if back != payload {
            return Err(Failure(4, format!("{peer} echoed other bytes on ping {i}")));
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
