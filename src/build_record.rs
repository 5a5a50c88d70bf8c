//! Which bots are built: a record per bot folder of its last successful
//! `build`, kept with the tournament rather than in a results database, so
//! a run on a new `--db` (or a deleted one) rebuilds nothing that is up to
//! date.
//!
//! The records live in `.referee/builds/` inside the tournament folder, one
//! JSON file per bot folder: the build command and the folder's content
//! hash after that build ([`crate::bot_folder::content_hash`]). A build is
//! up to date when the folder hashes the same and the command is the same.
//! No bot can write there: the sandbox keeps every bot and every build
//! out of the tournament folder but for its own folder, and a bot's name
//! (its folder's) never starts with a dot. So no bot can make another one
//! skip its build; a bot that rewrites its own folder only makes itself be
//! built again.
//!
//! `.referee/builds.lock` keeps two referees on different databases from
//! building one tournament's bots at once ([`crate::lock`]).

use crate::error::{Error, Result};
use crate::lock::{try_hold, wait_for, Lock};
use crate::progress::Progress;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// The referee's own folder inside a tournament folder.
pub const REFEREE_FOLDER: &str = ".referee";

/// What the build lock's holder is doing, for a referee that waits.
const BUILDING: &str = "building bots";

/// One bot folder's last successful build.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Record {
    command: String,
    /// The folder's content hash just after the build.
    content: String,
    /// RFC 3339, UTC: for the organiser reading the file.
    built_at: String,
}

/// The build records of one tournament.
pub struct BuildRecords {
    /// `<tournament>/.referee/builds`.
    dir: PathBuf,
}

impl BuildRecords {
    /// The records of the tournament in `tournament_dir` (nothing is read yet).
    pub fn of(tournament_dir: &Path) -> BuildRecords {
        BuildRecords {
            dir: tournament_dir.join(REFEREE_FOLDER).join("builds"),
        }
    }

    /// Where the record of the bot in `folder` is kept.
    fn path(&self, folder: &Path) -> PathBuf {
        let name = folder
            .file_name()
            .map_or_else(|| "bot".into(), |n| n.to_string_lossy());
        self.dir.join(format!("{name}.json"))
    }

    /// Takes the tournament's build lock, creating the records' folder;
    /// waits (saying so) while another referee builds this tournament's
    /// bots. `None` when cancelled meanwhile.
    pub async fn hold(
        &self,
        progress: &Progress,
        cancel: &CancellationToken,
    ) -> Result<Option<Lock>> {
        std::fs::create_dir_all(&self.dir).map_err(|e| {
            Error::machine(format!(
                "{}: cannot create the folder: {e}",
                self.dir.display()
            ))
        })?;
        let path = self.dir.with_extension("lock");
        match try_hold(&path, BUILDING)? {
            Ok(lock) => Ok(Some(lock)),
            Err(busy) => {
                progress.say(&format!(
                    "waiting for another referee to finish building this tournament's bots ({busy})"
                ));
                wait_for(&path, BUILDING, cancel).await
            }
        }
    }

    /// Whether the bot in `folder` was last built with `command` and its
    /// folder still hashes to what that build left (`content`).
    pub fn up_to_date(&self, folder: &Path, command: &str, content: &str) -> bool {
        let Ok(text) = std::fs::read(self.path(folder)) else {
            return false;
        };
        serde_json::from_slice::<Record>(&text)
            .is_ok_and(|r| r.command == command && r.content == content)
    }

    /// Records a successful build of the bot in `folder` with `command`,
    /// after which the folder hashed to `content`. Written to a temporary
    /// file and renamed, so a kill never leaves half a record.
    pub fn record(&self, folder: &Path, command: &str, content: &str) -> std::io::Result<()> {
        let record = Record {
            command: command.to_string(),
            content: content.to_string(),
            built_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        };
        let path = self.path(folder);
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        let text = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_matches_its_command_and_content_only() {
        let d = tempfile::tempdir().unwrap();
        let records = BuildRecords::of(d.path());
        std::fs::create_dir_all(&records.dir).unwrap();
        let fl = d.path().join("fl");
        let other = d.path().join("other");
        assert!(!records.up_to_date(&fl, "make", "abc"));
        records.record(&fl, "make", "abc").unwrap();
        assert!(records.up_to_date(&fl, "make", "abc"));
        assert!(!records.up_to_date(&fl, "make", "abd"));
        assert!(!records.up_to_date(&fl, "make -j2", "abc"));
        assert!(!records.up_to_date(&other, "make", "abc"));
        assert!(d.path().join(".referee/builds/fl.json").is_file());
        // A damaged record is no record.
        std::fs::write(d.path().join(".referee/builds/fl.json"), "{").unwrap();
        assert!(!records.up_to_date(&fl, "make", "abc"));
    }
}
