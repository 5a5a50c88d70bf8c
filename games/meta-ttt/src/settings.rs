//! The challenge's setting keys and their defaults.

use game_core::SettingInfo;

/// Settings of a meta-ttt tournament or game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Wall-clock limit of one call, from spawn to exit.
    pub timeout_ms: u64,
    /// Calls after which the game ends on the round limit.
    pub max_rounds: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            timeout_ms: 1000,
            max_rounds: 250,
        }
    }
}

/// The settings this challenge understands (besides the shared `challenge`
/// and `seed`), in the order of the spec's instructions.txt section.
pub const SETTINGS: &[SettingInfo] = &[
    SettingInfo {
        key: "timeout-ms",
        value_name: "MS",
        default: "1000",
        help: "wall-clock limit of one call, from spawn to exit",
        flag: true,
    },
    SettingInfo {
        key: "max-rounds",
        value_name: "N",
        default: "250",
        help: "calls after which the game ends on the round limit",
        flag: false,
    },
];

impl Settings {
    /// Applies one `key: value` setting. The error names what is wrong; the
    /// caller adds the file and line.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "timeout-ms" => self.timeout_ms = parse_positive(key, value)?,
            "max-rounds" => {
                self.max_rounds = u32::try_from(parse_positive(key, value)?)
                    .map_err(|_| format!("{key} is too large: {value}"))?
            }
            _ => return Err(format!("unknown setting `{key}` for meta-ttt")),
        }
        Ok(())
    }
}

fn parse_positive(key: &str, value: &str) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{key} must be a positive whole number, not `{value}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_override_defaults_and_bad_values_are_errors() {
        let mut s = Settings::default();
        s.set("max-rounds", "17").unwrap();
        s.set("timeout-ms", "250").unwrap();
        assert_eq!(s.max_rounds, 17);
        assert_eq!(s.timeout_ms, 250);
        assert!(s.set("max-rounds", "0").is_err());
        assert!(s.set("timeout-ms", "fast").is_err());
        assert!(s.set("games", "3").unwrap_err().contains("unknown setting"));
    }

    #[test]
    fn the_settings_table_matches_set_and_the_defaults() {
        game_core::settings::check_table(SETTINGS).unwrap();
        let mut s = Settings {
            timeout_ms: 1,
            max_rounds: 1,
        };
        for info in SETTINGS {
            s.set(info.key, info.default)
                .unwrap_or_else(|e| panic!("{}: {e}", info.key));
        }
        assert_eq!(s, Settings::default());
        assert!(game_core::settings::find(SETTINGS, "seed").is_none());
        assert!(Settings::default().set("seed", "1").is_err());
    }
}
