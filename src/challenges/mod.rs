//! The one place that joins each challenge's pure rules and codec to the
//! transport and the tournament runner.

pub mod meta_ttt;

use crate::error::{Error, Result};
use std::fmt;

/// The challenges the referee knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChallengeId {
    #[value(name = "meta-ttt")]
    MetaTtt,
    #[value(name = "bf-joust")]
    BfJoust,
    #[value(name = "heist")]
    Heist,
    #[value(name = "forty")]
    Forty,
    #[value(name = "gun-duel")]
    GunDuel,
}

impl ChallengeId {
    pub const ALL: [ChallengeId; 5] = [
        ChallengeId::MetaTtt,
        ChallengeId::BfJoust,
        ChallengeId::Heist,
        ChallengeId::Forty,
        ChallengeId::GunDuel,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ChallengeId::MetaTtt => "meta-ttt",
            ChallengeId::BfJoust => "bf-joust",
            ChallengeId::Heist => "heist",
            ChallengeId::Forty => "forty",
            ChallengeId::GunDuel => "gun-duel",
        }
    }

    pub fn parse(s: &str) -> Option<ChallengeId> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Checks one challenge setting (`key: value`); the caller adds file and line.
    pub fn check_setting(self, key: &str, value: &str) -> std::result::Result<(), String> {
        match self {
            ChallengeId::MetaTtt => game_meta_ttt::Settings::default().set(key, value),
            _ => Err(format!(
                "the {self} challenge is not available in this version of the referee"
            )),
        }
    }

    /// Refuses challenges this build cannot run yet, with one clear line.
    pub fn ensure_available(self) -> Result<()> {
        match self {
            ChallengeId::MetaTtt => Ok(()),
            other => Err(Error::input(format!(
                "the {other} challenge is not available in this version of the referee"
            ))),
        }
    }
}

impl fmt::Display for ChallengeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
