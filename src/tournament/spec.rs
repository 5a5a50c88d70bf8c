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
    /// Bots that were to play but are not in `bots` (their bot.toml is
    /// unusable, or they could not start before the first game), with why:
    /// listed under the standings so that none vanishes silently. Not part
    /// of the identity: the field is `bots`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<Absent>,
}

/// A bot left out of a tournament, and why (one line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absent {
    pub name: String,
    pub reason: String,
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
            // Only gun-duel bots have one; other identities are unchanged.
            if let Some(interface) = &b.interface {
                field("interface");
                field(interface);
            }
        }
        h.finalize().to_hex()[..32].to_string()
    }
}

/// A bot's fingerprint from what identifies it: its name, its command and
/// (once known) the content of its folder.
pub fn fingerprint(name: &str, command: &str) -> String {
    fingerprint_with_content(name, command, "")
}

/// [`fingerprint`] including the folder's content hash. A command using
/// `{protocols}` counts the referee's protocol files as part of the bot
/// ([`crate::protocols::versioned`]).
pub fn fingerprint_with_content(name: &str, command: &str, content: &str) -> String {
    let command = crate::protocols::versioned(command);
    let mut h = blake3::Hasher::new();
    for part in [name, &command, content] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().to_hex()[..16].to_string()
}
