//! heist joined to the per-call process runner.
//!
//! A run is `tournaments` independent tournaments; each is a strictly
//! sequential series of games (every decision depends on the ones before
//! it), and tournaments run in parallel up to `--jobs`. After each game one
//! transaction stores the game's record (its log block included) and the
//! tournament's checkpoint: every player's state, the faults and the byte
//! length of the tournament's log. A resume reloads the checkpoint, makes
//! the log agree with the database (truncating it to the stored length, or
//! rewriting it from the stored blocks if it was damaged) and plays on from
//! the next game. Every game draws from a stream seeded by (master seed,
//! tournament, game), so resumes and `--jobs` change nothing.
//!
//! A run, and where each step lives:
//!
//! ```text
//! series::run                          per tournament: checkpoint or fresh
//!   log_file::reconcile                the log cut back to (or rewritten
//!                                      from) what the database holds
//!   series::run_all                    tournaments on the Pool, --jobs
//!     series::run_one                  game after game, in order:
//!       play_game                      one call at a time, real processes
//!       TournamentLog::append          the block, before the commit
//!       recorder.commit(game, State)   one transaction: game + checkpoint
//! standings                            finished tournaments' checkpoints
//! ```
//!
//! `play_game` is shared by the series and `referee play heist`; `play` and
//! `check` are the two subcommands.

pub mod check;
mod log_file;
pub mod play;
mod report;
mod series;
mod standings;

pub use check::CheckArgs;
pub use log_file::TournamentLog;
pub use play::{play, PlayArgs};
pub use series::{tournament_key, State, StoredBot, StoredGame};
pub use standings::leaderboard;

use crate::bot::{run_once, BotLog, BotProgram, CallTimes, Limits, Outcome};
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, FirstCall, RunContext, SeedDefault,
    Sharding,
};
use crate::error::Result;
use crate::first_call::{judge_call, Verdict};
use crate::results::{Store, TournamentRow};
use crate::session::Session;
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use game_core::Ending;
use game_heist::{wire, Dice, GameReport, Request, Settings, Tournament};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The challenge id, as stored with every game.
pub const CHALLENGE: &str = "heist";

/// The heist challenge.
pub struct Heist;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::Heist,
    name: CHALLENGE,
    bot_kind: BotKind::Process,
    bots_thinking_per_game: 1,
    seed: SeedDefault::DrawAndRecord,
    settings: game_heist::SETTINGS,
    sharding: Sharding::By("series"),
};

impl Challenge for Heist {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        check_setting(key, value)
    }

    fn first_call<'a>(&'a self, call: FirstCall<'a>) -> BoxFuture<'a, Result<Option<Verdict>>> {
        Box::pin(first_call(call))
    }

    fn run<'a>(&'a self, session: Session, ctx: RunContext) -> BoxFuture<'a, Result<RunReport>> {
        Box::pin(series::run(session, ctx))
    }

    fn standings(
        &self,
        store: &Store,
        row: &TournamentRow,
        spec: &TournamentSpec,
        format: Format,
    ) -> Result<String> {
        standings::standings(store, row, spec, format)
    }

    fn report(
        &self,
        store: &Store,
        _row: &TournamentRow,
        spec: &TournamentSpec,
    ) -> Result<crate::report::ReportData> {
        report::report(store, spec)
    }
}

/// The preflight's call: the bot's first decision of the run's first
/// tournament, as that tournament asks it (its player count, rabble and
/// games, the bot's own starting state), every decision before it taken
/// as a bet of 0 ([`Tournament::first_request`]).
async fn first_call(call: FirstCall<'_>) -> Result<Option<Verdict>> {
    let settings = settings(call.spec).map_err(crate::error::Error::input)?;
    let limits = limits(&settings);
    let names = call.spec.bots.iter().map(|b| b.name.clone()).collect();
    let request = Tournament::first_request(names, &settings, call.spec.seed, 1, call.bot)
        .map_err(crate::error::Error::input)?;
    let Some(request) = request else {
        return Ok(None);
    };
    let outcome = run_once(call.program, &request.argv(), &limits, call.cancel).await?;
    if outcome.reply.ending == Ending::Cancelled {
        return Ok(None);
    }
    call.log.section(
        &format!(
            "preflight: tournament 1 game {} round {}, as the run asks it",
            request.args.game,
            request.args.round.number()
        ),
        &outcome.log_text(limits.deadline),
    );
    let fault = wire::read_bet(&outcome.reply, request.args.credits).fault;
    Ok(Some(judge_call(
        call.program,
        &outcome.reply,
        fault,
        &outcome.stderr,
    )))
}

/// stderr kept per call in the bot's log.
const STDERR_CAP: usize = 16 * 1024;

/// Settings from a resolved tournament: its key/value map over the
/// defaults, and its seed.
pub fn settings(spec: &TournamentSpec) -> std::result::Result<Settings, String> {
    let mut s = Settings::default();
    for (k, v) in &spec.settings {
        s.set(k, v)?;
    }
    s.seed = Some(spec.seed);
    Ok(s)
}

/// Checks one setting for `check_setting`. The seed is not a setting here:
/// it comes from a `seed:` line or `--seed`, like every challenge's.
pub fn check_setting(key: &str, value: &str) -> std::result::Result<(), String> {
    if key.trim() == "seed" {
        return Err("the seed is given with a `seed:` line or --seed".to_string());
    }
    Settings::default().set(key, value)
}

/// The limits of one decision (§6.1).
pub fn limits(settings: &Settings) -> Limits {
    Limits {
        deadline: Duration::from_millis(settings.timeout_ms),
        stdout_cap: wire::STDOUT_CAP_BYTES,
        stderr_cap: STDERR_CAP,
    }
}

/// What [`play_game`] shows an observer after each call (`play --trace`).
pub struct CallView<'a> {
    pub request: &'a Request,
    /// The argv entries appended to the bot's command.
    pub args: &'a [String],
    pub outcome: &'a Outcome,
}

/// A game's result and what its calls cost, by bot index.
#[derive(Debug, Clone)]
pub struct Played {
    pub report: GameReport,
    pub cpu: Vec<Duration>,
    pub calls: Vec<u64>,
    /// Wall-clock and charged time of each bot's calls.
    pub times: Vec<CallTimes>,
}

/// The bots of a game as processes: `programs[i]` and `logs[i]` belong to
/// bot `i`; `label` starts every section of their logs.
pub struct Bots<'a> {
    pub programs: &'a [BotProgram],
    pub logs: &'a [BotLog],
    pub limits: Limits,
    pub label: &'a str,
}

/// Plays the tournament's next game with real processes, one call at a
/// time in the game's order. `None` when cancelled, `Err` when the referee
/// could not start a bot's process: either way the game is dropped and the
/// tournament is unchanged.
pub async fn play_game<D: Dice>(
    tournament: &mut Tournament,
    dice: D,
    bots: &Bots<'_>,
    cancel: &CancellationToken,
    mut observe: impl FnMut(CallView<'_>),
) -> Result<Option<Played>> {
    let count = tournament.names().len();
    let mut cpu = vec![Duration::ZERO; count];
    let mut calls = vec![0u64; count];
    let mut times = vec![CallTimes::default(); count];
    let mut game = tournament.start_game(dice);
    let number = game.number();
    while let Some(request) = game.request() {
        let request = request.clone();
        let args = request.argv();
        let bot = request.bot;
        let outcome = match bots.programs.get(bot) {
            Some(program) => run_once(program, &args, &bots.limits, cancel).await?,
            // Not reachable when the caller passes one program per bot.
            None => Outcome {
                reply: game_core::Reply::ended(Vec::new(), Ending::SpawnFailed),
                stderr: Vec::new(),
                cpu: Duration::ZERO,
                wall: Duration::ZERO,
                charged: Duration::ZERO,
            },
        };
        if outcome.reply.ending == Ending::Cancelled || cancel.is_cancelled() {
            return Ok(None);
        }
        if let Some(c) = cpu.get_mut(bot) {
            *c += outcome.cpu;
        }
        if let Some(n) = calls.get_mut(bot) {
            *n += 1;
        }
        if let Some(t) = times.get_mut(bot) {
            t.add(&outcome);
        }
        if let Some(log) = bots.logs.get(bot) {
            let name = bots.programs.get(bot).map_or("", |p| p.name.as_str());
            log.section(
                &format!(
                    "{} game {number} round {} ({name})",
                    bots.label,
                    request.args.round.number()
                ),
                &outcome.log_text(bots.limits.deadline),
            );
        }
        observe(CallView {
            request: &request,
            args: &args,
            outcome: &outcome,
        });
        // Refused only for a cancelled reply, handled above.
        if game.answer(&outcome.reply).is_err() {
            return Ok(None);
        }
    }
    let Ok(report) = game.finish() else {
        return Ok(None);
    };
    Ok(Some(Played {
        report,
        cpu,
        calls,
        times,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    pub(super) fn spec(seed: u64, settings: &[(&str, &str)]) -> TournamentSpec {
        TournamentSpec {
            challenge: CHALLENGE.into(),
            seed,
            settings: settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            bots: ["a", "b"]
                .iter()
                .map(|n| crate::tournament::BotSpec {
                    name: n.to_string(),
                    command: format!("./{n}"),
                    argv: vec![format!("./{n}")],
                    folder: PathBuf::from(n),
                    fingerprint: crate::tournament::spec::fingerprint(n, &format!("./{n}")),
                    language: None,
                    owner: None,
                    interface: None,
                    invalid: None,
                })
                .collect(),
            dir: PathBuf::from("."),
            absent: Vec::new(),
        }
    }

    #[test]
    fn the_seed_is_not_a_setting() {
        assert!(check_setting("seed", "4").is_err());
        assert!(check_setting("rabble", "4").is_ok());
        assert!(check_setting("max-rounds", "4").is_err());
        assert_eq!(settings(&spec(9, &[])).unwrap().seed, Some(9));
    }
}
