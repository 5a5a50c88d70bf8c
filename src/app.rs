//! The subcommands: run a tournament, play one game, print standings.

use crate::bot::{BotLog, BotProgram};
use crate::bot_build::run_build;
use crate::challenges;
use crate::cli::{Cli, Command, PlayArgs, RunArgs, StandingsArgs};
use crate::config::{self, Overrides};
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::results::Store;
use crate::standings::Format;
use crate::tournament::spec::fingerprint_with_content;
use crate::tournament::{self, TournamentSpec};
use referee_sandbox::{Confinement, Policy, Setup, Support};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Exit status of an interrupted run.
pub const EXIT_INTERRUPTED: i32 = 130;
/// Exit status for bad input (as [`Error::exit_code`] gives it).
pub const EXIT_BAD_INPUT: i32 = 2;

/// Runs the parsed command line; returns the exit status.
pub fn main(cli: Cli) -> Result<i32> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::machine(format!("cannot start the async runtime: {e}")))?;
    let quiet = cli.quiet;
    if let Err(e) = crate::bot::reaper::enable() {
        tracing::warn!("cannot become the subreaper of bot processes: {e}");
    }
    runtime.block_on(async move {
        match cli.command {
            None => run_tournament(cli.run, quiet).await,
            Some(Command::Run(args)) => run_tournament(args, quiet).await,
            Some(Command::Watch(args)) => watch(args, quiet).await,
            Some(Command::Play(args)) => play(args).await,
            Some(Command::Standings(args)) => standings(args),
            Some(Command::Check(args)) => {
                let cancel = CancellationToken::new();
                stop_on_signals(cancel.clone(), Arc::new(Progress::new(false)));
                challenges::check(args, cancel).await
            }
        }
    })
}

/// Cores the referee may use for bots.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--jobs`: at most the number of cores, so a time limit means the same on
/// a busy machine; without it, the challenge's default.
fn jobs(requested: Option<usize>, challenge: challenges::ChallengeId) -> Result<usize> {
    match requested {
        Some(0) => Err(Error::input("--jobs must be at least 1")),
        Some(j) => Ok(j.min(cores())),
        None => Ok(challenge.default_jobs(cores())),
    }
}

/// Cancels `token` on the first Ctrl-C or SIGTERM; exits at once on the second.
fn stop_on_signals(token: CancellationToken, progress: Arc<Progress>) {
    tokio::spawn(async move {
        let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return;
        };
        let mut stops = 0;
        loop {
            tokio::select! {
                r = tokio::signal::ctrl_c() => if r.is_err() { return },
                _ = term.recv() => {}
            }
            stops += 1;
            if stops == 1 {
                progress.say("stopping: finished games are saved; interrupt again to quit at once");
                token.cancel();
            } else {
                // Bots die with the referee (their parent-death signal).
                std::process::exit(EXIT_INTERRUPTED);
            }
        }
    });
}

fn log_path(dir: &Path, name: &str) -> PathBuf {
    dir.join("logs").join(format!("{name}.log"))
}

/// Probes the sandbox once and says what cannot be applied.
fn sandbox_support(require: bool) -> Result<Support> {
    let support = Support::probe();
    let missing = support.missing();
    if require && !missing.is_empty() {
        return Err(Error::machine(format!(
            "--require-sandbox: {}",
            missing.join("; ")
        )));
    }
    for line in &missing {
        // Shown even with --quiet: the organiser must know bots are not confined.
        eprintln!("referee: {line}");
    }
    Ok(support)
}

async fn run_tournament(args: RunArgs, quiet: bool) -> Result<i32> {
    let support = sandbox_support(args.require_sandbox)?;
    let progress = Arc::new(Progress::new(quiet));
    let cancel = CancellationToken::new();
    stop_on_signals(cancel.clone(), Arc::clone(&progress));
    run_pass(&args, &support, &cancel, progress).await
}

/// `referee watch`: runs what is missing, then watches the tournament
/// folder and plays again whenever a bot folder appears or changes (or the
/// instructions do), printing the updated standings. Stops on SIGTERM or
/// Ctrl-C, exit status 0.
async fn watch(args: RunArgs, quiet: bool) -> Result<i32> {
    use notify::{RecursiveMode, Watcher};
    let path = args.instructions.clone().ok_or_else(|| {
        Error::input("no tournament given: pass --instructions FILE (see --help)")
    })?;
    let dir = crate::instructions::Instructions::load(&path)?.dir;
    let support = sandbox_support(args.require_sandbox)?;
    let cancel = CancellationToken::new();
    let progress = Arc::new(Progress::new(quiet));
    stop_on_signals(cancel.clone(), Arc::clone(&progress));

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok() {
            let _ = tx.send(());
        }
    })
    .map_err(|e| Error::machine(format!("cannot watch {}: {e}", dir.display())))?;
    watcher
        .watch(&dir, RecursiveMode::Recursive)
        .map_err(|e| Error::machine(format!("cannot watch {}: {e}", dir.display())))?;

    loop {
        let before = folder_snapshot(&path, &dir);
        let progress = Arc::new(Progress::new(quiet));
        match run_pass(&args, &support, &cancel, progress).await {
            Ok(_) => {}
            // A broken edit (bad instructions or bot.toml) waits for the next fix.
            Err(e @ Error::Input { .. }) => eprintln!("referee: error: {e}"),
            Err(e) => return Err(e),
        }
        if cancel.is_cancelled() {
            return Ok(0);
        }
        eprintln!(
            "referee: watching {} for new or changed bots (Ctrl-C to stop)",
            dir.display()
        );
        // Our own run changed the folder (results, logs, data files): only a
        // change of what identifies the bots starts another pass.
        let mut last = before;
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Ok(0),
                got = rx.recv() => if got.is_none() { return Ok(0) },
            }
            // Let a copy in progress settle, then drain the burst of events.
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            while rx.try_recv().is_ok() {}
            let now = folder_snapshot(&path, &dir);
            if now != last {
                break;
            }
            last = now;
        }
    }
}

/// What identifies a tournament's field: the instructions' text and every
/// bot folder's content hash (ignoring what bots write while playing).
fn folder_snapshot(instructions: &Path, dir: &Path) -> Vec<(String, String)> {
    let mut snap = vec![(
        "instructions".to_string(),
        std::fs::read_to_string(instructions).unwrap_or_default(),
    )];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.path().is_dir() || crate::instructions::RESERVED_NAMES.contains(&name.as_str()) {
                continue;
            }
            let ignore = crate::bot_toml::BotToml::load(&e.path())
                .ok()
                .flatten()
                .map(|t| t.ignore)
                .unwrap_or_default();
            snap.push((name, crate::bot_folder::content_hash(&e.path(), &ignore)));
        }
    }
    snap.sort();
    snap
}

/// One pass over a tournament: resolve, build, play what is missing, print
/// the standings.
async fn run_pass(
    args: &RunArgs,
    support: &Support,
    cancel: &CancellationToken,
    progress: Arc<Progress>,
) -> Result<i32> {
    let path = args.instructions.clone().ok_or_else(|| {
        Error::input("no tournament given: pass --instructions FILE (see --help)")
    })?;
    let overrides = Overrides {
        challenge: args.challenge,
        seed: args.seed,
        flags: args.setting_flags(),
        settings: args.settings.clone(),
    };
    let resolved = config::resolve(&path, &overrides)?;
    let jobs = jobs(args.jobs, resolved.challenge)?;
    // Builds, bot folders, logs and the sandbox exist for bot processes;
    // a challenge that interprets its bots' programs itself skips them.
    let processes = resolved.challenge.runs_processes();
    let mut spec = resolved.spec.clone();
    let db = args
        .db
        .clone()
        .unwrap_or_else(|| spec.dir.join("results.db"));
    let cancel = cancel.clone();
    // Bots may touch neither the tournament folder (but their own) nor the results.
    let denied = vec![spec.dir.clone(), db.clone()];

    let mut store = Store::open(&db)?;

    // Builds first: a failed one leaves its bot out, the rest go on. A build
    // is redone only when the folder changed since its last success.
    let mut keep = Vec::with_capacity(spec.bots.len());
    for ((bot, build), ignore) in spec
        .bots
        .iter_mut()
        .zip(&resolved.builds)
        .zip(&resolved.ignores)
    {
        let folder_key = bot.folder.to_string_lossy().into_owned();
        let mut content = crate::bot_folder::content_hash(&bot.folder, ignore);
        let ok = match build {
            None => true,
            Some(build)
                if store.built(&folder_key, &build.command)?.as_deref()
                    == Some(content.as_str()) =>
            {
                progress.say(&format!("{}: build is up to date", bot.name));
                true
            }
            Some(build) => {
                progress.say(&format!("building {}: {}", bot.name, build.command));
                let log = BotLog::new(log_path(&spec.dir, &bot.name));
                let confinement = confine(support, "build", &bot.folder, &denied, None)?;
                match run_build(&bot.name, &bot.folder, build, confinement, &log, &cancel).await {
                    Ok(()) => {
                        content = crate::bot_folder::content_hash(&bot.folder, ignore);
                        store.set_built(&folder_key, &build.command, &content)?;
                        true
                    }
                    Err(reason) => {
                        eprintln!("referee: {reason}");
                        false
                    }
                }
            }
        };
        bot.fingerprint = fingerprint_with_content(&bot.name, &bot.command, &content);
        keep.push(ok);
    }
    if cancel.is_cancelled() {
        return Ok(EXIT_INTERRUPTED);
    }
    let mut keep_iter = keep.iter();
    spec.bots.retain(|_| *keep_iter.next().unwrap_or(&true));
    if spec.bots.len() < 2 {
        return Err(Error::machine(format!(
            "only {} bot(s) left after failed builds; a tournament needs 2",
            spec.bots.len()
        )));
    }

    if !resolved.seed_given && resolved.challenge.draws_default_seed() {
        spec.seed = match earlier_seed(&store, &spec)? {
            Some(seed) => {
                progress.say(&format!(
                    "seed {seed}, from the earlier run of this tournament in {} (pass --seed to choose)",
                    db.display()
                ));
                seed
            }
            None => {
                let seed = rand::random();
                progress.say(&format!(
                    "seed {seed}, drawn at random and recorded in {}",
                    db.display()
                ));
                seed
            }
        };
    }

    // What the challenge reads of its bots itself is part of the
    // tournament's identity, so it happens before the tournament is recorded.
    let loaded = challenges::load(resolved.challenge, &mut spec)?;
    let description = serde_json::to_string(&spec).map_err(|e| Error::machine(e.to_string()))?;
    let row = store.tournament(&spec.challenge, &spec.identity(), &description)?;
    let (programs, logs) = if processes {
        // Each bot's folder exists before its confinement is prepared, so the
        // sandbox can grant it.
        for bot in &spec.bots {
            std::fs::create_dir_all(&bot.folder).map_err(|e| {
                Error::machine(format!(
                    "{}: cannot create the bot folder: {e}",
                    bot.folder.display()
                ))
            })?;
        }
        let policy = spec.challenge.clone();
        let memory_mb = spec
            .settings
            .get("memory-mb")
            .and_then(|v| v.trim().parse::<u64>().ok());
        let programs = spec
            .bots
            .iter()
            .map(|b| {
                Ok(program_for(
                    &spec,
                    b,
                    confine(support, &policy, &b.folder, &denied, memory_mb)?,
                ))
            })
            .collect::<Result<Vec<BotProgram>>>()?;
        let logs: Vec<BotLog> = spec
            .bots
            .iter()
            .map(|b| BotLog::new(log_path(&spec.dir, &b.name)))
            .collect();
        (programs, logs)
    } else {
        (Vec::new(), Vec::new())
    };

    let ctx = challenges::RunContext {
        spec: spec.clone(),
        programs,
        logs,
        loaded,
        store,
        db: db.clone(),
        tournament_id: row.id,
        jobs,
        cancel: cancel.clone(),
        progress: Arc::clone(&progress),
    };
    let report = challenges::run(resolved.challenge, ctx).await?;
    tracing::info!(?report, "run finished");

    let store = Store::open(&db)?;
    let text = render_standings(&store, row.id, Format::Text)?;
    print_stdout(&text)?;
    if report.interrupted {
        progress.say(&format!(
            "interrupted: {} of {} games are in {}; run the same command again to resume",
            report.already_done + report.played,
            report.total,
            db.display()
        ));
        return Ok(EXIT_INTERRUPTED);
    }
    if let Some(reason) = report.stopped {
        return Err(Error::machine(format!(
            "the tournament stopped early: {reason}; {} of {} games are in {}",
            report.already_done + report.played,
            report.total,
            db.display()
        )));
    }
    Ok(0)
}

/// The seed of the latest stored tournament that is `spec` but for its seed.
fn earlier_seed(store: &Store, spec: &TournamentSpec) -> Result<Option<u64>> {
    let rows = store.tournaments()?;
    for row in rows.iter().rev() {
        if row.challenge != spec.challenge {
            continue;
        }
        let Ok(stored) = serde_json::from_str::<TournamentSpec>(&row.description) else {
            continue;
        };
        let mut candidate = spec.clone();
        candidate.seed = stored.seed;
        if candidate.identity() == row.identity {
            return Ok(Some(stored.seed));
        }
    }
    Ok(None)
}

/// A bot's process settings from its spec.
fn program_for(
    spec: &TournamentSpec,
    bot: &tournament::BotSpec,
    confinement: Confinement,
) -> BotProgram {
    BotProgram {
        name: bot.name.clone(),
        argv: bot.argv.clone(),
        cwd: spec.dir.clone(),
        folder: bot.folder.clone(),
        confinement,
        env: Vec::new(),
    }
}

/// The confinement of one bot under the named policy (a challenge id, or `build`).
fn confine(
    support: &Support,
    policy: &str,
    folder: &Path,
    denied: &[PathBuf],
    memory_mb: Option<u64>,
) -> Result<Confinement> {
    let mut policy = Policy::named(policy).map_err(Error::machine)?;
    // A challenge's own memory setting (forty's `memory-mb`) beats the policy's default.
    if let Some(mb) = memory_mb {
        policy.memory_mb = mb;
    }
    let setup = Setup {
        policy: &policy,
        own_folder: folder,
        denied,
        readable: &[],
    };
    Confinement::prepare(&setup, support).map_err(|e| {
        Error::machine(format!(
            "{}: cannot prepare the sandbox: {e}",
            folder.display()
        ))
    })
}

pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::machine(format!("cannot write to stdout: {e}")))
}

/// The leaderboard of a stored tournament in `format`.
pub fn render_standings(store: &Store, tournament_id: i64, format: Format) -> Result<String> {
    let row = store
        .find_tournament(Some(tournament_id))?
        .ok_or_else(|| Error::machine(format!("no tournament {tournament_id} in the database")))?;
    let spec: TournamentSpec = serde_json::from_str(&row.description).map_err(|e| {
        Error::machine(format!(
            "tournament {} has an unreadable description: {e}",
            row.id
        ))
    })?;
    challenges::standings(store, &row, &spec, format)
}

fn standings(args: StandingsArgs) -> Result<i32> {
    let db = match (&args.db, &args.instructions) {
        (Some(db), _) => db.clone(),
        (None, Some(ins)) => ins
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            .join("results.db"),
        (None, None) => PathBuf::from("results.db"),
    };
    if !db.exists() {
        return Err(Error::input(format!(
            "{}: no results database here",
            db.display()
        )));
    }
    let store = Store::open(&db)?;
    let row = store
        .find_tournament(args.tournament)?
        .ok_or_else(|| Error::input(format!("{}: no tournament recorded", db.display())))?;
    print_stdout(&render_standings(&store, row.id, args.format)?)?;
    Ok(0)
}

async fn play(args: PlayArgs) -> Result<i32> {
    let cancel = CancellationToken::new();
    stop_on_signals(cancel.clone(), Arc::new(Progress::new(false)));
    challenges::play(args, cancel).await
}
