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

pub mod check;
pub mod play;

pub use check::CheckArgs;
pub use play::PlayArgs;

use crate::bot::{run_once, BotLog, BotProgram, Limits, Outcome};
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, RunContext, SeedDefault,
};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::{Checkpoint, GameRow, Store, TournamentRow};
use crate::session::{Recorder, Session};
use crate::standings::{Format, Leaderboard, Row};
use crate::status::Status;
use crate::tournament::{Pool, RunReport, TournamentSpec};
use game_core::{Ending, FaultCounts};
use game_heist::{
    bank::BANKS, game_dice, game_stream_seed, log::log_path, wire, Dice, GameReport, Request,
    Settings, Totals, Tournament,
};
use referee_sandbox::Confinement;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
};

impl Challenge for Heist {
    fn info(&self) -> &'static ChallengeInfo {
        &INFO
    }

    fn check_setting(&self, key: &str, value: &str) -> std::result::Result<(), String> {
        check_setting(key, value)
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

/// stderr kept per call in the bot's log.
const STDERR_CAP: usize = 16 * 1024;

/// The bank names of §3, for progress lines.
const BANK_NAMES: [&str; BANKS] = ["Municipal", "City", "State", "National", "Federal Reserve"];

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
/// time in the game's order. `None` when cancelled: the game is dropped and
/// the tournament is unchanged.
pub async fn play_game<D: Dice>(
    tournament: &mut Tournament,
    dice: D,
    bots: &Bots<'_>,
    cancel: &CancellationToken,
    mut observe: impl FnMut(CallView<'_>),
) -> Option<Played> {
    let count = tournament.names().len();
    let mut cpu = vec![Duration::ZERO; count];
    let mut calls = vec![0u64; count];
    let mut game = tournament.start_game(dice);
    let number = game.number();
    while let Some(request) = game.request() {
        let request = request.clone();
        let args = request.argv();
        let bot = request.bot;
        let outcome = match bots.programs.get(bot) {
            Some(program) => run_once(program, &args, &bots.limits, cancel).await,
            // Not reachable when the caller passes one program per bot.
            None => Outcome {
                reply: game_core::Reply::ended(Vec::new(), Ending::SpawnFailed),
                stderr: Vec::new(),
                cpu: Duration::ZERO,
                wall: Duration::ZERO,
            },
        };
        if outcome.reply.ending == Ending::Cancelled || cancel.is_cancelled() {
            return None;
        }
        if let Some(c) = cpu.get_mut(bot) {
            *c += outcome.cpu;
        }
        if let Some(n) = calls.get_mut(bot) {
            *n += 1;
        }
        if let Some(log) = bots.logs.get(bot) {
            log.section(
                &format!(
                    "{} game {number} round {}",
                    bots.label,
                    request.args.round.number()
                ),
                &outcome.stderr,
            );
        }
        observe(CallView {
            request: &request,
            args: &args,
            outcome: &outcome,
        });
        // Refused only for a cancelled reply, handled above.
        if game.answer(&outcome.reply).is_err() {
            return None;
        }
    }
    let report = game.finish().ok()?;
    Some(Played { report, cpu, calls })
}

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
}

impl StoredGame {
    fn new(t: u32, report: &GameReport, names: &[String], log: String) -> StoredGame {
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
                .map(|(b, name)| StoredBot {
                    name: name.clone(),
                    bet: b.bet,
                    action: b.action.map(|a| a.word().unwrap_or("go along").to_string()),
                    success: b.success,
                    winnings: b.winnings,
                    credits: b.credits,
                    faults: b.faults.clone(),
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

fn game_key(tournament_key: &str, g: u32) -> String {
    format!("{tournament_key}/g{g}")
}

fn load_state(store: &Store, key: &str, t: u32) -> Result<Option<State>> {
    let Some(json) = store.checkpoint(CHALLENGE, key)? else {
        return Ok(None);
    };
    serde_json::from_str(&json).map(Some).map_err(|e| {
        Error::machine(format!(
            "heist tournament {t}: the stored state is unreadable: {e}"
        ))
    })
}

/// The log blocks of games `0..games` of a tournament, from the database.
fn stored_log(store: &Store, key: &str, games: u32, t: u32) -> Result<Vec<u8>> {
    let keys: Vec<String> = (0..games).map(|g| game_key(key, g)).collect();
    let found = store.games(CHALLENGE, &keys)?;
    let mut out = Vec::new();
    for k in &keys {
        let record: StoredGame = found
            .get(k)
            .and_then(|row| serde_json::from_str(&row.record).ok())
            .ok_or_else(|| {
                Error::machine(format!(
                    "heist tournament {t}: game {k} is missing from the results database"
                ))
            })?;
        out.extend_from_slice(record.log.as_bytes());
    }
    Ok(out)
}

/// A tournament's log file, kept in step with the database.
pub struct TournamentLog {
    path: PathBuf,
    file: File,
    len: u64,
}

impl TournamentLog {
    /// Opens the log so that it holds exactly the stored games' blocks:
    /// truncated to `stored_len` when its start is what the database holds,
    /// otherwise rewritten from the database. Returns whether it was rewritten.
    fn open(
        path: PathBuf,
        stored_len: u64,
        stored: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(TournamentLog, bool)> {
        let io = |e: std::io::Error| Error::machine(format!("{}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut rewritten = false;
        if stored_len > 0 {
            let expected = stored()?;
            let mut head = Vec::with_capacity(expected.len());
            (&mut file)
                .take(expected.len() as u64)
                .read_to_end(&mut head)
                .map_err(io)?;
            if head != expected || expected.len() as u64 != stored_len {
                file.set_len(0).map_err(io)?;
                file.seek(SeekFrom::Start(0)).map_err(io)?;
                file.write_all(&expected).map_err(io)?;
                rewritten = true;
            }
            let len = expected.len() as u64;
            file.set_len(len).map_err(io)?;
            file.seek(SeekFrom::Start(len)).map_err(io)?;
            file.flush().map_err(io)?;
            return Ok((TournamentLog { path, file, len }, rewritten));
        }
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        Ok((TournamentLog { path, file, len: 0 }, rewritten))
    }

    fn append(&mut self, block: &str) -> Result<()> {
        self.file
            .write_all(block.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::machine(format!("{}: {e}", self.path.display())))?;
        self.len += block.len() as u64;
        Ok(())
    }
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
        let Some(played) = play_game(&mut p.state.tournament, dice, &bots, &cancel, |_| {}).await
        else {
            break;
        };
        let names = p.state.tournament.names().to_vec();
        let block = played.report.log_block(&names);
        // The log first: a crash before the commit leaves a block past the
        // stored length, which the resume cuts off.
        p.log.append(&block)?;
        p.state.log_len = p.log.len;
        p.state.add(&played);
        let stored = StoredGame::new(p.t, &played.report, &names, block);
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
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    let settings = settings(&ctx.spec).map_err(Error::input)?;
    let names: Vec<String> = ctx.spec.bots.iter().map(|b| b.name.clone()).collect();
    let log_dir = session
        .db()
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);

    let mut report = RunReport::default();
    let mut pending = Vec::new();
    for t in 1..=settings.tournaments {
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
        let (log, rewritten) =
            TournamentLog::open(log_dir.join(log_path(t)), state.log_len, || {
                stored_log(&session.store(), &key, games, t)
            })?;
        if rewritten {
            session.progress.say(&format!(
                "{} did not match the results database; rewritten from it",
                log.path.display()
            ));
        }
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

/// Totals over the finished tournaments of a stored run, with faults.
fn stored_totals(
    store: &Store,
    spec: &TournamentSpec,
) -> Result<(Totals, Vec<FaultCounts>, Vec<String>)> {
    let settings = settings(spec).map_err(Error::machine)?;
    let names: Vec<String> = spec.bots.iter().map(|b| b.name.clone()).collect();
    let mut totals = Totals::new(names.clone());
    let mut faults = vec![FaultCounts::default(); names.len()];
    for t in 1..=settings.tournaments {
        let key = tournament_key(spec, &settings, t);
        let Some(state) = load_state(store, &key, t)? else {
            continue;
        };
        if state.tournament.is_finished() {
            totals.add_tournament(&state.tournament.credits());
            for (sum, f) in faults.iter_mut().zip(&state.faults) {
                sum.merge(f);
            }
        }
    }
    Ok((totals, faults, names))
}

/// The shared leaderboard: total credits, ties by name; `tournaments`
/// (finished) and `wins` (first places, shared ones included).
pub fn leaderboard(totals: &Totals, faults: &[FaultCounts], names: &[String]) -> Leaderboard {
    Leaderboard {
        columns: vec!["tournaments".to_string(), "wins".to_string()],
        rows: totals
            .standings()
            .into_iter()
            .map(|s| {
                let f = names
                    .iter()
                    .position(|n| *n == s.name)
                    .and_then(|i| faults.get(i))
                    .map(|f| {
                        f.0.iter()
                            .map(|(k, v)| (k.name().to_string(), *v))
                            .collect()
                    })
                    .unwrap_or_default();
                Row {
                    rank: s.rank,
                    name: s.name,
                    score: json!(s.score),
                    faults: f,
                    extra: vec![json!(s.tournaments), json!(s.wins)],
                }
            })
            .collect(),
    }
}

/// The leaderboard of a stored heist run.
fn standings(
    store: &Store,
    _row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let (totals, faults, names) = stored_totals(store, spec)?;
    Ok(match format {
        Format::Text => totals.table(),
        Format::Md => leaderboard(&totals, &faults, &names).to_markdown(),
        Format::Json => leaderboard(&totals, &faults, &names).to_json(),
        Format::Csv => leaderboard(&totals, &faults, &names).to_csv(),
    })
}

/// How a call ended, in words, for `--trace`.
fn ending_text(ending: Ending, limits: &Limits) -> String {
    match ending {
        Ending::Exited(c) => format!("exit status {c}"),
        Ending::Signalled(s) => format!("killed by signal {s}"),
        Ending::TimedOut => format!(
            "timed out after {} ms (killed)",
            limits.deadline.as_millis()
        ),
        Ending::TooLong => format!("more than {} bytes on stdout (killed)", limits.stdout_cap),
        Ending::SpawnFailed => "could not be started".to_string(),
        Ending::Cancelled => "cancelled".to_string(),
    }
}

/// The `--trace` lines of one call.
pub fn trace_text(program: &BotProgram, view: &CallView<'_>, limits: &Limits) -> String {
    let mut argv = program.argv.clone();
    argv.extend(view.args.iter().cloned());
    let mut out = format!(
        "> {} round {}: {}\n< stdout \"{}\", {}, {:.1} ms\n",
        program.name,
        view.request.args.round.number(),
        shell_words::join(&argv),
        view.outcome.reply.stdout.escape_ascii(),
        ending_text(view.outcome.reply.ending, limits),
        view.outcome.wall.as_secs_f64() * 1000.0,
    );
    if !view.outcome.stderr.is_empty() {
        out.push_str(&format!(
            "< stderr \"{}\"\n",
            view.outcome.stderr.escape_ascii()
        ));
    }
    out
}

/// `referee play heist BOT... [--games N] [--seed N] [--rabble N]
/// [--timeout-ms N] [--names a,b,...] [--trace]`: N games from the initial
/// state, their log blocks, then the leaderboard.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<Status> {
    let mut settings = Settings {
        games: Some(1),
        ..Settings::default()
    };
    if let Some(g) = args.games {
        settings
            .set("games", &g.to_string())
            .map_err(Error::input)?;
    }
    if let Some(r) = args.rabble {
        settings
            .set("rabble", &r.to_string())
            .map_err(Error::input)?;
    }
    if let Some(t) = args.timeout_ms {
        settings
            .set("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    let names: Vec<String> = match &args.names {
        Some(names) => {
            if names.len() != args.bots.len() {
                return Err(Error::input(format!(
                    "--names gives {} names for {} bots",
                    names.len(),
                    args.bots.len()
                )));
            }
            names.iter().map(|n| n.trim().to_string()).collect()
        }
        None => (1..=args.bots.len()).map(|i| format!("bot{i}")).collect(),
    };
    let seed = match args.seed {
        Some(s) => s,
        None => {
            let s = rand::random();
            eprintln!("referee: seed {s} (pass --seed {s} to play these games again)");
            s
        }
    };
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}")))?,
    };
    let mut programs = Vec::new();
    for (name, cmd) in names.iter().zip(&args.bots) {
        let argv = crate::instructions::split_command(cmd)
            .map_err(|m| Error::input(format!("{name}: {m}")))?;
        let program = BotProgram {
            name: name.clone(),
            argv,
            cwd: cwd.clone(),
            // No bot folders in this mode: the bots run in DIR (read-only to them).
            folder: cwd.clone(),
            confinement: Confinement::minimal(),
            env: Vec::new(),
        };
        programs.push(program);
    }
    let games = settings.games.unwrap_or(1);
    let mut tournament = Tournament::new(names.clone(), settings.rabble, games)
        .map_err(|m| Error::input(format!("--names: {m}")))?;
    let limits = limits(&settings);
    let logs: Vec<BotLog> = names.iter().map(|_| BotLog::discard()).collect();
    let bots = Bots {
        programs: &programs,
        logs: &logs,
        limits,
        label: "play",
    };
    while !tournament.is_finished() {
        let g = tournament.next_game();
        let played = play_game(
            &mut tournament,
            game_dice(seed, 1, g),
            &bots,
            &cancel,
            |view| {
                if args.trace {
                    if let Some(p) = programs.get(view.request.bot) {
                        let _ = std::io::stdout()
                            .lock()
                            .write_all(trace_text(p, &view, &limits).as_bytes());
                    }
                }
            },
        )
        .await;
        let Some(played) = played else {
            return Ok(Status::Interrupted);
        };
        crate::output::print_stdout(&played.report.log_block(tournament.names()))?;
    }
    let mut totals = Totals::new(names);
    totals.add_tournament(&tournament.credits());
    crate::output::print_stdout(&totals.table())?;
    Ok(Status::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(seed: u64, settings: &[(&str, &str)]) -> TournamentSpec {
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
        }
    }

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

    #[test]
    fn the_seed_is_not_a_setting() {
        assert!(check_setting("seed", "4").is_err());
        assert!(check_setting("rabble", "4").is_ok());
        assert!(check_setting("max-rounds", "4").is_err());
        assert_eq!(settings(&spec(9, &[])).unwrap().seed, Some(9));
    }

    #[test]
    fn a_damaged_log_is_rewritten_and_a_longer_one_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heist-logs/tournament-1.log");
        let stored = || Ok(b"block 0\n\nblock 1\n\n".to_vec());

        // Fresh: created empty.
        let (log, rewritten) = TournamentLog::open(path.clone(), 0, stored).unwrap();
        assert!(!rewritten);
        drop(log);
        assert_eq!(std::fs::read(&path).unwrap(), b"");

        // A block written but not committed: cut off.
        std::fs::write(&path, b"block 0\n\nblock 1\n\nblock 2\n\n").unwrap();
        let (mut log, rewritten) = TournamentLog::open(path.clone(), 18, stored).unwrap();
        assert!(!rewritten);
        log.append("block 2'\n\n").unwrap();
        drop(log);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"block 0\n\nblock 1\n\nblock 2'\n\n"
        );

        // Another run's log, or a shortened one: rewritten from the database.
        for damaged in [&b"other 0\n\nother 1\n\n"[..], b"block 0\n"] {
            std::fs::write(&path, damaged).unwrap();
            let (log, rewritten) = TournamentLog::open(path.clone(), 18, stored).unwrap();
            assert!(rewritten);
            assert_eq!(log.len, 18);
            drop(log);
            assert_eq!(std::fs::read(&path).unwrap(), b"block 0\n\nblock 1\n\n");
        }
    }
}
