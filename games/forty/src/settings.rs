//! The challenge's settings (section 1): defaults, and validation of the
//! `key: value` header lines of instructions.txt and of command-line
//! overrides.

use game_core::SettingInfo;
use serde::{Deserialize, Serialize};

/// Header keys every challenge shares; the command line handles them, so
/// [`Settings::from_pairs`] passes over them.
pub const SHARED_KEYS: [&str; 2] = ["challenge", "seed"];

/// The settings this challenge accepts, in the order of section 1.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        key: "games",
        value_name: "N",
        default: "10000",
        help: "games in the tournament",
        flag: true,
    },
    SettingInfo {
        key: "bots-per-game",
        value_name: "N",
        default: "8",
        help: "seats per game (3.1)",
        flag: false,
    },
    SettingInfo {
        key: "timeout-ms",
        value_name: "MS",
        default: "100",
        help: "time budget of one turn, summed over its decisions (waits for a CPU left out)",
        flag: true,
    },
    SettingInfo {
        key: "kill-ms",
        value_name: "MS",
        default: "1000",
        help: "a process silent this long past its deadline (per ask waiting) is killed",
        flag: false,
    },
    SettingInfo {
        key: "max-crashes",
        value_name: "N",
        default: "3",
        help: "crashes that disqualify a bot",
        flag: false,
    },
    SettingInfo {
        key: "memory-mb",
        value_name: "MB",
        default: "500",
        help: "memory limit per bot process",
        flag: false,
    },
    SettingInfo {
        key: "startup-ms",
        value_name: "MS",
        default: "10000",
        help: "from each process's own spawn to its handshake reply",
        flag: false,
    },
    SettingInfo {
        key: "concurrency",
        value_name: "N",
        default: "2048",
        help: "games in flight at once (speed only)",
        flag: false,
    },
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Games in the tournament.
    pub games: u64,
    /// Seats per game when enough bots are eligible (section 3.1).
    pub bots_per_game: usize,
    /// Time budget of one turn, summed over its decisions.
    pub timeout_ms: u64,
    /// A reply this late past its deadline gets the process killed.
    pub kill_ms: u64,
    /// Crashes that disqualify a bot.
    pub max_crashes: u32,
    /// Memory limit per bot process.
    pub memory_mb: u64,
    /// From spawn to the handshake reply.
    pub startup_ms: u64,
    /// Games in flight at once (speed only).
    pub concurrency: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            games: 10_000,
            bots_per_game: 8,
            timeout_ms: 100,
            kill_ms: 1_000,
            max_crashes: 3,
            memory_mb: 500,
            startup_ms: 10_000,
            concurrency: 2_048,
        }
    }
}

impl Settings {
    /// Defaults overridden by `pairs` (header lines, then command-line
    /// flags, later pairs winning). Shared keys are skipped; an unknown key
    /// or a bad value is an error naming it.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Settings, String>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut settings = Settings::default();
        for (key, value) in pairs {
            let key = key.as_ref().trim();
            if SHARED_KEYS.contains(&key) {
                continue;
            }
            settings.set(key, value.as_ref())?;
        }
        Ok(settings)
    }

    /// Sets one key from its text value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let key = key.trim();
        let value = value.trim();
        match key {
            "games" => self.games = number(key, value, 1)?,
            "bots-per-game" => self.bots_per_game = number(key, value, 2)?,
            "timeout-ms" => self.timeout_ms = number(key, value, 1)?,
            "kill-ms" => self.kill_ms = number(key, value, 0)?,
            "max-crashes" => self.max_crashes = number(key, value, 1)?,
            "memory-mb" => self.memory_mb = number(key, value, 1)?,
            "startup-ms" => self.startup_ms = number(key, value, 1)?,
            "concurrency" => self.concurrency = number(key, value, 1)?,
            _ => return Err(game_core::settings::unknown_setting(key, "forty", SETTINGS)),
        }
        Ok(())
    }

    /// The settings as `key: value` pairs, for the database and for a
    /// resume's check that nothing changed.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("games", self.games.to_string()),
            ("bots-per-game", self.bots_per_game.to_string()),
            ("timeout-ms", self.timeout_ms.to_string()),
            ("kill-ms", self.kill_ms.to_string()),
            ("max-crashes", self.max_crashes.to_string()),
            ("memory-mb", self.memory_mb.to_string()),
            ("startup-ms", self.startup_ms.to_string()),
            ("concurrency", self.concurrency.to_string()),
        ]
    }
}

fn number<T>(key: &str, value: &str, min: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    match value.parse::<T>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "setting `{key}`: `{value}` is not a whole number of at least {min}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_section_1() {
        let s = Settings::default();
        assert_eq!(s.games, 10_000);
        assert_eq!(s.bots_per_game, 8);
        assert_eq!(s.timeout_ms, 100);
        assert_eq!(s.kill_ms, 1_000);
        assert_eq!(s.max_crashes, 3);
        assert_eq!(s.memory_mb, 500);
        assert_eq!(s.startup_ms, 10_000);
        assert_eq!(s.concurrency, 2_048);
    }

    #[test]
    fn pairs_override_defaults_and_later_pairs_win() {
        let s = Settings::from_pairs([
            ("games", "500"),
            ("challenge", "forty"),
            ("seed", "42"),
            ("timeout-ms", " 250 "),
            ("games", "600"),
            ("kill-ms", "0"),
        ])
        .unwrap();
        assert_eq!(s.games, 600);
        assert_eq!(s.timeout_ms, 250);
        assert_eq!(s.kill_ms, 0);
        assert_eq!(s.bots_per_game, 8);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let err = Settings::from_pairs([("rounds", "5")]).unwrap_err();
        assert!(err.contains("unknown setting `rounds`"), "{err}");
        for (k, v) in [
            ("games", "0"),
            ("games", "-1"),
            ("games", "ten"),
            ("bots-per-game", "1"),
            ("timeout-ms", "1.5"),
            ("max-crashes", "0"),
            ("concurrency", ""),
        ] {
            let err = Settings::from_pairs([(k, v)]).unwrap_err();
            assert!(err.contains(k), "{k}={v}: {err}");
        }
    }

    #[test]
    fn the_settings_table_matches_set_pairs_and_the_defaults() {
        game_core::settings::check_table(SETTINGS).unwrap();
        let mut s = Settings {
            games: 1,
            bots_per_game: 2,
            timeout_ms: 1,
            kill_ms: 0,
            max_crashes: 1,
            memory_mb: 1,
            startup_ms: 1,
            concurrency: 1,
        };
        for info in SETTINGS {
            s.set(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        let table: Vec<_> = SETTINGS
            .iter()
            .map(|i| (i.key, i.default.to_string()))
            .collect();
        assert_eq!(Settings::default().pairs(), table);
        let err = Settings::default().set("seed", "1").unwrap_err();
        assert_eq!(
            err,
            "unknown setting `seed` for forty (known: games, bots-per-game, timeout-ms, \
             kill-ms, max-crashes, memory-mb, startup-ms, concurrency)"
        );
    }

    #[test]
    fn pairs_round_trip() {
        let s = Settings {
            games: 77,
            memory_mb: 64,
            ..Settings::default()
        };
        let back = Settings::from_pairs(s.pairs()).unwrap();
        assert_eq!(back, s);
    }
}
