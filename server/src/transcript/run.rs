//! Running a subprocess: an argument array (never a shell), stdin closed,
//! both outputs captured, and a deadline after which it is killed.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Debug)]
pub struct Ran {
    /// Whether it exited with 0.
    pub success: bool,
    /// Its exit code (none when a signal ended it).
    pub code: Option<i32>,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Ran {
    /// The last lines of stderr (what a failure says), at most `n`.
    pub fn tail(&self, n: usize) -> String {
        let lines: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Starts `bin`. A program file still open for writing somewhere (being
/// installed or upgraded, or just written by another thread whose fork
/// has not yet exec'd) cannot be run for that instant (`ETXTBSY`): that
/// is tried again a few times, briefly, before it counts as a failure.
fn spawn(bin: &Path, args: &[OsString]) -> std::io::Result<std::process::Child> {
    const TEXT_FILE_BUSY: i32 = 26;
    let mut tries = 0;
    loop {
        let started = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        match started {
            Err(e) if e.raw_os_error() == Some(TEXT_FILE_BUSY) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(25));
            }
            other => return other,
        }
    }
}

/// Runs `bin` with `args`; `Err` if it cannot start or outlives `timeout`.
pub fn run(bin: &Path, args: &[OsString], timeout: Duration) -> Result<Ran, String> {
    let name = bin.file_name().map_or_else(
        || bin.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut child =
        spawn(bin, args).map_err(|e| format!("could not start {}: {e}", bin.display()))?;
    let out = drain(child.stdout.take().expect("stdout is piped"));
    let err = drain(child.stderr.take().expect("stderr is piped"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{name} was stopped after {}s without finishing",
                    timeout.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for {name} failed: {e}")),
        }
    };
    Ok(Ran {
        success: status.success(),
        code: status.code(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}
