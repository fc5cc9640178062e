//! Accepting peers while strangers knock: every accepted connection runs its TLS and
//! `mpst` handshakes side by side with the others, within the handshake time-out, at most
//! [`Config::max_pending_handshakes`] at once (one more evicts the oldest); whatever a
//! connection does wrong closes that connection only (after its refusal is written),
//! is logged with its address, and accepting goes on until every awaited peer is in or
//! the deadline passes. `accept()` errors (e.g. out of file descriptors) back off.

use std::collections::{BTreeSet, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::{AbortHandle, Abortable};
use futures::stream::FuturesUnordered;
use futures::StreamExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{sleep, sleep_until, timeout_at, Instant};

use super::config::Config;
use super::connect::{config_error, deadline_after};
use super::dial::timed_out;
use super::error::{NetError, NetErrorKind};
use super::handshake::{self, Turned};
use super::io::Connection;

/// Accepts every peer of `awaited` before the deadline.
pub(crate) async fn accept_all(
    config: &Config,
    listener: Option<&TcpListener>,
    awaited: Vec<&str>,
    deadline: Instant,
) -> Result<Vec<(String, Connection)>, NetError> {
    let mut accepted = Vec::new();
    let Some(&first) = awaited.first() else {
        return Ok(accepted);
    };
    let Some(listener) = listener else {
        return Err(config_error(
            config,
            format!("{first} dials {} but it has no listen address", config.role),
        ));
    };
    let local = listener
        .local_addr()
        .map_err(|e| NetError::new(&config.role, NetErrorKind::Io(e)))?;
    let waiting = Mutex::new(
        awaited
            .iter()
            .map(|&r| r.to_owned())
            .collect::<BTreeSet<_>>(),
    );
    let mut pending = FuturesUnordered::new();
    let mut handles: VecDeque<(u64, AbortHandle)> = VecDeque::new();
    let mut next_id = 0_u64;
    let mut last_turned: Option<String> = None;
    let mut backoff = Duration::from_millis(1);
    while accepted.len() < awaited.len() {
        tokio::select! {
            biased;
            Some((id, outcome)) = pending.next(), if !pending.is_empty() => {
                handles.retain(|(i, _)| *i != id);
                match outcome {
                    Ok(Ok(admitted)) => accepted.push(admitted),
                    Ok(Err(Turned { error, fatal: true })) => return Err(error),
                    Ok(Err(Turned { error, fatal: false })) => {
                        log(&error);
                        last_turned = Some(error.to_string());
                    }
                    Err(_evicted) => {}
                }
            }
            connection = listener.accept() => match connection {
                Ok((stream, address)) => {
                    backoff = Duration::from_millis(1);
                    let _ = stream.set_nodelay(true);
                    if handles.len() >= config.max_pending_handshakes {
                        if let Some((_, oldest)) = handles.pop_front() {
                            oldest.abort();
                        }
                    }
                    let (handle, registration) = AbortHandle::new_pair();
                    let id = next_id;
                    next_id += 1;
                    handles.push_back((id, handle));
                    let admit = admit(config, &waiting, address, stream, deadline);
                    pending.push(async move { (id, Abortable::new(admit, registration).await) });
                }
                Err(error) => {
                    // Out of descriptors or memory: let time pass instead of spinning.
                    log(&NetError::new(format!("[{local}]"), NetErrorKind::Io(error)));
                    sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_millis(500));
                }
            },
            () = sleep_until(deadline) => {
                let missing = lock(&waiting).iter().next().cloned().unwrap_or_default();
                let last = last_turned.map(|text| {
                    io::Error::other(format!("last connection turned away: {text}"))
                });
                return Err(timed_out(&missing, local, last));
            }
        }
    }
    Ok(accepted)
}

fn lock(waiting: &Mutex<BTreeSet<String>>) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
    waiting
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// One accepted connection's handshakes, within the handshake time-out.
async fn admit(
    config: &Config,
    waiting: &Mutex<BTreeSet<String>>,
    address: SocketAddr,
    stream: TcpStream,
    deadline: Instant,
) -> Result<(String, Connection), Turned> {
    let until = deadline_after(config.handshake_timeout).min(deadline);
    let handshakes = async {
        let (mut connection, authenticated) = secure(config, address, stream).await?;
        let peer = handshake::accept(
            config,
            waiting,
            address,
            authenticated.as_deref(),
            &mut connection,
        )
        .await?;
        Ok((peer, connection))
    };
    match timeout_at(until, handshakes).await {
        Ok(result) => result,
        Err(_elapsed) => Err(Turned {
            error: NetError::new(
                format!("[{address}]"),
                NetErrorKind::Io(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no handshake within {:?}", config.handshake_timeout),
                )),
            ),
            fatal: false,
        }),
    }
}

/// Runs the TLS server handshake when the configuration asks for TLS; returns the
/// connection and the role its certificate proves, if any.
#[allow(clippy::unused_async)] // async only with feature `tls`
async fn secure(
    config: &Config,
    address: SocketAddr,
    stream: TcpStream,
) -> Result<(Connection, Option<String>), Turned> {
    #[cfg(feature = "tls")]
    if let Some(tls) = &config.tls {
        return tls.accept(address, stream).await.map_err(|error| Turned {
            error,
            fatal: false,
        });
    }
    let _ = (config, address);
    Ok((Connection::Plain(stream), None))
}

/// Logs a connection turned away (with feature `tracing`; otherwise it only shows in a
/// time-out's error).
#[allow(clippy::needless_pass_by_ref_mut)]
fn log(error: &NetError) {
    #[cfg(feature = "tracing")]
    tracing::warn!(target: "mpst::net", "turned away: {error}");
    let _ = error;
}
