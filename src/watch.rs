//! What `referee watch` compares to decide whether to play again: a
//! snapshot of what a pass depends on, taken before and after each pass,
//! and a debounce of the folder's events.
//!
//! Bots write their own folders while they play (meta-ttt's `data.txt`, or
//! a hostile bot a new file every move). Such writes must not start another
//! pass, or a bot could keep the referee playing, and re-rolling its games,
//! for ever. So a folder whose bot played (or was built) in the last pass
//! is compared with the snapshot taken after that pass, when none of its
//! processes is left; everything no bot can write (the instructions, the
//! set of bot folders, the folders of bots that did not play) is compared
//! with the snapshot taken before it, so an edit made while a pass ran is
//! still seen.

use crate::bot_folder::content_hash;
use crate::bot_toml::BotToml;
use crate::instructions::Instructions;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What a pass reads of the tournament folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The instructions' content hash, or why they cannot be read.
    instructions: String,
    /// Each folder that can be a bot (listed in the instructions, or
    /// holding a bot.toml, even an unreadable one): its content hash as the
    /// bot's identity counts it (bot.toml included).
    bots: BTreeMap<String, String>,
}

impl Snapshot {
    /// Takes a snapshot of the tournament of `instructions` in `dir`.
    pub fn take(instructions: &Path, dir: &Path) -> Snapshot {
        let text = std::fs::read(instructions);
        let listed: BTreeSet<String> = Instructions::load(instructions)
            .map(|i| i.bots.into_iter().map(|b| b.name).collect())
            .unwrap_or_default();
        let mut bots = BTreeMap::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let Some(name) = e.file_name().to_str().map(str::to_string) else {
                    continue;
                };
                let folder = e.path();
                let has_toml = !matches!(
                    std::fs::symlink_metadata(folder.join("bot.toml")),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound
                );
                if !folder.is_dir() || !(listed.contains(&name) || has_toml) {
                    continue;
                }
                let ignore = BotToml::load(&folder)
                    .ok()
                    .flatten()
                    .map(|t| t.ignore)
                    .unwrap_or_default();
                bots.insert(name, content_hash(&folder, &ignore));
            }
        }
        Snapshot {
            instructions: match text {
                Ok(bytes) => blake3::hash(&bytes).to_hex().to_string(),
                Err(e) => format!("unreadable: {e}"),
            },
            bots,
        }
    }

    /// What changed in `self` since a pass that started at `before`, ended
    /// at `after` and ran the bots named in `played`, in a way that the
    /// next pass would see: `None` when nothing did. A played bot's folder
    /// counts from `after`, as the bot itself may have written it; the rest
    /// from `before`.
    pub fn changed_since(
        &self,
        before: &Snapshot,
        after: &Snapshot,
        played: &BTreeSet<String>,
    ) -> Option<String> {
        if self.instructions != before.instructions {
            return Some("the instructions changed".to_string());
        }
        let names: BTreeSet<&String> = [before, after, self]
            .iter()
            .flat_map(|s| s.bots.keys())
            .collect();
        names.into_iter().find_map(|name| {
            let then = if played.contains(name) { after } else { before };
            match (then.bots.get(name), self.bots.get(name)) {
                (a, b) if a == b => None,
                (None, Some(_)) => Some(format!("new bot folder `{name}`")),
                (Some(_), None) => Some(format!("bot folder `{name}` is gone")),
                _ => Some(format!("bot folder `{name}` changed")),
            }
        })
    }
}

/// How long the folder must be quiet before a snapshot is taken.
pub const QUIET: Duration = Duration::from_millis(500);
/// The longest a burst of events postpones the snapshot.
pub const SETTLE_AT_MOST: Duration = Duration::from_secs(10);

/// Waits until no event has been counted in `events` for [`QUIET`] (a copy
/// in progress settles), at most [`SETTLE_AT_MOST`]. `false` if cancelled.
pub async fn settle(events: &AtomicU64, cancel: &CancellationToken) -> bool {
    let start = Instant::now();
    let mut seen = events.load(Ordering::Relaxed);
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return false,
            _ = tokio::time::sleep(QUIET) => {}
        }
        let now = events.load(Ordering::Relaxed);
        if now == seen || start.elapsed() >= SETTLE_AT_MOST {
            return true;
        }
        seen = now;
    }
}

/// Whether a folder event can change what a pass reads: opening or reading
/// a file cannot (the snapshots themselves open every file).
pub fn counts(event: &notify::Result<notify::Event>) -> bool {
    match event {
        Ok(e) => !matches!(e.kind, notify::EventKind::Access(_)),
        // A lost event (a queue overflow) may have been anything.
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn played(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_played_bots_own_writes_are_not_a_change_but_others_are() {
        let d = tempfile::tempdir().unwrap();
        let ins = d.path().join("instructions.txt");
        std::fs::write(&ins, "challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\n").unwrap();
        for n in ["a", "b"] {
            std::fs::create_dir(d.path().join(n)).unwrap();
            std::fs::write(d.path().join(n).join("run.sh"), n).unwrap();
        }
        // Folders no bot can be in do not count.
        std::fs::create_dir(d.path().join("logs")).unwrap();
        std::fs::create_dir(d.path().join("notes")).unwrap();
        let before = Snapshot::take(&ins, d.path());
        // During the pass `a` writes a file of its own.
        std::fs::write(d.path().join("a/junk-1"), "x").unwrap();
        std::fs::write(d.path().join("logs/a.log"), "x").unwrap();
        let after = Snapshot::take(&ins, d.path());
        let ab = played(&["a", "b"]);
        let now = Snapshot::take(&ins, d.path());
        assert_eq!(now.changed_since(&before, &after, &ab), None);
        // Had `a` not played, someone else wrote it.
        assert_eq!(
            now.changed_since(&before, &after, &played(&["b"])),
            Some("bot folder `a` changed".to_string())
        );
        std::fs::write(d.path().join("notes/x"), "x").unwrap();
        let now = Snapshot::take(&ins, d.path());
        assert_eq!(now.changed_since(&before, &after, &ab), None);
        // After the pass, an edit of a played bot's folder is a change.
        std::fs::write(d.path().join("b/run.sh"), "b2").unwrap();
        let now = Snapshot::take(&ins, d.path());
        assert_eq!(
            now.changed_since(&before, &after, &ab),
            Some("bot folder `b` changed".to_string())
        );
    }

    #[test]
    fn new_folders_and_instructions_count_even_when_written_during_the_pass() {
        let d = tempfile::tempdir().unwrap();
        let ins = d.path().join("instructions.txt");
        std::fs::write(&ins, "challenge: meta-ttt\na sh a/run.sh\nb sh b/run.sh\n").unwrap();
        let before = Snapshot::take(&ins, d.path());
        let late = d.path().join("late");
        std::fs::create_dir(&late).unwrap();
        std::fs::write(late.join("bot.toml"), "name = \"late\"\nrun = \"x\"\n").unwrap();
        let after = Snapshot::take(&ins, d.path());
        let ab = played(&["a", "b"]);
        assert_eq!(
            after.changed_since(&before, &after, &ab),
            Some("new bot folder `late`".to_string())
        );
        // A broken bot.toml is still a bot folder.
        std::fs::write(late.join("bot.toml"), "garbage").unwrap();
        let before = Snapshot::take(&ins, d.path());
        std::fs::write(&ins, "challenge: meta-ttt\na sh a/run.sh\n").unwrap();
        let after = Snapshot::take(&ins, d.path());
        assert_eq!(
            after.changed_since(&before, &after, &ab),
            Some("the instructions changed".to_string())
        );
        std::fs::remove_dir_all(&late).unwrap();
        let now = Snapshot::take(&ins, d.path());
        assert_eq!(
            now.changed_since(&after, &after, &ab),
            Some("bot folder `late` is gone".to_string())
        );
    }

    #[tokio::test]
    async fn settle_waits_for_quiet_and_stops_when_cancelled() {
        let events = std::sync::Arc::new(AtomicU64::new(0));
        let cancel = CancellationToken::new();
        let start = Instant::now();
        assert!(settle(&events, &cancel).await);
        assert!(start.elapsed() >= QUIET);
        cancel.cancel();
        assert!(!settle(&events, &cancel).await);
    }
}
