//! The per-call runner against real misbehaving programs in several
//! languages: every behaviour comes back as a value, promptly.

use crate::common::{alive, bot, c_bot, python, root};
use game_core::Ending;
use referee::bot::{run_once, run_once_with, BotProgram, Limits, OnOverflow, Outcome};
use referee_sandbox::Confinement;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn program(argv: &[&str], folder: &std::path::Path) -> BotProgram {
    BotProgram {
        name: "t".into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: root(),
        folder: folder.to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        quota: None,
    }
}

const LIMITS: Limits = Limits {
    deadline: Duration::from_millis(1000),
    stdout_cap: 4096,
    stderr_cap: 1024,
};

async fn run(argv: &[&str]) -> (Outcome, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let out = run_once(
        &program(argv, home.path()),
        &[],
        &LIMITS,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    (out, home)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_well_behaved_call_returns_stdout_status_and_cpu_time() {
    let (out, _h) = run(&["sh", "-c", "echo 38; echo note >&2; exit 3"]).await;
    assert_eq!(out.reply.stdout, b"38\n");
    assert_eq!(out.reply.ending, Ending::Exited(3));
    assert_eq!(out.stderr, b"note\n");
    assert!(out.wall < Duration::from_millis(3000));
}

#[tokio::test(flavor = "multi_thread")]
async fn arguments_are_appended_without_a_shell() {
    let home = tempfile::tempdir().unwrap();
    let p = program(
        &[
            python(),
            "-c",
            "import sys; print(repr(sys.argv[1:]))",
            "fixed",
        ],
        home.path(),
    );
    let args = vec!["a b".to_string(), "$HOME".to_string(), "'q'".to_string()];
    // Generous: Python's start-up on a loaded machine is not what is tested.
    let limits = Limits {
        deadline: Duration::from_secs(20),
        ..LIMITS
    };
    let out = run_once(&p, &args, &limits, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.reply.stdout).trim(),
        "['fixed', 'a b', '$HOME', \"'q'\"]"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_environment_is_path_home_and_tmpdir_only() {
    let (out, home) = run(&["sh", "-c", "env | sort"]).await;
    let env = String::from_utf8_lossy(&out.reply.stdout).into_owned();
    let h = home.path().display().to_string();
    assert!(env.contains(&format!("HOME={h}\n")), "{env}");
    assert!(env.contains(&format!("TMPDIR={h}\n")), "{env}");
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for n in names {
        assert!(
            ["HOME", "TMPDIR", "PATH", "PWD", "SHLVL", "_"].contains(&n),
            "unexpected variable {n}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_python_bot_sleeping_past_the_deadline_times_out_on_time() {
    let start = Instant::now();
    let (out, _h) = run(&[python(), bot("sleeper.py").to_str().unwrap(), "5"]).await;
    assert_eq!(out.reply.ending, Ending::TimedOut);
    // It printed a move first; it still timed out, and the move is kept for transcripts.
    assert_eq!(out.reply.stdout, b"38\n");
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(1000) && took < Duration::from_millis(3000),
        "{took:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_bot_printing_non_utf8_garbage_is_returned_raw() {
    let (out, _h) = run(&["node", bot("garbage.js").to_str().unwrap()]).await;
    assert_eq!(out.reply.ending, Ending::Exited(0));
    assert!(out
        .reply
        .stdout
        .starts_with(&[0xff, 0xfe, b'9', b'9', b'\n']));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_c_bot_killed_by_a_signal_is_signalled() {
    let bin = c_bot(&bot("crasher.c"), "crasher");
    let (out, _h) = run(&[bin.to_str().unwrap()]).await;
    assert_eq!(out.reply.ending, Ending::Signalled(libc::SIGSEGV));
    assert!(out.reply.stdout.is_empty());
    assert_eq!(out.stderr, b"crasher: about to die\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_on_stdout_and_stderr_ends_the_call_at_the_cap() {
    let start = Instant::now();
    let (out, _h) = run(&["sh", bot("flood.sh").to_str().unwrap()]).await;
    assert_eq!(out.reply.ending, Ending::TooLong);
    assert!(out.reply.stdout.len() <= 4096);
    assert!(out.stderr.len() <= 1024);
    assert!(
        start.elapsed() < Duration::from_millis(3000),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stderr_flood_alone_cannot_stall_the_deadline() {
    let start = Instant::now();
    let (out, _h) = run(&["sh", "-c", "exec yes spam >&2"]).await;
    assert_eq!(out.reply.ending, Ending::TimedOut);
    assert_eq!(out.stderr.len(), 1024);
    // The call ends once its charged time reaches the limit. The flood is
    // always runnable, so on a busy machine its waits for a CPU (not
    // charged) move the deadline on, up to the wall-clock cap: bound what
    // is charged, and the wall time by the cap.
    assert!(
        out.charged < LIMITS.deadline + Duration::from_millis(2000),
        "{out:?}"
    );
    assert!(
        start.elapsed()
            < referee::bot::cpu_wait::wall_cap(LIMITS.deadline) + Duration::from_millis(2000),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn silence_and_an_early_closed_stdout_are_values() {
    let (out, _h) = run(&["true"]).await;
    assert_eq!(out.reply, game_core::Reply::exited(Vec::new(), 0));
    // Closing stdout does not end the call: only exit or the deadline do.
    let (out, _h) = run(&["sh", "-c", "exec >&-; sleep 3"]).await;
    assert_eq!(out.reply.ending, Ending::TimedOut);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_program_is_a_spawn_failure() {
    let (out, _h) = run(&["/nonexistent/bot"]).await;
    assert_eq!(out.reply.ending, Ending::SpawnFailed);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start `/nonexistent/bot`"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_child_left_running_dies_with_the_call() {
    let start = Instant::now();
    let (out, home) = run(&["sh", bot("orphan.sh").to_str().unwrap()]).await;
    // The call ends when the bot exits, not when its child would (60 s).
    assert!(start.elapsed() < Duration::from_millis(3000));
    assert_eq!(out.reply.stdout, b"38\n");
    let pid: i32 = std::fs::read_to_string(home.path().join("orphan.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(2);
    while alive(pid) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!alive(pid), "the background child {pid} survived its call");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_stops_a_call_at_once() {
    let home = tempfile::tempdir().unwrap();
    let p = program(&["sleep", "10"], home.path());
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let start = Instant::now();
    let limits = Limits {
        deadline: Duration::from_secs(10),
        ..LIMITS
    };
    let out = run_once(&p, &[], &limits, &cancel).await.unwrap();
    assert_eq!(out.reply.ending, Ending::Cancelled);
    assert!(start.elapsed() < Duration::from_millis(1000));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_whose_stdout_is_only_logged_keeps_the_cap_and_runs_on() {
    let home = tempfile::tempdir().unwrap();
    // 1 MB on stdout, then a status: with `Discard` the flood is no failure.
    let p = program(
        &["sh", "-c", "head -c 1000000 /dev/zero; exit 48"],
        home.path(),
    );
    let out = run_once_with(
        &p,
        &[],
        &LIMITS,
        OnOverflow::Discard,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.reply.ending, Ending::Exited(48));
    assert_eq!(out.reply.stdout.len(), 4096);
    // The same call under the default kills at the cap.
    let out = run_once(&p, &[], &LIMITS, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(out.reply.ending, Ending::TooLong);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_limit_too_long_to_add_to_a_clock_means_no_limit() {
    // bot.toml `build-timeout-s = 18446744073709551615` becomes such a
    // deadline: the call runs and ends normally.
    let home = tempfile::tempdir().unwrap();
    let limits = Limits {
        deadline: Duration::from_secs(u64::MAX),
        ..LIMITS
    };
    let out = run_once(
        &program(&["sh", "-c", "sleep 0.05; echo done"], home.path()),
        &[],
        &limits,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(out.reply.ending, Ending::Exited(0));
    assert_eq!(out.reply.stdout, b"done\n");
}
