//! meta-ttt joined to the per-call process runner and the round-robin loop.

pub mod check;
pub mod play;
pub mod report;

pub use check::CheckArgs;
pub use play::{play, PlayArgs};

use crate::bot::{run_once, BotLog, BotProgram, CallTimes, Limits, Outcome};
use crate::challenge::{
    BotKind, BoxFuture, Challenge, ChallengeId, ChallengeInfo, FirstCall, RunContext, SeedDefault,
    Sharding,
};
use crate::error::{Error, Result};
use crate::first_call::{judge_call, Verdict};
use crate::results::{Store, TournamentRow};
use crate::session::Session;
use crate::shard::Shard;
use crate::standings::{competition_ranks, Format, Leaderboard, Row};
use crate::tournament::round_robin::{GamePlan, PlannedGame, Played};
use crate::tournament::{RunReport, TournamentSpec};
use game_core::{Ending, Fault};
use game_meta_ttt::{render, standings, wire, Call, Game, GameRecord, Settings};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// stderr kept per call in the bot's log.
const STDERR_CAP: usize = 16 * 1024;

/// Settings from the resolved key/value map.
pub fn settings(spec: &TournamentSpec) -> std::result::Result<Settings, String> {
    let mut s = Settings::default();
    for (k, v) in &spec.settings {
        s.set(k, v)?;
    }
    Ok(s)
}

/// The limits of one call.
pub fn limits(settings: &Settings) -> Limits {
    Limits {
        deadline: Duration::from_millis(settings.timeout_ms),
        stdout_cap: wire::STDOUT_CAP,
        stderr_cap: STDERR_CAP,
    }
}

/// What is stored per game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredGame {
    pub x: String,
    pub o: String,
    #[serde(flatten)]
    pub record: GameRecord,
    /// CPU seconds used by [X, O] over the game.
    pub cpu_seconds: [f64; 2],
    /// What [X, O]'s calls took: wall-clock and charged time.
    #[serde(default)]
    pub times: [CallTimes; 2],
}

/// What `play_game` reports after each call, for transcripts.
pub struct CallView<'a> {
    pub game: &'a Game,
    /// The 12 arguments the call was given.
    pub args: &'a [String],
    pub outcome: &'a Outcome,
    pub verdict: std::result::Result<game_meta_ttt::Move, game_meta_ttt::Illegal>,
}

/// Plays one game between two programs. `None` if cancelled; `Err` if the
/// referee could not start a bot's process (the game did not happen).
pub async fn play_game(
    bots: [&BotProgram; 2],
    logs: [&BotLog; 2],
    settings: &Settings,
    label: &str,
    cancel: &CancellationToken,
    mut observe: impl FnMut(CallView<'_>),
) -> Result<Option<(Game, [Duration; 2], [CallTimes; 2])>> {
    let limits = limits(settings);
    let mut game = Game::new(settings.max_rounds);
    let mut cpu = [Duration::ZERO; 2];
    let mut times = [CallTimes::default(); 2];
    while !game.is_over() {
        let side = game.to_move().index();
        let args = wire::argv(&game);
        let outcome = run_once(bots[side], &args, &limits, cancel).await?;
        if matches!(outcome.reply.ending, game_core::Ending::Cancelled) || cancel.is_cancelled() {
            return Ok(None);
        }
        cpu[side] += outcome.cpu;
        times[side].add(&outcome);
        logs[side].section(
            &format!(
                "{label} call {} ({})",
                game.calls() + 1,
                game.to_move().letter()
            ),
            &outcome.log_text(limits.deadline),
        );
        let call: Call = wire::read_reply(&outcome.reply);
        let verdict = game.apply(call);
        observe(CallView {
            game: &game,
            args: &args,
            outcome: &outcome,
            verdict,
        });
    }
    Ok(Some((game, cpu, times)))
}

/// The meta-ttt challenge.
pub struct MetaTtt;

static INFO: ChallengeInfo = ChallengeInfo {
    id: ChallengeId::MetaTtt,
    name: "meta-ttt",
    bot_kind: BotKind::Process,
    bots_thinking_per_game: 1,
    seed: SeedDefault::Zero,
    settings: game_meta_ttt::SETTINGS,
    sharding: Sharding::By("pairing"),
};

impl Challenge for MetaTtt {
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
        standings(store, row, spec, format)
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

/// A meta-ttt tournament ready to run.
pub struct Tournament {
    spec: TournamentSpec,
    settings: Settings,
    programs: Vec<BotProgram>,
    logs: Vec<BotLog>,
    pairs: Vec<(usize, usize)>,
    plan: Vec<PlannedGame>,
}

impl Tournament {
    pub fn new(
        spec: TournamentSpec,
        programs: Vec<BotProgram>,
        logs: Vec<BotLog>,
        shard: Shard,
    ) -> std::result::Result<Tournament, String> {
        let settings = settings(&spec)?;
        // A shard plays both games of each of its pairings.
        let mut pairs = standings::schedule(spec.bots.len());
        pairs.retain(|&(x, o)| shard.owns_pairing(&spec.bots[x].name, &spec.bots[o].name));
        let plan = plan(&spec, &settings, &pairs);
        Ok(Tournament {
            spec,
            settings,
            programs,
            logs,
            pairs,
            plan,
        })
    }
}

/// The game key names everything a game depends on: the settings and both
/// bots (by fingerprint) in their colours. meta-ttt uses no randomness, so
/// the tournament seed is not part of it.
fn plan(spec: &TournamentSpec, settings: &Settings, pairs: &[(usize, usize)]) -> Vec<PlannedGame> {
    pairs
        .iter()
        .map(|&(x, o)| PlannedGame {
            key: format!(
                "timeout-ms={};max-rounds={};X={}:{};O={}:{}",
                settings.timeout_ms,
                settings.max_rounds,
                spec.bots[x].name,
                spec.bots[x].fingerprint,
                spec.bots[o].name,
                spec.bots[o].fingerprint
            ),
            seed: 0,
            resources: vec![x, o],
        })
        .collect()
}

impl GamePlan for Tournament {
    fn plan(&self) -> &[PlannedGame] {
        &self.plan
    }

    async fn play(
        self: Arc<Self>,
        index: usize,
        cancel: CancellationToken,
    ) -> Result<Option<Played>> {
        let (x, o) = self.pairs[index];
        let label = format!(
            "game {} ({} X vs {} O)",
            index + 1,
            self.spec.bots[x].name,
            self.spec.bots[o].name
        );
        let Some((game, cpu, times)) = play_game(
            [&self.programs[x], &self.programs[o]],
            [&self.logs[x], &self.logs[o]],
            &self.settings,
            &label,
            &cancel,
            |_| {},
        )
        .await?
        else {
            return Ok(None);
        };
        let stored = StoredGame {
            x: self.spec.bots[x].name.clone(),
            o: self.spec.bots[o].name.clone(),
            record: game.record(),
            cpu_seconds: [cpu[0].as_secs_f64(), cpu[1].as_secs_f64()],
            times,
        };
        let summary = format!(
            "{} (X) vs {} (O): {} after {} calls, points {} / {}",
            stored.x,
            stored.o,
            render::result_line(&game)
                .trim_start_matches("Result: ")
                .trim_end_matches('.'),
            stored.record.calls,
            stored.record.points[0],
            stored.record.points[1]
        );
        let record = serde_json::to_string(&stored)
            .map_err(|e| Error::machine(format!("cannot encode a game: {e}")))?;
        Ok(Some(Played { record, summary }))
    }
}

/// Totals per bot (instructions order) from the stored records of a plan.
pub fn totals(spec: &TournamentSpec, records: &[Option<StoredGame>]) -> Vec<standings::Totals> {
    let pairs = standings::schedule(spec.bots.len());
    let mut totals = vec![standings::Totals::default(); spec.bots.len()];
    for (&(x, o), rec) in pairs.iter().zip(records) {
        if let Some(rec) = rec {
            standings::add_game(&mut totals, x, o, &rec.record);
        }
    }
    totals
}

/// The plan's game keys, for looking records up.
pub fn plan_keys(spec: &TournamentSpec) -> std::result::Result<Vec<String>, String> {
    let s = settings(spec)?;
    let pairs = standings::schedule(spec.bots.len());
    Ok(plan(spec, &s, &pairs).into_iter().map(|g| g.key).collect())
}

/// The post's text: a line per bot (`Bot N` its place in the
/// instructions), best points first, then the time line.
pub fn text(spec: &TournamentSpec, totals: &[standings::Totals], seconds: f64) -> String {
    let mut out = String::new();
    for i in by_points(totals) {
        let t = &totals[i];
        out.push_str(&render::bot_line(
            &format!("Bot {}", i + 1),
            &spec.bots[i].name,
            t.wins,
            t.illegal,
            t.points,
        ));
        out.push('\n');
    }
    out.push_str(&render::time_line(spec.bots.len(), seconds));
    out.push('\n');
    out
}

/// Bot indices by points descending, ties in instructions order.
fn by_points(totals: &[standings::Totals]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..totals.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(totals[i].points));
    order
}

/// `faults: NAME: timeout=2 crash=1`, one line per bot with faults, in
/// instructions order.
fn fault_lines(spec: &TournamentSpec, totals: &[standings::Totals]) -> String {
    let mut out = String::new();
    for (bot, t) in spec.bots.iter().zip(totals) {
        if t.faults.0.is_empty() {
            continue;
        }
        let kinds: Vec<String> = t
            .faults
            .0
            .iter()
            .map(|(k, v)| format!("{}={v}", k.name()))
            .collect();
        out.push_str(&format!("faults: {}: {}\n", bot.name, kinds.join(" ")));
    }
    out
}

/// The shared leaderboard: points descending, ties in instructions order.
/// `cpu` is each bot's CPU seconds (instructions order).
pub fn leaderboard(
    spec: &TournamentSpec,
    totals: &[standings::Totals],
    cpu: &[f64],
) -> Leaderboard {
    let order = by_points(totals);
    let scores: Vec<i64> = order.iter().map(|&i| totals[i].points).collect();
    let ranks = competition_ranks(&scores);
    Leaderboard {
        columns: vec!["illegal".to_string()],
        rows: order
            .iter()
            .zip(ranks)
            .map(|(&i, rank)| {
                let t = &totals[i];
                Row {
                    rank,
                    name: spec.bots[i].name.clone(),
                    score: json!(t.points),
                    played: Some(t.games),
                    wins: Some(t.wins),
                    draws: Some(t.draws),
                    losses: Some(t.losses),
                    faults: t
                        .faults
                        .0
                        .iter()
                        .map(|(k, v)| (k.name().to_string(), *v))
                        .collect(),
                    out: None,
                    cpu_seconds: cpu.get(i).copied(),
                    extra: vec![json!(t.illegal)],
                }
            })
            .collect(),
    }
}

/// Creates what the challenge promises each bot: its folder and an empty
/// `data.txt`, never reset (nor written through, whatever a bot left there).
fn prepare_folders(spec: &TournamentSpec) -> Result<()> {
    spec.bots.iter().try_for_each(prepare_folder)
}

/// [`prepare_folders`] for one bot.
fn prepare_folder(bot: &crate::tournament::BotSpec) -> Result<()> {
    std::fs::create_dir_all(&bot.folder).map_err(|e| {
        Error::machine(format!(
            "{}: cannot create the bot folder: {e}",
            bot.folder.display()
        ))
    })?;
    // Created only if nothing is there: O_CREAT | O_EXCL never follows
    // a symlink, so a bot that left a (dangling) link named data.txt
    // cannot make the referee create a file elsewhere.
    let data = bot.folder.join("data.txt");
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&data)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::machine(format!("{}: {e}", data.display()))),
    }
}

/// The preflight's call: the first move of a game (a free move on the
/// empty board), with the bot's folder and data.txt as play finds them.
async fn first_call(call: FirstCall<'_>) -> Result<Option<Verdict>> {
    let settings = settings(call.spec).map_err(Error::input)?;
    if let Some(bot) = call.spec.bots.get(call.bot) {
        prepare_folder(bot)?;
    }
    let limits = limits(&settings);
    let game = Game::new(settings.max_rounds);
    let outcome = run_once(call.program, &wire::argv(&game), &limits, call.cancel).await?;
    if outcome.reply.ending == Ending::Cancelled {
        return Ok(None);
    }
    call.log.section(
        "preflight: the first move of a game",
        &outcome.log_text(limits.deadline),
    );
    let fault = match wire::read_reply(&outcome.reply) {
        Call::Move(mv) => game.check(mv).err().map(|_| Fault::IllegalMove),
        Call::Failed(_, fault) => Some(fault),
    };
    Ok(Some(judge_call(
        call.program,
        &outcome.reply,
        fault,
        &outcome.stderr,
    )))
}

/// Runs (or resumes) a meta-ttt tournament.
async fn run(session: Session, ctx: RunContext) -> Result<RunReport> {
    prepare_folders(&ctx.spec)?;
    let tournament =
        Tournament::new(ctx.spec, ctx.programs, ctx.logs, ctx.shard).map_err(Error::input)?;
    crate::tournament::round_robin::run(Arc::new(tournament), session, ctx.jobs).await
}

/// The leaderboard of a stored meta-ttt tournament.
fn standings(
    store: &Store,
    row: &TournamentRow,
    spec: &TournamentSpec,
    format: Format,
) -> Result<String> {
    let keys = plan_keys(spec).map_err(Error::machine)?;
    let found = store.games(&spec.challenge, &keys)?;
    let records: Vec<Option<StoredGame>> = keys
        .iter()
        .map(|k| {
            found
                .get(k)
                .and_then(|g| serde_json::from_str(&g.record).ok())
        })
        .collect();
    let totals = totals(spec, &records);
    let mut cpu = vec![0.0; spec.bots.len()];
    for (&(x, o), rec) in standings::schedule(spec.bots.len()).iter().zip(&records) {
        if let Some(rec) = rec {
            cpu[x] += rec.cpu_seconds[0];
            cpu[o] += rec.cpu_seconds[1];
        }
    }
    let board = leaderboard(spec, &totals, &cpu);
    Ok(match format {
        Format::Text => {
            // The winner and each bot's faults under the post's lines.
            let text = text(spec, &totals, row.play_seconds);
            format!("{text}{}{}", board.notes(), fault_lines(spec, &totals))
        }
        Format::Md => board.with_notes(board.to_markdown()),
        Format::Json => board.to_json(),
        Format::Csv => board.to_csv(),
    })
}
