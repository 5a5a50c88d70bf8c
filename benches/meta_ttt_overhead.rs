//! meta-ttt benchmarks B1 and B2 (spec §8), as ratios against baselines
//! measured in the same run.
//!
//! B1: the referee's time per call, in a tournament of 4 copies of the native
//! `firstLegal` bot with `--jobs 1`, against a bare loop that spawns the same
//! binary with a 12-argument argv, reads its stdout from a pipe and waits
//! for it (no shell, no sandbox). Goal: at most 1.2.
//!
//! B2: the same tournament with `--jobs 2` against `--jobs 1`, wall time.
//! Goal: at most 0.625 on 2 or more cores.
//!
//! Run: `cargo bench --bench meta_ttt_overhead`

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROUNDS: usize = 5;

fn compile_first_legal(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/bots/meta-ttt/firstLegal/firstLegal.c");
    let out = dir.join("firstLegal");
    let ok = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "cc must compile {}", src.display());
    out
}

/// A tournament folder with 4 copies of the bot.
fn tournament(dir: &Path, bin: &Path) -> PathBuf {
    let t = dir.join(format!("t{}", rand_suffix()));
    std::fs::create_dir_all(&t).unwrap();
    let mut ins = String::from("challenge: meta-ttt\n");
    for i in 1..=4 {
        ins.push_str(&format!("copy{i} {}\n", bin.display()));
    }
    std::fs::write(t.join("instructions.txt"), ins).unwrap();
    t
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Runs the tournament; returns wall time and the number of calls made.
fn referee(dir: &Path, bin: &Path, jobs: usize) -> (Duration, u64) {
    let t = tournament(dir, bin);
    let start = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_referee"))
        // Games only: no preflight calls before them.
        .args(["--quiet", "--preflight", "off", "--instructions"])
        .arg(t.join("instructions.txt"))
        .args(["--jobs", &jobs.to_string()])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let took = start.elapsed();
    assert!(status.success());
    // Calls per game: firstLegal against itself always plays the V11 game (50 calls).
    let calls = 12 * 50;
    std::fs::remove_dir_all(&t).ok();
    (took, calls)
}

/// The bare loop: spawn, read stdout from a pipe, wait.
fn bare(bin: &Path, calls: u64) -> Duration {
    let mut args = vec!["X".to_string()];
    args.extend(std::iter::repeat_n("---------".to_string(), 10));
    args.push("xx".to_string());
    let start = Instant::now();
    for _ in 0..calls {
        let mut child = Command::new(bin)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        child.wait().unwrap();
        assert_eq!(out, b"00\n");
    }
    start.elapsed()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too
    // and would take seconds: do one quick round there.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        ROUNDS
    } else {
        1
    };
    // Under target/, not the shared /tmp: a bot's Landlock rules grow with
    // the entries beside each folder along the tournament's path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let bin = compile_first_legal(dir.path());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let mut b1 = Vec::new();
    let mut b2 = Vec::new();
    let mut per_call_ref = Vec::new();
    let mut per_call_bare = Vec::new();
    for _ in 0..rounds {
        let (t1, calls) = referee(dir.path(), &bin, 1);
        let tb = bare(&bin, calls);
        let (t2, _) = referee(dir.path(), &bin, 2);
        let r = t1.as_secs_f64() / calls as f64;
        let b = tb.as_secs_f64() / calls as f64;
        per_call_ref.push(r * 1e6);
        per_call_bare.push(b * 1e6);
        b1.push(r / b);
        b2.push(t2.as_secs_f64() / t1.as_secs_f64());
    }
    println!("meta-ttt per-call overhead ({rounds} rounds, 600 calls each, {cores} cores)");
    println!(
        "  B1 referee --jobs 1: {:.0} us/call; bare spawn+read+wait: {:.0} us/call; ratio (median) {:.3}  [goal <= 1.2]",
        median(per_call_ref.clone()),
        median(per_call_bare.clone()),
        median(b1.clone())
    );
    // On a noisy machine the fastest round of each is the least disturbed.
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!(
        "     best rounds: referee {:.0} us/call, bare {:.0} us/call, ratio of bests {:.3}",
        best(&per_call_ref),
        best(&per_call_bare),
        best(&per_call_ref) / best(&per_call_bare)
    );
    println!(
        "     ratios per round: {}",
        b1.iter()
            .map(|r| format!("{r:.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  B2 wall --jobs 2 / --jobs 1: ratio (median) {:.3}  [goal <= 0.625 on 2+ cores]",
        median(b2.clone())
    );
    println!(
        "     ratios per round: {}",
        b2.iter()
            .map(|r| format!("{r:.3}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}
