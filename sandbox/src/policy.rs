//! The policy applied to a challenge's bots, kept in readable TOML files
//! under `sandbox/policy/` and compiled into the referee.

use serde::Deserialize;

/// What a bot may do to its own folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FolderAccess {
    ReadWrite,
    ReadOnly,
}

/// A challenge's sandbox policy.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Policy {
    pub own_folder: FolderAccess,
    /// Whether bots may open internet sockets (no challenge allows it).
    pub network: bool,
    /// Memory a bot process may commit, in MiB.
    pub memory_mb: u64,
    /// Processes and threads one bot may have at once.
    pub processes: u64,
    /// Bytes the bot's own folder may hold, in MiB (also the largest file
    /// any of its processes may write: `RLIMIT_FSIZE`).
    pub disk_mb: u64,
    /// Files and directories the bot's own folder may hold.
    pub files: u64,
    /// Descriptors one process may have open (`RLIMIT_NOFILE`, soft and
    /// hard): without it a bot inherits the referee's hard limit, and a few
    /// hundred processes could exhaust the system's file table, which the
    /// referee and the host share.
    #[serde(default = "default_open_files")]
    pub open_files: u64,
}

fn default_open_files() -> u64 {
    1024
}

const POLICIES: &[(&str, &str)] = &[
    ("meta-ttt", include_str!("../policy/meta-ttt.toml")),
    ("heist", include_str!("../policy/heist.toml")),
    ("forty", include_str!("../policy/forty.toml")),
    ("gun-duel", include_str!("../policy/gun-duel.toml")),
    ("build", include_str!("../policy/build.toml")),
];

impl Policy {
    /// The policy named `name` (a challenge id, or `build`).
    pub fn named(name: &str) -> Result<Policy, String> {
        let (_, text) = POLICIES
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| format!("no sandbox policy for `{name}`"))?;
        toml::from_str(text).map_err(|e| format!("sandbox/policy/{name}.toml: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_policy_parses_and_denies_the_network() {
        for (name, _) in POLICIES {
            let p = Policy::named(name).unwrap();
            assert!(!p.network, "{name}");
            assert!(p.memory_mb >= 500, "{name}");
            assert!(p.disk_mb >= 64 && p.files >= 1000, "{name}");
            assert!((256..=65536).contains(&p.open_files), "{name}");
        }
        assert_eq!(
            Policy::named("heist").unwrap().own_folder,
            FolderAccess::ReadOnly
        );
        assert_eq!(Policy::named("forty").unwrap().memory_mb, 500);
        assert!(Policy::named("chess").is_err());
    }
}
