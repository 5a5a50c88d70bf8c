//! meta-ttt joined to the per-call process runner and the tournament loop.

use super::RunContext;
use crate::bot::{run_once, BotLog, BotProgram, Limits};
use crate::cli::PlayArgs;
use crate::error::{Error, Result};
use crate::results::{Store, TournamentRow};
use crate::standings::{competition_ranks, Format, Leaderboard, Row};
use crate::tournament::run::{Challenge, PlannedGame, Played};
use crate::tournament::{RunReport, TournamentSpec};
use game_core::Reply;
use game_meta_ttt::{render, standings, wire, Call, Game, GameRecord, Settings};
use referee_sandbox::Confinement;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::io::Write;
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

/// What is stored per game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredGame {
    pub x: String,
    pub o: String,
    #[serde(flatten)]
    pub record: GameRecord,
    /// CPU seconds used by [X, O] over the game.
    pub cpu_seconds: [f64; 2],
}

/// What `play_game` reports after each call, for transcripts.
pub struct CallView<'a> {
    pub game: &'a Game,
    pub reply: &'a Reply,
    pub verdict: std::result::Result<game_meta_ttt::Move, game_meta_ttt::Illegal>,
}

/// Plays one game between two programs. `None` if cancelled.
pub async fn play_game(
    bots: [&BotProgram; 2],
    logs: [&BotLog; 2],
    settings: &Settings,
    label: &str,
    cancel: &CancellationToken,
    mut observe: impl FnMut(CallView<'_>),
) -> Option<(Game, [Duration; 2])> {
    let limits = Limits {
        deadline: Duration::from_millis(settings.timeout_ms),
        stdout_cap: wire::STDOUT_CAP,
        stderr_cap: STDERR_CAP,
    };
    let mut game = Game::new(settings.max_rounds);
    let mut cpu = [Duration::ZERO; 2];
    while !game.is_over() {
        let side = game.to_move().index();
        let args = wire::argv(&game);
        let outcome = run_once(bots[side], &args, &limits, cancel).await;
        if matches!(outcome.reply.ending, game_core::Ending::Cancelled) || cancel.is_cancelled() {
            return None;
        }
        cpu[side] += outcome.cpu;
        logs[side].section(
            &format!("{label} call {}", game.calls() + 1),
            &outcome.stderr,
        );
        let call: Call = wire::read_reply(&outcome.reply);
        let verdict = game.apply(call);
        observe(CallView {
            game: &game,
            reply: &outcome.reply,
            verdict,
        });
    }
    Some((game, cpu))
}

/// A meta-ttt tournament ready to run.
pub struct MetaTtt {
    spec: TournamentSpec,
    settings: Settings,
    programs: Vec<BotProgram>,
    logs: Vec<BotLog>,
    pairs: Vec<(usize, usize)>,
    plan: Vec<PlannedGame>,
}

impl MetaTtt {
    pub fn new(
        spec: TournamentSpec,
        programs: Vec<BotProgram>,
        logs: Vec<BotLog>,
    ) -> std::result::Result<MetaTtt, String> {
        let settings = settings(&spec)?;
        let pairs = standings::schedule(spec.bots.len());
        let plan = plan(&spec, &settings, &pairs);
        Ok(MetaTtt {
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

impl Challenge for MetaTtt {
    fn id(&self) -> &'static str {
        "meta-ttt"
    }

    fn plan(&self) -> &[PlannedGame] {
        &self.plan
    }

    async fn play(self: Arc<Self>, index: usize, cancel: CancellationToken) -> Option<Played> {
        let (x, o) = self.pairs[index];
        let label = format!(
            "game {} ({} X vs {} O)",
            index + 1,
            self.spec.bots[x].name,
            self.spec.bots[o].name
        );
        let (game, cpu) = play_game(
            [&self.programs[x], &self.programs[o]],
            [&self.logs[x], &self.logs[o]],
            &self.settings,
            &label,
            &cancel,
            |_| {},
        )
        .await?;
        let stored = StoredGame {
            x: self.spec.bots[x].name.clone(),
            o: self.spec.bots[o].name.clone(),
            record: game.record(),
            cpu_seconds: [cpu[0].as_secs_f64(), cpu[1].as_secs_f64()],
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
        let record = serde_json::to_string(&stored).ok()?;
        Some(Played { record, summary })
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

/// The post's text: a line per bot in instructions order, then the time line.
pub fn text(spec: &TournamentSpec, totals: &[standings::Totals], seconds: f64) -> String {
    let mut out = String::new();
    for (i, (bot, t)) in spec.bots.iter().zip(totals).enumerate() {
        out.push_str(&render::bot_line(
            &format!("Bot {}", i + 1),
            &bot.name,
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

/// The shared leaderboard: points descending, ties in instructions order.
pub fn leaderboard(spec: &TournamentSpec, totals: &[standings::Totals]) -> Leaderboard {
    let mut order: Vec<usize> = (0..totals.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(totals[i].points));
    let scores: Vec<i64> = order.iter().map(|&i| totals[i].points).collect();
    let ranks = competition_ranks(&scores);
    Leaderboard {
        columns: ["wins", "losses", "draws", "illegal", "games"]
            .map(String::from)
            .to_vec(),
        rows: order
            .iter()
            .zip(ranks)
            .map(|(&i, rank)| {
                let t = &totals[i];
                Row {
                    rank,
                    name: spec.bots[i].name.clone(),
                    score: json!(t.points),
                    faults: t
                        .faults
                        .0
                        .iter()
                        .map(|(k, v)| (k.name().to_string(), *v))
                        .collect(),
                    extra: vec![
                        json!(t.wins),
                        json!(t.losses),
                        json!(t.draws),
                        json!(t.illegal),
                        json!(t.games),
                    ],
                }
            })
            .collect(),
    }
}

/// Creates what the challenge promises each bot: its folder and an empty
/// `data.txt`, never reset.
fn prepare_folders(spec: &TournamentSpec) -> Result<()> {
    for bot in &spec.bots {
        std::fs::create_dir_all(&bot.folder).map_err(|e| {
            Error::machine(format!(
                "{}: cannot create the bot folder: {e}",
                bot.folder.display()
            ))
        })?;
        let data = bot.folder.join("data.txt");
        if !data.exists() {
            std::fs::write(&data, b"")
                .map_err(|e| Error::machine(format!("{}: {e}", data.display())))?;
        }
    }
    Ok(())
}

/// Runs (or resumes) a meta-ttt tournament.
pub async fn run(ctx: RunContext) -> Result<RunReport> {
    prepare_folders(&ctx.spec)?;
    let keys = plan_keys(&ctx.spec).map_err(Error::input)?;
    let done = ctx
        .store
        .games(&ctx.spec.challenge, &keys)?
        .into_keys()
        .collect();
    let challenge = MetaTtt::new(ctx.spec.clone(), ctx.programs, ctx.logs).map_err(Error::input)?;
    crate::tournament::run_with_store(
        Arc::new(challenge),
        ctx.store,
        ctx.tournament_id,
        &done,
        ctx.jobs,
        &ctx.cancel,
        &ctx.progress,
    )
    .await
}

/// The leaderboard of a stored meta-ttt tournament.
pub fn standings(
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
    Ok(match format {
        Format::Text => text(spec, &totals, row.play_seconds),
        Format::Md => leaderboard(spec, &totals).to_markdown(),
        Format::Json => leaderboard(spec, &totals).to_json(),
        Format::Csv => leaderboard(spec, &totals).to_csv(),
    })
}

/// `referee play meta-ttt 'CMD_X' 'CMD_O'`: the transcript of one game.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<i32> {
    if args.bots.len() != 2 {
        return Err(Error::input(format!(
            "meta-ttt is played by 2 bots ('CMD_X' 'CMD_O'), not {}",
            args.bots.len()
        )));
    }
    if args.dice.is_some() {
        return Err(Error::input("--dice is not a meta-ttt option"));
    }
    let mut settings = Settings::default();
    if let Some(t) = args.timeout_ms {
        settings
            .set("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    if let Some(r) = args.max_rounds {
        settings
            .set("max-rounds", &r.to_string())
            .map_err(Error::input)?;
    }
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}")))?,
    };
    let mut programs = Vec::new();
    for (label, cmd) in ["X", "O"].iter().zip(&args.bots) {
        let argv = crate::instructions::split_command(cmd)
            .map_err(|m| Error::input(format!("{label}: {m}")))?;
        // No per-bot folders in this mode: both bots share DIR.
        programs.push(BotProgram {
            name: label.to_string(),
            argv,
            cwd: cwd.clone(),
            folder: cwd.clone(),
            confinement: Confinement::minimal(),
            env: Vec::new(),
        });
    }
    let log = BotLog::discard();
    let result = play_game(
        [&programs[0], &programs[1]],
        [&log, &log],
        &settings,
        "play",
        &cancel,
        |view| {
            let round = view.game.calls();
            let mark = view.game.to_move().other();
            let text = match view.verdict {
                Ok(mv) => format!(
                    "{}\n\n{}\n",
                    render::legal_line(round, mark, mv),
                    render::picture(view.game)
                ),
                Err(reason) => format!(
                    "{}\n",
                    render::illegal_line(round, mark, reason, &view.reply.stdout)
                ),
            };
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        },
    )
    .await;
    let Some((game, _)) = result else {
        return Ok(crate::app::EXIT_INTERRUPTED);
    };
    let record = game.record();
    let mut end = format!("{}\n", render::result_line(&game));
    for (i, (label, cmd)) in ["X", "O"].iter().zip(&args.bots).enumerate() {
        let wins = u64::from(record.winner.map(|w| w.index()) == Some(i));
        end.push_str(&render::bot_line(
            label,
            cmd,
            wins,
            u64::from(record.illegal[i]),
            record.points[i],
        ));
        end.push('\n');
    }
    crate::app::print_stdout(&end)?;
    Ok(0)
}

/// The scripted positions of `referee check meta-ttt`: a name and the
/// calls that lead to it (`None` = an illegal call, which makes the next
/// move free).
/// One scripted call: a move `(board, tile)`, or `None` for an illegal call.
type ScriptedCall = Option<(u8, u8)>;

const CHECK_POSITIONS: &[(&str, &[ScriptedCall])] = &[
    ("the first move of a game (free move)", &[]),
    ("a forced board (must play board 8)", &[Some((3, 8))]),
    (
        "a free move after the opponent's illegal call (last move xx)",
        &[Some((3, 8)), Some((8, 4)), None],
    ),
    (
        "sent to a won board (free move; board 0 is closed)",
        &[
            Some((0, 1)),
            Some((1, 0)),
            Some((0, 2)),
            Some((2, 0)),
            Some((0, 0)),
        ],
    ),
    (
        "sent to a full, drawn board (free move; board 4 is closed)",
        &[
            Some((4, 2)),
            Some((2, 4)),
            Some((4, 7)),
            Some((7, 5)),
            Some((5, 1)),
            Some((1, 3)),
            Some((3, 4)),
            Some((4, 1)),
            Some((1, 4)),
            Some((4, 5)),
            Some((5, 5)),
            Some((5, 4)),
            Some((4, 8)),
            Some((8, 4)),
            Some((4, 0)),
            Some((0, 4)),
            Some((4, 3)),
            Some((3, 7)),
            Some((7, 4)),
            Some((4, 6)),
            Some((6, 4)),
            Some((4, 4)),
        ],
    ),
];

/// `referee check meta-ttt 'CMD'`: plays the bot against scripted positions
/// and says in plain words whether it follows the contract. Exit status 0
/// when it does, 1 when it does not.
pub async fn check(args: crate::cli::CheckArgs, cancel: CancellationToken) -> Result<i32> {
    let settings = Settings {
        timeout_ms: args.timeout_ms.unwrap_or(Settings::default().timeout_ms),
        ..Settings::default()
    };
    let cwd = match &args.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}")))?,
    };
    let argv = crate::instructions::split_command(&args.bot).map_err(Error::input)?;
    let policy = referee_sandbox::Policy::named("meta-ttt").map_err(Error::machine)?;
    let support = referee_sandbox::Support::probe();
    let setup = referee_sandbox::Setup {
        policy: &policy,
        own_folder: &cwd,
        denied: &[],
        readable: &[],
    };
    let confinement = Confinement::prepare(&setup, &support).map_err(Error::machine)?;
    let program = BotProgram {
        name: "bot".into(),
        argv,
        cwd: cwd.clone(),
        folder: cwd.clone(),
        confinement,
        env: Vec::new(),
    };
    let limits = Limits {
        deadline: Duration::from_millis(settings.timeout_ms),
        stdout_cap: wire::STDOUT_CAP,
        stderr_cap: STDERR_CAP,
    };
    let before = folder_state(&cwd);
    let mut problems = Vec::new();
    let mut out = String::new();
    for (i, (name, calls)) in CHECK_POSITIONS.iter().enumerate() {
        let mut game = Game::new(settings.max_rounds);
        for call in *calls {
            let call = match call {
                Some((b, t)) => Call::Move(game_meta_ttt::Move {
                    board: *b,
                    tile: *t,
                }),
                None => Call::Failed(game_meta_ttt::Illegal::Garbage, game_core::Fault::BadOutput),
            };
            let _ = game.apply(call);
        }
        let argv = wire::argv(&game);
        let outcome = run_once(&program, &argv, &limits, &cancel).await;
        if matches!(outcome.reply.ending, game_core::Ending::Cancelled) {
            return Ok(crate::app::EXIT_INTERRUPTED);
        }
        out.push_str(&format!(
            "position {}: {name}\n  arguments: {}\n",
            i + 1,
            argv.join(" ")
        ));
        let shown = wire::trimmed(&outcome.reply.stdout);
        let shown = &shown[..shown.len().min(40)];
        let verdict = match wire::read_reply(&outcome.reply) {
            Call::Move(mv) => match game.check(mv) {
                Ok(()) => format!("legal move {mv}"),
                Err(reason) => {
                    problems.push(format!("position {}: illegal move {mv} ({reason})", i + 1));
                    format!("ILLEGAL move {mv}: {reason}")
                }
            },
            Call::Failed(reason, fault) => {
                problems.push(format!("position {}: {reason} ({})", i + 1, fault.name()));
                format!("ILLEGAL call: {reason}")
            }
        };
        let ms = outcome.wall.as_millis();
        out.push_str(&format!(
            "  output: \"{}\" -> {verdict}\n  time: {ms} ms of {} ms (CPU {} ms)",
            shown.escape_ascii(),
            settings.timeout_ms,
            outcome.cpu.as_millis()
        ));
        if outcome.wall.as_millis() * 2 > u128::from(settings.timeout_ms)
            && outcome.reply.ending != game_core::Ending::TimedOut
        {
            out.push_str("  <- over half the limit: a busy machine may push it over");
        }
        out.push('\n');
        match outcome.reply.ending {
            game_core::Ending::Exited(0) => {}
            game_core::Ending::Exited(c) => out.push_str(&format!(
                "  note: exit status {c} (ignored by the referee, but worth a look)\n"
            )),
            game_core::Ending::Signalled(s) => {
                out.push_str(&format!("  note: killed by signal {s}\n"))
            }
            _ => {}
        }
        if !outcome.stderr.is_empty() {
            let text = String::from_utf8_lossy(&outcome.stderr);
            let first = text.lines().next().unwrap_or("");
            out.push_str(&format!(
                "  stderr (kept in the bot's log in a tournament): {first}\n"
            ));
        }
    }
    let after = folder_state(&cwd);
    let changed: Vec<&String> = after
        .iter()
        .filter(|(p, s)| before.get(*p) != Some(s))
        .map(|(p, _)| p)
        .collect();
    out.push('\n');
    if changed.is_empty() {
        out.push_str(&format!("files: wrote nothing in {}\n", cwd.display()));
    } else {
        let names: Vec<&str> = changed.iter().map(|s| s.as_str()).collect();
        out.push_str(&format!(
            "files: wrote {} in its folder (allowed; data.txt persists across games)\n",
            names.join(", ")
        ));
    }
    if support.landlock_abi.is_some() {
        out.push_str(
            "files: anything outside its own folder is denied by the sandbox, as in a tournament\n",
        );
    }
    if problems.is_empty() {
        out.push_str("verdict: the bot follows the meta-ttt contract on every position.\n");
    } else {
        out.push_str(&format!("verdict: {} problem(s):\n", problems.len()));
        for p in &problems {
            out.push_str(&format!("  - {p}\n"));
        }
    }
    crate::app::print_stdout(&out)?;
    Ok(if problems.is_empty() { 0 } else { 1 })
}

/// Every file below `dir` with its size and modification time.
fn folder_state(
    dir: &std::path::Path,
) -> std::collections::BTreeMap<String, (u64, Option<std::time::SystemTime>)> {
    let mut state = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(p),
                Ok(m) => {
                    let rel = p
                        .strip_prefix(dir)
                        .unwrap_or(&p)
                        .to_string_lossy()
                        .into_owned();
                    state.insert(rel, (m.len(), m.modified().ok()));
                }
                Err(_) => {}
            }
        }
    }
    state
}
