//! The cost of measuring a bot's folder against its policy's `disk-mb` and
//! `files` (`src/bot/folder_quota.rs`), which the referee does after every
//! call of a per-move bot and after every game of a persistent one:
//!
//! - a folder holding only `data.txt` (a meta-ttt bot's, as the referee
//!   creates it);
//! - a small folder: `data.txt`, a few files and a subdirectory;
//! - a folder at the limit: 1000 entries in 10 directories (the walk
//!   reads all of them);
//! - a folder of 200,000 files (the walk stops at the 1001st entry).
//!
//! Run: `cargo bench --bench folder_quota`

use referee::bot::folder_quota::{measure, FolderQuota};
use std::path::Path;
use std::time::{Duration, Instant};

const QUOTA: FolderQuota = FolderQuota {
    disk_mb: 64,
    files: 1000,
};

/// The median time of one walk over `rounds` rounds of `per_round` walks.
fn time_walk(folder: &Path, rounds: usize, per_round: u32) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_round {
                std::hint::black_box(measure(folder, &QUOTA));
            }
            start.elapsed() / per_round
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");

    let data_only = dir.path().join("data-only");
    std::fs::create_dir_all(&data_only).expect("mkdir");
    std::fs::write(data_only.join("data.txt"), "x".repeat(2000)).expect("write");

    let small = dir.path().join("small");
    std::fs::create_dir_all(small.join("cache")).expect("mkdir");
    std::fs::write(small.join("data.txt"), "x".repeat(2000)).expect("write");
    for name in ["bot.py", "notes", "cache/a", "cache/b"] {
        std::fs::write(small.join(name), "some bytes\n").expect("write");
    }
    println!("verdict (small): {:?}", measure(&small, &QUOTA));

    let full = dir.path().join("full");
    for d in 0..10 {
        let sub = full.join(format!("d{d}"));
        std::fs::create_dir_all(&sub).expect("mkdir");
        for f in 0..99 {
            std::fs::write(sub.join(f.to_string()), "").expect("write");
        }
    }
    println!("verdict (1000 entries): {:?}", measure(&full, &QUOTA));

    let huge = dir.path().join("huge");
    std::fs::create_dir_all(&huge).expect("mkdir");
    for f in 0..200_000 {
        std::fs::File::create(huge.join(f.to_string())).expect("create");
    }
    println!("verdict (200,000 files): {:?}", measure(&huge, &QUOTA));

    let data_t = time_walk(&data_only, 21, 2000);
    let small_t = time_walk(&small, 21, 2000);
    let full_t = time_walk(&full, 11, 50);
    let huge_t = time_walk(&huge, 11, 50);
    println!(
        "folder walk, median per walk: data.txt only {:.1} us, small folder (6 entries) {:.1} us, 1000 entries {:.0} us, 200,000 files (stops at 1001) {:.0} us",
        data_t.as_secs_f64() * 1e6,
        small_t.as_secs_f64() * 1e6,
        full_t.as_secs_f64() * 1e6,
        huge_t.as_secs_f64() * 1e6
    );
}
