//! `bot.toml`: optional per-bot settings in a bot's folder.
//!
//! ```toml
//! name = "depthBot"              # with `run`: joins the tournament unlisted (drop-in)
//! run = "./depthBot/depth"       # command, run from the tournament directory
//! build = "g++ -O2 -o depth depth.cpp"   # run once in the bot's folder
//! language = "C++"               # shown on leaderboards that have the column
//! owner = "alice"
//! interface = "io"               # gun-duel only: "io" or "exit-code"
//! ignore = ["memory.json"]       # files the bot writes while playing
//! ```

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A parsed bot.toml. Unknown keys are errors, so a typo is not silently ignored.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotToml {
    pub name: Option<String>,
    pub run: Option<String>,
    pub build: Option<String>,
    /// Seconds the build may take (default 300).
    #[serde(rename = "build-timeout-s")]
    pub build_timeout_s: Option<u64>,
    pub language: Option<String>,
    pub owner: Option<String>,
    /// Files the bot writes while it plays, which must not count as a change
    /// of the bot (exact names or `*.ext`); `data.txt` and `__pycache__`
    /// never count.
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Kept with its position so a challenge can reject a bad value by line.
    pub interface: Option<toml::Spanned<String>>,
    #[serde(skip)]
    pub path: PathBuf,
    #[serde(skip)]
    text: String,
}

impl BotToml {
    /// Reads `<folder>/bot.toml` if it exists.
    pub fn load(folder: &Path) -> Result<Option<BotToml>> {
        let path = folder.join("bot.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::input_file(&path, format!("cannot read: {e}"))),
        };
        Self::parse(&path, &text).map(Some)
    }

    pub fn parse(path: &Path, text: &str) -> Result<BotToml> {
        let mut parsed: BotToml = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            Error::input_at(path, line, e.message().trim().to_string())
        })?;
        parsed.path = path.to_path_buf();
        parsed.text = text.to_string();
        Ok(parsed)
    }

    /// The 1-based line of a span of this file (for errors about values).
    pub fn line_at(&self, offset: usize) -> usize {
        line_of(&self.text, offset)
    }

    /// The 1-based line where top-level `key = ...` is set, if it is.
    pub fn line_of_key(&self, key: &str) -> Option<usize> {
        self.text
            .lines()
            .position(|l| {
                l.trim_start()
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
            .map(|i| i + 1)
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_parse() {
        let t = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\nrun = \"./b/run\"\nbuild = \"cc -o run run.c\"\nlanguage = \"C\"\ninterface = \"io\"\n",
        )
        .unwrap();
        assert_eq!(t.run.as_deref(), Some("./b/run"));
        let iface = t.interface.as_ref().unwrap();
        assert_eq!(iface.get_ref(), "io");
        assert_eq!(t.line_at(iface.span().start), 5);
    }

    #[test]
    fn a_key_is_found_by_line() {
        let t = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\n# run = \"no\"\n  run   = \"b.bf\"\n",
        )
        .unwrap();
        assert_eq!(t.line_of_key("run"), Some(3));
        assert_eq!(t.line_of_key("name"), Some(1));
        assert_eq!(t.line_of_key("owner"), None);
    }

    #[test]
    fn unknown_keys_and_bad_types_name_the_line() {
        let e = BotToml::parse(
            Path::new("b/bot.toml"),
            "name = \"b\"\n\nbuidl = \"make\"\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("b/bot.toml:3: unknown field `buidl`"), "{s}");
        let e = BotToml::parse(Path::new("b/bot.toml"), "name = 3\n").unwrap_err();
        assert!(e.to_string().starts_with("b/bot.toml:1: "), "{e}");
    }
}
