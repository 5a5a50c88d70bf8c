//! The seam every challenge plugs into: its static facts as data
//! ([`ChallengeInfo`]) and what the referee asks of it ([`Challenge`]).
//!
//! [`ChallengeId::get`] is the only `match` on challenge ids. Everything
//! else asks the trait object or reads the info. Adding a challenge
//! (ARCHITECTURE.md, "Adding a challenge"): the compiler asks for the
//! `get` arm and the `play`/`check` dispatch arms in `app.rs`; the tests
//! below ask for the `play`/`check` subcommands in `cli.rs` and the sandbox
//! policy.

use crate::bot::{BotLog, BotProgram};
use crate::challenges::{bf_joust, forty, gun_duel, heist, meta_ttt};
use crate::error::Result;
use crate::first_call::Verdict;
use crate::results::{Store, TournamentRow};
use crate::session::Session;
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use tokio_util::sync::CancellationToken;

/// A boxed future, as trait objects return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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

/// What a run without a `seed:` line or `--seed` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedDefault {
    /// Seed 0.
    Zero,
    /// A seed drawn at random and recorded; a later run of the same
    /// tournament (same settings and bots) continues with the stored one.
    DrawAndRecord,
}

/// A challenge's static facts, as data.
#[derive(Debug)]
pub struct ChallengeInfo {
    pub id: ChallengeId,
    /// The clap name, the stored name and the sandbox policy's name.
    pub name: &'static str,
    pub bot_kind: BotKind,
    /// Bots thinking at once in one game: `--jobs` defaults to the cores
    /// divided by this, so bot processes never outnumber cores.
    pub bots_thinking_per_game: usize,
    pub seed: SeedDefault,
    /// The challenge's settings (header keys and `--set` keys), from its
    /// game crate: flags, `--help` and docs derive from this table.
    pub settings: &'static [game_core::SettingInfo],
    /// How `--shard` parts the plan ([`crate::shard`]).
    pub sharding: Sharding,
}

/// How a challenge's plan is parted by `--shard I/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharding {
    /// Each shard plays whole units of this kind (a pairing, a block, a
    /// series); the word is for messages and docs.
    By(&'static str),
    /// The challenge cannot be sharded, and why (one sentence, for the
    /// organiser who asked).
    Refused(&'static str),
}

impl ChallengeInfo {
    /// Whether the bots run as processes (and so need builds, folders,
    /// logs and the sandbox).
    pub fn runs_processes(&self) -> bool {
        self.bot_kind == BotKind::Process
    }

    /// Games in flight when `--jobs` is not given.
    pub fn default_jobs(&self, cores: usize) -> usize {
        (cores / self.bots_thinking_per_game.max(1)).max(1)
    }
}

/// What a challenge reads of its bots itself before the tournament is
/// recorded (bf-joust: every program, compiled once); `None` for a
/// challenge whose bots are processes. Only the challenge that made it
/// looks inside.
pub type Loaded = Option<Box<dyn Any + Send>>;

/// Everything a challenge needs to run its tournament besides the
/// [`Session`]. Built by `app` after the instructions are resolved and the
/// builds are done.
pub struct RunContext {
    pub spec: TournamentSpec,
    /// One per bot, in `spec.bots` order; empty for a challenge whose bots
    /// are not processes ([`ChallengeInfo::runs_processes`]).
    pub programs: Vec<BotProgram>,
    /// As `programs`.
    pub logs: Vec<BotLog>,
    /// What [`Challenge::load`] read before the tournament was recorded.
    pub loaded: Loaded,
    /// Games in flight at most (`--jobs`).
    pub jobs: usize,
    /// The part of the plan this run plays (`--shard`; the whole plan by
    /// default): the challenge plays only the units it owns.
    pub shard: crate::shard::Shard,
}

/// One bot's first call, made before the first game (see
/// [`Challenge::first_call`]). Not a game: nothing of it is recorded but
/// its bot's log.
pub struct FirstCall<'a> {
    pub spec: &'a TournamentSpec,
    /// The bot's index in `spec.bots`.
    pub bot: usize,
    pub program: &'a BotProgram,
    pub log: &'a BotLog,
    pub cancel: &'a CancellationToken,
}

/// What the referee asks of a challenge. One implementation per folder
/// under `src/challenges/`; `play` and `check` are reached through their
/// own clap subcommands (`cli.rs`), since their options differ.
pub trait Challenge: Send + Sync + 'static {
    fn info(&self) -> &'static ChallengeInfo;

    /// Checks one challenge setting (`key: value`); the caller adds file
    /// and line.
    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String>;

    /// Checks a bot.toml `interface` value; the caller adds file and line.
    fn check_interface(&self, _value: &str) -> std::result::Result<(), String> {
        Err(format!(
            "`interface` is a gun-duel setting; this is a {} tournament",
            self.info().name
        ))
    }

    /// Reads what the challenge needs of its bots before the tournament is
    /// recorded, marking unusable bots in `spec` (what it finds is part of
    /// the tournament's identity).
    fn load(&self, _spec: &mut TournamentSpec) -> Result<Loaded> {
        Ok(None)
    }

    /// One real first call of a bot, as its tournament would make it (the
    /// challenge's opening position through its own codec and transport,
    /// in the bot's folder as prepared for play), judged by
    /// [`crate::first_call`]: the preflight before the first game.
    /// `Ok(None)` when the challenge's bots need none (they are not
    /// processes) or the call was cancelled; `Err` only when the referee
    /// itself could not start a process.
    fn first_call<'a>(&'a self, call: FirstCall<'a>) -> BoxFuture<'a, Result<Option<Verdict>>>;

    /// Runs (or resumes) the tournament, recording through `session`.
    fn run<'a>(&'a self, session: Session, ctx: RunContext) -> BoxFuture<'a, Result<RunReport>>;

    /// The leaderboard of a stored tournament.
    fn standings(
        &self,
        store: &Store,
        row: &TournamentRow,
        spec: &TournamentSpec,
        format: Format,
    ) -> Result<String>;

    /// What the HTML report of a stored tournament shows besides what
    /// every report has (settings, standings, faults): the challenge's
    /// pictures, replays of stored games, the planned game count. Built
    /// from the database alone.
    fn report(
        &self,
        _store: &Store,
        _row: &TournamentRow,
        _spec: &TournamentSpec,
    ) -> Result<crate::report::ReportData> {
        Ok(crate::report::ReportData::default())
    }
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

/// A stored tournament's spec and challenge, from its row (what
/// `standings` and `report` rebuild everything else from).
pub fn stored(row: &TournamentRow) -> Result<(TournamentSpec, ChallengeId)> {
    let spec: TournamentSpec = serde_json::from_str(&row.description).map_err(|e| {
        crate::error::Error::machine(format!(
            "tournament {} has an unreadable description: {e}",
            row.id
        ))
    })?;
    let challenge = ChallengeId::parse(&spec.challenge).ok_or_else(|| {
        crate::error::Error::machine(format!(
            "tournament {} is a {} tournament, which this version cannot show",
            row.id, spec.challenge
        ))
    })?;
    Ok((spec, challenge))
}

impl ChallengeId {
    /// Every challenge, in declaration order (clap's list, so a new
    /// variant is in it without another edit).
    pub fn all() -> &'static [ChallengeId] {
        <ChallengeId as clap::ValueEnum>::value_variants()
    }

    /// The challenge itself. The only `match` on challenge ids.
    pub fn get(self) -> &'static dyn Challenge {
        match self {
            ChallengeId::MetaTtt => &meta_ttt::MetaTtt,
            ChallengeId::BfJoust => &bf_joust::BfJoust,
            ChallengeId::Heist => &heist::Heist,
            ChallengeId::Forty => &forty::Forty,
            ChallengeId::GunDuel => &gun_duel::GunDuel,
        }
    }

    pub fn info(self) -> &'static ChallengeInfo {
        self.get().info()
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn parse(s: &str) -> Option<ChallengeId> {
        Self::all().iter().copied().find(|c| c.name() == s)
    }
}

impl fmt::Display for ChallengeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_gets_its_own_challenge() {
        for &id in ChallengeId::all() {
            assert_eq!(id.info().id, id, "{id:?}");
            assert_eq!(ChallengeId::parse(id.name()), Some(id));
            // The clap name is the stored name.
            let clap_name =
                clap::ValueEnum::to_possible_value(&id).map(|v| v.get_name().to_string());
            assert_eq!(clap_name.as_deref(), Some(id.name()));
        }
    }

    #[test]
    fn every_challenge_has_play_and_check_subcommands_and_a_sandbox_policy() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        for sub in ["play", "check"] {
            let cmd = cli.find_subcommand(sub).unwrap();
            let names: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).collect();
            for &id in ChallengeId::all() {
                assert!(names.contains(&id.name()), "referee {sub} {id}");
            }
            assert_eq!(names.len(), ChallengeId::all().len(), "{names:?}");
        }
        // Bots that are processes run confined under their challenge's policy.
        for &id in ChallengeId::all() {
            let needed = id.info().runs_processes();
            assert!(
                !needed || referee_sandbox::Policy::named(id.name()).is_ok(),
                "{id}"
            );
        }
    }

    #[test]
    fn default_jobs_keep_bot_processes_within_the_cores() {
        for &id in ChallengeId::all() {
            let info = id.info();
            for cores in 1..9 {
                let jobs = info.default_jobs(cores);
                assert!(jobs >= 1);
                assert!(
                    jobs * info.bots_thinking_per_game <= cores.max(info.bots_thinking_per_game)
                );
            }
        }
        assert_eq!(ChallengeId::GunDuel.info().default_jobs(4), 2);
        assert_eq!(ChallengeId::MetaTtt.info().default_jobs(4), 4);
    }
}
