//! bot.toml builds: recorded with the tournament (a new results database
//! rebuilds nothing), several at once up to `--jobs`.

use crate::common::{referee, referee_within, root, stderr, tournament};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Games a run played: its `[n/total] ...` progress lines.
fn played(err: &str) -> usize {
    err.lines().filter(|l| l.starts_with('[')).count()
}

/// A bot folder `name` holding firstLegal's source and a bot.toml `build`.
fn c_bot(dir: &Path, name: &str, build: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        root().join("examples/bots/meta-ttt/firstLegal/firstLegal.c"),
        folder.join("fl.c"),
    )
    .unwrap();
    std::fs::write(folder.join("bot.toml"), format!("build = \"{build}\"\n")).unwrap();
}

#[test]
fn a_new_results_database_rebuilds_nothing() {
    let dir = tournament("challenge: meta-ttt\nfl ./fl/fl\nother ./other/fl\n");
    let d = dir.path();
    // Each build appends a line to a counter in its own folder.
    c_bot(d, "fl", "cc -O2 -o fl fl.c && echo built >> builds.count");
    c_bot(d, "other", "cc -O2 -o fl fl.c");
    let run = |db: &str| {
        let out = referee(d, &["--instructions", "instructions.txt", "--db", db]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let first = run("one.db");
    assert!(first.contains("building fl: cc -O2"), "{first}");
    let binary = d.join("fl/fl");
    let built_at = std::fs::metadata(&binary).unwrap().modified().unwrap();

    let second = run("two.db");
    assert_eq!(
        played(&second),
        2,
        "a new database plays every game: {second}"
    );
    assert!(second.contains("fl: build is up to date"), "{second}");
    assert!(second.contains("other: build is up to date"), "{second}");
    assert!(!second.contains("building"), "{second}");
    let count = std::fs::read_to_string(d.join("fl/builds.count")).unwrap();
    assert_eq!(count.lines().count(), 1, "the build ran once");
    assert_eq!(
        std::fs::metadata(&binary).unwrap().modified().unwrap(),
        built_at
    );
    // The record is the tournament's, not the database's.
    assert!(d.join(".referee/builds/fl.json").is_file());
    std::fs::remove_file(d.join("one.db")).unwrap();
    let third = run("one.db");
    assert!(!third.contains("building"), "{third}");
}

#[test]
fn builds_run_side_by_side_up_to_jobs() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        eprintln!("skipped: --jobs 2 needs two cores, this machine has {cores}");
        return;
    }
    // Each build says it started, then waits for `go` in its own folder.
    // A build cannot see another bot's folder (the sandbox), so the test
    // is the go-between: it writes `go` only once both builds have
    // started, which one build at a time would never reach.
    let dir = tournament("challenge: meta-ttt\na ./a/fl\nb ./b/fl\n");
    let d = dir.path();
    let build =
        ": > started; i=0; while [ ! -e go ] && [ $i -lt 2400 ]; do sleep 0.05; i=$((i+1)); done; \
                 [ -e go ] && cc -O2 -o fl fl.c";
    c_bot(d, "a", build);
    c_bot(d, "b", build);
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt", "--jobs", "2"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    let both = loop {
        if d.join("a/started").exists() && d.join("b/started").exists() {
            break true;
        }
        if Instant::now() > until {
            break false;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    for name in ["a", "b"] {
        std::fs::write(d.join(name).join("go"), "").unwrap();
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut { err }, &mut text);
        let _ = tx.send(text);
    });
    let err = rx
        .recv_timeout(Duration::from_secs(180))
        .unwrap_or_else(|_| {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("the referee did not finish");
        });
    let status = child.wait().unwrap();
    assert!(
        both,
        "the second build never started while the first ran: {err}"
    );
    assert!(status.success(), "{err}");
    for name in ["a", "b"] {
        assert!(err.contains(&format!("{name}: built in ")), "{err}");
    }

    // With one job, the same tournament edited builds one bot at a time:
    // `go` is already there, so both finish; what shows is the order of
    // the lines, a build's end before the next one's start.
    for name in ["a", "b"] {
        std::fs::write(d.join(name).join("fl.c.note"), "edited").unwrap();
    }
    let out = referee_within(
        d,
        &["--instructions", "instructions.txt", "--jobs", "1"],
        Duration::from_secs(180),
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("building ") || l.contains(": built in "))
        .collect();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(
        lines[0].starts_with("building ") && lines[1].contains(": built in "),
        "{err}"
    );
}
