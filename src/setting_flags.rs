//! `referee run --KEY VALUE`: the challenge settings that have a flag of
//! their own, derived from every challenge's settings table
//! ([`ChallengeInfo::settings`](crate::challenge::ChallengeInfo), entries
//! with `flag: true`). A flag is `--set KEY=VALUE` said plainly; the
//! challenge validates the value, as it does a header line.

use crate::challenge::ChallengeId;
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};

/// The setting flags given, as `(key, value)` in table order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingFlags(pub Vec<(String, String)>);

/// One flag: its key, the value's name, and the challenges that have it.
struct Flag {
    key: &'static str,
    value_name: &'static str,
    challenges: Vec<&'static str>,
}

/// Every flagged setting of every challenge, once per key.
fn flags() -> Vec<Flag> {
    let mut flags: Vec<Flag> = Vec::new();
    for &id in ChallengeId::all() {
        let info = id.info();
        for s in info.settings.iter().filter(|s| s.flag) {
            match flags.iter_mut().find(|f| f.key == s.key) {
                Some(f) => f.challenges.push(info.name),
                None => flags.push(Flag {
                    key: s.key,
                    value_name: s.value_name,
                    challenges: vec![info.name],
                }),
            }
        }
    }
    flags
}

impl FromArgMatches for SettingFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = SettingFlags::default();
        given.update_from_arg_matches(matches)?;
        Ok(given)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for flag in flags() {
            if let Ok(Some(value)) = matches.try_get_one::<String>(flag.key) {
                self.0.retain(|(k, _)| k != flag.key);
                self.0.push((flag.key.to_string(), value.clone()));
            }
        }
        Ok(())
    }
}

impl Args for SettingFlags {
    fn augment_args(mut cmd: Command) -> Command {
        for flag in flags() {
            let all = flag.challenges.len() == ChallengeId::all().len();
            let which = if all {
                String::new()
            } else {
                format!(" ({})", flag.challenges.join(", "))
            };
            cmd = cmd.arg(
                Arg::new(flag.key)
                    .long(flag.key)
                    .value_name(flag.value_name)
                    .help(format!(
                        "Same as `--set {}={}`{which}",
                        flag.key, flag.value_name
                    ))
                    .help_heading("Challenge settings"),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// Every challenge's settings with their defaults, for `referee run --help`.
pub fn settings_help() -> String {
    let mut out = String::from("Challenge settings (header `KEY: VALUE`, or --set KEY=VALUE):\n");
    for &id in ChallengeId::all() {
        let info = id.info();
        out.push_str(&format!("\n  {}:\n", info.name));
        // The seed is every challenge's `seed:` line or --seed, not a setting.
        for s in info.settings.iter().filter(|s| s.key != "seed") {
            out.push_str(&format!(
                "    {:<20} {} (default {})\n",
                s.key, s.help, s.default
            ));
        }
    }
    out
}

/// Every challenge's settings as Markdown tables: `docs/settings.md`, which
/// a test keeps equal to this.
pub fn settings_markdown() -> String {
    let mut out = String::from(
        "# Challenge settings\n\n\
         Generated from each challenge's settings table (`SETTINGS` in its\n\
         `games/<id>` crate); a test keeps this file equal to it. A setting is\n\
         a `KEY: VALUE` header line of instructions.txt or `--set KEY=VALUE`;\n\
         a setting marked *flag* also has its own `--KEY VALUE` flag, which\n\
         beats `--set`, which beats the header. The seed is every challenge's\n\
         `seed:` line or `--seed`.\n",
    );
    for &id in ChallengeId::all() {
        let info = id.info();
        out.push_str(&format!(
            "\n## {}\n\n| key | default | flag | meaning |\n|---|---|---|---|\n",
            info.name
        ));
        for s in info.settings.iter().filter(|s| s.key != "seed") {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                s.key,
                s.default,
                if s.flag {
                    format!("`--{} {}`", s.key, s.value_name.replace('|', "\\|"))
                } else {
                    String::new()
                },
                s.help.replace('|', "\\|")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Probe {
        #[command(flatten)]
        flags: SettingFlags,
    }

    #[test]
    fn each_flagged_setting_is_a_flag_and_nothing_else_is() {
        let keys: Vec<&str> = flags().iter().map(|f| f.key).collect();
        // Flagged in at least one table.
        for key in ["timeout-ms", "games", "cycles", "matches-per-pairing"] {
            assert!(keys.contains(&key), "{key}");
        }
        // In no table flagged.
        for key in ["max-rounds", "concurrency", "seed", "interface"] {
            assert!(!keys.contains(&key), "{key}");
        }
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
    }

    #[test]
    fn given_flags_come_back_as_key_value_pairs() {
        let p = Probe::try_parse_from(["x", "--cycles", "500", "--timeout-ms", "9"]).unwrap();
        let mut got = p.flags.0;
        got.sort();
        assert_eq!(
            got,
            vec![
                ("cycles".to_string(), "500".to_string()),
                ("timeout-ms".to_string(), "9".to_string())
            ]
        );
        assert!(Probe::try_parse_from(["x", "--max-rounds", "3"]).is_err());
        assert_eq!(Probe::try_parse_from(["x"]).unwrap().flags.0, vec![]);
    }

    /// `UPDATE_DOCS=1 cargo test -p referee --lib settings_doc` rewrites
    /// the file (the filter matches this test's name).
    #[test]
    fn settings_doc_is_generated_from_the_tables() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/settings.md");
        let want = settings_markdown();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/settings.md is out of date: run UPDATE_DOCS=1 cargo test -p referee --lib settings_doc"
        );
    }

    #[test]
    fn the_settings_help_names_every_key_of_every_challenge() {
        let help = settings_help();
        for &id in ChallengeId::all() {
            for s in id.info().settings.iter().filter(|s| s.key != "seed") {
                assert!(help.contains(s.key), "{}: {}", id, s.key);
            }
        }
    }
}
