//! Network namespaces through iproute2: creating and removing them, running `ip`
//! batches inside them, marking them as ours, cleaning up after crashed runs, and moving
//! one thread into a namespace.
//!
//! Every namespace this crate makes is named `mpst-tb-<pid>-<bed>-<host>` and has a
//! `/etc/netns/<name>/hosts` file whose first line is a marker naming the creating
//! process (pid and start time). Only namespaces whose marker names a process that no
//! longer runs are ever removed by someone other than their creator.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// The prefix of every namespace this crate creates.
pub(crate) const PREFIX: &str = "mpst-tb-";
/// The first word of the marker line of our hosts files.
const MARKER: &str = "# mpst-testbed";

/// Runs `ip` with `args`, feeding `stdin` if given; a failure is an [`Error::Command`].
pub(crate) fn ip(args: &[&str], stdin: Option<&str>) -> Result<String> {
    let command = format!("ip {}", args.join(" "));
    let mut child = Command::new("ip")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io(format!("starting `{command}`"), e))?;
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("stdin was piped");
        pipe.write_all(text.as_bytes())
            .map_err(|e| Error::io(format!("writing the batch of `{command}`"), e))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io(format!("waiting for `{command}`"), e))?;
    if !out.status.success() {
        let stdin_note = stdin.map(|s| format!(" [batch:\n{s}]")).unwrap_or_default();
        return Err(Error::Command {
            command: format!("{command}{stdin_note}"),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs the `ip` commands in `lines` (one a line, without the leading `ip`) inside `ns`.
pub(crate) fn batch(ns: &str, lines: &str) -> Result<()> {
    ip(&["-n", ns, "-batch", "-"], Some(lines)).map(drop)
}

/// Whether this machine can make network namespaces: root and iproute2's `ip`.
pub(crate) fn check_available() -> Result<()> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(Error::Unavailable(
            "not running as root (network namespaces need CAP_SYS_ADMIN)".into(),
        ));
    }
    match Command::new("ip")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(s) if s.success() => Ok(()),
        _ => Err(Error::Unavailable(
            "the `ip` command (iproute2) is missing".into(),
        )),
    }
}

/// The directory whose files `ip netns exec` binds over `/etc` inside `ns`.
pub(crate) fn etc_dir(ns: &str) -> PathBuf {
    PathBuf::from("/etc/netns").join(ns)
}

/// The marker line naming this process: pid and start time (so a reused pid is told
/// apart from the creator).
fn marker() -> String {
    let pid = std::process::id();
    let start = process_start(pid).unwrap_or(0);
    format!("{MARKER} pid={pid} start={start}")
}

/// The start time (clock ticks after boot, field 22 of `/proc/PID/stat`) of a process.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// A network namespace this process created, removed (with every process in it) on drop.
#[derive(Debug)]
pub(crate) struct Namespace {
    name: String,
}

impl Namespace {
    /// Creates `name` and its hosts file (`hosts`, after the marker line).
    pub(crate) fn create(name: &str, hosts: &str) -> Result<Self> {
        // The hosts file (and so the marker) exists before the namespace does, so a
        // namespace of ours is never left without its proof of ownership.
        let dir = etc_dir(name);
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let file = dir.join("hosts");
        std::fs::write(&file, format!("{}\n{hosts}", marker()))
            .map_err(|e| Error::io(format!("writing {}", file.display()), e))?;
        if let Err(e) = ip(&["netns", "add", name], None) {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(match e {
                Error::Command { stderr, .. } if stderr.contains("ermission") => {
                    Error::Unavailable(format!("`ip netns add` refused: {stderr}"))
                }
                e => e,
            });
        }
        Ok(Namespace { name: name.into() })
    }

    /// The namespace's name (as `ip netns list` shows it).
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        remove(&self.name);
    }
}

/// Kills every process inside `name`, deletes it and its `/etc/netns` directory.
fn remove(name: &str) {
    let own = std::process::id();
    if let Ok(pids) = ip(&["netns", "pids", name], None) {
        for pid in pids
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
        {
            if pid != own {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
            }
        }
    }
    if let Err(e) = ip(&["netns", "delete", name], None) {
        eprintln!("mpst-testbed: removing namespace {name}: {e}");
    }
    let _ = std::fs::remove_dir_all(etc_dir(name));
}

/// Removes namespaces (and temporary directories) left by crashed runs of this crate:
/// those with our prefix whose marker names a process that no longer runs. Anything
/// without our marker is left alone.
pub(crate) fn clean_stale() -> Result<Vec<String>> {
    let list = ip(&["netns", "list"], None)?;
    let mut removed = Vec::new();
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        if name.starts_with(PREFIX) && is_stale(name) {
            eprintln!("mpst-testbed: removing stale namespace {name} of a crashed run");
            remove(name);
            removed.push(name.to_string());
        }
    }
    // The bed directories (role configurations) of crashed runs, marked the same way.
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for entry in entries.flatten() {
            let named_ours = entry.file_name().to_string_lossy().starts_with(PREFIX);
            if named_ours && marks_stale(&entry.path().join(DIR_MARKER)) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(removed)
}

/// The marker file of a bed's temporary directory.
pub(crate) const DIR_MARKER: &str = ".mpst-testbed";

/// Writes the marker naming this process into a bed's temporary directory `dir`.
pub(crate) fn mark_dir(dir: &std::path::Path) -> Result<()> {
    let path = dir.join(DIR_MARKER);
    std::fs::write(&path, marker() + "\n")
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))
}

/// Whether `name`'s marker names a process that no longer runs (false when unsure).
fn is_stale(name: &str) -> bool {
    marks_stale(&etc_dir(name).join("hosts"))
}

/// Whether the file at `path` starts with our marker naming a process that no longer
/// runs (false when unsure).
fn marks_stale(path: &std::path::Path) -> bool {
    let Ok(hosts) = std::fs::read_to_string(path) else {
        return false;
    };
    let Some(line) = hosts.lines().next().filter(|l| l.starts_with(MARKER)) else {
        return false;
    };
    let field = |key: &str| -> Option<u64> {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key)?.parse().ok())
    };
    let (Some(pid), Some(start)) = (field("pid="), field("start=")) else {
        return false;
    };
    match u32::try_from(pid).ok().and_then(process_start) {
        None => true,
        Some(now) => now != start,
    }
}

/// Moves the calling thread (only it) into the network namespace `name`; sockets it
/// creates afterwards live there.
pub(crate) fn enter(name: &str) -> Result<()> {
    let path = PathBuf::from("/run/netns").join(name);
    let file = std::fs::File::open(&path)
        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    // SAFETY: the descriptor is open for the call; setns only changes this thread.
    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(Error::io(
            format!("entering namespace {name}"),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Whether the calling thread is inside the network namespace `name`.
pub(crate) fn thread_is_in(name: &str) -> bool {
    use std::os::unix::fs::MetadataExt;
    let here = std::fs::metadata("/proc/thread-self/ns/net");
    let there = std::fs::metadata(PathBuf::from("/run/netns").join(name));
    match (here, there) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
