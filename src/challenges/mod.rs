//! The one place that joins each challenge's pure rules and codec to the
//! transport and the tournament runner.

pub mod bf_joust;
pub mod meta_ttt;

use crate::bot::{BotLog, BotProgram};
use crate::cli::PlayArgs;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{Store, TournamentRow};
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use std::fmt;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Everything a challenge needs to run its tournament. Built by `app`
/// after the instructions are resolved and the builds are done.
pub struct RunContext {
    pub spec: TournamentSpec,
    /// One per bot, in `spec.bots` order; empty for a challenge whose bots
    /// are not processes ([`ChallengeId::runs_processes`]).
    pub programs: Vec<BotProgram>,
    /// As `programs`.
    pub logs: Vec<BotLog>,
    /// What [`load`] read before the tournament was recorded.
    pub loaded: Loaded,
    pub store: Store,
    pub tournament_id: i64,
    pub jobs: usize,
    pub cancel: CancellationToken,
    pub progress: Arc<Progress>,
}

/// What a challenge reads of its bots itself, before the tournament is
/// recorded (so that what it finds is part of the tournament's identity).
pub enum Loaded {
    /// The bots are processes: nothing to read.
    Nothing,
    /// bf-joust: every program, compiled once.
    BfJoust(bf_joust::Field),
}

/// Reads what challenge `id` needs of its bots before the tournament is
/// recorded. bf-joust compiles every program, reports the invalid ones on
/// stderr and marks them in `spec` (with each valid bot's token hash as
/// its fingerprint, so a changed program replays its matches).
pub fn load(id: ChallengeId, spec: &mut TournamentSpec) -> Result<Loaded> {
    match id {
        ChallengeId::BfJoust => bf_joust::load(spec).map(Loaded::BfJoust),
        _ => Ok(Loaded::Nothing),
    }
}

/// Runs (or resumes) a tournament of challenge `id`.
pub async fn run(id: ChallengeId, ctx: RunContext) -> Result<RunReport> {
    match id {
        ChallengeId::MetaTtt => meta_ttt::run(ctx).await,
        ChallengeId::BfJoust => bf_joust::run(ctx).await,
        other => Err(Error::input(format!(
            "the {other} challenge is not available in this version of the referee"
        ))),
    }
}

/// The leaderboard of a stored tournament.
pub fn standings(
    store: &Store,
    row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    match ChallengeId::parse(&spec.challenge) {
        Some(ChallengeId::MetaTtt) => meta_ttt::standings(store, row, spec, format),
        Some(ChallengeId::BfJoust) => bf_joust::standings(store, spec, format),
        _ => Err(Error::machine(format!(
            "tournament {} is a {} tournament, which this version cannot show",
            row.id, spec.challenge
        ))),
    }
}

/// `referee play CHALLENGE ...`: one game with a transcript on stdout.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<i32> {
    args.reject_foreign_options()?;
    match args.challenge {
        ChallengeId::MetaTtt => meta_ttt::play(args, cancel).await,
        ChallengeId::BfJoust => bf_joust::play(args, cancel).await,
        other => Err(Error::input(format!(
            "`referee play {other}` is not available yet"
        ))),
    }
}

/// How a challenge's bots are given in instructions.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotKind {
    /// A command the referee starts (built, confined, logged).
    Process,
    /// A program file the referee interprets itself: no process, no build,
    /// no sandbox, no bot folder needed. An entry names the file, by
    /// default `NAME/NAME.EXTENSION`.
    ProgramFile { extension: &'static str },
}

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

    /// How this challenge's bots are given.
    pub fn bot_kind(self) -> BotKind {
        match self {
            ChallengeId::BfJoust => BotKind::ProgramFile { extension: "bf" },
            _ => BotKind::Process,
        }
    }

    /// Whether the bots run as processes (and so need builds, folders,
    /// logs and the sandbox).
    pub fn runs_processes(self) -> bool {
        self.bot_kind() == BotKind::Process
    }

    /// Checks one challenge setting (`key: value`); the caller adds file and line.
    pub fn check_setting(self, key: &str, value: &str) -> std::result::Result<(), String> {
        match self {
            ChallengeId::MetaTtt => game_meta_ttt::Settings::default().set(key, value),
            ChallengeId::BfJoust => game_bf_joust::Settings::default().set(key, value),
            _ => Err(format!(
                "the {self} challenge is not available in this version of the referee"
            )),
        }
    }

    /// Refuses challenges this build cannot run yet, with one clear line.
    pub fn ensure_available(self) -> Result<()> {
        match self {
            ChallengeId::MetaTtt | ChallengeId::BfJoust => Ok(()),
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
