//! The challenge's setting keys (spec §5), with defaults and validation.

use crate::arena::DEFAULT_CYCLES;
use game_core::SettingInfo;

/// How each match of a pairing gets its tape length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapeLengths {
    /// Drawn uniformly from 10..=30 per match, from the match's seed.
    Random,
    /// Every length 10..=30 once (21 matches per pairing).
    All,
}

/// The settings this challenge accepts, as header keys and as `--KEY` flags,
/// in the order of §5.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        key: "matches-per-pairing",
        value_name: "N",
        default: "10",
        help: "matches per unordered pair (an integer >= 1); ignored with tape-lengths: all",
        flag: true,
    },
    SettingInfo {
        key: "tape-lengths",
        value_name: "random|all",
        default: "random",
        help: "random: each match draws its length from 10..=30; all: every pairing once on each length (21 matches)",
        flag: true,
    },
    SettingInfo {
        key: "cycles",
        value_name: "N",
        default: "10000",
        help: "the limit T of cycles per match (an integer >= 1)",
        flag: true,
    },
];

/// Tournament settings, from `instructions.txt` header keys and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `matches-per-pairing` (default 10, ≥ 1); ignored with `tape-lengths: all`.
    pub matches_per_pairing: u32,
    /// `tape-lengths` (`random` by default, or `all`).
    pub tape_lengths: TapeLengths,
    /// `cycles`: the limit T (default 10000, ≥ 1).
    pub cycles: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            matches_per_pairing: 10,
            tape_lengths: TapeLengths::Random,
            cycles: DEFAULT_CYCLES,
        }
    }
}

impl Settings {
    /// Defaults overridden by `pairs` in order, so header keys followed by
    /// command-line flags give the flags precedence. An unknown key or a bad
    /// value is an error naming the key.
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(pairs: &[(K, V)]) -> Result<Settings, String> {
        let mut settings = Settings::default();
        for (key, value) in pairs {
            settings.set(key.as_ref(), value.as_ref())?;
        }
        Ok(settings)
    }

    /// Sets one key from its text value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        match key {
            "matches-per-pairing" => {
                self.matches_per_pairing = positive(key, value)?;
            }
            "tape-lengths" => {
                self.tape_lengths = match value {
                    "random" => TapeLengths::Random,
                    "all" => TapeLengths::All,
                    _ => return Err(format!("{key} must be 'random' or 'all', not '{value}'")),
                }
            }
            "cycles" => self.cycles = positive(key, value)?,
            _ => {
                return Err(format!(
                    "unknown setting '{key}' for bf-joust (known: {})",
                    game_core::settings::known(SETTINGS)
                ))
            }
        }
        Ok(())
    }

    /// Matches each pairing plays: 21 with `all`, else `matches-per-pairing`.
    pub fn matches_per_pairing(&self) -> u32 {
        match self.tape_lengths {
            TapeLengths::All => crate::arena::TAPE_LENGTH_COUNT,
            TapeLengths::Random => self.matches_per_pairing,
        }
    }
}

fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(
    key: &str,
    value: &str,
) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err(format!("{key} must be an integer >= 1, not '{value}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_spec() {
        let s = Settings::from_pairs::<&str, &str>(&[]).unwrap();
        assert_eq!(s.matches_per_pairing, 10);
        assert_eq!(s.tape_lengths, TapeLengths::Random);
        assert_eq!(s.cycles, 10_000);
        assert_eq!(s.matches_per_pairing(), 10);
    }

    #[test]
    fn later_pairs_override_earlier_ones() {
        let s = Settings::from_pairs(&[
            ("cycles", "500"),
            ("matches-per-pairing", "3"),
            ("cycles", "2000"),
            ("tape-lengths", "all"),
        ])
        .unwrap();
        assert_eq!(s.cycles, 2000);
        assert_eq!(s.matches_per_pairing, 3);
        assert_eq!(
            s.matches_per_pairing(),
            21,
            "all ignores matches-per-pairing"
        );
    }

    #[test]
    fn the_settings_table_matches_set_and_the_defaults() {
        game_core::settings::check_table(SETTINGS).unwrap();
        let mut s = Settings {
            matches_per_pairing: 1,
            tape_lengths: TapeLengths::All,
            cycles: 1,
        };
        for info in SETTINGS {
            s.set(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        let err = Settings::default().set("seed", "1").unwrap_err();
        assert_eq!(
            err,
            "unknown setting 'seed' for bf-joust (known: matches-per-pairing, tape-lengths, cycles)"
        );
    }

    #[test]
    fn bad_keys_and_values_are_errors_naming_the_key() {
        let e = Settings::from_pairs(&[("timeout-ms", "5")]).unwrap_err();
        assert!(e.contains("unknown setting 'timeout-ms'"), "{e}");
        for (k, v) in [
            ("cycles", "0"),
            ("cycles", "-3"),
            ("cycles", "ten"),
            ("matches-per-pairing", "0"),
            ("matches-per-pairing", "1.5"),
            ("tape-lengths", "some"),
        ] {
            let e = Settings::from_pairs(&[(k, v)]).unwrap_err();
            assert!(e.starts_with(k), "{e}");
        }
    }
}
