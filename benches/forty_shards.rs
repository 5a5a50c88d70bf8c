//! The cost of sharding (README, "Running on a cluster"): a forty
//! tournament of the six Python bots of `examples/bots/forty`, played by
//! one `referee --instructions` (the baseline), against the same
//! tournament as 4 shard processes side by side on the same machine
//! (`--shard I/4`, each with the default `--jobs`) followed by `referee
//! merge`. Alternating rounds; the figure is the ratio of the median wall
//! times, sharded (shards and merge) over unsharded: about 1 means
//! sharding costs nothing beyond the machine's cores. The merge's own
//! time is shown too, and every round checks that the merged tournament
//! seated every bot in as many games as the unsharded one.
//!
//! Run: `cargo bench --bench forty_shards`
//! Environment: SHARD_BENCH_GAMES (default 40000), SHARD_BENCH_ROUNDS
//! (default 3). `cargo test --benches` runs one tiny round instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SHARDS: u32 = 4;

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

/// A fresh tournament folder: the Python example bots, `games` games.
fn tournament(parent: &Path, py: &str, games: u64, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let host = root().join("protocols/forty/forty_host.py");
    let mut ins = format!("challenge: forty\nseed: 40\ngames: {games}\n");
    let mut bots: Vec<PathBuf> = std::fs::read_dir(root().join("examples/bots/forty"))
        .unwrap()
        .map(|e| e.unwrap().path().join("bot.py"))
        .filter(|f| f.is_file())
        .collect();
    bots.sort();
    for file in bots {
        let bot = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        ins.push_str(&format!(
            "{bot} {py} {} {}\n",
            host.display(),
            file.display()
        ));
    }
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
    dir
}

fn referee(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_referee"));
    cmd.current_dir(dir)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    cmd
}

/// Games played per bot: the seatings, which follow from the seed (some of
/// these bots draw their own random numbers, so wins vary between runs).
fn played(dir: &Path) -> Vec<(String, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["standings", "--db", "results.db", "--format", "json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut played: Vec<(String, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["played"].as_u64().unwrap(),
            )
        })
        .collect();
    played.sort();
    played
}

/// The unsharded run's wall time.
fn whole(dir: &Path) -> Duration {
    let started = Instant::now();
    let status = referee(dir)
        .args(["--instructions", "instructions.txt", "--quiet"])
        .status()
        .unwrap();
    assert!(status.success());
    started.elapsed()
}

/// The shards' wall time (all started at once, until the last ends), and
/// the merge's.
fn sharded(dir: &Path) -> (Duration, Duration) {
    let started = Instant::now();
    let children: Vec<_> = (0..SHARDS)
        .map(|i| {
            referee(dir)
                .args(["--instructions", "instructions.txt", "--quiet"])
                .args(["--shard", &format!("{i}/{SHARDS}")])
                .args(["--db", &format!("shard-{i}.db")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let shards = started.elapsed();
    let started = Instant::now();
    let status = referee(dir)
        .args(["merge", "--db", "results.db"])
        .args((0..SHARDS).map(|i| format!("shard-{i}.db")))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    (shards, started.elapsed())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (games, rounds) = if bench {
        (
            env_or("SHARD_BENCH_GAMES", 40_000),
            env_or("SHARD_BENCH_ROUNDS", 3),
        )
    } else {
        (4_000, 1)
    };
    let py = python();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Under target/, not the shared /tmp (as forty_throughput).
    let parent = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    println!(
        "forty shards: {games} games, {SHARDS} shards, {rounds} alternating rounds, {cores} cores"
    );
    let (mut ratios, mut merges, mut wholes) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=rounds {
        let a = tournament(parent.path(), &py, games, &format!("whole{round}"));
        let one = whole(&a);
        let b = tournament(parent.path(), &py, games, &format!("sharded{round}"));
        let (shards, merge) = sharded(&b);
        assert_eq!(played(&b), played(&a), "merged seatings differ");
        let total = shards + merge;
        println!(
            "  round {round}: unsharded {:.2} s, {SHARDS} shards {:.2} s + merge {:.3} s; ratio {:.3}",
            one.as_secs_f64(),
            shards.as_secs_f64(),
            merge.as_secs_f64(),
            total.as_secs_f64() / one.as_secs_f64()
        );
        ratios.push(total.as_secs_f64() / one.as_secs_f64());
        merges.push(merge.as_secs_f64());
        wholes.push(one.as_secs_f64());
    }
    println!(
        "median: unsharded {:.2} s; sharded/unsharded {:.3}; merge {:.3} s",
        median(wholes),
        median(ratios),
        median(merges)
    );
}
