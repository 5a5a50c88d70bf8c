//! forty benchmarks B1 and B2 (spec section 10).
//!
//! B1, throughput: a field of 20 class-based Python bots (the six of
//! `examples/bots/forty` and the fourteen of `benches/forty/field`), each
//! in its own host process, played by the referee (`referee --instructions`,
//! start-up included, default settings but `games` and a fixed seed),
//! against `benches/forty/simulate.py`: the same bot files played
//! in-process by a Python controller with as many workers as the referee
//! uses cores. Three alternating runs of each; the ratio of the median
//! games per second is the figure (goal: at least 1), and the CPU time of
//! each run, every process included (user + system of the run and all
//! its descendants, from `getrusage(RUSAGE_CHILDREN)`), per game: the
//! isolated design's CPU against the in-process one's (issue 19's goal:
//! at most 1.4 times). On shared machines CPU time is the steadier figure.
//!
//! B2, memory: one referee run of many games; resident memory of the
//! referee, and of the sum of its bot processes, sampled as the committed
//! games pass 10^4, 2·10^4, 5·10^4, 10^5, ... and near the end (goal:
//! flat, within 10 %).
//!
//! Run: `cargo bench --bench forty_throughput`
//! Environment: FORTY_BENCH_GAMES (B1, default 100000),
//! FORTY_BENCH_MEMORY_GAMES (B2, default 1000000),
//! FORTY_BENCH_ROUNDS (default 3; 0 skips B1). `cargo test --benches`
//! runs one tiny round instead.

use nix::sys::resource::{getrusage, UsageWho};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SEED: u64 = 20190107;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real interpreter: `python3` on PATH may be a slow shim.
fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// (name, file) of every bot of the field.
fn field() -> Vec<(String, PathBuf)> {
    let mut bots = Vec::new();
    let examples = root().join("examples/bots/forty");
    for entry in std::fs::read_dir(&examples).unwrap() {
        let dir = entry.unwrap().path();
        let file = dir.join("bot.py");
        if file.is_file() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            bots.push((name, file));
        }
    }
    for entry in std::fs::read_dir(root().join("benches/forty/field")).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().is_some_and(|e| e == "py") {
            let name = file.file_stem().unwrap().to_string_lossy().into_owned();
            bots.push((name, file));
        }
    }
    bots.sort();
    assert!(bots.len() >= 20, "the field has {} bots", bots.len());
    bots
}

/// A fresh tournament folder for the field.
fn tournament(parent: &Path, py: &str, games: u64) -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = parent.join(format!("t{stamp}"));
    std::fs::create_dir_all(&dir).unwrap();
    let host = root().join("protocols/forty/forty_host.py");
    let mut ins = format!("challenge: forty\nseed: {SEED}\ngames: {games}\n");
    for (name, file) in field() {
        ins.push_str(&format!(
            "{name} {py} {} {}\n",
            host.display(),
            file.display()
        ));
    }
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
    dir
}

/// One referee run: its wall time, and the failures table if any (the
/// spec requires none from these well-behaved bots; on a loaded machine a
/// process kept off the CPU past its deadline shows up here).
fn referee(parent: &Path, py: &str, games: u64) -> (Duration, Option<String>) {
    let dir = tournament(parent, py, games);
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        // Games only: no preflight calls before them.
        .args(["--quiet", "--preflight", "off", "--instructions"])
        .arg(dir.join("instructions.txt"))
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\t0 games ran until the round limit"),
        "{text}"
    );
    let failures = text.find("|Timeouts|").map(|at| {
        text[at..]
            .lines()
            .filter(|l| l.contains("|    ok|") || l.contains("|    DQ|"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    std::fs::remove_dir_all(&dir).ok();
    (took, failures)
}

/// One run of the in-process simulation; its wall time (start-up included).
fn simulation(py: &str, games: u64, workers: usize) -> Duration {
    let mut cmd = Command::new(py);
    cmd.arg(root().join("benches/forty/simulate.py"))
        .args(["--games", &games.to_string()])
        .args(["--workers", &workers.to_string()])
        .args(["--seed", &SEED.to_string()])
        .env("OPENBLAS_NUM_THREADS", "1")
        .env("OMP_NUM_THREADS", "1")
        .env("MKL_NUM_THREADS", "1");
    for (_, file) in field() {
        cmd.arg(file);
    }
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// CPU time (user + system) of every child this process has waited for,
/// and of their descendants that were waited for in turn.
fn children_cpu() -> Duration {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let d = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    d(usage.user_time()) + d(usage.system_time())
}

/// Runs `f` (which runs and waits for one child) and returns its result
/// with the CPU time of that child and its descendants.
fn with_cpu<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let before = children_cpu();
    let out = f();
    (out, children_cpu().saturating_sub(before))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn env_or(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident memory of a process, in KiB.
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Sum of the resident memory of `pid`'s children.
fn children_rss_kib(pid: u32) -> (u64, usize) {
    let mut total = 0;
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            total += rss_kib(child);
            count += 1;
        }
    }
    (total, count)
}

fn committed_games(db: &Path) -> u64 {
    if !db.exists() {
        return 0;
    }
    rusqlite::Connection::open(db)
        .and_then(|c| {
            c.query_row(
                "SELECT count(*) FROM games WHERE game_key NOT LIKE '%~%'",
                [],
                |r| r.get::<_, i64>(0),
            )
        })
        .map_or(0, |blocks| blocks as u64 * 1000)
}

/// B2: (committed games, referee KiB, bots KiB), sampled once each time
/// the committed games pass 10^4, 2·10^4, 5·10^4, 10^5, ... (below
/// `games`), and once more just before the end.
fn memory(parent: &Path, py: &str, games: u64) -> Vec<(u64, u64, u64)> {
    let dir = tournament(parent, py, games);
    let db = dir.join("results.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        // Games only: no preflight calls before them.
        .args(["--quiet", "--preflight", "off", "--instructions"])
        .arg(dir.join("instructions.txt"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut marks: Vec<u64> = Vec::new();
    let mut m = 10_000u64;
    while m < games {
        for k in [1, 2, 5] {
            if m * k < games {
                marks.push(m * k);
            }
        }
        m *= 10;
    }
    let mut samples = Vec::new();
    let mut last = None;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            assert!(status.success());
            break;
        }
        let done = committed_games(&db);
        let (bots, n) = children_rss_kib(pid);
        if n >= 20 {
            let sample = (done, rss_kib(pid), bots);
            while marks.first().is_some_and(|&m| done >= m) {
                marks.remove(0);
                samples.push(sample);
                // As it goes: a long run cut short still tells something.
                eprintln!(
                    "  sampled at {:>8} games: referee {:>6} KiB, bots (sum) {:>7} KiB",
                    sample.0, sample.1, sample.2
                );
            }
            if done < games {
                last = Some(sample);
            }
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    samples.extend(last);
    std::fs::remove_dir_all(&dir).ok();
    samples
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (games, memory_games, rounds) = if bench {
        (
            env_or("FORTY_BENCH_GAMES", 100_000),
            env_or("FORTY_BENCH_MEMORY_GAMES", 1_000_000),
            env_or("FORTY_BENCH_ROUNDS", 3) as usize,
        )
    } else {
        (2_000, 12_000, 1)
    };
    let py = python();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Under target/, not the shared /tmp: a bot's Landlock rules grow with
    // the entries beside each folder along the tournament's path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    println!(
        "forty B1: {} bots, {games} games, {rounds} alternating rounds, {cores} cores, {py}",
        field().len()
    );
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut cpu_ratios = Vec::new();
    let us_per_game = |cpu: Duration| cpu.as_secs_f64() * 1e6 / games as f64;
    for round in 0..rounds {
        let ((took, failures), our_cpu) = with_cpu(|| referee(dir.path(), &py, games));
        if let Some(failures) = failures {
            println!(
                "  round {}: failures of well-behaved bots:\n{failures}",
                round + 1
            );
        }
        let r = games as f64 / took.as_secs_f64();
        let (their_wall, their_cpu) = with_cpu(|| simulation(&py, games, cores));
        let s = games as f64 / their_wall.as_secs_f64();
        let cpu_ratio = our_cpu.as_secs_f64() / their_cpu.as_secs_f64().max(1e-9);
        println!(
            "  round {}: referee {r:.0} games/s, {:.0} us CPU/game; in-process {s:.0} games/s, {:.0} us CPU/game; CPU ratio {cpu_ratio:.3}",
            round + 1,
            us_per_game(our_cpu),
            us_per_game(their_cpu),
        );
        ours.push(r);
        theirs.push(s);
        cpu_ratios.push(cpu_ratio);
    }
    if rounds > 0 {
        let (r, s) = (median(ours), median(theirs));
        println!(
        "  median: referee {r:.0} games/s, in-process simulation {s:.0} games/s, ratio {:.3}  [goal >= 1]",
            r / s
        );
        println!(
            "  median CPU ratio (referee and its hosts / in-process, all processes): {:.3}  [goal <= 1.4]",
            median(cpu_ratios)
        );
    }

    println!("forty B2: {memory_games} games; resident memory as committed games grow");
    let samples = memory(dir.path(), &py, memory_games);
    for (done, referee, bots) in &samples {
        println!("  at {done:>8} games: referee {referee:>6} KiB, bots (sum) {bots:>7} KiB");
    }
    if let (Some(first), Some(last)) = (samples.first(), samples.last()) {
        let pct = |a: u64, b: u64| 100.0 * (b as f64 - a as f64) / (a.max(1) as f64);
        println!(
            "  growth from {} to {} games: referee {:+.1} %, bots {:+.1} %  [goal: within 10 %]",
            first.0,
            last.0,
            pct(first.1, last.1),
            pct(first.2, last.2)
        );
    }
}
