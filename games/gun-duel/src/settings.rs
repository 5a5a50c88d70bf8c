//! Settings of a gun-duel tournament (section 1) and the per-bot interface.

use game_core::SettingInfo;
use serde::{Deserialize, Serialize};

/// How a bot is spoken to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interface {
    /// Interface 1: one process per turn, the exit status is the move.
    ExitCode,
    /// Interface 2: one process per tournament speaking `I`/`F`/`P` lines.
    Io,
}

impl Interface {
    /// The value written in instructions.txt, bot.toml and `--interface-a`.
    pub fn name(self) -> &'static str {
        match self {
            Interface::ExitCode => "exit-code",
            Interface::Io => "io",
        }
    }

    /// Parses `io` or `exit-code`; the error names the accepted values, and
    /// the caller adds the file and line.
    pub fn parse(value: &str) -> Result<Interface, String> {
        match value.trim() {
            "io" => Ok(Interface::Io),
            "exit-code" => Ok(Interface::ExitCode),
            other => Err(format!(
                "unknown gun-duel interface `{other}` (expected `io` or `exit-code`)"
            )),
        }
    }
}

/// Header keys every challenge shares; the tournament runner reads them, so
/// the gun-duel validator lets them through untouched.
pub const SHARED_KEYS: [&str; 2] = ["challenge", "seed"];

/// The challenge's own settings (header keys), in the order of section 1.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        key: "duels-per-pair",
        value_name: "N",
        default: "100",
        help: "duels per pair of live bots per round",
        flag: false,
    },
    SettingInfo {
        key: "turns",
        value_name: "N",
        default: "100",
        help: "turn limit of a duel; reaching it is a draw",
        flag: false,
    },
    SettingInfo {
        key: "timeout-ms",
        value_name: "MS",
        default: "1000",
        help: "wall-clock limit per move",
        flag: true,
    },
    SettingInfo {
        key: "interface",
        value_name: "io|exit-code",
        default: "io",
        help: "interface of bots whose bot.toml sets none",
        flag: false,
    },
];

/// Above this many turns a history argument of interface 1 could exceed the
/// kernel's limit on one argv entry (128 KiB), so the run would fail to start.
pub const MAX_TURNS: u32 = 100_000;

/// Extra time the first `F` a process receives gets for start-up (interface 2).
pub const STARTUP_GRACE_MS: u64 = 5000;

/// How long a live interface-2 bot may take to exit after its stdin is closed
/// at the end of the tournament, before its process group is killed.
pub const END_GRACE_MS: u64 = 1000;

/// More whitespace bytes than this before a move count as bad output.
pub const MAX_WHITESPACE: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Duels per pair of live bots per round (one per pass).
    pub duels_per_pair: u32,
    /// Turn limit of a duel; reaching it is a draw.
    pub turns: u32,
    /// Wall-clock limit per move.
    pub timeout_ms: u64,
    /// Interface of the bots whose bot.toml sets none.
    pub interface: Interface,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            duels_per_pair: 100,
            turns: 100,
            timeout_ms: 1000,
            interface: Interface::Io,
        }
    }
}

impl Settings {
    /// Settings from the defaults overridden by header `key: value` pairs,
    /// in file order. The first bad pair is the error.
    pub fn from_pairs<'a, I>(pairs: I) -> Result<Settings, String>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut settings = Settings::default();
        for (key, value) in pairs {
            settings.apply(key, value)?;
        }
        Ok(settings)
    }

    /// Applies one header key (or a command-line flag of the same name).
    /// An unknown key or a bad value is an error string without a location,
    /// so the caller can name the file and line.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let key = key.trim();
        let value = value.trim();
        match key {
            "duels-per-pair" => self.duels_per_pair = positive(key, value, u32::MAX)?,
            "turns" => self.turns = positive(key, value, MAX_TURNS)?,
            "timeout-ms" => self.timeout_ms = positive(key, value, u64::from(u32::MAX))?,
            "interface" => self.interface = Interface::parse(value)?,
            k if SHARED_KEYS.contains(&k) => {}
            other => {
                return Err(format!(
                    "unknown gun-duel setting `{other}` (known: {})",
                    game_core::settings::known(SETTINGS)
                ))
            }
        }
        Ok(())
    }
}

/// A whole number from 1 to `max`. Zero is refused: no duels, no turns or no
/// time would make every bot tie or lose without playing.
fn positive<T>(key: &str, value: &str, max: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + Default + std::fmt::Display + Copy,
{
    match value.parse::<T>() {
        Ok(n) if n > T::default() && n <= max => Ok(n),
        _ => Err(format!(
            "gun-duel setting `{key}` must be a whole number from 1 to {max}, not `{value}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_those_of_section_1() {
        let s = Settings::default();
        assert_eq!(
            (s.duels_per_pair, s.turns, s.timeout_ms, s.interface),
            (100, 100, 1000, Interface::Io)
        );
    }

    #[test]
    fn header_pairs_override_defaults_in_order() {
        let s = Settings::from_pairs([
            ("duels-per-pair", "7"),
            ("turns", " 3 "),
            ("timeout-ms", "250"),
            ("interface", "exit-code"),
            ("seed", "42"),
            ("challenge", "gun-duel"),
            ("turns", "4"),
        ])
        .expect("valid header");
        assert_eq!(
            s,
            Settings {
                duels_per_pair: 7,
                turns: 4,
                timeout_ms: 250,
                interface: Interface::ExitCode
            }
        );
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let err = Settings::from_pairs([("games", "10")]).expect_err("unknown key");
        assert!(err.contains("`games`"), "{err}");
        for (k, v) in [
            ("turns", "0"),
            ("turns", "-1"),
            ("turns", "100001"),
            ("duels-per-pair", "many"),
            ("timeout-ms", ""),
            ("interface", "stdin"),
        ] {
            let err = Settings::from_pairs([(k, v)]).expect_err("bad value");
            assert!(err.contains(v) || v.is_empty(), "{err}");
        }
    }

    #[test]
    fn the_settings_table_matches_apply_and_the_defaults() {
        game_core::settings::check_table(SETTINGS).unwrap();
        let mut s = Settings {
            duels_per_pair: 1,
            turns: 1,
            timeout_ms: 1,
            interface: Interface::ExitCode,
        };
        for info in SETTINGS {
            s.apply(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        let err = Settings::default().apply("games", "1").unwrap_err();
        assert_eq!(
            err,
            "unknown gun-duel setting `games` (known: duels-per-pair, turns, timeout-ms, interface)"
        );
    }

    #[test]
    fn interface_names_round_trip() {
        for i in [Interface::Io, Interface::ExitCode] {
            assert_eq!(Interface::parse(i.name()), Ok(i));
        }
        assert!(Interface::parse("IO").is_err());
    }
}
