//! The one place that joins each challenge's pure rules and codec to the
//! transport and the tournament runner.

pub mod bf_joust;
pub mod check;
pub mod forty;
pub mod gun_duel;
pub mod heist;
pub mod meta_ttt;

use crate::bot::{BotLog, BotProgram};
use crate::cli::PlayArgs;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{Store, TournamentRow};
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use std::fmt;
use std::path::PathBuf;
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
    /// The results database's path (heist keeps its logs beside it).
    pub db: PathBuf,
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
        ChallengeId::GunDuel => gun_duel::run(ctx).await,
        ChallengeId::Heist => heist::run(ctx).await,
        ChallengeId::Forty => forty::run(ctx).await,
        ChallengeId::BfJoust => bf_joust::run(ctx).await,
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
        Some(ChallengeId::GunDuel) => gun_duel::standings(store, row, spec, format),
        Some(ChallengeId::Heist) => heist::standings(store, row, spec, format),
        Some(ChallengeId::Forty) => forty::standings(store, row, spec, format),
        Some(ChallengeId::BfJoust) => bf_joust::standings(store, spec, format),
        _ => Err(Error::machine(format!(
            "tournament {} is a {} tournament, which this version cannot show",
            row.id, spec.challenge
        ))),
    }
}

/// `referee check CHALLENGE BOT`: the bot against scripted positions.
pub async fn check(args: crate::cli::CheckArgs, cancel: CancellationToken) -> Result<i32> {
    check::check(args, cancel).await
}

/// `referee play CHALLENGE ...`: one game with a transcript on stdout.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<i32> {
    args.reject_foreign_options()?;
    match args.challenge {
        ChallengeId::MetaTtt => meta_ttt::play(args, cancel).await,
        ChallengeId::GunDuel => gun_duel::play(args, cancel).await,
        ChallengeId::Heist => heist::play(args, cancel).await,
        ChallengeId::Forty => forty::play(args, cancel).await,
        ChallengeId::BfJoust => bf_joust::play(args, cancel).await,
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
            ChallengeId::GunDuel => game_gun_duel::Settings::default().apply(key, value),
            ChallengeId::Heist => heist::check_setting(key, value),
            ChallengeId::Forty => game_forty::Settings::default().set(key, value),
            ChallengeId::BfJoust => game_bf_joust::Settings::default().set(key, value),
        }
    }

    /// Checks a bot.toml `interface` value; the caller adds file and line.
    pub fn check_interface(self, value: &str) -> std::result::Result<(), String> {
        match self {
            ChallengeId::GunDuel => game_gun_duel::Interface::parse(value).map(|_| ()),
            other => Err(format!(
                "`interface` is a gun-duel setting; this is a {other} tournament"
            )),
        }
    }

    /// Games in flight when `--jobs` is not given: one per core, except
    /// where a game keeps two bots thinking at once (a gun-duel duel asks
    /// both bots together), so that bot processes never outnumber cores.
    pub fn default_jobs(self, cores: usize) -> usize {
        match self {
            ChallengeId::GunDuel => (cores / 2).max(1),
            _ => cores.max(1),
        }
    }
}

impl ChallengeId {
    /// Whether a run without a seed draws one at random (and records it)
    /// rather than using 0. Such a run continues the latest stored
    /// tournament with the same settings and bots, whatever its seed.
    pub fn draws_default_seed(self) -> bool {
        matches!(self, ChallengeId::Heist)
    }
}

impl fmt::Display for ChallengeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
