//! Processes started inside a host: killed on drop, waited for with a time-out, their
//! exit statuses and output reported.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output};
use std::thread::JoinHandle;
use std::time::Duration;

use wait_timeout::ChildExt;

use crate::error::{Error, Result};

/// A process started in a host of the bed; killed (SIGKILL) and reaped on drop.
#[derive(Debug)]
pub struct Process {
    child: Child,
    what: String,
    done: Option<ExitStatus>,
}

impl Process {
    /// Starts `command`; `what` names it in errors.
    pub fn spawn(command: &mut Command, what: impl Into<String>) -> Result<Process> {
        let what = what.into();
        let child = command
            .spawn()
            .map_err(|e| Error::io(format!("starting {what}"), e))?;
        Ok(Process {
            child,
            what,
            done: None,
        })
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Takes the process's piped stdout (to read it while the process runs).
    pub fn take_stdout(&mut self) -> Option<std::process::ChildStdout> {
        self.child.stdout.take()
    }

    /// Takes the process's piped stderr (to read it while the process runs).
    pub fn take_stderr(&mut self) -> Option<std::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// Takes the process's piped stdin (to write to it while the process runs; dropping
    /// it closes the pipe).
    pub fn take_stdin(&mut self) -> Option<std::process::ChildStdin> {
        self.child.stdin.take()
    }

    /// Waits up to `timeout` for the process to exit and returns its status; past the
    /// time-out the process is killed and the answer is [`Error::TimedOut`].
    pub fn wait_timeout(&mut self, timeout: Duration) -> Result<ExitStatus> {
        if let Some(status) = self.done {
            return Ok(status);
        }
        match self
            .child
            .wait_timeout(timeout)
            .map_err(|e| Error::io(format!("waiting for {}", self.what), e))?
        {
            Some(status) => {
                self.done = Some(status);
                Ok(status)
            }
            None => {
                self.kill();
                Err(Error::TimedOut {
                    what: self.what.clone(),
                    after: timeout,
                })
            }
        }
    }

    /// Waits up to `timeout` and returns the exit status with everything the process
    /// wrote on its piped stdout and stderr (empty for streams that were not piped).
    pub fn wait_output(mut self, timeout: Duration) -> Result<Output> {
        let stdout = drain(self.child.stdout.take());
        let stderr = drain(self.child.stderr.take());
        let status = self.wait_timeout(timeout);
        // The pipes close when the process has exited (or been killed).
        let stdout = stdout
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default();
        let stderr = stderr
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default();
        Ok(Output {
            status: status?,
            stdout,
            stderr,
        })
    }

    /// Kills the process (if it still runs) and reaps it.
    pub fn kill(&mut self) {
        if self.done.is_none() {
            let _ = self.child.kill();
            if let Ok(status) = self.child.wait() {
                self.done = Some(status);
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.done.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
        }
    }
}

/// Reads a pipe to its end on a thread.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut p| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = p.read_to_end(&mut bytes);
            bytes
        })
    })
}
