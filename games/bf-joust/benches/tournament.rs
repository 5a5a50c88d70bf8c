//! Whole-tournament throughput of the bf-joust engine.
//!
//! A deterministic field of generated bots (`tests/support/field.rs`) plays
//! a full round robin on all 21 tape lengths (this challenge has no polarity
//! flip), timed from compiling the sources to the finished leaderboard, on
//! all cores and on one; wall time and the process's CPU time are both
//! reported, since the machine may be shared. The same run times the simple
//! reference interpreter (`tests/support/reference.rs`) on a subset of the
//! matches, single-threaded, against the engine on the same subset.
//!
//! Run with `cargo bench -p game-bf-joust --bench tournament`. Optional
//! arguments (after `--`): `--bots N` (default 40), `--reps N` (default 7),
//! `--subset-every N` (default 25: every Nth match goes to the reference
//! run), `--engine-only` (just the engine on one thread, best of `--reps`).

#[path = "../tests/support/field.rs"]
mod field;
#[path = "../tests/support/reference.rs"]
mod reference;

use std::time::{Duration, Instant};

use game_bf_joust::{
    format_scoreboard, plan_matches, run_match, run_plan, standings, Entry, MatchResult, Outcome,
    Program, Settings, TapeLengths,
};

struct Options {
    bots: usize,
    reps: usize,
    subset_every: usize,
    /// Only time the engine on one thread (best of `reps`), for tuning.
    engine_only: bool,
}

fn options() -> Options {
    let mut o = Options {
        bots: 40,
        reps: 7,
        subset_every: 25,
        engine_only: false,
    };
    let args: Vec<String> = std::env::args().collect();
    let value = |i: usize| args.get(i + 1).and_then(|v| v.parse::<usize>().ok());
    for (i, arg) in args.iter().enumerate() {
        match arg.as_str() {
            "--bots" => o.bots = value(i).unwrap_or(o.bots).max(2),
            "--reps" => o.reps = value(i).unwrap_or(o.reps).max(1),
            "--subset-every" => o.subset_every = value(i).unwrap_or(o.subset_every).max(1),
            "--engine-only" => o.engine_only = true,
            _ => {}
        }
    }
    o
}

/// One whole tournament: compile every source, plan, play, score.
/// Returns the wall time, total cycles, the results and the leaderboard.
fn tournament(
    bots: &[field::FieldBot],
    threads: usize,
) -> (Duration, u64, Vec<MatchResult>, String) {
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
    let plan = plan_matches(&settings, &entries, 2014);
    let refs: Vec<Option<&Program>> = programs.iter().map(Some).collect();
    let mut results = vec![None; plan.len()];
    run_plan(&refs, &plan, settings.cycles, threads, |i, r| {
        results[i] = Some(r)
    });
    let results: Vec<MatchResult> = results
        .into_iter()
        .map(|r| r.expect("every match played"))
        .collect();
    let board = format_scoreboard(&standings(
        &entries,
        plan.iter()
            .zip(&results)
            .map(|(m, r)| (m.left, m.right, r.outcome)),
    ));
    let elapsed = start.elapsed();
    let cycles = results.iter().map(|r| r.cycles).sum();
    (elapsed, cycles, results, board)
}

/// CPU time of the whole process so far (all threads, finished ones
/// included), from `/proc/self/stat`; zero where that file is missing.
/// The machine may be shared, so CPU time is the steadier figure.
fn cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the line, in clock ticks (100 per second).
    let Some(rest) = stat.rsplit(')').next() else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    Duration::from_millis(ticks * 10)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn rate(cycles: u64, d: Duration) -> f64 {
    cycles as f64 / d.as_secs_f64()
}

/// The engine alone on one thread, every match of the plan, best of `reps`.
fn engine_only(bots: &[field::FieldBot], reps: usize) {
    let programs: Vec<Program> = bots
        .iter()
        .map(|b| Program::parse(b.source.as_bytes()).expect("valid"))
        .collect();
    let entries: Vec<Entry> = bots
        .iter()
        .map(|b| Entry {
            name: b.name.clone(),
            owner: "-".into(),
            invalid: None,
        })
        .collect();
    let settings = Settings {
        tape_lengths: TapeLengths::All,
        ..Settings::default()
    };
    let plan = plan_matches(&settings, &entries, 2014);
    let mut best = Duration::MAX;
    let mut cycles = 0;
    for _ in 0..reps {
        let start = Instant::now();
        cycles = plan
            .iter()
            .map(|m| {
                run_match(
                    &programs[m.left],
                    &programs[m.right],
                    m.tape_len,
                    settings.cycles,
                )
                .cycles
            })
            .sum::<u64>();
        best = best.min(start.elapsed());
    }
    println!(
        "engine only, 1 thread: {cycles} cycles, best {:.1} ms of {reps}: {:.1} M cycles/s",
        best.as_secs_f64() * 1e3,
        rate(cycles, best) / 1e6
    );
}

fn main() {
    let o = options();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bots = field::generate(o.bots, 2014);
    if o.engine_only {
        engine_only(&bots, o.reps);
        return;
    }

    let (_, cycles, results, board) = tournament(&bots, threads);
    let matches = results.len();
    let draws = results
        .iter()
        .filter(|r| r.outcome == Outcome::Draw)
        .count();
    let at_limit = results.iter().filter(|r| r.cycles == 10_000).count();
    println!(
        "field: {} bots, {} pairings x 21 lengths = {matches} matches, {cycles} cycles \
         (mean {:.0} per match; {draws} draws, {at_limit} at the limit)",
        bots.len(),
        matches / 21,
        cycles as f64 / matches as f64,
    );
    println!("top of the leaderboard:");
    for line in board.lines().take(7) {
        println!("{line}");
    }

    for jobs in [threads, 1] {
        let cpu_start = cpu_time();
        let times: Vec<Duration> = (0..o.reps).map(|_| tournament(&bots, jobs).0).collect();
        let cpu = (cpu_time() - cpu_start) / o.reps as u32;
        let (best, mid) = (
            *times.iter().min().expect("reps >= 1"),
            median(times.clone()),
        );
        println!(
            "whole tournament, {jobs} thread(s): median {:.1} ms, best {:.1} ms over {} runs; \
             {:.1} M cycles/s (median), {:.1} M cycles/s (best); \
             {:.1} ms CPU per run = {:.1} M cycles per CPU-second",
            mid.as_secs_f64() * 1e3,
            best.as_secs_f64() * 1e3,
            o.reps,
            rate(cycles, mid) / 1e6,
            rate(cycles, best) / 1e6,
            cpu.as_secs_f64() * 1e3,
            rate(cycles, cpu) / 1e6,
        );
    }

    // Same-run baseline: the reference interpreter and the engine, both on
    // one thread, on every Nth match of the plan.
    let settings = Settings {
        tape_lengths: TapeLengths::All,
        ..Settings::default()
    };
    let entries: Vec<Entry> = bots
        .iter()
        .map(|b| Entry {
            name: b.name.clone(),
            owner: "-".into(),
            invalid: None,
        })
        .collect();
    let subset: Vec<_> = plan_matches(&settings, &entries, 2014)
        .into_iter()
        .step_by(o.subset_every)
        .collect();
    let fast: Vec<Program> = bots
        .iter()
        .map(|b| Program::parse(b.source.as_bytes()).expect("valid"))
        .collect();
    let slow: Vec<reference::RefProgram> = bots
        .iter()
        .map(|b| reference::RefProgram::new(b.source.as_bytes()))
        .collect();

    let start = Instant::now();
    let ref_results: Vec<_> = subset
        .iter()
        .map(|m| reference::result(&slow[m.left], &slow[m.right], m.tape_len, settings.cycles))
        .collect();
    let ref_time = start.elapsed();
    let subset_cycles: u64 = ref_results.iter().map(|r| r.1).sum();

    let mut fast_times = Vec::new();
    for _ in 0..o.reps {
        let start = Instant::now();
        let cycles: u64 = subset
            .iter()
            .map(|m| run_match(&fast[m.left], &fast[m.right], m.tape_len, settings.cycles).cycles)
            .sum();
        fast_times.push(start.elapsed());
        assert_eq!(cycles, subset_cycles, "engine and reference disagree");
    }
    let fast_time = median(fast_times);
    println!(
        "subset of {} matches ({subset_cycles} cycles), 1 thread: reference {:.2} M cycles/s, \
         engine {:.1} M cycles/s, ratio {:.0}x",
        subset.len(),
        rate(subset_cycles, ref_time) / 1e6,
        rate(subset_cycles, fast_time) / 1e6,
        ref_time.as_secs_f64() / fast_time.as_secs_f64(),
    );
}
