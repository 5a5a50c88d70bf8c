//! Results are durable: a referee killed mid-run loses no finished game, and
//! the rerun plays only what is missing and ends with the same standings as
//! an uninterrupted run.

use crate::common::{bot, first_legal, python, q, referee, root, stderr, stdout};
use std::path::Path;

fn setup(dir: &Path) {
    let tactician = dir.join("tactician");
    std::fs::create_dir_all(&tactician).unwrap();
    std::fs::copy(
        root().join("examples/bots/meta-ttt/tactician/bot.py"),
        tactician.join("bot.py"),
    )
    .unwrap();
    let ins = format!(
        "challenge: meta-ttt\n# Generous: results must not depend on machine load.\ntimeout-ms: 10000\nfirstLegal {}\nfirstLegalPy {} {}\ntactician {} tactician/bot.py\nsilent true\n",
        q(&first_legal()),
        python(),
        q(&bot("first_legal.py")),
        python(),
    );
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
}

/// The standings without the time line (which differs between runs).
fn without_time(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("With "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_killed_run_resumes_to_the_same_standings() {
    let whole = tempfile::tempdir().unwrap();
    setup(whole.path());
    let full = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
    );
    assert!(full.status.success(), "{}", stderr(&full));

    let cut = tempfile::tempdir().unwrap();
    setup(cut.path());
    // Kill it without warning once three games are reported (so committed).
    let reported = crate::common::kill_after_reports(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
        3,
    );
    assert_eq!(reported, 3);

    let again = referee(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
    );
    assert!(again.status.success(), "{}", stderr(&again));
    let err = stderr(&again);
    let resumed = crate::common::resumed_games(&err);
    assert!((3..12).contains(&resumed), "{resumed} games kept");
    let played = err.lines().filter(|l| l.starts_with('[')).count();
    assert_eq!(played, 12 - resumed, "only the missing games are played");
    assert_eq!(without_time(&stdout(&again)), without_time(&stdout(&full)));

    // The same standings but for the CPU seconds, which are measured.
    let json = |d: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_str(&stdout(&referee(d, &["standings", "--format", "json"]))).unwrap();
        for row in v.as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("cpu_seconds");
        }
        v
    };
    assert_eq!(json(cut.path()), json(whole.path()));

    // A third run plays nothing.
    let third = referee(cut.path(), &["--instructions", "instructions.txt"]);
    assert!(stderr(&third).contains("resuming: 12 of 12"));
    // Said once, in the one wording every challenge uses.
    assert_eq!(stderr(&third).matches("resuming: ").count(), 1);
    assert_eq!(
        stderr(&third)
            .lines()
            .filter(|l| l.starts_with('['))
            .count(),
        0
    );
}
