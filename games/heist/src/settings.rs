//! The challenge's settings (§1): header keys of instructions.txt, which
//! command-line flags then override.

use game_core::SettingInfo;

/// Largest rabble pool accepted: far above the post's 500, low enough that a
/// typo cannot exhaust memory.
pub const MAX_RABBLE: usize = 1_000_000;

/// The heist settings. `None` means "draw it" (games) or "pick one and record
/// it" (seed), as §1 says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Games per tournament; `None`: uniform from 1000..=1100 per tournament.
    pub games: Option<u32>,
    /// Independent tournaments; a bot's score is the sum over them.
    pub tournaments: u32,
    /// Wall-clock limit of each bot call, in milliseconds.
    pub timeout_ms: u64,
    /// Size of the rabble pool.
    pub rabble: usize,
    /// Master seed; `None`: the runner picks one and records it.
    pub seed: Option<u64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            games: None,
            tournaments: 1,
            timeout_ms: 5000,
            rabble: 500,
            seed: None,
        }
    }
}

/// The settings [`Settings::set`] accepts, in the order of §1. `seed` is
/// among them but has no flag of its own here: `--seed` is every
/// challenge's.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        key: "games",
        value_name: "N",
        default: "1000-1100, drawn",
        help: "games per tournament (drawn anew for each tournament when not set)",
        flag: true,
    },
    SettingInfo {
        key: "tournaments",
        value_name: "N",
        default: "1",
        help: "independent tournaments; a bot's score is the sum over them",
        flag: true,
    },
    SettingInfo {
        key: "timeout-ms",
        value_name: "MS",
        default: "5000",
        help: "wall-clock limit for each bot call",
        flag: true,
    },
    SettingInfo {
        key: "rabble",
        value_name: "N",
        default: "500",
        help: "size of the rabble pool (the post fixes 500; other values are for tests)",
        flag: true,
    },
    SettingInfo {
        key: "seed",
        value_name: "N",
        default: "random, recorded",
        help: "master seed (default: picked at random and recorded in the database)",
        flag: false,
    },
];

impl Settings {
    /// Settings from header `key: value` pairs over the defaults. An unknown
    /// key, a repeated key or a bad value is an error that names the key.
    /// `challenge` is accepted when it names this challenge.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Settings, String> {
        let mut settings = Settings::default();
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let key = key.trim();
            if seen.contains(&key) {
                return Err(format!("setting `{key}` is given twice"));
            }
            seen.push(key);
            if key == "challenge" {
                if value.trim() != "heist" {
                    return Err(format!(
                        "setting `challenge` is `{}`, not `heist`",
                        value.trim()
                    ));
                }
                continue;
            }
            settings.set(key, value)?;
        }
        Ok(settings)
    }

    /// Sets one key (a header line or a command-line flag, which overrides it).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        match key.trim() {
            "games" => self.games = Some(positive(key, value)?),
            "tournaments" => self.tournaments = positive(key, value)?,
            "timeout-ms" => self.timeout_ms = positive(key, value)?,
            "rabble" => {
                let rabble: usize = number(key, value)?;
                if rabble > MAX_RABBLE {
                    return Err(format!(
                        "setting `{key}` must be at most {MAX_RABBLE}, got `{value}`"
                    ));
                }
                self.rabble = rabble;
            }
            "seed" => self.seed = Some(number(key, value)?),
            other => {
                return Err(game_core::settings::unknown_setting(
                    other, "heist", SETTINGS,
                ))
            }
        }
        Ok(())
    }
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("setting `{key}` needs a whole number, got `{value}`"))
}

fn positive<T: std::str::FromStr + PartialEq + Default>(
    key: &str,
    value: &str,
) -> Result<T, String> {
    let n: T = number(key, value)?;
    if n == T::default() {
        return Err(format!("setting `{key}` must be at least 1"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let s = Settings::default();
        assert_eq!(s.games, None);
        assert_eq!(s.tournaments, 1);
        assert_eq!(s.timeout_ms, 5000);
        assert_eq!(s.rabble, 500);
        assert_eq!(s.seed, None);
    }

    #[test]
    fn header_pairs_override_defaults() {
        let s = Settings::from_pairs([
            ("games", "12"),
            ("tournaments", "3"),
            ("timeout-ms", "250"),
            ("rabble", "0"),
            ("seed", "42"),
            ("challenge", "heist"),
        ])
        .unwrap();
        assert_eq!(
            s,
            Settings {
                games: Some(12),
                tournaments: 3,
                timeout_ms: 250,
                rabble: 0,
                seed: Some(42),
            }
        );
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Settings::from_pairs([("jobs", "4")]).unwrap_err();
        assert!(err.contains("`jobs`"), "{err}");
    }

    #[test]
    fn bad_values_are_named() {
        for (key, value) in [
            ("games", "0"),
            ("games", "many"),
            ("tournaments", "-1"),
            ("timeout-ms", "1.5"),
            ("rabble", "1000001"),
            ("seed", "x"),
        ] {
            let err = Settings::from_pairs([(key, value)]).unwrap_err();
            assert!(err.contains(&format!("`{key}`")), "{key}: {err}");
        }
    }

    #[test]
    fn repeated_key_and_other_challenge_are_errors() {
        assert!(Settings::from_pairs([("games", "1"), ("games", "2")]).is_err());
        assert!(Settings::from_pairs([("challenge", "forty")]).is_err());
    }

    #[test]
    fn the_settings_table_matches_set_and_the_defaults() {
        game_core::settings::check_table(SETTINGS).unwrap();
        // `games` and `seed` default to a draw, not to a value `set` could
        // take: their default text only describes the draw. Setting either
        // must still be accepted.
        let drawn = ["games", "seed"];
        let mut s = Settings {
            games: None,
            tournaments: 2,
            timeout_ms: 1,
            rabble: 1,
            seed: None,
        };
        for info in SETTINGS {
            if drawn.contains(&info.key) {
                assert!(info.default.parse::<u64>().is_err(), "{}", info.key);
                Settings::default().set(info.key, "7").unwrap();
                continue;
            }
            s.set(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        let err = Settings::default().set("challenge", "heist").unwrap_err();
        assert_eq!(
            err,
            "unknown setting `challenge` for heist (known: games, tournaments, timeout-ms, rabble, seed)"
        );
    }

    #[test]
    fn flags_override_header() {
        let mut s = Settings::from_pairs([("games", "5")]).unwrap();
        s.set("games", "7").unwrap();
        assert_eq!(s.games, Some(7));
    }
}
