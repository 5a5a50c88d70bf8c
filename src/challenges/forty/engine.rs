//! The event loop over every bot process of a forty run (a tournament or
//! `referee play`).
//!
//! [`Engine`] keeps the games in flight, queues each process's lines,
//! writes a process's whole queue in one non-blocking write when the
//! process is idle and one of the `--jobs` slots is free (which process
//! gets a slot, and for how long it keeps it, is [`Lanes`]' policy; each
//! slot is a CPU the process is pinned to: see [`CpuLanes`]), pairs replies
//! through a [`Pipeline`] per process, arms one timer for the earliest
//! deadline, and turns everything a process does into decisions: a
//! timeout, an error, a malformed reply, a crash (the process is killed,
//! restarted with a new seed, or disqualified at `max-crashes`). Nothing a
//! bot does becomes an `Err`. Time is charged as [`HostClock`] reckons it
//! (waits for a CPU left out), from each process's own spawn for its
//! handshake and from each batch's service start for its asks. What a
//! read or a timer means is in `replies.rs`.
//!
//! The caller's loop:
//! - [`Engine::new`], [`Engine::start`] the processes, and
//!   [`Engine::step`] while [`Engine::starting`] (the handshakes);
//! - [`Engine::start_game`] with bots from [`Engine::eligible`], up to the
//!   games it wants in flight ([`Engine::in_flight`]);
//! - [`Engine::step`] (false once cancelled), then take what it left in
//!   `finished`, `events`, `extras` and `notices`, and stop if
//!   [`Engine::take_failure`] has the referee's own failure to start a
//!   process (nothing of the games in flight may be recorded then);
//! - at the end, [`Engine::shutdown`].
//!
//! A bot's folder is measured against its quota when a game it sits in
//! ends, at most every [`FOLDER_EVERY`] per bot (a game takes a fraction
//! of a millisecond, a walk a few microseconds); over it, the process is
//! killed as a crash whose cause is the sandbox.

use super::clock::HostClock;
use super::lanes::Lanes;
use crate::bot::cpu_lanes::{self, CpuLanes};
use crate::bot::folder_quota;
use crate::bot::persistent::lines;
use crate::bot::{Batch, BotLog, BotProgram, LineProcess, StartFailure};
use crate::error::Error;
use game_core::Ending;
use game_forty::stats::nanos;
use game_forty::{
    bot_seed, wire, Aggregate, Decision, Failure, FailureEvent, Game, Next, Observer, Pipeline,
    PipelineEvent, TimeTally, END_SCORE,
};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Timers fire this much after a deadline, so that a reply read just
/// before it (but not yet handed over by its reader task) still counts.
const TIMER_SLACK: Duration = Duration::from_millis(2);

/// Batches of replies buffered between the readers and the event loop.
const SINK_QUEUE: usize = 1024;

/// The least time between two measurements of one bot's folder.
pub const FOLDER_EVERY: Duration = Duration::from_millis(100);

/// Where a bot's process stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Spawned at this instant and sent the handshake; its reply is due
    /// within `startup-ms` of charged time.
    Starting(Instant),
    /// Handshaken: its asks may be written.
    Ready,
    /// No process any more: disqualified, or (in `play`) not restarted.
    Gone,
}

/// One bot and its current process.
pub(super) struct Proc {
    program: BotProgram,
    log: BotLog,
    pub(super) state: State,
    /// Increases with every crash; a game's seat remembers the incarnation
    /// that heard its `new`, and only that one is ever asked.
    pub(super) incarnation: u32,
    /// Crashes so far (stored ones included): what `max-crashes` counts.
    crashes: u32,
    pub(super) process: Option<LineProcess>,
    /// Its host's figures, for charged time.
    pub(super) clock: HostClock,
    pub(super) pipeline: Pipeline<usize>,
    /// Lines waiting for the next batch.
    queue: Vec<u8>,
    /// The asks in `queue`, in order: game slot, game id, and what is left
    /// of the turn's budget (fixed while an ask waits: nothing is charged
    /// to a game between its ask and the reply).
    queued: Vec<(usize, u64, Duration)>,
    /// The CPU its process was last pinned to.
    pinned: Option<usize>,
    /// The name from `ok NAME`.
    pub(super) handshake_name: Option<String>,
    /// When its folder was last measured.
    measured: Option<Instant>,
}

/// A game in flight.
struct Live {
    id: u64,
    /// The bot at each seat.
    seating: Vec<usize>,
    /// The incarnation of each seat's process that heard `new`.
    heard: Vec<u32>,
    /// Decision time per seat.
    time: Vec<TimeTally>,
    game: Game,
}

/// A finished game, handed to the caller.
pub struct Finished {
    pub id: u64,
    pub seating: Vec<usize>,
    /// Decision time per seat.
    pub time: Vec<TimeTally>,
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

/// `referee play --trace`: sees each write to bot `usize`'s process and
/// each read of its stdout, as they happen.
pub type Tracer = Box<dyn FnMut(usize, Traffic<'_>) + Send>;

/// What a [`Tracer`] sees.
pub enum Traffic<'a> {
    /// The bytes of one write.
    Sent(&'a [u8]),
    /// One read of the process's stdout.
    Read(&'a Batch),
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
    pub(super) procs: Vec<Proc>,
    games: Vec<Option<Live>>,
    free: Vec<usize>,
    in_flight: usize,
    sink: mpsc::Sender<Batch>,
    incoming: mpsc::Receiver<Batch>,
    reaped_tx: mpsc::UnboundedSender<(usize, Duration)>,
    reaped_rx: mpsc::UnboundedReceiver<(usize, Duration)>,
    reapers: usize,
    /// The `--jobs` slots, each on its own CPU, and who holds them.
    pub(super) lanes: Lanes,
    /// What the lines of one batch meant (with each line's index), kept
    /// between its two passes (reused, so a batch allocates nothing here).
    pub(super) paired: Vec<(usize, PipelineEvent<usize>)>,
    pub(super) limits: EngineLimits,
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
    /// Bots whose games ended since their folders were last looked at.
    to_measure: Vec<usize>,
    /// The referee could not start a process: the run must stop.
    failure: Option<Error>,
    /// Set by `referee play --trace` only.
    pub trace: Option<Tracer>,
}

/// What woke the loop.
enum Wake {
    Cancelled,
    Batch(Option<Batch>),
    Reaped(Option<(usize, Duration)>),
    Timer,
}

fn tag(bot: usize, incarnation: u32) -> u64 {
    ((bot as u64) << 32) | u64::from(incarnation)
}

pub(super) fn untag(tag: u64) -> (usize, u32) {
    ((tag >> 32) as usize, (tag & 0xffff_ffff) as u32)
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
                clock: HostClock::default(),
                pipeline: Pipeline::new(limits.kill_after),
                queue: Vec::with_capacity(4096),
                queued: Vec::new(),
                pinned: None,
                handshake_name: None,
                measured: None,
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
            lanes: Lanes::new(CpuLanes::new(limits.jobs), n),
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
            to_measure: Vec::new(),
            failure: None,
            trace: None,
        }
    }

    /// The referee's own failure to start a process (out of descriptors,
    /// memory or processes), once: the caller must stop without recording
    /// the games in flight.
    pub fn take_failure(&mut self) -> Option<Error> {
        self.failure.take()
    }

    /// Starts the processes of these bots and sends their handshakes. Each
    /// one's `startup-ms` runs from its own spawn.
    pub fn start(&mut self, bots: &[usize]) {
        for &bot in bots {
            if bot < self.procs.len() {
                self.spawn(bot);
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

    fn spawn(&mut self, bot: usize) {
        loop {
            let p = &mut self.procs[bot];
            let seed = bot_seed(self.limits.seed, &p.program.name, p.crashes);
            let spawned = Instant::now();
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
                    if let Some(trace) = self.trace.as_mut() {
                        trace(bot, Traffic::Sent(&hello));
                    }
                    process.send(hello);
                    p.clock = HostClock::open(process.pid());
                    p.process = Some(process);
                    p.pinned = None;
                    p.state = State::Starting(spawned);
                    p.handshake_name = None;
                    return;
                }
                Err(StartFailure::Bot { ending, note }) => {
                    // The crash's line in its log says why.
                    if ending == Ending::Sandbox {
                        self.extras.bot_mut(bot).failures.sandbox += 1;
                    }
                    let reason = note.strip_prefix("referee: ").unwrap_or(&note).to_string();
                    if !self.count_crash(bot, &reason) {
                        return;
                    }
                }
                Err(StartFailure::Machine(e)) => {
                    p.state = State::Gone;
                    self.failure.get_or_insert(e);
                    return;
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
            .section("referee", format!("crash: {reason}; {what}\n").as_bytes());
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
            time: vec![TimeTally::default(); seating.len()],
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
                    self.lanes.asked(bot);
                    return;
                }
                Next::Over => {
                    for (seat, &bot) in live.seating.iter().enumerate() {
                        let p = &mut self.procs[bot];
                        if p.state != State::Gone && p.incarnation == live.heard[seat] {
                            wire::write_end(&mut p.queue, live.id);
                            if p.program.quota.is_some() && !self.to_measure.contains(&bot) {
                                self.to_measure.push(bot);
                            }
                        }
                    }
                    if let Some(live) = self.games[slot].take() {
                        self.finished.push(Finished {
                            id: live.id,
                            seating: live.seating,
                            time: live.time,
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
    /// the game id and the seat asking), charged `charged` (and reported as
    /// `reported` by the bot), and drives it on.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decide(
        &mut self,
        bot: usize,
        slot: usize,
        id: u64,
        decision: Decision,
        charged: Duration,
        reported: Option<Duration>,
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
        live.time[seat].add(charged, reported);
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
    pub(super) fn dispatch(&mut self) {
        while self.lanes.free() {
            let procs = &self.procs;
            let ready = |b: usize| procs[b].state == State::Ready && procs[b].pipeline.is_idle();
            let Some(bot) = self.lanes.next(ready) else {
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
        // The pipeline was idle: its service starts with this write.
        p.clock.mark();
        // Pinned before the write wakes it, so that it wakes where the
        // slot is (see `cpu_lanes`).
        let taken = self.lanes.sent(bot, !p.pipeline.is_idle());
        let cpu = taken.and_then(|lane| self.lanes.cpu(lane));
        if let (Some(cpu), Some(process)) = (cpu, &p.process) {
            if p.pinned != Some(cpu) {
                cpu_lanes::pin(process.pid(), cpu);
                p.pinned = Some(cpu);
            }
        }
        if let Some(process) = &p.process {
            if let Some(trace) = self.trace.as_mut() {
                trace(bot, Traffic::Sent(&batch));
            }
            process.send(batch);
        }
    }

    /// After `bot`'s replies were played on: if they left enough asks for
    /// it (turns going on), they go out at once on the same lane, while its
    /// games are still in its CPU's caches; otherwise the lane is free.
    pub(super) fn continue_or_release(&mut self, bot: usize) {
        let p = &self.procs[bot];
        if !self.lanes.holds(bot) || !p.pipeline.is_idle() {
            return;
        }
        // The streak's cap was checked when the lane was kept.
        if p.state == State::Ready && self.lanes.go_on(bot, p.queued.len()) {
            self.send_queue(bot);
        } else {
            self.release_if_idle(bot);
            self.dispatch();
        }
    }

    pub(super) fn release_if_idle(&mut self, bot: usize) {
        if self.procs[bot].pipeline.is_idle() {
            self.lanes.release(bot);
        }
    }

    /// The process of `bot` failed: it is killed, its outstanding asks
    /// crash, its queued asks are lost, and it restarts or is gone.
    pub(super) fn crash(&mut self, bot: usize, reason: &str, now: Instant) {
        // Killed by its folder watch (see `LineProcess::over_quota`): a
        // sandbox failure, whatever the engine saw of it first.
        let over = self.procs[bot]
            .process
            .as_ref()
            .and_then(|p| p.over_quota())
            .filter(|_| !reason.starts_with("sandbox: "))
            .map(|what| format!("sandbox: {what} (the referee deletes nothing)"));
        if over.is_some() {
            self.extras.bot_mut(bot).failures.sandbox += 1;
        }
        let reason = over.as_deref().unwrap_or(reason);
        self.lanes.crashed(bot);
        let p = &mut self.procs[bot];
        let charged = p
            .pipeline
            .service_start()
            .map_or(Duration::ZERO, |start| p.clock.charged(start, now));
        let failed = p.pipeline.fail(charged);
        let queued = std::mem::take(&mut p.queued);
        p.queue.clear();
        if let Some(mut process) = p.process.take() {
            let tx = self.reaped_tx.clone();
            self.reapers += 1;
            tokio::spawn(async move {
                let cpu = process.kill().await.map_or(Duration::ZERO, |r| r.cpu);
                let _ = tx.send((bot, cpu));
            });
        }
        let record = self.extras.bot_mut(bot);
        record.charged_ns = record.charged_ns.saturating_add(nanos(failed.charged));
        if self.count_crash(bot, reason) {
            self.spawn(bot);
        }
        for (slot, id) in failed.crashed {
            self.decide(
                bot,
                slot,
                id,
                Decision::Failed(Failure::Crash),
                Duration::ZERO,
                None,
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
                None,
                || format!("not yet asked when the process failed ({reason})"),
            );
        }
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
        self.measure_folders();
        true
    }

    /// Measures the folders of the bots whose games ended (each at most
    /// every [`FOLDER_EVERY`]); a process whose folder is over its quota is
    /// killed as a crash the sandbox caused.
    fn measure_folders(&mut self) {
        let now = Instant::now();
        for bot in std::mem::take(&mut self.to_measure) {
            let p = &mut self.procs[bot];
            let Some(quota) = p.program.quota else {
                continue;
            };
            if p.state != State::Ready
                || p.measured
                    .is_some_and(|at| now.duration_since(at) < FOLDER_EVERY)
            {
                continue;
            }
            p.measured = Some(now);
            let Some(what) = folder_quota::measure(&p.program.folder, &quota).over(&quota) else {
                continue;
            };
            self.extras.bot_mut(bot).failures.sandbox += 1;
            self.crash(
                bot,
                &format!("sandbox: {what} (the referee deletes nothing)"),
                now,
            );
        }
    }

    fn add_cpu(&mut self, bot: usize, cpu: Duration) {
        let record = self.extras.bot_mut(bot);
        record.cpu_ns = record.cpu_ns.saturating_add(nanos(cpu));
    }

    /// The end of the run: queued `end` lines are written, then EOF; each
    /// process gets `grace` to exit before its group is killed. CPU times
    /// land in `extras`.
    pub async fn shutdown(&mut self, grace: Duration) {
        let mut exits = JoinSet::new();
        for (bot, p) in self.procs.iter_mut().enumerate() {
            if let Some(process) = p.process.take() {
                if !p.queue.is_empty() {
                    let queue = std::mem::take(&mut p.queue);
                    if let Some(trace) = self.trace.as_mut() {
                        trace(bot, Traffic::Sent(&queue));
                    }
                    process.send(queue);
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
            self.lanes.release(bot);
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
