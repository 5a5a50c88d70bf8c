//! gun-duel joined to both transports and to its last-player-standing
//! tournament.
//!
//! - Interface 1 (`exit-code`) bots run once per turn through
//!   [`run_once_with`]; stdout is only logged.
//! - Interface 2 (`io`) bots are one [`LineProcess`] each for the whole
//!   tournament, framed by the crate's [`frame_move`]; a bot that times out
//!   or closes stdout is dead for good.
//! - Rounds depend on eliminations, so this module drives its own round
//!   loop over the crate's [`Round`] dispatcher instead of the generic
//!   planner: each duel is handed to the results writer under a key naming
//!   the tournament and the duel, a resume records what is stored and plays
//!   the rest, and nothing is reported before its commit is durable.

pub mod check;
pub mod play;

pub use check::CheckArgs;
pub use play::{InterfaceArg, PlayArgs};

use crate::bot::persistent::{Frame, Framing};
use crate::bot::{run_once_with, BotLog, BotProgram, Incoming, Limits, LineProcess, OnOverflow};
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, RunContext, SeedDefault,
};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{GameRow, Store, TournamentRow};
use crate::session::{Recorder, Session};
use crate::standings::{Format, Leaderboard, Row};
use crate::status::Status;
use crate::tournament::{RunReport, TournamentSpec};
use game_core::{game_seed, Ending, FaultCounts, LineReply};
use game_gun_duel::{
    final_table, frame_move, kills_bot, ranking, read_exit_reply, read_line_reply, result_line,
    round_board, standings_csv, turn_line, Answer, BotRecord, DuelDriver, DuelId, DuelResult,
    Epilogue, Interface, Request, Round, Seat, Settings, Side, Tournament, TurnReport,
    END_GRACE_MS, STARTUP_GRACE_MS,
};
use referee_sandbox::Confinement;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Interface 1: stdout kept per call for the log (the rest is discarded,
/// never a fault: stdout is not the answer).
const STDOUT_LOG_CAP: usize = 16 * 1024;
/// Interface 1: stderr kept per call for the log.
const STDERR_LOG_CAP: usize = 16 * 1024;
/// At most one progress line per this interval while a round is played.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The gun-duel challenge.
pub struct GunDuel;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::GunDuel,
    name: "gun-duel",
    bot_kind: BotKind::Process,
    // A duel asks both bots at once.
    bots_thinking_per_game: 2,
    seed: SeedDefault::Zero,
    settings: game_gun_duel::SETTINGS,
};

impl Challenge for GunDuel {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        Settings::default().apply(key, value)
    }

    fn check_interface(&self, value: &str) -> std::result::Result<(), String> {
        Interface::parse(value).map(|_| ())
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

/// The settings and each bot's interface (bot.toml beats the header,
/// which beats the default).
pub fn resolve(spec: &TournamentSpec) -> std::result::Result<(Settings, Vec<Interface>), String> {
    let settings =
        Settings::from_pairs(spec.settings.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    let interfaces = spec
        .bots
        .iter()
        .map(|b| match &b.interface {
            Some(i) => Interface::parse(i).map_err(|m| format!("bot {}: {m}", b.name)),
            None => Ok(settings.interface),
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    Ok((settings, interfaces))
}

/// Every duel key of a tournament starts with this: the tournament's
/// identity (challenge, seed, settings, the field with its interfaces), on
/// which ids, schedule and eliminations all depend.
pub fn key_prefix(spec: &TournamentSpec) -> String {
    format!("{}/", spec.identity())
}

/// A duel's key: the tournament, then the duel's identity (round, pass, A, B).
pub fn duel_key(prefix: &str, id: &DuelId) -> String {
    format!("{prefix}r{}/p{}/{}-{}", id.round, id.pass, id.a, id.b)
}

/// What is stored per duel.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredDuel {
    pub duel: DuelId,
    /// Names of A and B.
    pub names: [String; 2],
    #[serde(flatten)]
    pub result: DuelResult,
    /// CPU seconds of A's and B's interface-1 runs in this duel (an
    /// interface-2 process's CPU time is in its log at the end).
    #[serde(default)]
    pub cpu_seconds: [f64; 2],
}

/// The stored duels of a tournament by key.
fn load(store: &Store, spec: &TournamentSpec) -> Result<HashMap<String, StoredDuel>> {
    let prefix = key_prefix(spec);
    let mut found = HashMap::new();
    for row in store.games_with_prefix(&spec.challenge, &prefix)? {
        match serde_json::from_str::<StoredDuel>(&row.record) {
            Ok(d) => {
                found.insert(row.game_key, d);
            }
            // An unreadable record is played again rather than trusted.
            Err(e) => tracing::warn!("ignoring unreadable duel record {}: {e}", row.game_key),
        }
    }
    Ok(found)
}

/// Records the stored duels of `round`; returns how many there were and
/// adds their faults.
fn record_stored(
    round: &mut Round,
    stored: &HashMap<String, StoredDuel>,
    prefix: &str,
    faults: &mut [FaultCounts],
) -> Result<usize> {
    let mut recorded = 0;
    for k in 0..round.duels().len() {
        let id = round.duels()[k];
        if let Some(s) = stored.get(&duel_key(prefix, &id)) {
            round.record(k, s.result.outcome).map_err(Error::machine)?;
            add_faults(faults, &id, &s.result);
            recorded += 1;
        }
    }
    Ok(recorded)
}

fn add_faults(faults: &mut [FaultCounts], id: &DuelId, result: &DuelResult) {
    if let Some(f) = faults.get_mut(id.a) {
        f.merge(&result.faults[0]);
    }
    if let Some(f) = faults.get_mut(id.b) {
        f.merge(&result.faults[1]);
    }
}

/// The tournament as far as the stored duels take it: every complete
/// round is scored and eliminated; a partial round is left out (its
/// faults still count).
fn replay(
    spec: &TournamentSpec,
    settings: &Settings,
    stored: &HashMap<String, StoredDuel>,
) -> Result<(Tournament, Vec<FaultCounts>)> {
    let prefix = key_prefix(spec);
    let mut t = Tournament::new(spec.bots.len(), settings.duels_per_pair, spec.seed);
    let mut faults = vec![FaultCounts::default(); spec.bots.len()];
    while let Some(mut round) = t.start_round() {
        record_stored(&mut round, stored, &prefix, &mut faults)?;
        if !round.is_complete() {
            break;
        }
        t.finish_round(round).map_err(Error::machine)?;
    }
    Ok((t, faults))
}

fn names_and_languages(spec: &TournamentSpec) -> (Vec<&str>, Vec<&str>) {
    (
        spec.bots.iter().map(|b| b.name.as_str()).collect(),
        spec.bots
            .iter()
            .map(|b| b.language.as_deref().unwrap_or("-"))
            .collect(),
    )
}

/// The shared leaderboard (json): `score` is the total, plus `language`,
/// `rounds_survived` and `round_points`.
fn leaderboard(records: &[BotRecord], faults: &[FaultCounts]) -> Leaderboard {
    Leaderboard {
        columns: ["language", "rounds_survived", "round_points"]
            .map(String::from)
            .to_vec(),
        rows: ranking(records)
            .into_iter()
            .map(|(rank, i)| {
                let r = &records[i];
                Row {
                    rank,
                    name: r.name.clone(),
                    score: json!(r.total),
                    faults: faults
                        .get(i)
                        .map(|f| {
                            f.0.iter()
                                .map(|(k, v)| (k.name().to_string(), *v))
                                .collect()
                        })
                        .unwrap_or_default(),
                    extra: vec![
                        json!(r.language),
                        json!(r.rounds_survived),
                        json!(r.history),
                    ],
                }
            })
            .collect(),
    }
}

/// The leaderboard of a stored gun-duel tournament.
fn standings(
    store: &Store,
    _row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let (settings, _) = resolve(spec).map_err(Error::machine)?;
    let stored = load(store, spec)?;
    let (t, faults) = replay(spec, &settings, &stored)?;
    let (names, languages) = names_and_languages(spec);
    let records = t.records(&names, &languages);
    Ok(match format {
        Format::Text | Format::Md => final_table(&records),
        Format::Json => leaderboard(&records, &faults).to_json(),
        Format::Csv => standings_csv(&records),
    })
}

/// The transport's framing for interface 2: the next non-whitespace byte.
pub(super) fn move_framing() -> Framing {
    Arc::new(|buf: &[u8]| match frame_move(buf) {
        game_gun_duel::Frame::Move { consumed } => Frame::Message {
            start: consumed.saturating_sub(1),
            end: consumed,
            consumed,
        },
        game_gun_duel::Frame::Incomplete => Frame::Incomplete,
        game_gun_duel::Frame::TooMuchWhitespace { consumed } => Frame::Overflow {
            consumed,
            resync_at: None,
        },
    })
}

/// An interface-2 bot's process over the tournament.
pub(super) enum Process {
    /// Not started yet.
    Idle,
    Running {
        process: LineProcess,
        /// Whether it has been sent an `F` (the first gets the start-up grace).
        asked: bool,
    },
    /// Could not be started: its first move is a crash, then it is dead.
    Unstartable,
    /// Timed out, exited or closed stdout: every later move is no action.
    Dead,
}

/// One bot as the duels see it.
pub(super) struct Bot {
    program: BotProgram,
    log: BotLog,
    interface: Interface,
    pub(super) process: Process,
    /// Bytes for the bot's next write: the last `P` of a duel travels with
    /// the next `I` and `F`.
    pub(super) pending: Vec<u8>,
    /// CPU time of the interface-1 runs of the current duel.
    cpu: Duration,
}

impl Bot {
    pub(super) fn new(program: BotProgram, log: BotLog, interface: Interface) -> Bot {
        Bot {
            program,
            log,
            interface,
            process: Process::Idle,
            pending: Vec::new(),
            cpu: Duration::ZERO,
        }
    }

    /// Starts an interface-2 bot's process (once).
    pub(super) fn start(&mut self) {
        if self.interface != Interface::Io || !matches!(self.process, Process::Idle) {
            return;
        }
        self.process =
            match LineProcess::spawn(&self.program, &[], move_framing(), self.log.clone()) {
                Ok(process) => Process::Running {
                    process,
                    asked: false,
                },
                Err(e) => {
                    let cmd = self.program.argv.first().map_or("", String::as_str);
                    self.log.section(
                        "referee",
                        format!("cannot start `{cmd}`: {e}; every move is no action").as_bytes(),
                    );
                    Process::Unstartable
                }
            };
    }

    /// Performs one request; `None` if the referee was cancelled meanwhile.
    async fn ask(
        &mut self,
        request: Request,
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) -> Option<Answer> {
        match request {
            Request::Run { args } => {
                let out = self.run(&args, timeout, label, cancel).await;
                read_exit_reply(&out)
            }
            Request::Ask { bytes } => self.ask_process(bytes, timeout, cancel).await,
        }
    }

    /// Interface 1: one process with `args` appended; output only logged.
    async fn run(
        &mut self,
        args: &[String],
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) -> game_core::Reply {
        let limits = Limits {
            deadline: timeout,
            stdout_cap: STDOUT_LOG_CAP,
            stderr_cap: STDERR_LOG_CAP,
        };
        let out = run_once_with(&self.program, args, &limits, OnOverflow::Discard, cancel).await;
        self.cpu += out.cpu;
        if !out.reply.stdout.is_empty() {
            self.log.section(
                &format!("{label}: {} stdout", args.join(" ")),
                &out.reply.stdout,
            );
        }
        if !out.stderr.is_empty() {
            self.log
                .section(&format!("{label}: {}", args.join(" ")), &out.stderr);
        }
        out.reply
    }

    /// Interface 2: write the request, read one move.
    async fn ask_process(
        &mut self,
        bytes: Vec<u8>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Option<Answer> {
        Some(match self.ask_line(bytes, timeout, cancel).await? {
            Some(reply) => read_line_reply(&reply),
            None => Answer::DEAD,
        })
    }

    /// Interface 2: writes what is pending and `bytes`, reads one move
    /// within `timeout` (plus the start-up grace on the first `F`). A bot
    /// that times out or closes stdout is killed and dead from then on.
    /// `Some(None)` for a bot already dead (nothing is written); `None` if
    /// the referee was cancelled meanwhile.
    pub(super) async fn ask_line(
        &mut self,
        bytes: Vec<u8>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Option<Option<LineReply>> {
        if matches!(self.process, Process::Idle) {
            self.start();
        }
        let reply = match &mut self.process {
            Process::Dead => {
                // Its messages are dropped; its opponent is told `P?`.
                self.pending.clear();
                return Some(None);
            }
            Process::Idle | Process::Unstartable => LineReply::Closed,
            Process::Running { process, asked } => {
                let mut write = std::mem::take(&mut self.pending);
                write.extend_from_slice(&bytes);
                let mut limit = timeout;
                if !*asked {
                    limit += Duration::from_millis(STARTUP_GRACE_MS);
                    *asked = true;
                }
                let deadline = Instant::now() + limit;
                process.send(write);
                let incoming = tokio::select! {
                    biased;
                    () = cancel.cancelled() => return None,
                    got = process.next_before(deadline) => got,
                };
                let reply = match incoming {
                    None => LineReply::TimedOut,
                    Some(Incoming::Message(m, _)) => LineReply::Message(m),
                    Some(Incoming::TooLong(_)) => LineReply::TooLong,
                    Some(Incoming::Closed) => LineReply::Closed,
                };
                // A move read from a bot that stopped reading its stdin (the
                // write still blocked at the deadline) does not count.
                if matches!(reply, LineReply::Message(_) | LineReply::TooLong)
                    && !process.flushed_before(deadline).await
                {
                    LineReply::TimedOut
                } else {
                    reply
                }
            }
        };
        if kills_bot(&reply) {
            self.die(&reply, timeout).await;
        }
        Some(Some(reply))
    }

    /// The bot is dead for the rest of the tournament: its group is killed.
    async fn die(&mut self, why: &LineReply, timeout: Duration) {
        let process = std::mem::replace(&mut self.process, Process::Dead);
        self.pending.clear();
        let reason = match why {
            LineReply::TimedOut => format!(
                "no move within {} ms (or its stdin stayed full): killed, dead for the rest of the tournament",
                timeout.as_millis()
            ),
            _ => "stdout closed: dead for the rest of the tournament".to_string(),
        };
        let exit = match process {
            Process::Running { mut process, .. } => process
                .kill()
                .await
                .map(|r| format!(" (process ended: {:?})", r.exit))
                .unwrap_or_default(),
            _ => String::new(),
        };
        self.log
            .section("referee", format!("{reason}{exit}").as_bytes());
    }

    /// What the bot is owed once a duel is decided.
    pub(super) async fn epilogue(
        &mut self,
        epilogue: Epilogue,
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) {
        match epilogue {
            Epilogue::Run { args } => {
                let reply = self.run(&args, timeout, label, cancel).await;
                if reply.ending == Ending::TimedOut {
                    self.log.section(
                        label,
                        format!(
                            "final call ({}) still running after {} ms: killed (costs nothing)",
                            args.join(" "),
                            timeout.as_millis()
                        )
                        .as_bytes(),
                    );
                }
            }
            Epilogue::Tell { bytes } => {
                if matches!(self.process, Process::Running { .. }) {
                    self.pending.extend_from_slice(&bytes);
                }
            }
        }
    }

    /// Sends what is pending now.
    fn flush(&mut self) {
        if let Process::Running { process, .. } = &self.process {
            if !self.pending.is_empty() {
                process.send(std::mem::take(&mut self.pending));
            }
        }
    }

    /// End of the tournament: pending bytes, EOF, the grace, then the kill.
    async fn shutdown(mut self) {
        self.flush();
        if let Process::Running { process, .. } = self.process {
            process.shutdown(Duration::from_millis(END_GRACE_MS)).await;
        }
    }
}

/// Plays one duel. `observe` sees every turn. `None` if cancelled: the duel
/// must not be recorded. The CPU time of the duel's interface-1 runs is
/// left in each bot's `cpu`.
async fn play_duel(
    turns: u32,
    seats: [Seat; 2],
    bots: [&mut Bot; 2],
    timeout: Duration,
    labels: [&str; 2],
    cancel: &CancellationToken,
    mut observe: impl FnMut(&TurnReport),
) -> Option<DuelResult> {
    let mut driver = DuelDriver::new(turns, seats);
    let [a, b] = bots;
    a.cpu = Duration::ZERO;
    b.cpu = Duration::ZERO;
    while let Some([ra, rb]) = driver.requests() {
        if cancel.is_cancelled() {
            return None;
        }
        // Both at once: neither learns the other's move first.
        let (xa, xb) = tokio::join!(
            a.ask(ra, timeout, labels[0], cancel),
            b.ask(rb, timeout, labels[1], cancel)
        );
        let report = driver.submit([xa?, xb?])?;
        observe(&report);
    }
    let [ea, eb] = driver.epilogue()?;
    tokio::join!(
        a.epilogue(ea, timeout, labels[0], cancel),
        b.epilogue(eb, timeout, labels[1], cancel)
    );
    driver.result()
}

/// Progress lines while a round is played, at most one per interval.
struct RoundProgress<'a> {
    progress: &'a Progress,
    round: u32,
    total: usize,
    done: usize,
    last: Instant,
}

impl RoundProgress<'_> {
    fn committed(&mut self) {
        self.done += 1;
        if self.done == self.total || self.last.elapsed() >= PROGRESS_EVERY {
            self.last = Instant::now();
            self.progress.say(&format!(
                "[round {}: {}/{} duels]",
                self.round, self.done, self.total
            ));
        }
    }
}

/// Everything the round loop shares.
struct Field {
    spec: TournamentSpec,
    settings: Settings,
    interfaces: Vec<Interface>,
    prefix: String,
    ids: Vec<u32>,
    /// `None` while the bot is lent to a running duel.
    bots: Vec<Option<Bot>>,
    faults: Vec<FaultCounts>,
}

impl Field {
    fn seats(&self, id: &DuelId) -> [Seat; 2] {
        [
            Seat {
                interface: self.interfaces[id.a],
                opponent_id: self.ids[id.b],
            },
            Seat {
                interface: self.interfaces[id.b],
                opponent_id: self.ids[id.a],
            },
        ]
    }

    fn take(&mut self, i: usize) -> Result<Bot> {
        self.bots
            .get_mut(i)
            .and_then(Option::take)
            .ok_or_else(|| Error::machine(format!("bot {i} is already in a duel")))
    }
}

/// Runs (or resumes) a gun-duel tournament.
///
/// With interface-2 bots in the field the tournament runs on its own
/// thread with a single-threaded runtime: a turn is a few microseconds of
/// referee work between two bots' answers, and keeping all of it on one
/// thread saves the cross-thread wake-ups that otherwise cost more than the
/// work (about 40% of a turn's wall time on a busy 2-core machine). The
/// bots still run in parallel: they are processes. The thread lives until
/// every bot is shut down, so their parent-death signal fires only if the
/// referee dies. A field of interface-1 bots only stays on the shared
/// runtime, where the two runs of a turn can be started by two threads at
/// once (starting a process blocks its thread for a while).
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let (_, interfaces) = resolve(&ctx.spec).map_err(Error::input)?;
    if !interfaces.contains(&Interface::Io) {
        return run_here(session, ctx).await;
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("gun-duel".into())
        .spawn(move || {
            let r = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| Error::machine(format!("cannot start the async runtime: {e}")))
                .and_then(|rt| rt.block_on(run_here(session, ctx)));
            let _ = tx.send(r);
        })
        .map_err(|e| Error::machine(format!("cannot start a thread: {e}")))?;
    rx.await
        .map_err(|_| Error::machine("the tournament thread stopped"))?
}

async fn run_here(session: Session, ctx: RunContext) -> Result<RunReport> {
    let RunContext {
        spec,
        programs,
        logs,
        jobs,
        ..
    } = ctx;
    let (settings, interfaces) = resolve(&spec).map_err(Error::input)?;
    let stored = load(&session.store(), &spec)?;
    let t = Tournament::new(spec.bots.len(), settings.duels_per_pair, spec.seed);
    let bots = programs
        .into_iter()
        .zip(logs)
        .zip(&interfaces)
        .map(|((p, l), &i)| Some(Bot::new(p, l, i)))
        .collect();
    let mut field = Field {
        prefix: key_prefix(&spec),
        ids: t.ids().to_vec(),
        faults: vec![FaultCounts::default(); spec.bots.len()],
        spec,
        settings,
        interfaces,
        bots,
    };
    let recorder = session.recorder();
    let report = tournament(t, &mut field, &stored, &recorder, jobs, &session).await;
    drop(recorder);
    // The last stretch of play time ends before the bots are shut down.
    let finished = match &report {
        Ok(r) => session.finish(r.played > 0, r.interrupted).await,
        Err(_) => Ok(()),
    };
    // Every live bot: EOF, the grace, then its group is killed.
    let mut ends = JoinSet::new();
    for bot in field.bots.drain(..).flatten() {
        ends.spawn(bot.shutdown());
    }
    while ends.join_next().await.is_some() {}
    let report = report?;
    finished?;
    Ok(report)
}

async fn tournament(
    mut t: Tournament,
    field: &mut Field,
    stored: &HashMap<String, StoredDuel>,
    recorder: &Recorder,
    jobs: usize,
    session: &Session,
) -> Result<RunReport> {
    let (cancel, progress) = (&session.cancel, &*session.progress);
    let mut report = RunReport {
        already_done: stored.len(),
        ..RunReport::default()
    };
    // Rounds depend on eliminations: the total is not known yet.
    session.resuming(stored.len(), None, "duels");
    let started = Instant::now();
    let mut processes_started = false;
    let (names, languages) = names_and_languages(&field.spec);
    let names: Vec<String> = names.into_iter().map(String::from).collect();
    let languages: Vec<String> = languages.into_iter().map(String::from).collect();
    while let Some(mut round) = t.start_round() {
        report.total += round.duels().len();
        let recorded = record_stored(&mut round, stored, &field.prefix, &mut field.faults)?;
        if !round.is_complete() {
            if cancel.is_cancelled() {
                report.interrupted = true;
                break;
            }
            if !processes_started {
                // Interface-2 bots start once, when play begins, and run
                // until the end of the tournament.
                for &i in &t.live() {
                    if let Some(bot) = field.bots.get_mut(i).and_then(Option::as_mut) {
                        bot.start();
                    }
                }
                processes_started = true;
            }
            progress.say(&format!(
                "round {}: {} bots alive, {} duels{}",
                round.number(),
                t.live().len(),
                round.duels().len(),
                if recorded > 0 {
                    format!(" ({recorded} already played)")
                } else {
                    String::new()
                }
            ));
            let mut shown = RoundProgress {
                progress,
                round: round.number(),
                total: round.duels().len() - recorded,
                done: 0,
                last: Instant::now(),
            };
            play_round(
                &mut round,
                field,
                recorder,
                jobs,
                cancel,
                &mut report,
                &mut shown,
            )
            .await?;
            if !round.is_complete() {
                report.interrupted = true;
                break;
            }
        }
        let elimination = t.finish_round(round).map_err(Error::machine)?;
        for bot in field.bots.iter_mut().flatten() {
            bot.flush();
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let language_refs: Vec<&str> = languages.iter().map(String::as_str).collect();
        crate::output::print_stdout(&round_board(&t.records(&name_refs, &language_refs)))?;
        let leavers: Vec<&str> = elimination
            .leavers
            .iter()
            .filter_map(|&i| names.get(i).map(String::as_str))
            .collect();
        if elimination.joint_winners {
            let winners: Vec<&str> = t
                .winners()
                .iter()
                .filter_map(|&i| names.get(i).map(String::as_str))
                .collect();
            progress.say(&format!(
                "round {}: nobody leaves; joint winners: {}",
                elimination.round,
                winners.join(", ")
            ));
        } else if !leavers.is_empty() {
            progress.say(&format!(
                "round {}: {} {}",
                elimination.round,
                leavers.join(", "),
                if leavers.len() == 1 {
                    "leaves"
                } else {
                    "leave"
                }
            ));
        }
    }
    progress.say(&format!(
        "{} duels played, {} from the results database, in {:.1} s",
        report.played,
        report.already_done,
        started.elapsed().as_secs_f64()
    ));
    Ok(report)
}

/// A duel task's end: its position, its result and CPU seconds (`None` if
/// cancelled), and the two bots handed back.
type Finished = (usize, Option<(DuelResult, [f64; 2])>, Bot, Bot);

/// Plays what is missing of `round`, at most `jobs` duels at once, each
/// bot's duels in schedule order. Returns when the round is complete, or
/// once cancelled with every running duel stopped.
#[allow(clippy::too_many_arguments)]
async fn play_round(
    round: &mut Round,
    field: &mut Field,
    recorder: &Recorder,
    jobs: usize,
    cancel: &CancellationToken,
    report: &mut RunReport,
    shown: &mut RoundProgress<'_>,
) -> Result<()> {
    let timeout = Duration::from_millis(field.settings.timeout_ms);
    let turns = field.settings.turns;
    let mut duels: JoinSet<Finished> = JoinSet::new();
    let mut commits: JoinSet<Result<()>> = JoinSet::new();
    let outcome = loop {
        if !cancel.is_cancelled() {
            while duels.len() < jobs.max(1) {
                let Some(k) = round.next_ready() else { break };
                let id = round.duels()[k];
                let seats = field.seats(&id);
                let mut a = field.take(id.a)?;
                let mut b = field.take(id.b)?;
                let labels = [
                    format!(
                        "round {} pass {} vs {}",
                        id.round, id.pass, field.spec.bots[id.b].name
                    ),
                    format!(
                        "round {} pass {} vs {}",
                        id.round, id.pass, field.spec.bots[id.a].name
                    ),
                ];
                let token = cancel.clone();
                duels.spawn(async move {
                    let result = play_duel(
                        turns,
                        seats,
                        [&mut a, &mut b],
                        timeout,
                        [&labels[0], &labels[1]],
                        &token,
                        |_| {},
                    )
                    .await
                    .map(|r| (r, [a.cpu.as_secs_f64(), b.cpu.as_secs_f64()]));
                    (k, result, a, b)
                });
                report.max_concurrent = report.max_concurrent.max(duels.len());
            }
        }
        if duels.is_empty() {
            if round.is_complete() || cancel.is_cancelled() {
                break Ok(());
            }
            break Err(Error::machine(format!(
                "round {}: no duel can start although the round is incomplete",
                round.number()
            )));
        }
        tokio::select! {
            joined = duels.join_next() => {
                let Some(joined) = joined else { continue };
                let (k, result, a, b) =
                    joined.map_err(|e| Error::machine(format!("a duel task failed: {e}")))?;
                let id = round.duels()[k];
                field.bots[id.a] = Some(a);
                field.bots[id.b] = Some(b);
                let Some((result, cpu_seconds)) = result else { continue };
                let stored = StoredDuel {
                    duel: id,
                    names: [
                        field.spec.bots[id.a].name.clone(),
                        field.spec.bots[id.b].name.clone(),
                    ],
                    result,
                    cpu_seconds,
                };
                let record = serde_json::to_string(&stored)
                    .map_err(|e| Error::machine(format!("cannot encode a duel record: {e}")))?;
                let key = duel_key(&field.prefix, &id);
                let seed = game_seed(field.spec.seed, &key) as i64;
                let pending = match recorder.send(
                    vec![GameRow { game_key: key, seed, record }],
                    None,
                ) {
                    Ok(p) => p,
                    Err(e) => break Err(e),
                };
                commits.spawn(pending.wait());
                add_faults(&mut field.faults, &id, &stored.result);
                // Later duels of these bots may start now; the result is
                // reported (and the round scored) only once committed.
                round.record(k, stored.result.outcome).map_err(Error::machine)?;
                report.played += 1;
            }
            Some(done) = commits.join_next() => {
                match done.map_err(|e| Error::machine(format!("a commit task failed: {e}"))) {
                    Ok(Ok(())) => shown.committed(),
                    Ok(Err(e)) | Err(e) => break Err(e),
                }
            }
        }
    };
    if outcome.is_err() {
        // Stop what is running; put the bots back so they are shut down.
        cancel.cancel();
        while let Some(joined) = duels.join_next().await {
            if let Ok((k, _, a, b)) = joined {
                let id = round.duels()[k];
                field.bots[id.a] = Some(a);
                field.bots[id.b] = Some(b);
            }
        }
    }
    outcome?;
    // Nothing of the round is reported before it is durable.
    while let Some(done) = commits.join_next().await {
        done.map_err(|e| Error::machine(format!("a commit task failed: {e}")))??;
        shown.committed();
    }
    Ok(())
}

/// `referee play gun-duel 'CMD_A' 'CMD_B'`: N duels with a transcript.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<Status> {
    if args.bots.len() != 2 {
        return Err(Error::input(format!(
            "gun-duel is played by 2 bots ('CMD_A' 'CMD_B'), not {}",
            args.bots.len()
        )));
    }
    let mut settings = Settings::default();
    if let Some(t) = args.timeout_ms {
        settings
            .apply("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    if let Some(t) = args.turns {
        settings
            .apply("turns", &t.to_string())
            .map_err(Error::input)?;
    }
    let duels = args.duels.unwrap_or(1);
    if duels == 0 {
        return Err(Error::input("--duels must be at least 1"));
    }
    let interface = |k: Option<InterfaceArg>| match k {
        Some(InterfaceArg::ExitCode) => Interface::ExitCode,
        Some(InterfaceArg::Io) | None => Interface::Io,
    };
    let interfaces = [interface(args.interface_a), interface(args.interface_b)];
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}")))?,
    };
    let mut bots = Vec::new();
    for ((label, cmd), interface) in ["A", "B"].iter().zip(&args.bots).zip(interfaces) {
        let argv = crate::instructions::split_command(cmd)
            .map_err(|m| Error::input(format!("{label}: {m}")))?;
        let program = BotProgram {
            name: label.to_string(),
            argv,
            cwd: cwd.clone(),
            folder: cwd.clone(),
            confinement: Confinement::minimal(),
            env: Vec::new(),
        };
        // A bot author debugging wants the bots' stderr: it goes to the
        // referee's stderr, the transcript to stdout.
        let mut bot = Bot::new(program, BotLog::new("/dev/stderr"), interface);
        bot.start();
        bots.push(bot);
    }
    let [mut a, mut b]: [Bot; 2] = bots
        .try_into()
        .map_err(|_| Error::machine("two bots expected"))?;
    let timeout = Duration::from_millis(settings.timeout_ms);
    // Ids as in a tournament of two: A is 0 and B is 1.
    let seats = [
        Seat {
            interface: interfaces[0],
            opponent_id: 1,
        },
        Seat {
            interface: interfaces[1],
            opponent_id: 0,
        },
    ];
    let mut wins = [0u32; 2];
    let mut draws = 0u32;
    let mut interrupted = false;
    for d in 1..=duels {
        if duels > 1 {
            crate::output::print_stdout(&format!("duel {d}\n"))?;
        }
        let labels = [format!("A, duel {d}"), format!("B, duel {d}")];
        let result = play_duel(
            settings.turns,
            seats,
            [&mut a, &mut b],
            timeout,
            [&labels[0], &labels[1]],
            &cancel,
            |report| {
                let _ = crate::output::print_stdout(&format!("{}\n", turn_line(report)));
            },
        )
        .await;
        let Some(result) = result else {
            interrupted = true;
            break;
        };
        match result.outcome.winner() {
            Some(side) => wins[side.index()] += 1,
            None => draws += 1,
        }
        crate::output::print_stdout(&format!("{}\n", result_line(&result)))?;
    }
    if duels > 1 && !interrupted {
        crate::output::print_stdout(&format!(
            "{duels} duels: A won {}, B won {}, {draws} drawn\n",
            wins[Side::A.index()],
            wins[Side::B.index()]
        ))?;
    }
    tokio::join!(a.shutdown(), b.shutdown());
    Ok(if interrupted {
        Status::Interrupted
    } else {
        Status::Done
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_gun_duel::Outcome;

    #[test]
    fn the_framing_hands_over_one_move_byte_and_keeps_the_rest() {
        let frame = move_framing();
        assert_eq!(
            frame(b" \n1\n0"),
            Frame::Message {
                start: 2,
                end: 3,
                consumed: 3
            }
        );
        assert_eq!(frame(b"\r\n  "), Frame::Incomplete);
        let flood = vec![b' '; game_gun_duel::MAX_WHITESPACE + 10];
        assert_eq!(
            frame(&flood),
            Frame::Overflow {
                consumed: game_gun_duel::MAX_WHITESPACE + 1,
                resync_at: None
            }
        );
    }

    #[test]
    fn duel_keys_name_the_tournament_and_the_duel() {
        let id = DuelId {
            round: 2,
            pass: 7,
            a: 0,
            b: 3,
        };
        assert_eq!(duel_key("abc/", &id), "abc/r2/p7/0-3");
    }

    #[test]
    fn outcome_is_stored_with_the_duel() {
        let stored = StoredDuel {
            duel: DuelId {
                round: 1,
                pass: 1,
                a: 0,
                b: 1,
            },
            names: ["x".into(), "y".into()],
            result: DuelResult {
                outcome: Outcome::BWins,
                turns: 1,
                ammo: [-1, 1],
                histories: ["1".into(), "0".into()],
                faults: [FaultCounts::default(), FaultCounts::default()],
            },
            cpu_seconds: [0.25, 0.0],
        };
        let text = serde_json::to_string(&stored).unwrap();
        let back: StoredDuel = serde_json::from_str(&text).unwrap();
        assert_eq!(back.result, stored.result);
        assert_eq!(back.duel, stored.duel);
        assert_eq!(back.cpu_seconds, [0.25, 0.0]);
    }
}
