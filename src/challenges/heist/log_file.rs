//! A tournament's log file (spec §7), kept in step with the database: the
//! file mirrors the stored games' log blocks. A block is appended before its
//! game is committed, and the checkpoint stores the file's length, so after
//! a crash the file may run ahead of the database but never behind; opening
//! it for a resume cuts it back to the stored length, or rewrites it from
//! the stored blocks when its start is not what the database holds.

use super::series::{game_key, StoredGame};
use super::CHALLENGE;
use crate::error::{Error, Result};
use crate::results::Store;
use crate::session::Session;
use game_heist::log::log_path;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Tournament `t`'s log in `log_dir`, made to agree with the database: the
/// blocks of its first `games` games (stored under `key`), `stored_len`
/// bytes. A log that had to be rewritten is said on a progress line.
pub(super) fn reconcile(
    session: &Session,
    log_dir: &Path,
    key: &str,
    t: u32,
    games: u32,
    stored_len: u64,
) -> Result<TournamentLog> {
    let (log, rewritten) = TournamentLog::open(log_dir.join(log_path(t)), stored_len, || {
        stored_log(&session.store(), key, games, t)
    })?;
    if rewritten {
        session.progress.say(&format!(
            "{} did not match the results database; rewritten from it",
            log.path.display()
        ));
    }
    Ok(log)
}

/// The log blocks of games `0..games` of a tournament, from the database.
fn stored_log(store: &Store, key: &str, games: u32, t: u32) -> Result<Vec<u8>> {
    let keys: Vec<String> = (0..games).map(|g| game_key(key, g)).collect();
    let found = store.games(CHALLENGE, &keys)?;
    let mut out = Vec::new();
    for k in &keys {
        let record: StoredGame = found
            .get(k)
            .and_then(|row| serde_json::from_str(&row.record).ok())
            .ok_or_else(|| {
                Error::machine(format!(
                    "heist tournament {t}: game {k} is missing from the results database"
                ))
            })?;
        out.extend_from_slice(record.log.as_bytes());
    }
    Ok(out)
}

/// A tournament's log file, kept in step with the database.
pub struct TournamentLog {
    path: PathBuf,
    file: File,
    len: u64,
}

impl TournamentLog {
    /// Opens the log so that it holds exactly the stored games' blocks:
    /// truncated to `stored_len` when its start is what the database holds,
    /// otherwise rewritten from the database. Returns whether it was rewritten.
    fn open(
        path: PathBuf,
        stored_len: u64,
        stored: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(TournamentLog, bool)> {
        let io = |e: std::io::Error| Error::machine(format!("{}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut rewritten = false;
        if stored_len > 0 {
            let expected = stored()?;
            let mut head = Vec::with_capacity(expected.len());
            (&mut file)
                .take(expected.len() as u64)
                .read_to_end(&mut head)
                .map_err(io)?;
            if head != expected || expected.len() as u64 != stored_len {
                file.set_len(0).map_err(io)?;
                file.seek(SeekFrom::Start(0)).map_err(io)?;
                file.write_all(&expected).map_err(io)?;
                rewritten = true;
            }
            let len = expected.len() as u64;
            file.set_len(len).map_err(io)?;
            file.seek(SeekFrom::Start(len)).map_err(io)?;
            file.flush().map_err(io)?;
            return Ok((TournamentLog { path, file, len }, rewritten));
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        Ok((TournamentLog { path, file, len: 0 }, rewritten))
    }

    /// Appends one game's block (before the game is committed).
    pub(super) fn append(&mut self, block: &str) -> Result<()> {
        self.file
            .write_all(block.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::machine(format!("{}: {e}", self.path.display())))?;
        self.len += block.len() as u64;
        Ok(())
    }

    /// The file's length in bytes, as the checkpoint stores it.
    pub(super) fn len(&self) -> u64 {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_log_is_rewritten_and_a_longer_one_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heist-logs/tournament-1.log");
        let stored = || Ok(b"block 0\n\nblock 1\n\n".to_vec());

        // Fresh: created empty.
        let (log, rewritten) = TournamentLog::open(path.clone(), 0, stored).unwrap();
        assert!(!rewritten);
        drop(log);
        assert_eq!(std::fs::read(&path).unwrap(), b"");

        // A block written but not committed: cut off.
        std::fs::write(&path, b"block 0\n\nblock 1\n\nblock 2\n\n").unwrap();
        let (mut log, rewritten) = TournamentLog::open(path.clone(), 18, stored).unwrap();
        assert!(!rewritten);
        log.append("block 2'\n\n").unwrap();
        drop(log);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"block 0\n\nblock 1\n\nblock 2'\n\n"
        );

        // Another run's log, or a shortened one: rewritten from the database.
        for damaged in [&b"other 0\n\nother 1\n\n"[..], b"block 0\n"] {
            std::fs::write(&path, damaged).unwrap();
            let (log, rewritten) = TournamentLog::open(path.clone(), 18, stored).unwrap();
            assert!(rewritten);
            assert_eq!(log.len, 18);
            drop(log);
            assert_eq!(std::fs::read(&path).unwrap(), b"block 0\n\nblock 1\n\n");
        }
    }
}
