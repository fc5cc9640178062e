//! What makes an example role program deployable: its configuration from one TOML file
//! and `MPST_*` variables (`mpst_wire::env`), logs with `tracing` to standard error, exit
//! statuses of `mpst_wire::RoleExit`'s table, and `--write-config DIR` for trying every
//! role out as its own process on this machine (`examples/run_roles.sh`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use mpst_choreo::ChoreoError;
use mpst_choreo::transport::{TransportCause, TransportError};
use mpst_wire::RoleExit;
use mpst_wire::env::Sources;

/// Logs with `tracing` to standard error, filtered by `RUST_LOG` (`info` when unset).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The configuration sources: `--config FILE` and `--role NAME` if given, over the
/// process's `MPST_*` variables; `None` when nothing names a configuration file or
/// `MPST_ROLE` (the example then runs in another mode).
pub fn sources(
    file: Option<&Path>,
    role: Option<&str>,
    protocol: &str,
) -> Result<Option<Sources>, String> {
    let mut sources = Sources::from_process_env()
        .map_err(|e| e.to_string())?
        .default_protocol(protocol);
    if let Some(file) = file {
        sources = sources.file(file);
    }
    let configured = sources.names_a_role();
    if let Some(role) = role {
        sources = sources.role(role);
    }
    Ok(configured.then_some(sources))
}

/// How long a receive waits: the configuration's `receive_timeout` (`none`: for ever),
/// or the endpoint's default when the command line configured the role by hand.
pub fn receive_timeout(wire: Option<&mpst_wire::WireConfig>) -> Duration {
    match wire {
        Some(wire) => wire.get_receive_timeout().unwrap_or(Duration::MAX),
        None => mpst_choreo::EndpointConfig::default().recv_timeout,
    }
}

/// The status of a failure to connect: a configuration the transport cannot use (no
/// listen address, a peer without one) is usage, anything else could not connect.
pub fn connect_exit(error: &TransportError) -> RoleExit {
    match &error.cause {
        TransportCause::Io(e) if e.kind() == std::io::ErrorKind::InvalidInput => RoleExit::Usage,
        _ => RoleExit::Unreachable,
    }
}

/// The status of a failed run: a peer lost or silent is 4, a refused or unreachable
/// transport 3, the runtime's own failures 1, the rest protocol or application errors 5.
pub fn run_exit(error: &ChoreoError) -> RoleExit {
    match error {
        ChoreoError::Transport(e) => match &e.cause {
            TransportCause::Closed | TransportCause::Io(_) | TransportCause::Lost(_) => {
                RoleExit::Lost
            }
            TransportCause::Refused(_) | TransportCause::Unavailable(_) => RoleExit::Unreachable,
            _ => RoleExit::Protocol,
        },
        ChoreoError::Timeout { .. } | ChoreoError::PeerLost { .. } | ChoreoError::Closed { .. } => {
            RoleExit::Lost
        }
        ChoreoError::Task { .. } | ChoreoError::NoRuntime | ChoreoError::NoTimer { .. } => {
            RoleExit::Internal
        }
        _ => RoleExit::Protocol,
    }
}

/// Writes a CA, each role's certificate and key, and one TOML file per role into `dir`:
/// role `i` (in the example's order) listens on `127.0.0.1:{port + i}` and reaches every
/// other role at `localhost:{its port}`. Returns the files written.
pub fn write_config(
    dir: &Path,
    protocol: &str,
    roles: &[String],
    port: u16,
) -> Result<Vec<PathBuf>, String> {
    let mut files =
        mpst_wire::certs::write_deployment(dir, protocol, roles).map_err(|e| e.to_string())?;
    let port_of = |i: usize| {
        u16::try_from(i)
            .ok()
            .and_then(|i| port.checked_add(i))
            .ok_or(format!("--port {port}: too high for {} roles", roles.len()))
    };
    for (i, role) in roles.iter().enumerate() {
        let mut toml = format!(
            "# Role {role} of {protocol}: start it with `--config {role}.toml`.\n\
             role = {role:?}\nprotocol = {protocol:?}\nlisten = \"127.0.0.1:{}\"\n\
             connect_timeout = \"20s\"\n\n[peers]\n",
            port_of(i)?
        );
        for (j, peer) in roles.iter().enumerate().filter(|(j, _)| *j != i) {
            toml.push_str(&format!("{peer} = \"localhost:{}\"\n", port_of(j)?));
        }
        let (cert, key) = mpst_wire::certs::role_files(Path::new("."), role);
        toml.push_str(&format!(
            "\n[security]                 # relative to this file\nca = \"ca.pem\"\n\
             cert = {:?}\nkey = {:?}\n",
            cert.file_name().unwrap_or_default().to_string_lossy(),
            key.file_name().unwrap_or_default().to_string_lossy(),
        ));
        let file = dir.join(format!("{role}.toml"));
        std::fs::write(&file, toml).map_err(|e| format!("{}: {e}", file.display()))?;
        files.push(file);
    }
    Ok(files)
}
