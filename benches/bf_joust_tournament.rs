//! bf-joust through the `referee` binary: the whole-tournament time of the
//! generated field of the engine benchmark (`games/bf-joust/benches`),
//! written as a tournament folder, against the engine alone on the same
//! field in the same run.
//!
//! Engine: in-process, all cores, from compiling the sources to the
//! scoreboard (as `cargo bench -p game-bf-joust --bench tournament`).
//! Referee: `referee --quiet --instructions ... --db FRESH` as a process:
//! start-up, reading the programs, planning, playing on all cores, every
//! match committed to SQLite, the scoreboard read back and printed. Its
//! scoreboard must equal the engine's. A rerun with every match stored
//! (nothing to play) gives the fixed cost of loading and looking up.
//!
//! Run: `cargo bench --bench bf_joust_tournament [-- --bots N --reps N]`;
//! `-- --write DIR` only writes the tournament folder to DIR (to time or
//! profile the referee on it by hand).

#[path = "../games/bf-joust/tests/support/field.rs"]
mod field;

use game_bf_joust::{
    format_scoreboard, plan_matches, run_plan, standings, Entry, Program, Settings, TapeLengths,
};
use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::time::TimeValLike;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const SEED: u64 = 2014;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The engine alone: compile, plan, play on all cores, score.
fn engine(bots: &[field::FieldBot], threads: usize) -> (Duration, u64, usize, String) {
    let start = Instant::now();
    let programs: Vec<Program> = bots
        .iter()
        .map(|b| Program::parse(b.source.as_bytes()).expect("generated bots are valid"))
        .collect();
    let entries: Vec<Entry> = bots
        .iter()
        .map(|b| Entry {
            name: b.name.clone(),
            owner: "bench".into(),
            invalid: None,
        })
        .collect();
    let settings = Settings {
        tape_lengths: TapeLengths::All,
        ..Settings::default()
    };
    let plan = plan_matches(&settings, &entries, SEED);
    let refs: Vec<Option<&Program>> = programs.iter().map(Some).collect();
    let mut results = vec![None; plan.len()];
    run_plan(&refs, &plan, settings.cycles, threads, |i, r| {
        results[i] = Some(r)
    });
    let board = format_scoreboard(&standings(
        &entries,
        plan.iter()
            .zip(&results)
            .filter_map(|(m, r)| r.map(|r| (m.left, m.right, r.outcome))),
    ));
    let took = start.elapsed();
    let cycles = results.iter().flatten().map(|r| r.cycles).sum();
    (took, cycles, plan.len(), board)
}

/// The field as a tournament folder: `NAME/NAME.bf` and an owner per bot.
fn write_tournament(dir: &Path, bots: &[field::FieldBot]) {
    let mut ins = format!("challenge: bf-joust\nseed: {SEED}\ntape-lengths: all\n");
    for b in bots {
        let folder = dir.join(&b.name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("{}.bf", b.name)), &b.source).unwrap();
        std::fs::write(folder.join("bot.toml"), "owner = \"bench\"\n").unwrap();
        ins.push_str(&b.name);
        ins.push('\n');
    }
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
}

/// One referee run; returns its wall time and stdout.
fn referee(dir: &Path, db: &Path) -> (Duration, String) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--quiet", "--instructions"])
        .arg(dir.join("instructions.txt"))
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// CPU time (user + system) used so far by this process, or by its
/// finished children. The machine may be shared, so CPU time is the
/// steadier figure; wall time is what an organiser waits.
fn cpu(who: UsageWho) -> Duration {
    getrusage(who).map_or(Duration::ZERO, |u| {
        let us = u.user_time().num_microseconds() + u.system_time().num_microseconds();
        Duration::from_micros(us.max(0) as u64)
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    // `cargo test --benches` runs this too: one small quick round there.
    let benching = std::env::args().any(|a| a == "--bench");
    let bots_count = arg("--bots", if benching { 40 } else { 6 }).max(2);
    let reps = arg("--reps", if benching { 5 } else { 1 }).max(1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bots = field::generate(bots_count, SEED);
    let args: Vec<String> = std::env::args().collect();
    if let Some(out) = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1))
    {
        write_tournament(Path::new(out), &bots);
        println!("wrote {out}/instructions.txt ({bots_count} bots)");
        return;
    }
    // Under target/, not the shared /tmp: a bot's Landlock rules grow with
    // the entries beside each folder along the tournament's path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    write_tournament(dir.path(), &bots);

    // Wall and CPU time per run of: the engine, the referee on a fresh
    // database, the referee again with every match stored.
    let mut times: [(Vec<Duration>, Vec<Duration>); 3] = Default::default();
    let mut cycles = 0;
    let mut matches = 0;
    for rep in 0..reps {
        let cpu0 = cpu(UsageWho::RUSAGE_SELF);
        let (t, c, m, board) = engine(&bots, threads);
        times[0].0.push(t);
        times[0].1.push(cpu(UsageWho::RUSAGE_SELF) - cpu0);
        (cycles, matches) = (c, m);

        let db = dir.path().join(format!("results-{rep}.db"));
        let cpu0 = cpu(UsageWho::RUSAGE_CHILDREN);
        let (t, shown) = referee(dir.path(), &db);
        assert_eq!(shown, board, "the referee's scoreboard is the engine's");
        times[1].0.push(t);
        let cpu1 = cpu(UsageWho::RUSAGE_CHILDREN);
        times[1].1.push(cpu1 - cpu0);
        let (t, again) = referee(dir.path(), &db);
        assert_eq!(again, board);
        times[2].0.push(t);
        times[2].1.push(cpu(UsageWho::RUSAGE_CHILDREN) - cpu1);
    }
    let [e, r, s] = times.map(|(wall, cpu)| (median(wall), median(cpu)));
    let rate = |d: Duration| cycles as f64 / d.as_secs_f64() / 1e6;
    println!(
        "field: {bots_count} bots, {matches} matches (all 21 lengths), {cycles} cycles; \
         {threads} threads; medians of {reps}"
    );
    println!(
        "  engine in-process:        wall {:7.1} ms = {:6.1} M cycles/s; CPU {:7.1} ms = {:6.1} M cycles per CPU-s",
        ms(e.0),
        rate(e.0),
        ms(e.1),
        rate(e.1)
    );
    println!(
        "  referee binary, fresh db: wall {:7.1} ms = {:6.1} M cycles/s; CPU {:7.1} ms = {:6.1} M cycles per CPU-s",
        ms(r.0),
        rate(r.0),
        ms(r.1),
        rate(r.1)
    );
    println!(
        "    referee / engine: wall {:.2}x, CPU {:.2}x",
        r.0.as_secs_f64() / e.0.as_secs_f64(),
        r.1.as_secs_f64() / e.1.as_secs_f64()
    );
    println!(
        "  referee binary, every match stored (nothing to play): wall {:.1} ms, CPU {:.1} ms",
        ms(s.0),
        ms(s.1)
    );
}
