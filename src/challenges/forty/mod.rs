//! forty joined to the persistent transport: one long-lived process per bot
//! serving thousands of games at once over the pipelined line protocol.
//!
//! A tournament (`run`) flows like this:
//! - `blocks.rs` reads back what earlier runs committed: whole blocks of
//!   1000 consecutive games (section 3.3), each one row of the results
//!   store keyed by the tournament's outcome-relevant settings and the
//!   block's range, with the crashes and failure events it carries;
//! - one [`Engine`] (`engine.rs`) runs every bot process. It is fed the
//!   games of the missing blocks in index order (dice and seatings come
//!   from the seed and the game's index, so a resume plays a missing block
//!   again from scratch with the same dice and seatings) and hands back
//!   finished games, failure events and crash notices. Which process is
//!   written to next, and for how long it keeps its CPU, is the pure
//!   policy of `lanes.rs`;
//! - each finished game goes into its open block; a complete block is
//!   committed while the engine plays on, and the progress counts
//!   committed blocks only (the very last block waits for the processes'
//!   final CPU times);
//! - `standings.rs` merges the stored blocks into the report.
//!
//! `referee play forty` ([`play()`], `play.rs`) is the same engine with one
//! game, fixed seats, optional fixed dice and a transcript observer;
//! `referee check forty` ([`check`]) scripts games with one process.

mod blocks;
pub mod check;
mod clock;
mod engine;
mod lanes;
pub mod play;
mod replies;
mod report;
mod standings;

pub use blocks::{block_key, block_prefix, BlockRecord};
pub use check::CheckArgs;
pub use engine::{Engine, EngineLimits, Finished, Notice};
pub use play::{play, PlayArgs};
pub use standings::leaderboard;

use crate::bot::BotProgram;
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, FirstCall, RunContext, SeedDefault,
    Sharding,
};
use crate::error::{Error, Result};
use crate::first_call::Verdict;
use crate::results::{Store, TournamentRow};
use crate::session::Session;
use crate::standings::Format;
use crate::tournament::{RunReport, TournamentSpec};
use blocks::{block_key_for, extras_key, extras_record, load_blocks, spawn_commit, OpenBlock};
use game_forty::report::{self as rules_report, Preamble};
use game_forty::stats::FAILURE_EVENTS_KEPT;
use game_forty::tournament::{block_games, block_of, BLOCK_GAMES};
use game_forty::{plan_game, seats_for, Aggregate, Settings};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// The forty challenge.
pub struct Forty;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::Forty,
    name: "forty",
    bot_kind: BotKind::Process,
    bots_thinking_per_game: 1,
    seed: SeedDefault::Zero,
    settings: game_forty::SETTINGS,
    sharding: Sharding::By("block"),
};

impl Challenge for Forty {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        Settings::default().set(key, value)
    }

    fn first_call<'a>(&'a self, call: FirstCall<'a>) -> BoxFuture<'a, Result<Option<Verdict>>> {
        Box::pin(first_call(call))
    }

    fn run<'a>(&'a self, session: Session, ctx: RunContext) -> BoxFuture<'a, Result<RunReport>> {
        Box::pin(run(session, ctx))
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
        row: &TournamentRow,
        spec: &TournamentSpec,
    ) -> Result<crate::report::ReportData> {
        report::report(store, row, spec)
    }
}

/// Added to every forty bot's environment (section 5): numeric libraries
/// must not start a thread per core in each of dozens of processes, and
/// Python must not write bytecode into the tournament folder.
pub const BOT_ENV: [(&str, &str); 4] = [
    ("OPENBLAS_NUM_THREADS", "1"),
    ("OMP_NUM_THREADS", "1"),
    ("MKL_NUM_THREADS", "1"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
];

/// How long a process has to exit by itself after EOF (section 4); the
/// tournament, `play` and `check` all give this.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(1);

/// The Python host, shipped inside the referee so that `check` and `play`
/// run a class file from anywhere.
pub(crate) const HOST: &str = include_str!("../../../protocols/forty/forty_host.py");

/// The challenge's settings from the resolved key/value map.
pub fn settings(spec: &TournamentSpec) -> std::result::Result<Settings, String> {
    Settings::from_pairs(&spec.settings)
}

/// `program` with forty's environment added.
fn with_env(mut program: BotProgram) -> BotProgram {
    for (k, v) in BOT_ENV {
        program.env.retain(|(key, _)| key != k);
        program.env.push((k.to_string(), v.to_string()));
    }
    program
}

/// The preflight's call: the process started with forty's environment,
/// its handshake (the seed its first process gets in the tournament)
/// answered within `startup-ms`, then the bot's first decision of its
/// first game in the tournament (`new` with its seat, one `ask` with a
/// first throw and every score 0, which that game could show it, and
/// `end`), then its input closed with the grace of the tournament's end.
async fn first_call(call: FirstCall<'_>) -> Result<Option<Verdict>> {
    use crate::bot::persistent::lines;
    use crate::first_call::{exchange, Ask, Exchange};
    use game_core::LineReply;
    use game_forty::{bot_seed, wire};
    let s = settings(call.spec).map_err(Error::input)?;
    let program = with_env(call.program.clone());
    let mut hello = Vec::new();
    wire::write_hello(&mut hello, bot_seed(call.spec.seed, &program.name, 0));
    let mut asks = vec![Ask {
        lines: hello,
        wait: Some(Duration::from_millis(s.startup_ms)),
    }];
    let first = first_decision(call.spec, &s, call.bot);
    if let Some(d) = &first {
        let mut lines = Vec::new();
        wire::write_new(&mut lines, d.game, d.seat, game_forty::game::END_SCORE);
        wire::write_ask(&mut lines, d.game, false, &[d.throw], &d.scores);
        asks.push(Ask {
            lines,
            wait: Some(Duration::from_millis(s.timeout_ms + s.kill_ms)),
        });
        let mut end = Vec::new();
        wire::write_end(&mut end, d.game);
        asks.push(Ask {
            lines: end,
            wait: None,
        });
    }
    let exchanged = exchange(
        &call,
        &program,
        lines(wire::MAX_LINE_BYTES),
        "preflight: the handshake and the first decision of its first game",
        asks,
        EXIT_GRACE,
    )
    .await?;
    let replies = match exchanged {
        Exchange::Cancelled => return Ok(None),
        Exchange::Judged(verdict) => return Ok(Some(verdict)),
        Exchange::Replied(replies) => replies,
    };
    let mut replies = replies.into_iter();
    let Some(hello) = replies.next() else {
        return Ok(None);
    };
    if let Err(e) = wire::judge_handshake(&hello) {
        return Ok(Some(Verdict::Faulted(crate::first_call::escaped(
            &format!("handshake: {e}"),
        ))));
    }
    let (Some(d), Some(reply)) = (first, replies.next()) else {
        return Ok(Some(Verdict::Answered));
    };
    let what = match &reply {
        LineReply::Message(line) => match wire::parse_reply(line, d.game) {
            Ok(game_forty::Decision::Failed(f)) => format!("{} (the turn is lost)", f.name()),
            Ok(_) => return Ok(Some(Verdict::Answered)),
            Err(e) => e.describe().to_string(),
        },
        LineReply::TimedOut => "no reply in time (timeout)".to_string(),
        LineReply::TooLong => "a line over the length limit".to_string(),
        LineReply::Closed => "its output closed (crash)".to_string(),
    };
    Ok(Some(Verdict::Faulted(format!(
        "its first decision (game {} seat {}): {what}",
        d.game, d.seat
    ))))
}

/// A bot's first decision in a tournament, as the preflight asks it.
struct FirstDecision {
    game: u64,
    seat: usize,
    throw: u8,
    scores: Vec<u32>,
}

/// The first game of the tournament that seats `bot` (by the tournament's
/// own seating draw), its seat there, and a first throw drawn from that
/// game's generator (never a 6: a 6 ends a turn without a decision).
fn first_decision(spec: &TournamentSpec, s: &Settings, bot: usize) -> Option<FirstDecision> {
    let eligible: Vec<usize> = (0..spec.bots.len()).collect();
    let seats = game_forty::tournament::seats_for(eligible.len(), s.bots_per_game).ok()?;
    (0..s.games).find_map(|game| {
        let mut rng = game_forty::tournament::game_rng(spec.seed, game);
        let seating = game_forty::tournament::draw_seating(&mut rng, &eligible, seats);
        let seat = seating.iter().position(|&b| b == bot)?;
        let throw = std::iter::repeat_with(|| game_forty::dice::roll_die(&mut rng))
            .take(1000)
            .find(|&d| d != 6)
            .unwrap_or(1);
        Some(FirstDecision {
            game,
            seat,
            throw,
            scores: vec![0; seating.len()],
        })
    })
}

/// The bots' names, in instructions order.
fn names(spec: &TournamentSpec) -> Vec<String> {
    spec.bots.iter().map(|b| b.name.clone()).collect()
}

/// A human duration for the progress bar's ETA.
fn eta_text(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// Runs (or resumes) a forty tournament.
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let RunContext {
        spec,
        programs,
        logs,
        jobs,
        shard,
        ..
    } = ctx;
    let (cancel, progress) = (
        session.cancel.clone(),
        std::sync::Arc::clone(&session.progress),
    );
    let s = settings(&spec).map_err(Error::input)?;
    let n = spec.bots.len();
    let blocks = game_forty::block_count(s.games);
    // A shard plays whole blocks: its own, by number.
    let mine = |b: u64| shard.owns_index(b);
    let games_in = |b: u64| {
        let range = block_games(b, s.games);
        range.end - range.start
    };
    let total: u64 = (0..blocks).filter(|&b| mine(b)).map(games_in).sum();
    prepare_folders(&spec)?;

    // What earlier runs committed.
    let mut done: HashSet<u64> = HashSet::new();
    let mut stored = Aggregate::new(n);
    let mut events_kept = vec![0usize; n];
    load_blocks(&session.store(), &spec, &s, |block, record| {
        if let Some(b) = block.filter(|&b| b < blocks) {
            done.insert(b);
        }
        stored.merge(&record.aggregate);
        for (bot, _) in &record.events {
            if let Some(k) = events_kept.get_mut(*bot) {
                *k += 1;
            }
        }
    })?;
    let already_done: u64 = done
        .iter()
        .filter(|&&b| mine(b))
        .map(|&b| games_in(b))
        .sum();
    let mut report = RunReport {
        total: usize::try_from(total).unwrap_or(usize::MAX),
        already_done: usize::try_from(already_done).unwrap_or(usize::MAX),
        ..RunReport::default()
    };
    let crashes: Vec<u32> = (0..n)
        .map(|b| {
            stored
                .bots
                .get(b)
                .map_or(0, |r| u32::try_from(r.failures.crashes).unwrap_or(u32::MAX))
        })
        .collect();
    let start_with: Vec<usize> = (0..n)
        .filter(|&b| !stored.bots.get(b).is_some_and(|r| r.disqualified))
        .collect();

    // The preamble goes out first, as in the original.
    let preamble = Preamble {
        bots: n,
        games: s.games,
        bots_per_game: seats_for(start_with.len(), s.bots_per_game).unwrap_or(start_with.len()),
        processes: start_with.len(),
    };
    crate::output::print_stdout(&format!("{}\n", rules_report::preamble(&preamble)))?;
    session.resuming(report.already_done, Some(report.total), "games");
    if already_done >= total {
        return Ok(report);
    }

    let writer = session.recorder();
    let limits = EngineLimits {
        timeout: Duration::from_millis(s.timeout_ms),
        kill_after: Duration::from_millis(s.kill_ms),
        startup: Duration::from_millis(s.startup_ms),
        max_crashes: s.max_crashes,
        restart: true,
        jobs,
        seed: spec.seed,
    };
    let budget = events_kept
        .iter()
        .map(|&k| FAILURE_EVENTS_KEPT.saturating_sub(k))
        .collect();
    let programs = programs.into_iter().map(with_env).collect();
    let mut engine = Engine::new(programs, logs, crashes, budget, limits, ());
    let names = names(&spec);
    let started = Instant::now();

    engine.start(&start_with);
    let mut cancelled = false;
    let mut failure = engine.take_failure();
    while failure.is_none() && engine.starting() > 0 {
        if !engine.step(&cancel).await {
            cancelled = true;
            break;
        }
        tell(&progress, &names, &mut engine.notices);
        failure = engine.take_failure();
    }
    if let Some(e) = failure {
        // The referee could not start a process: nothing is recorded.
        engine.shutdown(Duration::ZERO).await;
        return Err(e);
    }

    let mut open: BTreeMap<u64, OpenBlock> = BTreeMap::new();
    let mut carry = std::mem::take(&mut engine.extras);
    let mut held: Vec<BlockRecord> = Vec::new();
    let mut commits: JoinSet<Result<u64>> = JoinSet::new();
    let mut tally = Tally {
        progress: &progress,
        committed: already_done,
        total,
        at_start: already_done,
        started,
        shown_percent: u32::MAX,
        played: 0,
        failure: None,
    };
    let mut next_block = 0u64;

    // The first game of the next pending block, and so on.
    let advance_game = |current: Option<u64>, next_block: &mut u64| -> Option<u64> {
        if let Some(g) = current {
            if g + 1 < block_games(block_of(g), s.games).end {
                return Some(g + 1);
            }
        }
        while *next_block < blocks {
            let b = *next_block;
            *next_block += 1;
            if mine(b) && !done.contains(&b) {
                return Some(block_games(b, s.games).start);
            }
        }
        None
    };
    let mut next_game = advance_game(None, &mut next_block);

    while !cancelled {
        // Start games up to `concurrency`.
        while report.stopped.is_none() && engine.in_flight() < s.concurrency {
            let Some(g) = next_game else { break };
            let eligible = engine.eligible();
            let planned = match plan_game(spec.seed, g, &eligible, s.bots_per_game) {
                Ok(planned) => planned,
                Err(too_few) => {
                    let gone: Vec<&str> = (0..n)
                        .filter(|b| !eligible.contains(b))
                        .map(|b| names[b].as_str())
                        .collect();
                    report.stopped = Some(format!("{too_few} (disqualified: {})", gone.join(", ")));
                    break;
                }
            };
            let block = block_of(g);
            open.entry(block)
                .or_insert_with(|| OpenBlock::new(block, s.games, n));
            engine.start_game(g, planned.seating, planned.game);
            next_game = advance_game(Some(g), &mut next_block);
        }

        // Finished games into their blocks.
        for finished in engine.finished.drain(..) {
            if let Some(block) = open.get_mut(&block_of(finished.id)) {
                let aggregate = &mut block.record.aggregate;
                let _ = aggregate.record_game(&finished.seating, &finished.game);
                for (&bot, time) in finished.seating.iter().zip(&finished.time) {
                    aggregate.bot_mut(bot).add_time(time);
                }
                block.remaining = block.remaining.saturating_sub(1);
            }
        }
        for (bot, event) in engine.events.drain(..) {
            if let Some(block) = open.get_mut(&block_of(event.game)) {
                block.record.events.push((bot, event));
            }
        }
        tell(&progress, &names, &mut engine.notices);
        carry.merge(&std::mem::take(&mut engine.extras));
        if let Some(e) = engine.take_failure() {
            // The referee could not start a process: the blocks in flight
            // are not recorded (a rerun plays them), committed ones stay.
            tally.failure.get_or_insert(e);
            break;
        }

        // Complete blocks are committed; the very last one waits for the
        // processes' final CPU times.
        let complete: Vec<u64> = open
            .iter()
            .filter(|(_, b)| b.remaining == 0)
            .map(|(&k, _)| k)
            .collect();
        for block in complete {
            let Some(mut ob) = open.remove(&block) else {
                continue;
            };
            let last = open.is_empty() && next_game.is_none() && engine.in_flight() == 0;
            ob.record.aggregate.merge(&std::mem::take(&mut carry));
            if last {
                held.push(ob.record);
                continue;
            }
            spawn_commit(
                &mut commits,
                &writer,
                &block_key_for(&spec, &s, block),
                ob.record,
            );
        }
        while let Some(joined) = commits.try_join_next() {
            tally.joined(joined);
        }
        if tally.failure.is_some() {
            break;
        }
        if engine.in_flight() == 0 && (next_game.is_none() || report.stopped.is_some()) {
            break;
        }
        if !engine.step(&cancel).await {
            cancelled = true;
        }
    }

    let grace = if cancelled || tally.failure.is_some() {
        Duration::ZERO
    } else {
        EXIT_GRACE
    };
    engine.shutdown(grace).await;
    tell(&progress, &names, &mut engine.notices);
    carry.merge(&engine.extras);
    if !cancelled && tally.failure.is_none() {
        if held.is_empty() && carry != Aggregate::new(n) {
            // Stopped early: the crashes and disqualifications that stopped
            // it are kept even though no block was completed to carry them.
            let record = extras_record(std::mem::take(&mut carry));
            spawn_commit(
                &mut commits,
                &writer,
                &extras_key(&block_prefix(&spec, &s)),
                record,
            );
        }
        for (i, mut record) in held.into_iter().enumerate() {
            if i == 0 {
                record.aggregate.merge(&carry);
            }
            let block = record.games[0] / BLOCK_GAMES;
            spawn_commit(
                &mut commits,
                &writer,
                &block_key_for(&spec, &s, block),
                record,
            );
        }
    }
    while let Some(joined) = commits.join_next().await {
        tally.joined(joined);
    }
    progress.end_bar();
    report.played = tally.played;
    let failure = tally.failure;
    drop(writer);
    report.interrupted = cancelled;
    report.max_concurrent = s.concurrency;
    // The last block's commit ends the play time: nothing after it is play.
    let finished = session.finish(false, cancelled).await;
    if let Some(e) = failure {
        return Err(e);
    }
    finished?;
    Ok(report)
}

/// Each bot's folder (its HOME) exists before its process starts.
fn prepare_folders(spec: &TournamentSpec) -> Result<()> {
    for bot in &spec.bots {
        std::fs::create_dir_all(&bot.folder).map_err(|e| {
            Error::machine(format!(
                "{}: cannot create the bot folder: {e}",
                bot.folder.display()
            ))
        })?;
    }
    Ok(())
}

/// What the block commits of a run have done so far: games committed (the
/// progress bar moves with them) and the first failure.
struct Tally<'a> {
    progress: &'a crate::progress::Progress,
    /// Games committed, those of earlier runs included.
    committed: u64,
    total: u64,
    /// Games committed before this run.
    at_start: u64,
    started: Instant,
    shown_percent: u32,
    /// Games committed by this run.
    played: usize,
    failure: Option<Error>,
}

impl Tally<'_> {
    /// One finished commit task: its games count, or its error is kept
    /// (the first one wins).
    fn joined(&mut self, joined: std::result::Result<Result<u64>, tokio::task::JoinError>) {
        match joined {
            Ok(Ok(games)) => {
                self.committed += games;
                self.played += usize::try_from(games).unwrap_or(0);
                self.show_bar();
            }
            Ok(Err(e)) => {
                self.failure.get_or_insert(e);
            }
            Err(e) => {
                self.failure
                    .get_or_insert(Error::machine(format!("a commit task failed: {e}")));
            }
        }
    }

    fn show_bar(&mut self) {
        let percent = rules_report::progress_percent(self.committed, self.total);
        if percent == self.shown_percent {
            return;
        }
        self.shown_percent = percent;
        let played = self.committed.saturating_sub(self.at_start);
        let left = self.total.saturating_sub(self.committed);
        let eta = if played > 0 {
            let per_game = self.started.elapsed().as_secs_f64() / played as f64;
            format!(" ETA {}", eta_text(per_game * left as f64))
        } else {
            String::new()
        };
        self.progress
            .bar(&format!("{}{eta}", rules_report::progress_bar(percent)));
    }
}

fn tell(progress: &crate::progress::Progress, names: &[String], notices: &mut Vec<Notice>) {
    for notice in notices.drain(..) {
        match notice {
            Notice::Crash {
                bot,
                reason,
                restarting,
                disqualified,
            } => {
                let name = names.get(bot).map_or("?", String::as_str);
                let what = if disqualified {
                    "disqualified"
                } else if restarting {
                    "restarting"
                } else {
                    "not restarted"
                };
                progress.say(&format!("{name}: crash ({reason}); {what}"));
            }
        }
    }
}
