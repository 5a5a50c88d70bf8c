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

/// Which rules a tournament plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rules {
    /// The 2014 challenge (spec §1–§5): the default.
    Y2014,
    /// The community hill's conventions, as gearlance plays them: both
    /// polarities, every tape length, 100,000 cycles with a tie at the
    /// limit, the `(a{b}c)%N` forms (see [`crate::hill`]).
    Hill,
}

impl Rules {
    /// `"2014"` or `"hill"`, as the setting spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Rules::Y2014 => "2014",
            Rules::Hill => "hill",
        }
    }
}

/// Which polarities each pairing plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Polarities {
    /// The right program as written (the 2014 default).
    Normal,
    /// Every match twice: as written, then with the right program's `+`
    /// and `-` swapped (the hill's convention).
    Both,
}

impl Polarities {
    /// The polarities a pairing plays, in order.
    pub fn list(self) -> &'static [crate::arena::Polarity] {
        use crate::arena::Polarity;
        match self {
            Polarities::Normal => &[Polarity::Normal],
            Polarities::Both => &[Polarity::Normal, Polarity::Inverted],
        }
    }
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
        help: "the limit T of cycles per match (an integer >= 1); 100000 by default with rules: hill",
        flag: true,
    },
    SettingInfo {
        key: "rules",
        value_name: "2014|hill",
        default: "2014",
        help: "2014: the 2014 challenge; hill: the community hill as gearlance plays it (both polarities, tape lengths 10..30, 100000 cycles with a tie at the limit, (a{b}c)%N forms, points per pairing)",
        flag: true,
    },
    SettingInfo {
        key: "polarity",
        value_name: "normal|both",
        default: "normal",
        help: "normal: the right program as written; both: each match also with the right program's + and - swapped (always both with rules: hill)",
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
    /// `cycles`: the limit T (default 10000, ≥ 1; 100000 under the hill rules).
    pub cycles: u64,
    /// `rules`: `2014` (default) or `hill`.
    pub rules: Rules,
    /// `polarity`: `normal` (default) or `both`; always both under the hill rules.
    pub polarity: Polarities,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            matches_per_pairing: 10,
            tape_lengths: TapeLengths::Random,
            cycles: DEFAULT_CYCLES,
            rules: Rules::Y2014,
            polarity: Polarities::Normal,
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
        if settings.rules == Rules::Hill {
            let given = |key: &str| pairs.iter().any(|(k, _)| k.as_ref() == key);
            if given("tape-lengths") && settings.tape_lengths != TapeLengths::All {
                return Err(
                    "tape-lengths must be 'all' with rules: hill (the hill plays every length); change the instructions' header or the --tape-lengths flag"
                        .into(),
                );
            }
            if given("polarity") && settings.polarity != Polarities::Both {
                return Err(
                    "polarity must be 'both' with rules: hill (the hill plays both); change the instructions' header or the --polarity flag".into(),
                );
            }
            settings.tape_lengths = TapeLengths::All;
            settings.polarity = Polarities::Both;
            if !given("cycles") {
                settings.cycles = crate::hill::HILL_CYCLES;
            }
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
            "rules" => {
                self.rules = match value {
                    "2014" => Rules::Y2014,
                    "hill" => Rules::Hill,
                    _ => return Err(format!("{key} must be '2014' or 'hill', not '{value}'")),
                }
            }
            "polarity" => {
                self.polarity = match value {
                    "normal" => Polarities::Normal,
                    "both" => Polarities::Both,
                    _ => return Err(format!("{key} must be 'normal' or 'both', not '{value}'")),
                }
            }
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
            rules: Rules::Hill,
            polarity: Polarities::Both,
        };
        for info in SETTINGS {
            s.set(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        let err = Settings::default().set("seed", "1").unwrap_err();
        assert_eq!(
            err,
            "unknown setting 'seed' for bf-joust (known: matches-per-pairing, tape-lengths, cycles, rules, polarity)"
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
            ("rules", "2015"),
            ("polarity", "inverted"),
        ] {
            let e = Settings::from_pairs(&[(k, v)]).unwrap_err();
            assert!(e.starts_with(k), "{e}");
        }
    }

    #[test]
    fn hill_rules_set_their_conventions() {
        let s = Settings::from_pairs(&[("rules", "hill")]).unwrap();
        assert_eq!(s.tape_lengths, TapeLengths::All);
        assert_eq!(s.polarity, Polarities::Both);
        assert_eq!(s.cycles, 100_000);
        assert_eq!(s.matches_per_pairing(), 21);
        let s = Settings::from_pairs(&[("cycles", "500"), ("rules", "hill")]).unwrap();
        assert_eq!(s.cycles, 500, "an explicit limit stays");
        let e = Settings::from_pairs(&[("rules", "hill"), ("tape-lengths", "random")]).unwrap_err();
        assert!(e.contains("rules: hill"), "{e}");
        let e = Settings::from_pairs(&[("polarity", "normal"), ("rules", "hill")]).unwrap_err();
        assert!(e.contains("rules: hill"), "{e}");
        let s = Settings::from_pairs(&[("polarity", "both")]).unwrap();
        assert_eq!(
            (s.rules, s.polarity, s.cycles),
            (Rules::Y2014, Polarities::Both, 10_000)
        );
    }
}
