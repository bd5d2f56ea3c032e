//! One driver per promotion plan. Whoever drives a plan (starts, resumes, rolls back, abandons
//! or consolidates it; the CLI or the console) first takes an advisory lock (`flock`) on
//! `<endpoint>.lock` beside the plan's state file and keeps it while it drives: a second driver
//! is refused and told who drives (pid, host, since). The OS releases the lock when the holder
//! ends, kill -9 included, so a crashed driver never blocks a resume. The lock file is never
//! removed (removing it would let two processes lock two different files).

use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::local::host::host_name;

/// Who drives a plan, as its lock file says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Driver {
    /// Process id of the driver.
    pub pid: u32,
    /// Host it runs on.
    pub host: String,
    /// When it took the plan, epoch seconds.
    pub since: f64,
}

impl std::fmt::Display for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let since = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(self.since.max(0.0));
        write!(
            f,
            "pid {} on {} since {}",
            self.pid,
            self.host,
            humantime::format_rfc3339_seconds(since)
        )
    }
}

/// Why a plan could not be locked.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanLockError {
    /// Another process drives the plan (its details, when its lock file names it).
    Held(Option<Driver>),
    /// The lock file could not be opened or locked.
    Io(String),
}

impl std::fmt::Display for PlanLockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanLockError::Held(Some(d)) => write!(f, "the plan is driven by {d}"),
            PlanLockError::Held(None) => write!(f, "the plan is driven by another process"),
            PlanLockError::Io(m) => write!(f, "cannot lock the plan: {m}"),
        }
    }
}

/// The lock of one plan, held until dropped.
#[derive(Debug)]
pub struct PlanLock {
    _file: std::fs::File,
}

/// The lock file of the plan whose state is saved at `plan`.
pub fn lock_path(plan: &Path) -> PathBuf {
    plan.with_extension("lock")
}

/// Who holds the lock of the plan at `plan`, as its lock file says (None when it names no one).
pub fn current_driver(plan: &Path) -> Option<Driver> {
    let mut text = String::new();
    std::fs::File::open(lock_path(plan))
        .ok()?
        .read_to_string(&mut text)
        .ok()?;
    serde_json::from_str(&text).ok()
}

/// Whether some process drives the plan at `plan` now (and who, when its lock file says);
/// nothing is written.
pub fn driven_by(plan: &Path) -> Option<Option<Driver>> {
    if !lock_path(plan).exists() {
        return None;
    }
    match try_lock(plan) {
        Err(PlanLockError::Held(d)) => Some(d),
        _ => None,
    }
}

fn io_error(plan: &Path) -> impl Fn(std::io::Error) -> PlanLockError + '_ {
    move |e| PlanLockError::Io(format!("{}: {e}", lock_path(plan).display()))
}

/// The lock file, locked (created with its directory when missing).
fn try_lock(plan: &Path) -> Result<std::fs::File, PlanLockError> {
    let io = io_error(plan);
    if let Some(dir) = plan.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::local::private::create_private_dir(dir).map_err(&io)?;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(lock_path(plan))
        .map_err(&io)?;
    // SAFETY: flock only uses the descriptor, which `file` keeps open during the call.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(if e.kind() == std::io::ErrorKind::WouldBlock {
            PlanLockError::Held(current_driver(plan))
        } else {
            io(e)
        });
    }
    Ok(file)
}

impl PlanLock {
    /// Takes the lock of the plan saved at `plan` without waiting, and writes this process into
    /// the lock file; refused with the driver's details while another open lock holds it (in this
    /// process or another).
    pub fn acquire(plan: &Path) -> Result<PlanLock, PlanLockError> {
        let io = io_error(plan);
        let mut file = try_lock(plan)?;
        let me = Driver {
            pid: std::process::id(),
            host: host_name(),
            since: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0),
        };
        let body = serde_json::to_vec(&me).map_err(|e| PlanLockError::Io(e.to_string()))?;
        file.set_len(0).map_err(&io)?;
        file.rewind().map_err(&io)?;
        file.write_all(&body).map_err(&io)?;
        Ok(PlanLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_driver_until_the_first_drops() {
        let dir = tempfile::tempdir().unwrap();
        let plan = dir.path().join("promotions/ep.json");
        let first = PlanLock::acquire(&plan).unwrap();
        match PlanLock::acquire(&plan) {
            Err(PlanLockError::Held(Some(d))) => {
                assert_eq!(d.pid, std::process::id());
                assert!(d.to_string().starts_with(&format!("pid {} on ", d.pid)), "{d}");
            }
            other => panic!("{other:?}"),
        }
        assert!(driven_by(&plan).is_some());
        drop(first);
        assert!(driven_by(&plan).is_none());
        assert!(PlanLock::acquire(&plan).is_ok());
    }
}
