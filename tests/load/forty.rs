//! forty: one small tournament (a Python class that sleeps 2 ms per
//! decision, a Python class that does a little arithmetic, a C bot that
//! takes 1 ms per decision and reports it) with the default limits and a
//! fixed seed, played on an idle machine and then under [`Background`] at
//! the default concurrency (hundreds of asks per batch) and at 64. The
//! stored results must be identical: no decision may time out because of
//! batching or because the machine is busy.

use crate::background::Background;
use crate::common::{bot, c_bot, python, q, referee, root, stderr, stdout, tournament};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Games per run: about half a minute on an idle machine (the sleeper's
/// 2 ms per decision dominates), more under load.
const GAMES: u64 = 600;

fn class_bot(file: &str) -> String {
    format!(
        "{} {} {}",
        q(Path::new(python())),
        q(&root().join("protocols/forty/forty_host.py")),
        q(&bot(file))
    )
}

fn instructions(concurrency: Option<usize>) -> String {
    let native = c_bot(&bot("forty_native.c"), "forty_native");
    let header = concurrency.map_or(String::new(), |c| format!("concurrency: {c}\n"));
    format!(
        "challenge: forty\nseed: 2026\ngames: {GAMES}\n{header}\
         Sleepy {}\nChaser {}\nNative {} honest 1\n",
        class_bot("forty_sleepy.py"),
        class_bot("forty_chaser.py"),
        q(&native),
    )
}

/// Plays the tournament; its standings rows without the time columns (sorted
/// by name), and the timeouts per bot.
fn play(concurrency: Option<usize>, what: &str) -> (Vec<Value>, Vec<(String, u64)>) {
    let dir = tournament(&instructions(concurrency));
    let started = Instant::now();
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{what}: {}", stderr(&out));
    let took = started.elapsed();
    let out = referee(
        dir.path(),
        &[
            "standings",
            "--instructions",
            "instructions.txt",
            "--format",
            "json",
        ],
    );
    assert!(out.status.success(), "{what}: {}", stderr(&out));
    let mut rows: Vec<Value> = serde_json::from_str(&stdout(&out)).expect("json standings");
    for row in &mut rows {
        if let Some(fields) = row.as_object_mut() {
            for time in ["time", "charged_time", "cpu_seconds"] {
                fields.remove(time);
            }
        }
    }
    rows.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let timeouts: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or("?").to_string(),
                r["faults"]["timeout"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    eprintln!(
        "forty {what}: {:.1} s, timeouts {timeouts:?}",
        took.as_secs_f64()
    );
    (rows, timeouts)
}

#[test]
fn a_busy_machine_and_big_batches_change_no_forty_result() {
    let _one = crate::one_at_a_time();
    if Command::new(python()).arg("--version").output().is_err() {
        eprintln!("python3 is missing: skipped");
        return;
    }
    let (idle, idle_timeouts) = play(None, "idle, default concurrency");
    assert!(
        idle_timeouts.iter().all(|(_, n)| *n == 0),
        "{idle_timeouts:?}"
    );
    let scratch = tempfile::tempdir().expect("scratch dir");
    let load = Background::start(scratch.path());
    let (busy, _) = play(None, "loaded, default concurrency");
    let (busy_64, _) = play(Some(64), "loaded, concurrency 64");
    assert!(load.busy_enough(), "the background load did not show");
    drop(load);
    assert_eq!(busy, idle, "loaded, default concurrency");
    assert_eq!(busy_64, idle, "loaded, concurrency 64");
}
