//! Two referees on one results database: the second refuses at once
//! (naming the first), or waits with `--wait` and then finds nothing left
//! to play; a lock left by a killed referee is taken over.

use crate::common::{first_legal, referee_within, resumed_games, stderr, tournament};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(120);

/// A meta-ttt tournament of two firstLegal bots, where `gate`'s every move
/// waits until the test writes `gate/go` (after writing `gate/waiting`):
/// a referee on it stays in its first game for as long as the test likes.
/// Neither file counts as a change of the bot.
fn gated_tournament() -> tempfile::TempDir {
    let dir = tournament(
        "challenge: meta-ttt\n# a move may wait for the gate\ntimeout-ms: 300000\n\
         gate sh gate/run.sh\nplain ./plain/fl\n",
    );
    for name in ["gate", "plain"] {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(first_legal(), folder.join("fl")).unwrap();
    }
    std::fs::write(
        dir.path().join("gate/run.sh"),
        "#!/bin/sh\n: > gate/waiting\nwhile [ ! -e gate/go ]; do sleep 0.05; done\nexec ./gate/fl \"$@\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("gate/bot.toml"),
        "ignore = [\"go\", \"waiting\"]\n",
    )
    .unwrap();
    dir
}

/// Starts the referee in `dir` with `args`, its stderr going to `log`.
fn spawn(dir: &Path, args: &[&str], log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("referee runs")
}

/// Waits (bounded) until `ready` holds; `false` if it never did.
fn wait_until(mut ready: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + LONG;
    while Instant::now() < until {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Waits (bounded) for `child` to end; kills it and fails if it does not.
fn finish(mut child: Child) -> std::process::ExitStatus {
    let until = Instant::now() + LONG;
    while Instant::now() < until {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("the referee was still running after {LONG:?}");
}

fn lock_file(dir: &Path) -> PathBuf {
    dir.join("results.db.lock")
}

/// The pid the lock file names, if it names one.
fn lock_holder(dir: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(lock_file(dir)).ok()?;
    let v: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    v["pid"].as_u64().map(|p| p as u32)
}

/// Games a run played: its `[n/total] ...` progress lines.
fn played(log: &str) -> usize {
    log.lines().filter(|l| l.starts_with('[')).count()
}

const RUN: [&str; 2] = ["--instructions", "instructions.txt"];
/// The first referee: straight into its first game (no preflight call,
/// which the gate would hold as well, before the tournament is recorded).
const FIRST: [&str; 4] = ["--instructions", "instructions.txt", "--preflight", "off"];

#[test]
fn a_second_referee_refuses_naming_the_first_or_waits_and_finds_nothing_to_play() {
    let dir = gated_tournament();
    let d = dir.path();
    let first_log = d.join("first.err");
    let first = spawn(d, &FIRST, &first_log);
    let first_pid = first.id();
    // The first referee holds the lock and is in its first game.
    assert!(
        wait_until(|| lock_holder(d) == Some(first_pid) && d.join("gate/waiting").exists()),
        "the first referee never started its first game"
    );

    // `run` and `watch` refuse at once, naming the holder; exit 2.
    for args in [&RUN[..], &["watch", RUN[0], RUN[1]][..]] {
        let out = referee_within(d, args, LONG);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.starts_with("referee: error: "))
            .unwrap_or_else(|| panic!("no error line: {err}"));
        assert!(
            line.contains("results.db: in use by another referee (referee run, pid ")
                && line.contains(&format!("pid {first_pid} on host "))
                && line.contains(", since 2")
                && line.contains("--wait"),
            "{err}"
        );
    }
    // Reading the results needs no lock.
    let out = referee_within(d, &["standings", "--db", "results.db"], LONG);
    assert!(out.status.success(), "{}", stderr(&out));

    // With --wait the third one waits for the first to end...
    let third_log = d.join("third.err");
    let third = spawn(
        d,
        &["--instructions", "instructions.txt", "--wait"],
        &third_log,
    );
    assert!(
        wait_until(|| std::fs::read_to_string(&third_log)
            .is_ok_and(|t| t.contains("waiting for it to end"))),
        "the waiting referee never said it waits"
    );
    assert_eq!(lock_holder(d), Some(first_pid));
    std::fs::write(d.join("gate/go"), "").unwrap();
    assert!(finish(first).success());
    let first_err = std::fs::read_to_string(&first_log).unwrap();
    assert_eq!(played(&first_err), 2, "{first_err}");

    // ...and then finds every game played.
    assert!(finish(third).success());
    let third_err = std::fs::read_to_string(&third_log).unwrap();
    assert_eq!(played(&third_err), 0, "{third_err}");
    assert_eq!(resumed_games(&third_err), 2, "{third_err}");
    // Released: the file is left, empty.
    assert_eq!(std::fs::read_to_string(lock_file(d)).unwrap(), "");
}

#[test]
fn a_lock_left_by_a_killed_referee_is_taken_over() {
    let dir = gated_tournament();
    let d = dir.path();
    let killed = spawn(d, &FIRST, &d.join("killed.err"));
    let killed_pid = killed.id();
    assert!(
        wait_until(|| lock_holder(d) == Some(killed_pid) && d.join("gate/waiting").exists()),
        "the referee never started its first game"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(killed_pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let status = finish(killed);
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    // Its name is still in the lock file, but the kernel released the lock.
    assert_eq!(lock_holder(d), Some(killed_pid));

    std::fs::write(d.join("gate/go"), "").unwrap();
    let out = referee_within(d, &RUN, LONG);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "taking over the lock left by referee run, pid {killed_pid} on host "
        )),
        "{err}"
    );
    assert_eq!(played(&err), 2, "{err}");
    assert_eq!(std::fs::read_to_string(lock_file(d)).unwrap(), "");
}
