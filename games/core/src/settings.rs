//! Challenge settings described as data. Each challenge crate lists its
//! settings once, as a `SETTINGS: &[SettingInfo]` table in the order of its
//! spec's settings section; command-line flags, validation messages, help
//! and docs derive from that table.

/// One challenge setting, as data: the one definition that flags, validation, help and docs derive from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingInfo {
    /// The instructions.txt header key and `--set` key, e.g. `"timeout-ms"`.
    pub key: &'static str,
    /// The value's placeholder in help, e.g. `"N"`, `"MS"`, `"random|all"`.
    pub value_name: &'static str,
    /// The default as text, for help and docs (e.g. `"100"`; heist's games:
    /// `"1000-1100, drawn"`).
    pub default: &'static str,
    /// One line.
    pub help: &'static str,
    /// Whether `referee run` has a dedicated `--KEY` flag for it.
    pub flag: bool,
}

/// The keys of `settings`, in order.
pub fn keys(settings: &[SettingInfo]) -> Vec<&'static str> {
    settings.iter().map(|s| s.key).collect()
}

/// The setting named `key`, if `settings` has one.
pub fn find<'a>(settings: &'a [SettingInfo], key: &str) -> Option<&'a SettingInfo> {
    settings.iter().find(|s| s.key == key)
}

/// The keys of `settings` joined by `", "`, as unknown-key messages list them.
pub fn known(settings: &[SettingInfo]) -> String {
    keys(settings).join(", ")
}

/// "unknown setting `KEY` for CHALLENGE (known: a, b, c)".
pub fn unknown_setting(key: &str, challenge: &str, settings: &[SettingInfo]) -> String {
    format!(
        "unknown setting `{key}` for {challenge} (known: {})",
        known(settings)
    )
}

/// Checks a table's shape: keys unique and written like `timeout-ms`;
/// value name, default and help non-empty and on one line. The error names
/// the first bad entry. Each challenge's tests run this on its table.
pub fn check_table(settings: &[SettingInfo]) -> Result<(), String> {
    for (i, s) in settings.iter().enumerate() {
        let kebab = !s.key.is_empty()
            && !s.key.starts_with('-')
            && !s.key.ends_with('-')
            && s.key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !kebab {
            return Err(format!(
                "setting key `{}` is not lower-case-with-dashes",
                s.key
            ));
        }
        if settings[..i].iter().any(|earlier| earlier.key == s.key) {
            return Err(format!("setting `{}` is listed twice", s.key));
        }
        for (field, text) in [
            ("value_name", s.value_name),
            ("default", s.default),
            ("help", s.help),
        ] {
            if text.trim().is_empty() || text.contains('\n') {
                return Err(format!(
                    "setting `{}`: {field} must be one non-empty line, not {text:?}",
                    s.key
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn info(key: &'static str) -> SettingInfo {
        SettingInfo {
            key,
            value_name: "N",
            default: "1",
            help: "a setting",
            flag: false,
        }
    }

    const TABLE: &[SettingInfo] = &[info("games"), info("timeout-ms"), info("max-rounds")];

    #[test]
    fn keys_and_messages_follow_the_table_order() {
        assert_eq!(keys(TABLE), ["games", "timeout-ms", "max-rounds"]);
        assert_eq!(known(TABLE), "games, timeout-ms, max-rounds");
        assert_eq!(
            unknown_setting("jobs", "forty", TABLE),
            "unknown setting `jobs` for forty (known: games, timeout-ms, max-rounds)"
        );
        assert_eq!(find(TABLE, "timeout-ms"), Some(&TABLE[1]));
        assert_eq!(find(TABLE, "timeout"), None);
    }

    #[test]
    fn a_well_formed_table_passes() {
        assert_eq!(check_table(TABLE), Ok(()));
        assert_eq!(check_table(&[]), Ok(()));
    }

    #[test]
    fn bad_tables_are_named() {
        let twice = [info("games"), info("turns"), info("games")];
        assert!(check_table(&twice).unwrap_err().contains("`games`"));
        for key in ["", "Games", "games ", "-games", "games-", "time_out"] {
            assert!(check_table(&[info(key)]).is_err(), "{key:?}");
        }
        let no_help = SettingInfo {
            help: " ",
            ..info("games")
        };
        assert!(check_table(&[no_help]).unwrap_err().contains("help"));
        let two_lines = SettingInfo {
            default: "1\n2",
            ..info("games")
        };
        assert!(check_table(&[two_lines]).unwrap_err().contains("default"));
    }
}
