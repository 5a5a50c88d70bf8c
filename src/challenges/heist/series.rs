//! A heist run as a series: each tournament is a strict sequence of games,
//! every game committed with the tournament's checkpoint, tournaments in
//! parallel on the [`Pool`].
//!
//! ```text
//! for t in 1..=tournaments {
//!     state = load_state(t) or State::fresh    // resume = the checkpoint
//!     log = log_file::reconcile(t, state)      // the file agrees with it
//! }
//! run_all(pending)                             // at most --jobs at once
//!   run_one: play_game, log.append, commit(game row, checkpoint)
//! ```

use super::log_file::{self, TournamentLog};
use super::{limits, play_game, settings, Bots, Played, CHALLENGE};
use crate::bot::{BotLog, BotProgram, CallTimes, Limits};
use crate::challenge::RunContext;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{Checkpoint, GameRow, Store};
use crate::session::{Recorder, Session};
use crate::tournament::{Pool, RunReport, TournamentSpec};
use game_core::FaultCounts;
use game_heist::{bank::BANKS, game_dice, game_stream_seed, Settings, Tournament};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The bank names of §3, for progress lines.
const BANK_NAMES: [&str; BANKS] = ["Municipal", "City", "State", "National", "Federal Reserve"];

/// What is stored per game: what each bot did and got, and the log block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredGame {
    /// Tournament number, from 1.
    pub tournament: u32,
    /// Game number, from 0.
    pub game: u32,
    /// N: bots plus this game's rabble.
    pub players: usize,
    pub rabble: usize,
    pub heisters: usize,
    pub invested: i64,
    pub bank: usize,
    /// By bot index.
    pub bots: Vec<StoredBot>,
    /// The game's block of the tournament log (§7).
    pub log: String,
}

/// One bot's part in a stored game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredBot {
    pub name: String,
    pub bet: i64,
    /// Its round-2 action if it bet (`go along` for anything else).
    pub action: Option<String>,
    /// `Some(succeeded)` if it stayed in the heist.
    pub success: Option<bool>,
    pub winnings: i64,
    pub credits: i64,
    pub faults: FaultCounts,
    /// What its calls took this game: wall-clock and charged time.
    #[serde(default)]
    pub times: CallTimes,
}

impl StoredGame {
    fn new(t: u32, played: &Played, names: &[String], log: String) -> StoredGame {
        let report = &played.report;
        StoredGame {
            tournament: t,
            game: report.game,
            players: report.players,
            rabble: report.rabble.len(),
            heisters: report.heisters,
            invested: i64::try_from(report.invested).unwrap_or(i64::MAX),
            bank: report.bank,
            bots: report
                .bots
                .iter()
                .zip(names)
                .enumerate()
                .map(|(i, (b, name))| StoredBot {
                    name: name.clone(),
                    bet: b.bet,
                    action: b.action.map(|a| a.word().unwrap_or("go along").to_string()),
                    success: b.success,
                    winnings: b.winnings,
                    credits: b.credits,
                    faults: b.faults.clone(),
                    times: played.times.get(i).copied().unwrap_or_default(),
                })
                .collect(),
            log,
        }
    }
}

/// A tournament's checkpoint: everything needed to continue it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Every player's state, the leaderboard order and the next game.
    pub tournament: Tournament,
    /// Byte length of the tournament's log after the last stored game.
    pub log_len: u64,
    /// Faults by bot index over the games stored so far.
    pub faults: Vec<FaultCounts>,
    /// CPU seconds by bot index over the games stored so far.
    pub cpu_seconds: Vec<f64>,
    /// Calls by bot index over the games stored so far.
    pub calls: Vec<u64>,
    /// Wall-clock and charged time by bot index over the games stored so
    /// far (absent from checkpoints written before it was kept).
    #[serde(default)]
    pub times: Vec<CallTimes>,
}

impl State {
    fn fresh(tournament: Tournament) -> State {
        let n = tournament.names().len();
        State {
            tournament,
            log_len: 0,
            faults: vec![FaultCounts::default(); n],
            cpu_seconds: vec![0.0; n],
            calls: vec![0; n],
            times: vec![CallTimes::default(); n],
        }
    }

    fn add(&mut self, played: &Played) {
        for (i, b) in played.report.bots.iter().enumerate() {
            if let Some(f) = self.faults.get_mut(i) {
                f.merge(&b.faults);
            }
        }
        for (i, c) in played.cpu.iter().enumerate() {
            if let Some(s) = self.cpu_seconds.get_mut(i) {
                *s += c.as_secs_f64();
            }
        }
        for (i, c) in played.calls.iter().enumerate() {
            if let Some(s) = self.calls.get_mut(i) {
                *s += c;
            }
        }
        self.times.resize(
            played.times.len().max(self.times.len()),
            CallTimes::default(),
        );
        for (i, t) in played.times.iter().enumerate() {
            if let Some(s) = self.times.get_mut(i) {
                s.merge(t);
            }
        }
    }
}

/// The key of tournament `t` of a run: everything its games depend on (the
/// seed, t, the settings that change play, the bots), but not the number of
/// tournaments, so raising `tournaments` keeps the finished ones.
pub fn tournament_key(spec: &TournamentSpec, settings: &Settings, t: u32) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    field(CHALLENGE);
    field(&spec.seed.to_string());
    field(&t.to_string());
    field(
        &settings
            .games
            .map_or("drawn".to_string(), |g| g.to_string()),
    );
    field(&settings.rabble.to_string());
    field(&settings.timeout_ms.to_string());
    for b in &spec.bots {
        field(&b.name);
        field(&b.fingerprint);
    }
    format!("{}/t{t}", &h.finalize().to_hex()[..32])
}

pub(super) fn game_key(tournament_key: &str, g: u32) -> String {
    format!("{tournament_key}/g{g}")
}

pub(super) fn load_state(store: &Store, key: &str, t: u32) -> Result<Option<State>> {
    let Some(json) = store.checkpoint(CHALLENGE, key)? else {
        return Ok(None);
    };
    serde_json::from_str(&json).map(Some).map_err(|e| {
        Error::machine(format!(
            "heist tournament {t}: the stored state is unreadable: {e}"
        ))
    })
}

/// What every tournament task of a run shares.
struct Shared {
    programs: Vec<BotProgram>,
    logs: Vec<BotLog>,
    limits: Limits,
    seed: u64,
    recorder: Recorder,
    progress: Arc<Progress>,
}

/// One tournament waiting to run or resume.
struct Pending {
    t: u32,
    key: String,
    state: State,
    log: TournamentLog,
}

/// Plays a tournament from its checkpoint to its end (or cancellation).
/// Returns the number of games played.
async fn run_one(shared: Arc<Shared>, mut p: Pending, cancel: CancellationToken) -> Result<usize> {
    let mut played_games = 0;
    let label = format!("tournament {}", p.t);
    while !p.state.tournament.is_finished() && !cancel.is_cancelled() {
        let g = p.state.tournament.next_game();
        let dice = game_dice(shared.seed, p.t, g);
        let bots = Bots {
            programs: &shared.programs,
            logs: &shared.logs,
            limits: shared.limits,
            label: &label,
        };
        let Some(played) = play_game(&mut p.state.tournament, dice, &bots, &cancel, |_| {}).await?
        else {
            break;
        };
        let names = p.state.tournament.names().to_vec();
        let block = played.report.log_block(&names);
        // The log first: a crash before the commit leaves a block past the
        // stored length, which the resume cuts off.
        p.log.append(&block)?;
        p.state.log_len = p.log.len();
        p.state.add(&played);
        let stored = StoredGame::new(p.t, &played, &names, block);
        let encode = |e: serde_json::Error| Error::machine(format!("cannot encode a game: {e}"));
        let row = GameRow {
            game_key: game_key(&p.key, g),
            seed: game_stream_seed(shared.seed, p.t, g) as i64,
            record: serde_json::to_string(&stored).map_err(encode)?,
        };
        let checkpoint = Checkpoint {
            key: p.key.clone(),
            state: serde_json::to_string(&p.state).map_err(encode)?,
        };
        shared.recorder.commit(vec![row], Some(checkpoint)).await?;
        played_games += 1;
        shared.progress.game_done(&summary(p.t, &stored, &p.state));
    }
    if p.state.tournament.is_finished() && played_games > 0 {
        let credits = p.state.tournament.credits();
        let best = credits.iter().copied().max().unwrap_or(0);
        let winners: Vec<&str> = p
            .state
            .tournament
            .names()
            .iter()
            .zip(&credits)
            .filter(|(_, &c)| c == best)
            .map(|(n, _)| n.as_str())
            .collect();
        shared.progress.say(&format!(
            "tournament {} finished: {} with {best} credits",
            p.t,
            winners.join(", ")
        ));
    }
    Ok(played_games)
}

/// One progress line per game.
fn summary(t: u32, g: &StoredGame, state: &State) -> String {
    let leader = state
        .tournament
        .leaderboard()
        .first()
        .and_then(|&i| g.bots.get(i))
        .map_or(String::new(), |b| {
            format!("; leader {} {}", b.name, b.credits)
        });
    format!(
        "tournament {t} game {}: {} players, {} heisters, {}{leader}",
        g.game,
        g.players,
        g.heisters,
        BANK_NAMES.get(g.bank).copied().unwrap_or("?"),
    )
}

/// Runs (or resumes) a heist run: every tournament, in parallel up to `jobs`.
pub(super) async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let settings = settings(&ctx.spec).map_err(Error::input)?;
    let names: Vec<String> = ctx.spec.bots.iter().map(|b| b.name.clone()).collect();
    let log_dir = session
        .db()
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);

    let mut report = RunReport::default();
    let mut pending = Vec::new();
    // A shard plays whole series: tournament t is unit t - 1.
    let mine = (1..=settings.tournaments).filter(|&t| ctx.shard.owns_index(u64::from(t - 1)));
    for t in mine {
        let key = tournament_key(&ctx.spec, &settings, t);
        let state = match load_state(&session.store(), &key, t)? {
            Some(state) => state,
            None => State::fresh(
                Tournament::for_run(names.clone(), &settings, ctx.spec.seed, t)
                    .map_err(Error::input)?,
            ),
        };
        if state.tournament.names() != names.as_slice() {
            return Err(Error::machine(format!(
                "heist tournament {t}: the stored state has other bots"
            )));
        }
        let games = state.tournament.next_game();
        let log = log_file::reconcile(&session, &log_dir, &key, t, games, state.log_len)?;
        report.total += state.tournament.games() as usize;
        report.already_done += games as usize;
        if !state.tournament.is_finished() {
            pending.push(Pending { t, key, state, log });
        }
    }
    session.start_progress(report.total, report.already_done);

    let limits = limits(&settings);
    // Confined by the caller with sandbox/policy/heist.toml: the bot's
    // folder read-only, 512 MiB, no network (spec §6.1).
    let programs = ctx.programs;
    let shared = Arc::new(Shared {
        programs,
        logs: ctx.logs,
        limits,
        seed: ctx.spec.seed,
        recorder: session.recorder(),
        progress: Arc::clone(&session.progress),
    });

    let result = run_all(&shared, pending, ctx.jobs, &session.cancel, &mut report).await;
    report.interrupted = session.cancel.is_cancelled();
    drop(shared);
    let progress = Arc::clone(&session.progress);
    // Time after the last commit is still playing time (not after a failure).
    let finished = session
        .finish(result.is_ok() && report.played > 0, report.interrupted)
        .await;
    progress.finish();
    result?;
    finished?;
    Ok(report)
}

/// Runs the pending tournaments, at most `jobs` at once.
async fn run_all(
    shared: &Arc<Shared>,
    pending: Vec<Pending>,
    jobs: usize,
    cancel: &CancellationToken,
    report: &mut RunReport,
) -> Result<()> {
    let mut queue = pending.into_iter();
    let mut running = Pool::new(jobs);
    let mut failure = None;
    loop {
        while running.has_room() && !cancel.is_cancelled() && failure.is_none() {
            let Some(p) = queue.next() else { break };
            running.spawn(run_one(Arc::clone(shared), p, cancel.child_token()));
        }
        report.max_concurrent = report.max_concurrent.max(running.len());
        let Some(joined) = running.join_next().await else {
            break;
        };
        match joined.and_then(|r| r) {
            Ok(played) => report.played += played,
            Err(e) => {
                // Stop the others; their finished games are committed.
                cancel.cancel();
                failure.get_or_insert(e);
            }
        }
    }
    failure.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::challenges::heist::tests::spec;

    #[test]
    fn tournament_keys_name_what_play_depends_on() {
        let key = |s: &TournamentSpec, t| tournament_key(s, &settings(s).unwrap(), t);
        let base = spec(1, &[("games", "5")]);
        assert_eq!(key(&base, 1), key(&base, 1));
        assert_ne!(key(&base, 1), key(&base, 2));
        assert_ne!(key(&base, 1), key(&spec(2, &[("games", "5")]), 1));
        assert_ne!(key(&base, 1), key(&spec(1, &[("games", "6")]), 1));
        assert_ne!(
            key(&base, 1),
            key(&spec(1, &[("games", "5"), ("rabble", "3")]), 1)
        );
        assert_ne!(
            key(&base, 1),
            key(&spec(1, &[("games", "5"), ("timeout-ms", "3")]), 1)
        );
        // More tournaments keep the finished ones.
        assert_eq!(
            key(&base, 1),
            key(&spec(1, &[("games", "5"), ("tournaments", "4")]), 1)
        );
    }
}
