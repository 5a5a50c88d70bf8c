//! The challenge's setting keys and their defaults.

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

/// The header keys this challenge understands (besides the shared `challenge` and `seed`).
pub const KEYS: &[&str] = &["timeout-ms", "max-rounds"];

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
}
