//! A tournament as the referee resolved it: challenge, seed, settings and
//! bots. Stored with every tournament so `referee standings` can re-plan it
//! without the instructions file.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One bot of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    pub name: String,
    pub command: String,
    pub argv: Vec<String>,
    /// The bot's folder.
    pub folder: PathBuf,
    /// Names what this bot is for caching: games whose bots' fingerprints
    /// are unchanged are not replayed.
    pub fingerprint: String,
    pub language: Option<String>,
    pub owner: Option<String>,
    /// Challenge-specific per-bot value from bot.toml (gun-duel's interface).
    pub interface: Option<String>,
    /// Why the bot cannot play, when a challenge found out while loading
    /// its program (bf-joust: the program's one-line error). Such a bot is
    /// listed with no games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

/// A resolved tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSpec {
    pub challenge: String,
    pub seed: u64,
    /// The challenge's settings as `key -> value` after headers and
    /// command-line overrides (defaults are left to the challenge).
    pub settings: BTreeMap<String, String>,
    pub bots: Vec<BotSpec>,
    /// The tournament directory.
    pub dir: PathBuf,
}

impl TournamentSpec {
    /// A stable name for this tournament: same challenge, seed, settings
    /// and field give the same identity, so a rerun resumes it.
    pub fn identity(&self) -> String {
        let mut h = blake3::Hasher::new();
        let mut field = |s: &str| {
            h.update(&(s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        };
        field(&self.challenge);
        field(&self.seed.to_string());
        for (k, v) in &self.settings {
            field(k);
            field(v);
        }
        for b in &self.bots {
            field(&b.name);
            field(&b.fingerprint);
        }
        h.finalize().to_hex()[..32].to_string()
    }
}

/// A bot's fingerprint from what identifies it: its name and command.
pub fn fingerprint(name: &str, command: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(name.as_bytes());
    h.update(&[0]);
    h.update(command.as_bytes());
    h.finalize().to_hex()[..16].to_string()
}
