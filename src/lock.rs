//! One referee at a time on a results database (and on a tournament's
//! builds): an exclusive `flock` on a lock file, plus who holds it.
//!
//! Two referees on one database would both play every missing game, put a
//! bot in two games at once (its folder, `data.txt`, shared) and add the
//! play time twice. The kernel holds the lock for the open file and drops
//! it when the holder ends however it ends (SIGKILL included), so a lock
//! is never stale on one host: a file that still names a holder when the
//! lock is taken was left by a referee that died holding it, and is said
//! once. The holder's pid, host, command and start time are written into
//! the file for the message a second referee prints. On NFS, Linux
//! emulates `flock` with whole-file `fcntl` locks, which the server
//! arbitrates between hosts (NFSv4, or NFSv3 with lockd); see README.md for
//! where that does not hold.
//!
//! The file is never deleted: a referee waiting on a deleted file's lock
//! and a third one creating a new file would both hold "the" lock. Release
//! empties it instead, while it is still held.

use crate::error::{Error, Result};
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often a waiting referee tries the lock again.
const POLL: Duration = Duration::from_millis(200);

/// Who holds (or held) a lock, as written into its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    pub host: String,
    /// What it is doing: `referee run`, `referee watch`, `building bots`.
    pub command: String,
    /// When the lock was taken, RFC 3339 in UTC (hosts may differ in zone).
    pub since: String,
}

impl Holder {
    /// This process, now.
    fn me(command: &str) -> Holder {
        Holder {
            pid: std::process::id(),
            host: nix::unistd::gethostname()
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_else(|_| "an unknown host".to_string()),
            command: command.to_string(),
            since: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        }
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, pid {} on host {}, since {}",
            self.command, self.pid, self.host, self.since
        )
    }
}

/// A lock held by this process; released (its file emptied) on drop.
#[derive(Debug)]
pub struct Lock {
    /// `None` where the filesystem has no locks (said when taken).
    file: Option<Flock<File>>,
    /// The holder a dead referee left in the file, if any.
    pub left_by: Option<Holder>,
}

impl Drop for Lock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Emptied while still held, so that the next holder finding a
            // name in it knows its writer died holding the lock.
            let _ = file.set_len(0);
            // `Flock`'s own drop panics when unlocking fails (a lost NFS
            // server): then the descriptor is left open instead, and the
            // kernel releases the lock when this process ends.
            if let Err((file, _)) = file.unlock() {
                std::mem::forget(file);
            }
        }
    }
}

/// Someone else holds the lock: who, if the file says (a holder that has
/// just taken it may not have written itself yet).
#[derive(Debug)]
pub struct Busy(pub Option<Holder>);

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(holder) => write!(f, "{holder}"),
            // Just taken and not yet written, or unreadable to others
            // (SMB makes a lock mandatory).
            None => f.write_str("the lock file does not say who"),
        }
    }
}

/// The lock file of a results database: `results.db.lock` beside it.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    db.with_file_name(name)
}

/// Takes the lock at `path` for `command` if nobody holds it, without
/// waiting. The file is created if missing.
pub fn try_hold(path: &Path, command: &str) -> Result<std::result::Result<Lock, Busy>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        // The lock file is emptied on release: never through a link.
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| {
            Error::machine(format!(
                "{}: cannot open the lock file: {e}",
                path.display()
            ))
        })?;
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(file) => {
            let left_by = read_holder(&file);
            let me = Holder::me(command);
            write_holder(&file, &me).map_err(|e| {
                Error::machine(format!(
                    "{}: cannot write the lock file: {e}",
                    path.display()
                ))
            })?;
            Ok(Ok(Lock {
                file: Some(file),
                left_by,
            }))
        }
        Err((file, Errno::EWOULDBLOCK)) => Ok(Err(Busy(read_holder(&file)))),
        // A filesystem without locks (NFS mounted `nolock` is local instead).
        Err((_, e @ (Errno::ENOLCK | Errno::EOPNOTSUPP | Errno::ENOSYS))) => {
            eprintln!(
                "referee: {}: this filesystem cannot lock files ({e}); nothing stops a second referee here",
                path.display()
            );
            Ok(Ok(Lock {
                file: None,
                left_by: None,
            }))
        }
        Err((_, e)) => Err(Error::machine(format!(
            "{}: cannot lock: {e}",
            path.display()
        ))),
    }
}

/// Takes the lock at `path`, trying again every 200 ms while someone
/// else holds it. `None` when cancelled first.
pub async fn wait_for(
    path: &Path,
    command: &str,
    cancel: &CancellationToken,
) -> Result<Option<Lock>> {
    loop {
        if let Ok(lock) = try_hold(path, command)? {
            return Ok(Some(lock));
        }
        tokio::select! {
            _ = cancel.cancelled() => return Ok(None),
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Takes the lock of the results database `db` for `command` (`referee
/// run`, `referee watch`). When another referee holds it: with `wait`, says so and
/// waits for it to end (`None` if cancelled meanwhile); without, refuses
/// with an error naming the holder (exit 2). Says so when the lock was
/// left by a referee that died holding it.
pub async fn hold_database(
    db: &Path,
    command: &str,
    wait: bool,
    cancel: &CancellationToken,
) -> Result<Option<Lock>> {
    let path = lock_path(db);
    let mut attempt = try_hold(&path, command)?;
    // A holder that has just taken the lock writes its name a moment later.
    for _ in 0..10 {
        if !matches!(attempt, Err(Busy(None))) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        attempt = try_hold(&path, command)?;
    }
    let lock = match attempt {
        Ok(lock) => lock,
        Err(busy) if !wait => {
            return Err(Error::input_file(
                db,
                format!(
                    "in use by another referee ({busy}); wait for it to end (or stop it), \
                     or pass --wait to start when it does"
                ),
            ))
        }
        Err(busy) => {
            eprintln!(
                "referee: {}: in use by another referee ({busy}); waiting for it to end",
                db.display()
            );
            match wait_for(&path, command, cancel).await? {
                Some(lock) => lock,
                None => return Ok(None),
            }
        }
    };
    if let Some(dead) = &lock.left_by {
        eprintln!(
            "referee: {}: taking over the lock left by {dead}, which ended without releasing it",
            db.display()
        );
    }
    Ok(Some(lock))
}

fn write_holder(file: &File, holder: &Holder) -> std::io::Result<()> {
    let mut text = serde_json::to_string(holder).map_err(std::io::Error::other)?;
    text.push('\n');
    file.set_len(0)?;
    file.write_all_at(text.as_bytes(), 0)?;
    // Another host reads it through its own NFS client.
    file.sync_data()
}

/// The holder named in the file, if it names one.
fn read_holder(file: &File) -> Option<Holder> {
    // A lock file is a few dozen bytes; more is not ours.
    let mut buf = vec![0u8; 4096];
    let n = file.read_at(&mut buf, 0).ok()?;
    serde_json::from_slice(buf.get(..n)?.trim_ascii()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_name_and_release_empties_the_file() {
        let d = tempfile::tempdir().unwrap();
        let path = lock_path(&d.path().join("results.db"));
        assert!(path.ends_with("results.db.lock"));
        let first = try_hold(&path, "referee run").unwrap().unwrap();
        assert_eq!(first.left_by, None);
        // flock locks belong to the open file: a second open in the same
        // process is refused as another process would be.
        let Err(Busy(Some(holder))) = try_hold(&path, "watch").unwrap() else {
            panic!("the lock was taken twice");
        };
        assert_eq!(holder.pid, std::process::id());
        assert_eq!(holder.command, "referee run");
        assert!(holder.since.ends_with('Z'), "{}", holder.since);
        drop(first);
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        let again = try_hold(&path, "watch").unwrap().unwrap();
        assert_eq!(again.left_by, None);
    }

    #[test]
    fn a_name_left_in_the_file_is_reported_as_a_dead_holder() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("x.lock");
        let dead = Holder {
            pid: 1,
            host: "elsewhere".into(),
            command: "watch".into(),
            since: "2020-01-01T00:00:00Z".into(),
        };
        std::fs::write(&path, serde_json::to_string(&dead).unwrap()).unwrap();
        let lock = try_hold(&path, "run").unwrap().unwrap();
        assert_eq!(lock.left_by, Some(dead));
        let text = std::fs::read_to_string(&path).unwrap();
        let me: Holder = serde_json::from_str(text.trim()).unwrap();
        assert_eq!((me.pid, me.command.as_str()), (std::process::id(), "run"));
    }

    #[test]
    fn a_lock_file_that_is_a_link_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("precious");
        std::fs::write(&target, "keep").unwrap();
        let path = d.path().join("results.db.lock");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert!(try_hold(&path, "run").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}
