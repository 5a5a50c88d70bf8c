//! The subcommands: run a tournament (resolve, prepare, a session, the
//! challenge's run, standings), watch, play one game, print standings,
//! check a bot.

use crate::challenge::{ChallengeInfo, RunContext};
use crate::challenges::{bf_joust, forty, gun_duel, heist, meta_ttt};
use crate::cli::{
    CheckArgs, CheckCommand, Cli, Command, PlayCommand, ReportArgs, RunArgs, StandingsArgs,
};
use crate::config::{self, Overrides};
use crate::error::{Error, Result};
use crate::lock;
use crate::output::print_stdout;
use crate::prepare;
use crate::progress::Progress;
use crate::results::Store;
use crate::session::Session;
use crate::shard::{Shard, ShardArg};
use crate::standings::Format;
use crate::status::Status;
use crate::tournament::cores;
use referee_sandbox::Support;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Runs the parsed command line.
pub fn main(cli: Cli) -> Result<Status> {
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
            Some(Command::Play(args)) => play(args, quiet).await,
            Some(Command::Standings(args)) => standings(args),
            Some(Command::Merge(args)) => {
                let cancel = CancellationToken::new();
                stop_on_signals(cancel.clone(), Arc::new(Progress::new(quiet)));
                crate::merge::merge(args, &cancel).await
            }
            Some(Command::Report(args)) => report(args),
            Some(Command::Check(args)) => check(args, quiet).await,
            Some(Command::Protocols) => protocols(),
            Some(Command::New(args)) => crate::new_bot::new(args),
        }
    })
}

/// What the command line overrides of the instructions' header.
fn overrides(args: &RunArgs) -> Overrides {
    Overrides {
        challenge: args.challenge,
        seed: args.seed,
        flags: args.setting_flags.0.clone(),
        settings: args.settings.clone(),
    }
}

/// `--jobs`: at most the number of cores, so a time limit means the same on
/// a busy machine; without it, the challenge's default.
fn jobs(requested: Option<usize>, challenge: &ChallengeInfo) -> Result<usize> {
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
                std::process::exit(Status::Interrupted.exit_code());
            }
        }
    });
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
    // Likewise: a busy machine could then time bots out.
    if let Some(note) = crate::bot::cpu_wait::missing_note() {
        eprintln!("referee: {note}");
    }
    Ok(support)
}

async fn run_tournament(args: RunArgs, quiet: bool) -> Result<Status> {
    let support = sandbox_support(args.require_sandbox)?;
    let progress = Arc::new(Progress::new(quiet));
    let cancel = CancellationToken::new();
    stop_on_signals(cancel.clone(), Arc::clone(&progress));
    let dir = tournament_dir(&args)?;
    let shard = shard(&args)?;
    let db = results_db(&args, &dir, shard);
    let Some(_lock) = lock::hold_database(&db, "referee run", args.wait, &cancel).await? else {
        return Ok(Status::Interrupted);
    };
    let _live = live_page(&args, &dir, shard, &cancel)?;
    run_pass(
        &args,
        shard,
        &support,
        &cancel,
        progress,
        &mut BTreeSet::new(),
    )
    .await
}

/// The part of the plan a run plays: `--shard I/N`, `--shard auto` from the
/// job engine's environment, or the whole plan.
fn shard(args: &RunArgs) -> Result<Shard> {
    match args.shard {
        None => Ok(Shard::WHOLE),
        Some(ShardArg::Given(shard)) => Ok(shard),
        Some(ShardArg::Auto) => {
            crate::shard::from_env(|name| std::env::var(name).ok(), args.shards)
                .map_err(Error::input)
        }
    }
}

/// Refuses `--shard` where the parts could not be the same tournament's:
/// a challenge that cannot be parted, a seed each shard would draw itself.
fn check_shardable(shard: Shard, info: &ChallengeInfo, seed_given: bool) -> Result<()> {
    if shard.is_whole() {
        return Ok(());
    }
    if let crate::challenge::Sharding::Refused(why) = info.sharding {
        return Err(Error::input(format!(
            "--shard: {why}; run it without --shard"
        )));
    }
    if !seed_given && info.seed == crate::challenge::SeedDefault::DrawAndRecord {
        return Err(Error::input(format!(
            "--shard: {} draws its seed at random unless one is given, and every shard must \
             play the same tournament: add `seed: N` to instructions.txt or pass --seed N",
            info.name
        )));
    }
    Ok(())
}

/// `--serve ADDR`: the live page, until the command ends (the handle's drop).
fn live_page(
    args: &RunArgs,
    dir: &Path,
    shard: Shard,
    cancel: &CancellationToken,
) -> Result<Option<crate::report::serve::LivePage>> {
    let Some(addr) = args.serve else {
        return Ok(None);
    };
    let live = crate::report::serve::start(addr, results_db(args, dir, shard), cancel)?;
    // Shown even with --quiet: it is what the organiser asked for.
    eprintln!("referee: live report at http://{}/", live.addr);
    Ok(Some(live))
}

/// The folder of `--instructions`.
fn tournament_dir(args: &RunArgs) -> Result<PathBuf> {
    let path = args.instructions.as_ref().ok_or_else(|| {
        Error::input("no tournament given: pass --instructions FILE (see --help)")
    })?;
    Ok(crate::instructions::Instructions::load(path)?.dir)
}

/// The results database: `--db`, else results.db in the tournament folder
/// `dir` (a shard's: shard-I-of-N.db there).
fn results_db(args: &RunArgs, dir: &Path, shard: Shard) -> PathBuf {
    args.db.clone().unwrap_or_else(|| {
        if shard.is_whole() {
            dir.join("results.db")
        } else {
            dir.join(format!("shard-{}-of-{}.db", shard.index, shard.count))
        }
    })
}

/// `referee watch`: runs what is missing, then watches the tournament
/// folder and plays again when something a pass reads changed (the
/// instructions, a bot folder appearing, going or changing), but not for
/// what the last pass itself wrote: results, logs, and a bot's writes to
/// its own folder ([`crate::watch`]). Prints the updated standings after
/// each pass. Stops on SIGTERM or Ctrl-C, exit status 0.
async fn watch(args: RunArgs, quiet: bool) -> Result<Status> {
    use crate::watch::{counts, settle, Snapshot};
    use notify::{RecursiveMode, Watcher};
    use std::sync::atomic::{AtomicU64, Ordering};
    let path = args.instructions.clone().ok_or_else(|| {
        Error::input("no tournament given: pass --instructions FILE (see --help)")
    })?;
    let dir = crate::instructions::Instructions::load(&path)?.dir;
    if args.shard.is_some() {
        return Err(Error::input(
            "--shard is for `referee run`: a watch plays the whole tournament",
        ));
    }
    let support = sandbox_support(args.require_sandbox)?;
    let cancel = CancellationToken::new();
    let progress = Arc::new(Progress::new(quiet));
    stop_on_signals(cancel.clone(), Arc::clone(&progress));
    // Held between passes too: a run started meanwhile would share the bots.
    let Some(_lock) = lock::hold_database(
        &results_db(&args, &dir, Shard::WHOLE),
        "referee watch",
        args.wait,
        &cancel,
    )
    .await?
    else {
        return Ok(Status::Interrupted);
    };

    let _live = live_page(&args, &dir, Shard::WHOLE, &cancel)?;

    // Events are counted, not queued: a bot writing all night costs nothing.
    let events = Arc::new(AtomicU64::new(0));
    let woken = Arc::new(tokio::sync::Notify::new());
    let (count, wake) = (Arc::clone(&events), Arc::clone(&woken));
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if counts(&event) {
            count.fetch_add(1, Ordering::Relaxed);
            wake.notify_one();
        }
    })
    .map_err(|e| Error::machine(format!("cannot watch {}: {e}", dir.display())))?;
    watcher
        .watch(&dir, RecursiveMode::Recursive)
        .map_err(|e| Error::machine(format!("cannot watch {}: {e}", dir.display())))?;

    loop {
        let before = Snapshot::take(&path, &dir);
        let mut played = BTreeSet::new();
        let progress = Arc::new(Progress::new(quiet));
        match run_pass(
            &args,
            Shard::WHOLE,
            &support,
            &cancel,
            progress,
            &mut played,
        )
        .await
        {
            Ok(_) => {}
            // A broken edit (bad instructions) waits for the next fix.
            Err(e @ Error::Input { .. }) => eprintln!("referee: error: {e}"),
            Err(e) => return Err(e),
        }
        if cancel.is_cancelled() {
            return Ok(Status::Done);
        }
        let after = Snapshot::take(&path, &dir);
        eprintln!(
            "referee: watching {} for new or changed bots (Ctrl-C to stop)",
            dir.display()
        );
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Ok(Status::Done),
                _ = woken.notified() => {}
            }
            if !settle(&events, &cancel).await {
                return Ok(Status::Done);
            }
            let now = Snapshot::take(&path, &dir);
            if let Some(what) = now.changed_since(&before, &after, &played) {
                eprintln!("referee: {what}; playing again");
                break;
            }
        }
    }
}

/// One pass over a tournament: resolve, build, play what is missing, print
/// the standings. The caller holds the results database's lock
/// ([`lock::hold_database`]).
/// `played` gets the names of the bots whose processes may run (builds
/// included), once they are known.
async fn run_pass(
    args: &RunArgs,
    shard: Shard,
    support: &Support,
    cancel: &CancellationToken,
    progress: Arc<Progress>,
    played: &mut BTreeSet<String>,
) -> Result<Status> {
    let path = args.instructions.clone().ok_or_else(|| {
        Error::input("no tournament given: pass --instructions FILE (see --help)")
    })?;
    let resolved = config::resolve_all(&path, &overrides(args))?;
    for bot in &resolved.left_out {
        // Shown even with --quiet: the organiser must know who is missing.
        eprintln!("referee: {}", bot.warning());
    }
    let resolved = resolved.enough_bots()?;
    check_shardable(shard, resolved.challenge.info(), resolved.seed_given)?;
    played.extend(resolved.spec.bots.iter().map(|b| b.name.clone()));
    let challenge = resolved.challenge.get();
    let info = challenge.info();
    let jobs = jobs(args.jobs, info)?;
    let mut spec = resolved.spec.clone();
    let db = results_db(args, &spec.dir, shard);
    let sandbox = prepare::Sandbox {
        support,
        denied: vec![spec.dir.clone(), db.clone()],
    };
    let mut store = Store::open(&db)?;
    crate::preflight::recover(&spec, &progress)?;

    // Builds, bot folders, logs and the sandbox exist for bot processes;
    // a challenge that interprets its bots' programs itself skips them.
    if !prepare::builds(&mut spec, &resolved, &sandbox, jobs, &progress, cancel).await? {
        return Ok(Status::Interrupted);
    }
    let (mut programs, mut logs) = if info.runs_processes() {
        prepare::processes(info, &spec, &sandbox)?
    } else {
        (Vec::new(), Vec::new())
    };
    // Every bot started once before the first game; the field, and so the
    // seed and the tournament's identity, is known after it.
    // The preflight calls each bot as the tournament would, so the seed
    // is chosen first, as if every bot can start (and chosen again for the
    // field that is left, if one cannot).
    let drawn = prepare::choose_seed(info, resolved.seed_given, &spec, &store)?;
    spec.seed = drawn.seed;
    let before = crate::preflight::Before {
        challenge,
        resolved: &resolved,
        sandbox: &sandbox,
        mode: args.preflight,
        jobs,
        progress: &progress,
        cancel,
    };
    if !crate::preflight::before_first_game(
        &before,
        &mut spec,
        &mut programs,
        &mut logs,
        &mut store,
    )
    .await?
    {
        return Ok(Status::Interrupted);
    }
    let drawn = match spec.bots.len() == resolved.spec.bots.len() {
        true => drawn,
        false => prepare::choose_seed(info, resolved.seed_given, &spec, &store)?.or(drawn),
    };
    spec.seed = drawn.seed;
    drawn.say(&db, &progress);
    // What the challenge reads of its bots itself is part of the
    // tournament's identity, so it happens before the tournament is recorded.
    let loaded = challenge.load(&mut spec)?;
    let description = serde_json::to_string(&spec).map_err(|e| Error::machine(e.to_string()))?;
    let row = store.tournament(&spec.challenge, &spec.identity(), &description)?;
    if !shard.is_whole() {
        store.begin_shard(row.id, shard)?;
    }

    let session = Session::open(
        store,
        &db,
        info.name,
        row.id,
        Arc::clone(&progress),
        cancel.clone(),
    )?;
    let ctx = RunContext {
        spec,
        programs,
        logs,
        loaded,
        jobs,
        shard,
    };
    let report = challenge.run(session, ctx).await?;
    tracing::info!(?report, "run finished");

    let mut store = Store::open(&db)?;
    // A shard's standings would be its part's only: the merge shows them.
    if shard.is_whole() {
        let text = render_standings(&store, row.id, Format::Text)?;
        print_stdout(&text)?;
    }
    let complete = !report.interrupted
        && report.stopped.is_none()
        && report.already_done + report.played >= report.total;
    if !shard.is_whole() && complete {
        store.set_shard_complete(row.id, shard)?;
        progress.say(&format!(
            "shard {shard} is complete in {}; combine the shards with \
             `referee merge --db results.db SHARD.db...`, then `referee standings`",
            db.display()
        ));
    }
    if report.interrupted {
        progress.say(&format!(
            "interrupted: {} of {} games are in {}; run the same command again to resume",
            report.already_done + report.played,
            report.total,
            db.display()
        ));
        return Ok(Status::Interrupted);
    }
    if let Some(reason) = report.stopped {
        return Err(Error::machine(format!(
            "the tournament stopped early: {reason}; {} of {} games are in {}",
            report.already_done + report.played,
            report.total,
            db.display()
        )));
    }
    Ok(Status::Done)
}

/// The leaderboard of a stored tournament in `format`.
pub fn render_standings(store: &Store, tournament_id: i64, format: Format) -> Result<String> {
    let row = store
        .find_tournament(Some(tournament_id))?
        .ok_or_else(|| Error::machine(format!("no tournament {tournament_id} in the database")))?;
    let (spec, challenge) = crate::challenge::stored(&row)?;
    let table = challenge.get().standings(store, &row, &spec, format)?;
    Ok(crate::standings::with_absent(table, format, &spec.absent))
}

/// `referee report`: the HTML page of a stored tournament.
fn report(args: ReportArgs) -> Result<Status> {
    let db = database(args.db.as_ref(), args.instructions.as_ref());
    let out = args.out.clone().unwrap_or_else(|| {
        args.instructions
            .as_deref()
            .unwrap_or(&db)
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            .join("report.html")
    });
    crate::report::write(&db, args.tournament, &out)?;
    print_stdout(&format!("{}\n", out.display()))?;
    Ok(Status::Done)
}

/// `--db`, else results.db beside `--instructions`, else in the current
/// directory.
fn database(db: Option<&PathBuf>, instructions: Option<&PathBuf>) -> PathBuf {
    match (db, instructions) {
        (Some(db), _) => db.clone(),
        (None, Some(ins)) => ins
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            .join("results.db"),
        (None, None) => PathBuf::from("results.db"),
    }
}

fn standings(args: StandingsArgs) -> Result<Status> {
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
    if let Some(note) = crate::merge::parts_note(&store, row.id)? {
        // Not part of the table: a script reading stdout gets the same.
        eprintln!("referee: {note}");
    }
    Ok(Status::Done)
}

/// `referee protocols`: the folder `{protocols}` stands for, on stdout.
fn protocols() -> Result<Status> {
    let dir = crate::protocols::dir()?;
    print_stdout(&format!("{}\n", dir.display()))?;
    Ok(Status::Done)
}

/// `referee play CHALLENGE ...`: one game with a transcript on stdout
/// (`-q`: its result only).
async fn play(command: PlayCommand, quiet: bool) -> Result<Status> {
    let cancel = CancellationToken::new();
    stop_on_signals(cancel.clone(), Arc::new(Progress::new(false)));
    match command {
        PlayCommand::MetaTtt(args) => meta_ttt::play(args, quiet, cancel).await,
        PlayCommand::BfJoust(args) => bf_joust::play(args, quiet, cancel).await,
        PlayCommand::Heist(args) => heist::play(args, quiet, cancel).await,
        PlayCommand::Forty(args) => forty::play(args, quiet, cancel).await,
        PlayCommand::GunDuel(args) => gun_duel::play(args, quiet, cancel).await,
    }
}

/// `referee check CHALLENGE BOT`: the bot against scripted positions;
/// `referee check --instructions FILE`: every bot of a tournament once.
async fn check(args: CheckArgs, quiet: bool) -> Result<Status> {
    let cancel = CancellationToken::new();
    stop_on_signals(cancel.clone(), Arc::new(Progress::new(false)));
    let Some(command) = args.challenge else {
        if args.tournament.instructions.is_none() {
            return Err(Error::input(
                "check what? `referee check CHALLENGE BOT` checks one bot, \
                 `referee check --instructions FILE` every bot of a tournament",
            ));
        }
        return check_tournament(&args.tournament, quiet, &cancel).await;
    };
    match command {
        CheckCommand::MetaTtt(args) => meta_ttt::check::check(args, cancel).await,
        CheckCommand::BfJoust(args) => bf_joust::check::check(args).await,
        CheckCommand::Heist(args) => heist::check::check(args, cancel).await,
        CheckCommand::Forty(args) => forty::check::check(args, cancel).await,
        CheckCommand::GunDuel(args) => gun_duel::check::check(args, cancel).await,
    }
}

/// `referee check --instructions FILE`: the tournament's bots resolved and
/// built as a run would, each started once (none remembered), one line
/// each on stdout. Exit status 0 when every bot can play, 1 otherwise.
async fn check_tournament(
    args: &RunArgs,
    quiet: bool,
    cancel: &CancellationToken,
) -> Result<Status> {
    let support = sandbox_support(args.require_sandbox)?;
    let progress = Progress::new(quiet);
    let path = args.instructions.clone().unwrap_or_default();
    let resolved = config::resolve_all(&path, &overrides(args))?;
    let challenge = resolved.challenge.get();
    let info = challenge.info();
    let jobs = jobs(args.jobs, info)?;
    let mut spec = resolved.spec.clone();
    let db = args
        .db
        .clone()
        .unwrap_or_else(|| spec.dir.join("results.db"));
    let sandbox = prepare::Sandbox {
        support: &support,
        denied: vec![spec.dir.clone(), db.clone()],
    };
    crate::preflight::recover(&spec, &progress)?;
    if !prepare::builds(&mut spec, &resolved, &sandbox, jobs, &progress, cancel).await? {
        return Ok(Status::Interrupted);
    }
    let (programs, logs) = if info.runs_processes() {
        prepare::processes(info, &spec, &sandbox)?
    } else {
        challenge.load(&mut spec)?;
        (Vec::new(), Vec::new())
    };
    // The seed a run would choose (an earlier run's in the database, if
    // there is one), so that each call is one the tournament could make.
    if db.exists() {
        let store = Store::open(&db)?;
        spec.seed = prepare::choose_seed(info, resolved.seed_given, &spec, &store)?.seed;
    }
    let own = programs.into_iter().enumerate().collect();
    let Some(called) = crate::preflight::call(challenge, &spec, own, &logs, jobs, cancel).await?
    else {
        return Ok(Status::Interrupted);
    };
    let (text, every_bot) = crate::preflight::report(&resolved, &spec, &called);
    print_stdout(&text)?;
    Ok(if every_bot {
        Status::Done
    } else {
        Status::ContractBroken
    })
}
