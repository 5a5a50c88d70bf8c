//! forty joined to the persistent transport: one long-lived process per bot
//! serving thousands of games at once over the pipelined line protocol.
//!
//! [`Engine`] is one event loop over every bot process. It keeps the games
//! in flight, queues each process's lines, writes a process's whole queue in
//! one non-blocking write when the process is idle and one of the `--jobs`
//! slots is free (slots go to the process with the oldest pending ask, and
//! each slot is a CPU the process is pinned to: see [`CpuLanes`]; a process
//! whose replies leave it many new asks keeps its slot for a few batches,
//! see `STREAK_MAX_BATCHES`), pairs
//! replies through a [`Pipeline`] per process, arms one timer for the
//! earliest deadline, and turns everything a process does into decisions:
//! a timeout, an error, a malformed reply, a crash (the process is killed,
//! restarted with a new seed, or disqualified at `max-crashes`). Nothing a
//! bot does becomes an `Err`.
//!
//! The tournament ([`run`]) feeds the engine games in index order and
//! commits them in blocks of 1000 consecutive games (section 3.3): a block's
//! aggregate is one row of the results store, keyed by the tournament's
//! outcome-relevant settings and the block's range, so a resume plays the
//! missing blocks again from scratch with the same dice and seatings.
//! `referee play forty` ([`play`]) is the same engine with one game, fixed
//! seats, optional fixed dice and a transcript observer.

pub mod check;
pub mod play;

pub use check::CheckArgs;
pub use play::PlayArgs;

use crate::bot::cpu_lanes::{self, CpuLanes};
use crate::bot::persistent::lines;
use crate::bot::{Batch, BotLog, BotProgram, LineProcess, Piece};
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, RunContext, SeedDefault,
};
use crate::error::{Error, Result};
use crate::results::{GameRow, Store, TournamentRow};
use crate::session::{Recorder, Session};
use crate::standings::{Format, Leaderboard, Row};
use crate::status::Status;
use crate::tournament::{RunReport, TournamentSpec};
use game_core::LineRef;
use game_forty::pipeline::KillReason;
use game_forty::report::{self, Preamble, ReportInput};
use game_forty::stats::FAILURE_EVENTS_KEPT;
use game_forty::tournament::{block_games, block_of, BLOCK_GAMES};
use game_forty::{
    bot_seed, dice, plan_game, play_game, seats_for, transcript, wire, Aggregate, Decision, Event,
    Failure, FailureEvent, Game, Next, Observer, Pipeline, PipelineEvent, Settings, TurnRecord,
    DICE_ALGORITHM, END_SCORE,
};
use referee_sandbox::Confinement;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// The forty challenge.
pub struct Forty;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::Forty,
    name: "forty",
    bot_kind: BotKind::Process,
    bots_thinking_per_game: 1,
    seed: SeedDefault::Zero,
    settings: game_forty::SETTINGS,
};

impl Challenge for Forty {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        Settings::default().set(key, value)
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
        standings(store, row, spec, format)
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

/// How long a process has to exit by itself after EOF (section 4).
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Timers fire this much after a deadline, so that a reply read just
/// before it (but not yet handed over by its reader task) still counts.
const TIMER_SLACK: Duration = Duration::from_millis(2);

/// Batches of replies buffered between the readers and the event loop.
const SINK_QUEUE: usize = 1024;

/// Version of the stored block record.
const RECORD_VERSION: u32 = 1;

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

// ---------------------------------------------------------------------------
// The engine

/// Where a bot's process stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Spawned and sent the handshake; its reply is due by this instant.
    Starting(Instant),
    /// Handshaken: its asks may be written.
    Ready,
    /// No process any more: disqualified, or (in `play`) not restarted.
    Gone,
}

/// One bot and its current process.
struct Proc {
    program: BotProgram,
    log: BotLog,
    state: State,
    /// Increases with every crash; a game's seat remembers the incarnation
    /// that heard its `new`, and only that one is ever asked.
    incarnation: u32,
    /// Crashes so far (stored ones included): what `max-crashes` counts.
    crashes: u32,
    process: Option<LineProcess>,
    pipeline: Pipeline<usize>,
    /// Lines waiting for the next batch.
    queue: Vec<u8>,
    /// The asks in `queue`, in order: game slot, game id, and what is left
    /// of the turn's budget (fixed while an ask waits: nothing is charged
    /// to a game between its ask and the reply).
    queued: Vec<(usize, u64, Duration)>,
    /// Sequence number of the oldest ask in `queue`.
    oldest: Option<u64>,
    /// The `--jobs` slot (a [`CpuLanes`] lane) it holds while it has asks
    /// outstanding.
    lane: Option<usize>,
    /// The CPU its process was last pinned to.
    pinned: Option<usize>,
    /// Batches written in a row on its current lane.
    streak: u32,
    /// The name from `ok NAME`.
    handshake_name: Option<String>,
}

/// A game in flight.
struct Live {
    id: u64,
    /// The bot at each seat.
    seating: Vec<usize>,
    /// The incarnation of each seat's process that heard `new`.
    heard: Vec<u32>,
    /// Decision time charged per seat, in nanoseconds.
    charged: Vec<u64>,
    game: Game,
}

/// A finished game, handed to the caller.
pub struct Finished {
    pub id: u64,
    pub seating: Vec<usize>,
    pub charged: Vec<u64>,
    pub game: Game,
}

/// Something the caller may want to tell the organiser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A bot's process crashed; `restarting` unless it is now gone.
    Crash {
        bot: usize,
        reason: String,
        restarting: bool,
        disqualified: bool,
    },
}

/// Limits the engine enforces.
#[derive(Debug, Clone, Copy)]
pub struct EngineLimits {
    pub timeout: Duration,
    pub kill_after: Duration,
    pub startup: Duration,
    pub max_crashes: u32,
    /// Restart crashed processes (a tournament) or leave them gone (`play`).
    pub restart: bool,
    /// Most processes with asks outstanding at once.
    pub jobs: usize,
    /// Tournament seed, for the bots' handshake seeds.
    pub seed: u64,
}

/// The event loop over all bot processes (see the module docs).
pub struct Engine<O: Observer> {
    procs: Vec<Proc>,
    games: Vec<Option<Live>>,
    free: Vec<usize>,
    in_flight: usize,
    sink: mpsc::Sender<Batch>,
    incoming: mpsc::Receiver<Batch>,
    reaped_tx: mpsc::UnboundedSender<(usize, Duration)>,
    reaped_rx: mpsc::UnboundedReceiver<(usize, Duration)>,
    reapers: usize,
    /// The `--jobs` slots, each on its own CPU.
    lanes: CpuLanes,
    seq: u64,
    /// What the lines of one batch meant, kept between its two passes
    /// (reused, so a batch allocates nothing here).
    paired: Vec<(PipelineEvent<usize>, Piece, Instant)>,
    limits: EngineLimits,
    pub observer: O,
    /// Games that ended since the caller last looked.
    pub finished: Vec<Finished>,
    /// Failure events (bot, event) since the caller last looked, at most
    /// `event_budget[bot]` per bot over the engine's life.
    pub events: Vec<(usize, FailureEvent)>,
    event_budget: Vec<usize>,
    /// Crashes, disqualifications, late-reply time and CPU time: what is
    /// not part of one game.
    pub extras: Aggregate,
    pub notices: Vec<Notice>,
}

/// What woke the loop.
enum Wake {
    Cancelled,
    Batch(Option<Batch>),
    Reaped(Option<(usize, Duration)>),
    Timer,
}

/// A process whose replies leave it at least this many new asks (turns
/// going on) gets them at once on the lane it holds...
const STREAK_MIN_ASKS: usize = 16;
/// ...for at most this many batches in a row; then the lane goes to the
/// oldest pending ask. Each ask after a turn's first touches a game the
/// process has just touched, so the follow-up batch finds its objects in
/// the CPU's caches: a Python host then spends about half as long per
/// decision as it does on games last seen a whole round of processes ago.
/// 30 000 games of 20 Python bots: CPU time -15 to -25 %, wall -15 %
/// (BENCHMARKS.md). Speed only: results never depend on the order.
const STREAK_MAX_BATCHES: u32 = 16;

fn tag(bot: usize, incarnation: u32) -> u64 {
    ((bot as u64) << 32) | u64::from(incarnation)
}

fn untag(tag: u64) -> (usize, u32) {
    ((tag >> 32) as usize, (tag & 0xffff_ffff) as u32)
}

/// The text of a reply for a failure event, shortened.
fn quoted(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
    format!("reply {text:?}")
}

impl<O: Observer> Engine<O> {
    /// An engine for these bots; `crashes[i]` are bot `i`'s earlier crashes
    /// and `event_budget[i]` how many failure events it may still report.
    pub fn new(
        programs: Vec<BotProgram>,
        logs: Vec<BotLog>,
        crashes: Vec<u32>,
        event_budget: Vec<usize>,
        limits: EngineLimits,
        observer: O,
    ) -> Self {
        let (sink, incoming) = mpsc::channel(SINK_QUEUE);
        let (reaped_tx, reaped_rx) = mpsc::unbounded_channel();
        let n = programs.len();
        let procs = programs
            .into_iter()
            .zip(logs)
            .zip(crashes)
            .map(|((program, log), crashes)| Proc {
                program,
                log,
                state: State::Gone,
                incarnation: 0,
                crashes,
                process: None,
                pipeline: Pipeline::new(limits.kill_after),
                queue: Vec::with_capacity(4096),
                queued: Vec::new(),
                oldest: None,
                lane: None,
                pinned: None,
                streak: 0,
                handshake_name: None,
            })
            .collect();
        Engine {
            procs,
            games: Vec::new(),
            free: Vec::new(),
            in_flight: 0,
            sink,
            incoming,
            reaped_tx,
            reaped_rx,
            reapers: 0,
            lanes: CpuLanes::new(limits.jobs),
            seq: 0,
            paired: Vec::new(),
            limits: EngineLimits {
                jobs: limits.jobs.max(1),
                ..limits
            },
            observer,
            finished: Vec::new(),
            events: Vec::new(),
            event_budget,
            extras: Aggregate::new(n),
            notices: Vec::new(),
        }
    }

    /// Starts the processes of these bots and sends their handshakes.
    pub fn start(&mut self, bots: &[usize]) {
        let now = Instant::now();
        for &bot in bots {
            if bot < self.procs.len() {
                self.spawn(bot, now);
            }
        }
    }

    /// Bots whose process is waiting for its handshake reply.
    pub fn starting(&self) -> usize {
        self.procs
            .iter()
            .filter(|p| matches!(p.state, State::Starting(_)))
            .count()
    }

    /// Bots that may be seated in new games, in instructions order.
    pub fn eligible(&self) -> Vec<usize> {
        (0..self.procs.len())
            .filter(|&b| self.procs[b].state != State::Gone)
            .collect()
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The handshake name of bot `bot`'s current process.
    pub fn handshake_name(&self, bot: usize) -> Option<&str> {
        self.procs.get(bot)?.handshake_name.as_deref()
    }

    /// Whether bot `bot` was disqualified in this engine.
    pub fn disqualified(&self, bot: usize) -> bool {
        self.extras.bots.get(bot).is_some_and(|r| r.disqualified)
    }

    fn spawn(&mut self, bot: usize, now: Instant) {
        loop {
            let p = &mut self.procs[bot];
            let seed = bot_seed(self.limits.seed, &p.program.name, p.crashes);
            match LineProcess::spawn_shared(
                &p.program,
                &[],
                lines(wire::MAX_LINE_BYTES),
                p.log.clone(),
                tag(bot, p.incarnation),
                self.sink.clone(),
            ) {
                Ok(process) => {
                    let mut hello = Vec::with_capacity(32);
                    wire::write_hello(&mut hello, seed);
                    process.send(hello);
                    p.process = Some(process);
                    p.pinned = None;
                    p.state = State::Starting(now + self.limits.startup);
                    p.handshake_name = None;
                    return;
                }
                Err(e) => {
                    p.log
                        .section("referee", format!("cannot start the bot: {e}").as_bytes());
                    if !self.count_crash(bot, &format!("cannot start: {e}")) {
                        return;
                    }
                }
            }
        }
    }

    /// Counts a crash of `bot`'s process; returns whether it restarts.
    fn count_crash(&mut self, bot: usize, reason: &str) -> bool {
        let p = &mut self.procs[bot];
        p.crashes += 1;
        p.incarnation += 1;
        self.extras.bot_mut(bot).add_failure(Failure::Crash);
        let disqualified = p.crashes >= self.limits.max_crashes;
        let restarting = self.limits.restart && !disqualified;
        if !restarting {
            p.state = State::Gone;
        }
        if disqualified {
            self.extras.bot_mut(bot).disqualified = true;
        }
        let what = if restarting {
            "restarting".to_string()
        } else if disqualified {
            format!("disqualified after {} crashes", p.crashes)
        } else {
            "not restarted".to_string()
        };
        p.log
            .section("referee", format!("crash: {reason}; {what}").as_bytes());
        self.notices.push(Notice::Crash {
            bot,
            reason: reason.to_string(),
            restarting,
            disqualified,
        });
        restarting
    }

    /// Starts game `id` with bot `seating[i]` at seat `i`. Every seated bot
    /// must be eligible.
    pub fn start_game(&mut self, id: u64, seating: Vec<usize>, game: Game) {
        let heard: Vec<u32> = seating
            .iter()
            .map(|&b| self.procs.get(b).map_or(u32::MAX, |p| p.incarnation))
            .collect();
        for (seat, &bot) in seating.iter().enumerate() {
            if let Some(p) = self.procs.get_mut(bot) {
                wire::write_new(&mut p.queue, id, seat, END_SCORE);
            }
        }
        let live = Live {
            id,
            charged: vec![0; seating.len()],
            seating,
            heard,
            game,
        };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.games[slot] = Some(live);
                slot
            }
            None => {
                self.games.push(Some(live));
                self.games.len() - 1
            }
        };
        self.in_flight += 1;
        self.drive(slot);
    }

    /// Plays game `slot` on until it needs a bot's decision or ends.
    fn drive(&mut self, slot: usize) {
        loop {
            let Some(live) = self.games.get_mut(slot).and_then(Option::as_mut) else {
                return;
            };
            match live.game.advance(&mut self.observer) {
                Next::Ask { seat } => {
                    let bot = live.seating[seat];
                    let p = &mut self.procs[bot];
                    if p.state == State::Gone || p.incarnation != live.heard[seat] {
                        // The process that knows this game is gone.
                        if self.event_budget[bot] > 0 {
                            self.event_budget[bot] -= 1;
                            self.events.push((
                                bot,
                                FailureEvent::at(
                                    live.id,
                                    &live.game,
                                    seat,
                                    Failure::Lost,
                                    "the process that joined this game is gone",
                                ),
                            ));
                        }
                        let _ = live.game.answer(Decision::Failed(Failure::Lost));
                        continue;
                    }
                    live.game.write_ask(live.id, &mut p.queue);
                    p.queued
                        .push((slot, live.id, live.game.budget_left(self.limits.timeout)));
                    if p.oldest.is_none() {
                        p.oldest = Some(self.seq);
                    }
                    self.seq += 1;
                    return;
                }
                Next::Over => {
                    for (seat, &bot) in live.seating.iter().enumerate() {
                        let p = &mut self.procs[bot];
                        if p.state != State::Gone && p.incarnation == live.heard[seat] {
                            wire::write_end(&mut p.queue, live.id);
                        }
                    }
                    if let Some(live) = self.games[slot].take() {
                        self.finished.push(Finished {
                            id: live.id,
                            seating: live.seating,
                            charged: live.charged,
                            game: live.game,
                        });
                    }
                    self.free.push(slot);
                    self.in_flight -= 1;
                    return;
                }
            }
        }
    }

    /// Hands bot `bot`'s decision to the game in `slot` (checked against
    /// the game id and the seat asking) and drives it on.
    fn decide(
        &mut self,
        bot: usize,
        slot: usize,
        id: u64,
        decision: Decision,
        charged: Duration,
        detail: impl FnOnce() -> String,
    ) {
        let Some(live) = self.games.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        let Some(seat) = live.game.asking() else {
            return;
        };
        if live.id != id || live.seating[seat] != bot {
            return;
        }
        live.game.spend(charged);
        let ns = u64::try_from(charged.as_nanos()).unwrap_or(u64::MAX);
        live.charged[seat] = live.charged[seat].saturating_add(ns);
        if let Decision::Failed(kind) = decision {
            if self.event_budget[bot] > 0 {
                self.event_budget[bot] -= 1;
                self.events.push((
                    bot,
                    FailureEvent::at(live.id, &live.game, seat, kind, detail()),
                ));
            }
        }
        let _ = live.game.answer(decision);
        self.drive(slot);
    }

    /// Writes queued lines to idle processes while slots are free, oldest
    /// pending ask first.
    fn dispatch(&mut self) {
        while self.lanes.taken() < self.lanes.len() {
            let next = self
                .procs
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    p.state == State::Ready && p.lane.is_none() && p.pipeline.is_idle()
                })
                .filter_map(|(i, p)| p.oldest.map(|seq| (seq, i)))
                .min();
            let Some((_, bot)) = next else {
                return;
            };
            self.send_queue(bot);
        }
    }

    /// Writes everything queued for `bot` (idle, ready) in one write; its
    /// asks take a lane unless it already holds one.
    fn send_queue(&mut self, bot: usize) {
        let now = Instant::now();
        let p = &mut self.procs[bot];
        let batch = std::mem::replace(&mut p.queue, Vec::with_capacity(4096));
        for (slot, id, budget) in p.queued.drain(..) {
            p.pipeline.push(slot, id, now, budget);
        }
        p.oldest = None;
        if !p.pipeline.is_idle() && p.lane.is_none() {
            p.lane = self.lanes.acquire();
            p.streak = 0;
            // Pinned before the write wakes it, so that it wakes where
            // the slot is (see `cpu_lanes`).
            let cpu = p.lane.and_then(|lane| self.lanes.cpu(lane));
            if let (Some(cpu), Some(process)) = (cpu, &p.process) {
                if p.pinned != Some(cpu) {
                    cpu_lanes::pin(process.pid(), cpu);
                    p.pinned = Some(cpu);
                }
            }
        }
        if let Some(process) = &p.process {
            process.send(batch);
        }
    }

    /// Whether `bot`, just idle with its lane, keeps the lane for the asks
    /// its replies lead to (see [`Engine::continue_or_release`]).
    fn may_continue(&self, bot: usize) -> bool {
        let p = &self.procs[bot];
        p.lane.is_some() && p.pipeline.is_idle() && p.streak < STREAK_MAX_BATCHES
    }

    /// After `bot`'s replies were played on: if they left enough asks for
    /// it (turns going on), they go out at once on the same lane, while its
    /// games are still in its CPU's caches; otherwise the lane is free.
    fn continue_or_release(&mut self, bot: usize) {
        let p = &mut self.procs[bot];
        if p.lane.is_none() || !p.pipeline.is_idle() {
            return;
        }
        // The streak's cap was checked when the lane was kept.
        if p.state == State::Ready && p.queued.len() >= STREAK_MIN_ASKS {
            p.streak += 1;
            self.send_queue(bot);
        } else {
            self.release_if_idle(bot);
            self.dispatch();
        }
    }

    fn release_if_idle(&mut self, bot: usize) {
        let p = &mut self.procs[bot];
        if p.pipeline.is_idle() {
            if let Some(lane) = p.lane.take() {
                self.lanes.release(lane);
            }
        }
    }

    /// The process of `bot` failed: it is killed, its outstanding asks
    /// crash, its queued asks are lost, and it restarts or is gone.
    fn crash(&mut self, bot: usize, reason: &str, now: Instant) {
        let p = &mut self.procs[bot];
        if let Some(lane) = p.lane.take() {
            self.lanes.release(lane);
        }
        let failed = p.pipeline.fail(now);
        let queued = std::mem::take(&mut p.queued);
        p.queue.clear();
        p.oldest = None;
        if let Some(mut process) = p.process.take() {
            let tx = self.reaped_tx.clone();
            self.reapers += 1;
            tokio::spawn(async move {
                let cpu = process.kill().await.map_or(Duration::ZERO, |r| r.cpu);
                let _ = tx.send((bot, cpu));
            });
        }
        let record = self.extras.bot_mut(bot);
        record.charged_ns = record
            .charged_ns
            .saturating_add(u64::try_from(failed.charged.as_nanos()).unwrap_or(u64::MAX));
        if self.count_crash(bot, reason) {
            self.spawn(bot, now);
        }
        for (slot, id) in failed.crashed {
            self.decide(
                bot,
                slot,
                id,
                Decision::Failed(Failure::Crash),
                Duration::ZERO,
                || reason.to_string(),
            );
        }
        for (slot, id, _) in queued {
            self.decide(
                bot,
                slot,
                id,
                Decision::Failed(Failure::Lost),
                Duration::ZERO,
                || format!("not yet asked when the process failed ({reason})"),
            );
        }
    }

    fn on_batch(&mut self, batch: Batch) {
        let (bot, incarnation) = untag(batch.tag);
        if bot >= self.procs.len() {
            return;
        }
        // First pair every line with its ask, which is cheap; then, if that
        // left the process idle, hand its slot to the next process before
        // playing the games on (which takes longer): the bots are the slow
        // side, and a slot waiting for the referee is a core doing nothing.
        let mut paired = std::mem::take(&mut self.paired);
        let mut killed = false;
        for &piece in &batch.pieces {
            let p = &mut self.procs[bot];
            if p.incarnation != incarnation || p.state == State::Gone {
                // A killed process's last words.
                break;
            }
            let reply = batch.reply(piece);
            let at = match piece {
                Piece::Closed => Instant::now(),
                _ => batch.at,
            };
            if let State::Starting(_) = p.state {
                match wire::judge_handshake(&reply.to_owned_reply()) {
                    Ok(name) => {
                        p.state = State::Ready;
                        p.handshake_name = name;
                    }
                    Err(e) => {
                        self.crash(bot, &e.to_string(), at);
                        break;
                    }
                }
                continue;
            }
            if let Some(event) = p.pipeline.on_line(reply, at) {
                killed = matches!(event, PipelineEvent::Kill(_));
                paired.push((event, piece, at));
                if killed {
                    // Everything after this line is the last words of a
                    // process about to be killed.
                    break;
                }
            }
        }
        let keep = !killed && self.may_continue(bot);
        if !killed && !keep {
            self.release_if_idle(bot);
            self.dispatch();
        }
        for (event, piece, at) in paired.drain(..) {
            let reply = batch.reply(piece);
            match event {
                PipelineEvent::Decided {
                    token,
                    game,
                    decision,
                    charged,
                } => self.decide(bot, token, game, decision, charged, || match reply {
                    LineRef::Message(line) if decision == Decision::Failed(Failure::Malformed) => {
                        quoted(line)
                    }
                    _ => "the bot reported an error (`G e`)".to_string(),
                }),
                PipelineEvent::LateReply { charged } => {
                    let record = self.extras.bot_mut(bot);
                    record.charged_ns = record
                        .charged_ns
                        .saturating_add(u64::try_from(charged.as_nanos()).unwrap_or(u64::MAX));
                }
                PipelineEvent::Kill(reason) => {
                    let text = match (&reason, reply) {
                        (KillReason::OutOfStep(_), LineRef::Message(line)) => {
                            format!("{}: {}", reason.describe(), quoted(line))
                        }
                        _ => reason.describe().to_string(),
                    };
                    self.crash(bot, &text, at);
                }
            }
        }
        self.paired = paired;
        if keep {
            self.continue_or_release(bot);
        } else {
            self.release_if_idle(bot);
        }
    }

    fn on_timers(&mut self, now: Instant) {
        for bot in 0..self.procs.len() {
            match self.procs[bot].state {
                State::Starting(deadline) if now >= deadline => {
                    self.crash(bot, "no handshake reply within startup-ms", now);
                }
                State::Ready => {
                    while let Some(event) = self.procs[bot].pipeline.on_timer(now) {
                        match event {
                            PipelineEvent::Decided {
                                token,
                                game,
                                decision,
                                charged,
                            } => self.decide(bot, token, game, decision, charged, || {
                                "no reply within the turn's time budget".to_string()
                            }),
                            PipelineEvent::Kill(reason) => {
                                self.crash(bot, reason.describe(), now);
                                break;
                            }
                            PipelineEvent::LateReply { .. } => {}
                        }
                    }
                    self.release_if_idle(bot);
                }
                _ => {}
            }
        }
    }

    /// The earliest handshake deadline or ask deadline.
    fn next_wake(&self) -> Option<Instant> {
        self.procs
            .iter()
            .filter_map(|p| match p.state {
                State::Starting(deadline) => Some(deadline),
                State::Ready => p.pipeline.next_deadline(),
                State::Gone => None,
            })
            .min()
    }

    fn drain_incoming(&mut self) {
        while let Ok(batch) = self.incoming.try_recv() {
            self.on_batch(batch);
        }
    }

    /// Writes what can be written, then waits for one thing (replies, a
    /// deadline, a reaped process) and handles it. False when cancelled.
    pub async fn step(&mut self, cancel: &CancellationToken) -> bool {
        self.dispatch();
        let wake = self.next_wake();
        let sleep = tokio::time::sleep_until(
            wake.map_or_else(
                || Instant::now() + Duration::from_secs(3600),
                |w| w + TIMER_SLACK,
            )
            .into(),
        );
        let what = tokio::select! {
            biased;
            _ = cancel.cancelled() => Wake::Cancelled,
            batch = self.incoming.recv() => Wake::Batch(batch),
            reaped = self.reaped_rx.recv(), if self.reapers > 0 => Wake::Reaped(reaped),
            _ = sleep, if wake.is_some() => Wake::Timer,
        };
        match what {
            Wake::Cancelled => return false,
            Wake::Batch(Some(batch)) => {
                self.on_batch(batch);
                self.drain_incoming();
            }
            // The engine holds a sender, so the channel never closes.
            Wake::Batch(None) => {}
            Wake::Reaped(reaped) => {
                self.reapers = self.reapers.saturating_sub(1);
                if let Some((bot, cpu)) = reaped {
                    self.add_cpu(bot, cpu);
                }
            }
            Wake::Timer => {
                // Replies already read go first: they may beat the deadline.
                self.drain_incoming();
                self.on_timers(Instant::now());
            }
        }
        true
    }

    fn add_cpu(&mut self, bot: usize, cpu: Duration) {
        let record = self.extras.bot_mut(bot);
        record.cpu_ns = record
            .cpu_ns
            .saturating_add(u64::try_from(cpu.as_nanos()).unwrap_or(u64::MAX));
    }

    /// The end of the run: queued `end` lines are written, then EOF; each
    /// process gets `grace` to exit before its group is killed. CPU times
    /// land in `extras`.
    pub async fn shutdown(&mut self, grace: Duration) {
        let mut exits = JoinSet::new();
        for (bot, p) in self.procs.iter_mut().enumerate() {
            if let Some(process) = p.process.take() {
                if !p.queue.is_empty() {
                    process.send(std::mem::take(&mut p.queue));
                }
                exits.spawn(async move {
                    let cpu = process
                        .shutdown(grace)
                        .await
                        .map_or(Duration::ZERO, |r| r.cpu);
                    (bot, cpu)
                });
            }
            p.state = State::Gone;
            if let Some(lane) = p.lane.take() {
                self.lanes.release(lane);
            }
        }
        while let Some(joined) = exits.join_next().await {
            if let Ok((bot, cpu)) = joined {
                self.add_cpu(bot, cpu);
            }
        }
        while self.reapers > 0 {
            match tokio::time::timeout(Duration::from_secs(5), self.reaped_rx.recv()).await {
                Ok(Some((bot, cpu))) => {
                    self.reapers -= 1;
                    self.add_cpu(bot, cpu);
                }
                _ => break,
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Stored blocks

/// One committed block: the aggregate of games `games[0]..games[1]`, plus
/// what happened to the processes while it was the next to commit.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BlockRecord {
    pub version: u32,
    pub games: [u64; 2],
    pub aggregate: Aggregate,
    /// Failure events (bot index, event), the first 100 per bot overall.
    pub events: Vec<(usize, FailureEvent)>,
}

/// The key prefix of a tournament's blocks: everything a block's outcome
/// depends on (the dice algorithm, seed, outcome-relevant settings and the
/// bots in order). `games` and `concurrency` are not part of it, so a
/// tournament extended to more games keeps the blocks it has.
pub fn block_prefix(spec: &TournamentSpec, s: &Settings) -> String {
    let mut h = blake3::Hasher::new();
    let mut field = |text: &str| {
        h.update(&(text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    };
    field(DICE_ALGORITHM);
    field(&spec.seed.to_string());
    for (key, value) in s.pairs() {
        if key != "games" && key != "concurrency" {
            field(key);
            field(&value);
        }
    }
    for bot in &spec.bots {
        field(&bot.name);
        field(&bot.fingerprint);
    }
    format!("forty-1/{}/", &h.finalize().to_hex()[..24])
}

/// The key of block `block` of a tournament of `games` games.
pub fn block_key(prefix: &str, block: u64, games: u64) -> String {
    let range = block_games(block, games);
    format!("{prefix}{:015}-{:015}", range.start, range.end)
}

/// The key of a row holding only what happened to the processes (crashes,
/// disqualifications, CPU time) during a run that stopped with no block
/// left to carry it.
fn extras_key(prefix: &str) -> String {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}~{stamp:039}")
}

/// The stored rows of a tournament that belong to its plan, in key order:
/// `Some(block)` for a block, `None` for a row of process events only.
fn load_blocks(
    store: &Store,
    spec: &TournamentSpec,
    s: &Settings,
    mut each: impl FnMut(Option<u64>, BlockRecord),
) -> Result<()> {
    let prefix = block_prefix(spec, s);
    let extras = format!("{prefix}~");
    store.scan_prefix(&spec.challenge, &prefix, |row| {
        let Ok(record) = serde_json::from_str::<BlockRecord>(&row.record) else {
            return Ok(());
        };
        if record.version != RECORD_VERSION {
            return Ok(());
        }
        if row.game_key.starts_with(&extras) && record.games[0] == record.games[1] {
            each(None, record);
            return Ok(());
        }
        let block = record.games[0] / BLOCK_GAMES;
        if record.games[0] % BLOCK_GAMES == 0 && row.game_key == block_key(&prefix, block, s.games)
        {
            each(Some(block), record);
        }
        Ok(())
    })
}

/// Every stored block of the tournament merged.
fn stored_total(store: &Store, spec: &TournamentSpec, s: &Settings) -> Result<Aggregate> {
    let mut total = Aggregate::new(spec.bots.len());
    load_blocks(store, spec, s, |_, record| total.merge(&record.aggregate))?;
    Ok(total)
}

// ---------------------------------------------------------------------------
// The tournament

struct OpenBlock {
    record: BlockRecord,
    remaining: u64,
}

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
        ..
    } = ctx;
    let (cancel, progress) = (
        session.cancel.clone(),
        std::sync::Arc::clone(&session.progress),
    );
    let s = settings(&spec).map_err(Error::input)?;
    let n = spec.bots.len();
    let blocks = game_forty::block_count(s.games);
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
        .map(|&b| {
            let range = block_games(b, s.games);
            range.end - range.start
        })
        .sum();
    let mut report = RunReport {
        total: usize::try_from(s.games).unwrap_or(usize::MAX),
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
    crate::output::print_stdout(&format!("{}\n", report::preamble(&preamble)))?;
    session.resuming(report.already_done, Some(report.total), "games");
    if already_done >= s.games {
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
    while engine.starting() > 0 {
        if !engine.step(&cancel).await {
            cancelled = true;
            break;
        }
        tell(&progress, &names, &mut engine.notices);
    }

    let mut open: BTreeMap<u64, OpenBlock> = BTreeMap::new();
    let mut carry = std::mem::take(&mut engine.extras);
    let mut held: Vec<BlockRecord> = Vec::new();
    let mut commits: JoinSet<Result<u64>> = JoinSet::new();
    let mut committed_games = already_done;
    let mut shown_percent = u32::MAX;
    let mut next_block = 0u64;
    let mut failure: Option<Error> = None;

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
            if !done.contains(&b) {
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
            open.entry(block).or_insert_with(|| {
                let range = block_games(block, s.games);
                OpenBlock {
                    remaining: range.end - range.start,
                    record: BlockRecord {
                        version: RECORD_VERSION,
                        games: [range.start, range.end],
                        aggregate: Aggregate::new(n),
                        events: Vec::new(),
                    },
                }
            });
            engine.start_game(g, planned.seating, planned.game);
            next_game = advance_game(Some(g), &mut next_block);
        }

        // Finished games into their blocks.
        for finished in engine.finished.drain(..) {
            if let Some(block) = open.get_mut(&block_of(finished.id)) {
                let aggregate = &mut block.record.aggregate;
                let _ = aggregate.record_game(&finished.seating, &finished.game);
                for (&bot, &ns) in finished.seating.iter().zip(&finished.charged) {
                    let r = aggregate.bot_mut(bot);
                    r.charged_ns = r.charged_ns.saturating_add(ns);
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
            match joined {
                Ok(Ok(games)) => {
                    committed_games += games;
                    report.played += usize::try_from(games).unwrap_or(0);
                    show_bar(
                        &progress,
                        committed_games,
                        s.games,
                        already_done,
                        started,
                        &mut shown_percent,
                    );
                }
                Ok(Err(e)) => failure = Some(e),
                Err(e) => failure = Some(Error::machine(format!("a commit task failed: {e}"))),
            }
        }
        if failure.is_some() {
            break;
        }
        if engine.in_flight() == 0 && (next_game.is_none() || report.stopped.is_some()) {
            break;
        }
        if !engine.step(&cancel).await {
            cancelled = true;
        }
    }

    let grace = if cancelled || failure.is_some() {
        Duration::ZERO
    } else {
        EXIT_GRACE
    };
    engine.shutdown(grace).await;
    tell(&progress, &names, &mut engine.notices);
    carry.merge(&engine.extras);
    if !cancelled && failure.is_none() {
        if held.is_empty() && carry != Aggregate::new(n) {
            // Stopped early: the crashes and disqualifications that stopped
            // it are kept even though no block was completed to carry them.
            let record = BlockRecord {
                version: RECORD_VERSION,
                games: [0, 0],
                aggregate: std::mem::take(&mut carry),
                events: Vec::new(),
            };
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
        match joined {
            Ok(Ok(games)) => {
                committed_games += games;
                report.played += usize::try_from(games).unwrap_or(0);
                show_bar(
                    &progress,
                    committed_games,
                    s.games,
                    already_done,
                    started,
                    &mut shown_percent,
                );
            }
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => {
                failure = failure.or(Some(Error::machine(format!("a commit task failed: {e}"))))
            }
        }
    }
    progress.end_bar();
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

fn block_key_for(spec: &TournamentSpec, s: &Settings, block: u64) -> String {
    block_key(&block_prefix(spec, s), block, s.games)
}

/// Hands a block to the writer now (its play time is the lap up to now)
/// and waits for it to be durable in a task of `commits`.
fn spawn_commit(
    commits: &mut JoinSet<Result<u64>>,
    recorder: &Recorder,
    key: &str,
    record: BlockRecord,
) {
    let games = record.games[1] - record.games[0];
    let sent = serde_json::to_string(&record)
        .map_err(|e| Error::machine(format!("cannot encode a block: {e}")))
        .and_then(|json| {
            recorder.send(
                vec![GameRow {
                    game_key: key.to_string(),
                    seed: i64::try_from(record.games[0]).unwrap_or(i64::MAX),
                    record: json,
                }],
                None,
            )
        });
    commits.spawn(async move {
        sent?.wait().await?;
        Ok(games)
    });
}

fn show_bar(
    progress: &crate::progress::Progress,
    committed: u64,
    total: u64,
    at_start: u64,
    started: Instant,
    shown: &mut u32,
) {
    let percent = report::progress_percent(committed, total);
    if percent == *shown {
        return;
    }
    *shown = percent;
    let played = committed.saturating_sub(at_start);
    let left = total.saturating_sub(committed);
    let eta = if played > 0 {
        let per_game = started.elapsed().as_secs_f64() / played as f64;
        format!(" ETA {}", eta_text(per_game * left as f64))
    } else {
        String::new()
    };
    progress.bar(&format!("{}{eta}", report::progress_bar(percent)));
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

// ---------------------------------------------------------------------------
// Standings

/// The leaderboard of a stored forty tournament.
fn standings(
    store: &Store,
    row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let s = settings(spec).map_err(Error::machine)?;
    let total = stored_total(store, spec, &s)?;
    let names = names(spec);
    let input = ReportInput {
        names: &names,
        aggregate: &total,
        wall_seconds: row.play_seconds,
    };
    Ok(match format {
        Format::Text => report::report(&input, None),
        Format::Md => leaderboard(&input).to_markdown(),
        Format::Json => leaderboard(&input).to_json(),
        Format::Csv => leaderboard(&input).to_csv(),
    })
}

/// The shared leaderboard: Win% as the score, the bot table's columns.
pub fn leaderboard(input: &ReportInput<'_>) -> Leaderboard {
    let rows = report::standing_rows(input);
    Leaderboard {
        columns: [
            "wins",
            "played",
            "max",
            "avg",
            "avg_win",
            "throws",
            "success",
            "ci_low",
            "ci_high",
            "time",
            "cpu_time",
            "disqualified",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .into_iter()
            .map(|r| Row {
                rank: r.rank,
                name: r.name,
                score: json!(r.score),
                faults: r
                    .faults
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), *v))
                    .collect(),
                extra: vec![
                    json!(r.wins),
                    json!(r.played),
                    json!(r.max),
                    json!(r.avg),
                    json!(r.avg_win),
                    json!(r.throws),
                    json!(r.success),
                    json!(r.ci_low),
                    json!(r.ci_high),
                    json!(r.time),
                    json!(r.cpu_time),
                    json!(r.disqualified),
                ],
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------
// referee play forty

/// Prints each turn and event of the game as it happens.
struct PrintTranscript {
    names: Vec<String>,
}

impl Observer for PrintTranscript {
    fn turn(&mut self, turn: &TurnRecord<'_>) {
        let name = transcript::seat_name(self.names.get(turn.seat).map(String::as_str), turn.seat);
        print_line(&transcript::turn_line(turn, &name));
    }

    fn event(&mut self, event: &Event) {
        print_line(&transcript::event_line(event));
    }
}

fn print_line(line: &str) {
    let _ = crate::output::print_stdout(&format!("{line}\n"));
}

/// A fresh folder for the logs of one `referee play`.
fn play_log_dir() -> Result<std::path::PathBuf> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dir = base.join(format!(
            "referee-forty-play-{}-{stamp}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::machine(format!(
                    "{}: cannot create the log folder: {e}",
                    dir.display()
                )))
            }
        }
    }
    Err(Error::machine("cannot create a log folder for the bots"))
}

/// `referee play forty BOT...`: game 0 with the bots seated in order, and
/// its transcript on stdout.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<Status> {
    let mut s = Settings::default();
    if let Some(t) = args.timeout_ms {
        s.set("timeout-ms", &t.to_string()).map_err(Error::input)?;
    }
    let dice_list = match &args.dice {
        Some(text) => {
            Some(dice::parse_dice_list(text).map_err(|m| Error::input(format!("--dice: {m}")))?)
        }
        None => None,
    };
    let seed = args.seed.unwrap_or(0);
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}")))?,
    };
    let log_dir = play_log_dir()?;
    let mut programs = Vec::new();
    let mut logs = Vec::new();
    for (seat, cmd) in args.bots.iter().enumerate() {
        let argv = crate::instructions::split_command(cmd)
            .map_err(|m| Error::input(format!("seat {seat}: {m}")))?;
        programs.push(with_env(BotProgram {
            name: format!("seat{seat}"),
            argv,
            cwd: cwd.clone(),
            folder: cwd.clone(),
            confinement: Confinement::minimal(),
            env: Vec::new(),
        }));
        logs.push(BotLog::new(log_dir.join(format!("seat{seat}.log"))));
    }
    let k = programs.len();
    let limits = EngineLimits {
        timeout: Duration::from_millis(s.timeout_ms),
        kill_after: Duration::from_millis(s.kill_ms),
        startup: Duration::from_millis(s.startup_ms),
        max_crashes: s.max_crashes,
        restart: false,
        jobs: crate::tournament::cores(),
        seed,
    };
    let mut engine = Engine::new(
        programs,
        logs,
        vec![0; k],
        vec![0; k],
        limits,
        PrintTranscript { names: Vec::new() },
    );
    let seats: Vec<usize> = (0..k).collect();
    engine.start(&seats);
    let say_crashes = |engine: &mut Engine<PrintTranscript>| {
        for notice in engine.notices.drain(..) {
            let Notice::Crash { bot, reason, .. } = notice;
            eprintln!("referee: seat {bot} crashed: {reason}");
        }
    };
    while engine.starting() > 0 {
        if !engine.step(&cancel).await {
            engine.shutdown(Duration::ZERO).await;
            return Ok(Status::Interrupted);
        }
        say_crashes(&mut engine);
    }
    let names: Vec<String> = (0..k)
        .map(|seat| transcript::seat_name(engine.handshake_name(seat), seat))
        .collect();
    let mut header = transcript::header_lines(0, &names).join("\n");
    header.push('\n');
    crate::output::print_stdout(&header)?;
    engine.observer.names = names;
    let game = play_game(seed, k, dice_list)
        .ok_or_else(|| Error::input("referee play forty needs at least one bot"))?;
    engine.start_game(0, seats, game);
    while engine.in_flight() > 0 {
        if !engine.step(&cancel).await {
            engine.shutdown(Duration::ZERO).await;
            return Ok(Status::Interrupted);
        }
        say_crashes(&mut engine);
    }
    let result = engine
        .finished
        .pop()
        .and_then(|f| f.game.result().cloned())
        .ok_or_else(|| Error::machine("the game did not finish"))?;
    print_line(&transcript::result_line(&result));
    engine.shutdown(EXIT_GRACE).await;
    say_crashes(&mut engine);
    print_line(&format!("bot logs: {}", log_dir.display()));
    Ok(Status::Done)
}
