//! `referee play` behaves the same way for every challenge: each bot's
//! stderr on the referee's stderr, `--trace` with what was sent and
//! received and each move's time, `-q` with the result alone, ids chosen
//! where the challenge has them, and nothing left in the temporary folder.
//! The bots are small shell programs written inline (`sh -c SCRIPT NAME`,
//! so the game's arguments are `$1`, `$2`, ...).

use crate::common::{root, stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};

/// `sh -c SCRIPT bot` as one command: the appended arguments start at `$1`.
fn sh(script: &str) -> String {
    format!("sh -c {} bot", shell_words::quote(script))
}

/// A meta-ttt bot that notes its letter on stderr and plays the centre of
/// the board it is sent to (or of board 4).
fn meta_bot(tag: &str) -> String {
    sh(&format!(
        "echo {tag}-says-$1 >&2; case ${{12}} in xx) echo 44;; *) echo ${{12#?}}4;; esac"
    ))
}

/// A gun-duel `io` bot: notes each line it reads, loads on every `F`.
fn io_bot(tag: &str) -> String {
    sh(&format!(
        "while read l; do echo {tag}-read-$l >&2; case $l in F) echo 0;; esac; done"
    ))
}

/// A gun-duel `exit-code` bot: notes the opponent's id, loads.
fn exit_bot(tag: &str) -> String {
    sh(&format!("echo {tag}-against-$1 >&2; exit 48"))
}

/// A forty line bot: stops at once; notes its handshake on stderr.
fn forty_bot(tag: &str) -> String {
    sh(&format!(
        "while read w g rest; do case $w in forty) echo {tag}-hello >&2; echo ok {tag};; ask) echo \"$g 0\";; esac; done"
    ))
}

/// A heist bot: bets 1 and goes along; notes its round on stderr.
fn heist_bot(tag: &str) -> String {
    sh(&format!(
        "echo {tag}-round-$2 >&2; if [ $2 = 1 ]; then echo 1; else echo guncheck; fi"
    ))
}

/// `referee play ARGS` in `dir` with TMPDIR set to `tmp`.
fn play_in(dir: &Path, tmp: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_referee"))
        .arg("play")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("RUST_LOG")
        .output()
        .expect("referee runs");
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    out
}

/// Every challenge's play, three ways: plain, traced and quiet. Returns
/// (args, plain, traced, quiet) per challenge.
fn every_challenge(dir: &Path, tmp: &Path) -> Vec<(Vec<String>, Output, Output, Output)> {
    let bf = dir.join("l.bf");
    std::fs::write(&bf, "(>)*9(-)*128").unwrap();
    std::fs::write(dir.join("r.bf"), "").unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "meta-ttt".into(),
            meta_bot("ex"),
            meta_bot("oh"),
            "--max-rounds".into(),
            "4".into(),
        ],
        vec![
            "heist".into(),
            heist_bot("hx"),
            heist_bot("hy"),
            "--rabble".into(),
            "3".into(),
            "--seed".into(),
            "5".into(),
        ],
        vec![
            "gun-duel".into(),
            io_bot("ga"),
            exit_bot("gb"),
            "--interface-b".into(),
            "exit-code".into(),
            "--turns".into(),
            "3".into(),
            "--duels".into(),
            "2".into(),
        ],
        vec![
            "forty".into(),
            forty_bot("fa"),
            forty_bot("fb"),
            "--dice".into(),
            "6*20".into(),
            "--timeout-ms".into(),
            "5000".into(),
        ],
        vec![
            "bf-joust".into(),
            "l.bf".into(),
            "r.bf".into(),
            "--tape-len".into(),
            "10".into(),
        ],
    ];
    cases
        .into_iter()
        .map(|args| {
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            let plain = play_in(dir, tmp, &words);
            let mut traced_args = words.clone();
            traced_args.push("--trace");
            let traced = play_in(dir, tmp, &traced_args);
            let mut quiet_args = words.clone();
            quiet_args.push("-q");
            let quiet = play_in(dir, tmp, &quiet_args);
            (args, plain, traced, quiet)
        })
        .collect()
}

#[test]
fn play_shows_stderr_traces_and_quiets_alike_in_every_challenge() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let results = every_challenge(dir.path(), tmp.path());
    // What `-q` prints: the result, and nothing else.
    let results_only = [
        3, // meta-ttt: the result line and a line per bot
        4, // heist: the results table (header, rule, a row per bot)
        1, // gun-duel: the summary of the duels
        1, // forty: the result line
        1, // bf-joust: the result line
    ];
    for ((args, plain, traced, quiet), lines) in results.iter().zip(results_only) {
        let challenge = &args[0];
        let (text, err) = (stdout(plain), stderr(plain));
        let (q_text, q_err) = (stdout(quiet), stderr(quiet));
        assert_eq!(q_text.lines().count(), lines, "{challenge}: {q_text}");
        assert!(
            text.ends_with(&q_text),
            "{challenge}: the quiet output is the end of the transcript:\n{text}---\n{q_text}"
        );
        assert!(
            text.lines().count() > lines,
            "{challenge}: the transcript is longer than the result: {text}"
        );
        let (t_text, t_err) = (stdout(traced), stderr(traced));
        if challenge == "bf-joust" {
            // No bot process: the trace is the tape after every cycle.
            assert!(t_text.contains("[ >128 | 0 |"), "{t_text}");
            continue;
        }
        // Each bot's stderr is on the referee's stderr, not in the
        // transcript; nothing of it with -q.
        let tags: Vec<String> = err
            .lines()
            .filter(|l| !l.starts_with("--- ") && !l.starts_with("referee: "))
            .map(|l| l.split('-').next().unwrap_or_default().to_string())
            .collect();
        assert!(tags.len() >= 2, "{challenge}: {err}");
        assert!(
            tags.windows(2).any(|w| w[0] != w[1]),
            "{challenge}: both bots' stderr: {err}"
        );
        assert!(
            !text
                .lines()
                .any(|l| tags.iter().any(|t| l.starts_with(&format!("{t}-")))),
            "{challenge}: {text}"
        );
        assert!(
            !q_err.contains("-says-")
                && !q_err.contains("-round-")
                && !q_err.contains("-read-")
                && !q_err.contains("-hello"),
            "{challenge}: {q_err}"
        );
        // --trace adds `> ` (sent) and `< ` (received, with its time) lines
        // to the same transcript.
        let sent = t_text.lines().filter(|l| l.starts_with("> ")).count();
        let received: Vec<&str> = t_text.lines().filter(|l| l.starts_with("< ")).collect();
        assert!(sent >= 2 && received.len() >= 2, "{challenge}: {t_text}");
        assert!(
            received.iter().all(|l| l.ends_with(" ms")),
            "{challenge}: {received:?}"
        );
        let untraced: String = t_text
            .lines()
            .filter(|l| !l.starts_with("> ") && !l.starts_with("< "))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(untraced, text, "{challenge}: the trace only adds lines");
        assert!(t_err.contains(&tags[0]), "{challenge}: {t_err}");
    }
    // Each challenge's own trace: the command and the arguments it got,
    // the lines a persistent bot was sent and what it answered.
    let trace = |i: usize| stdout(&results[i].2);
    assert!(
        trace(0).contains(" round 1: sh -c ") && trace(0).contains(" X --------- "),
        "{}",
        trace(0)
    );
    assert!(trace(0).contains("< stdout \"44\\n\", exit status 0, "));
    assert!(trace(2).contains("> A: I1 | F\n"), "{}", trace(2));
    assert!(trace(2).contains("< A: \"0\", "), "{}", trace(2));
    assert!(trace(2).contains(" 0 0 3 0 0\n< stdout \"\", exit status 48, "));
    assert!(trace(3).contains("> seat0: forty 1 "), "{}", trace(3));
    assert!(trace(3).contains("< seat1: ok fb, "), "{}", trace(3));
    // Nothing was left in the temporary folder (forty's play wrote its
    // logs there once).
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn gun_duel_play_tells_each_bot_the_ids_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = play_in(
        dir.path(),
        tmp.path(),
        &[
            "gun-duel",
            &io_bot("ga"),
            &exit_bot("gb"),
            "--interface-b",
            "exit-code",
            "--turns",
            "2",
            "--ids",
            "12,7",
        ],
    );
    let err = stderr(&out);
    // A is told B's id, and B A's.
    assert!(err.contains("ga-read-I7\n"), "{err}");
    assert!(err.contains("gb-against-12\n"), "{err}");
    for bad in ["3", "4,4", "1,2,3"] {
        let out = Command::new(env!("CARGO_BIN_EXE_referee"))
            .args(["play", "gun-duel", "true", "true", "--ids", bad])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--ids {bad}");
        assert!(stderr(&out).contains("--ids"), "{}", stderr(&out));
    }
}

#[test]
fn forty_play_runs_a_class_file_through_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let examples = root().join("protocols/forty/examples");
    for name in ["GoToTenBot", "StopBot"] {
        std::fs::copy(
            examples.join(format!("{name}.py")),
            dir.path().join(format!("{name}.py")),
        )
        .unwrap();
    }
    let out = play_in(
        dir.path(),
        tmp.path(),
        &[
            "forty",
            "GoToTenBot.py",
            "StopBot.py",
            "--dice",
            "4,5,3,6,2",
            "--timeout-ms",
            "5000",
        ],
    );
    let text = stdout(&out);
    assert!(
        text.contains("seat 0 GoToTenBot\nseat 1 StopBot\n"),
        "{text}"
    );
    assert!(
        text.contains("r1 s0 GoToTenBot - 4 5 3 : T T S bank 12\n"),
        "{text}"
    );
    // The host was written to a temporary folder and removed.
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    let missing = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["play", "forty", "Nope.py"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("Nope.py: no such Python file"));
}

#[test]
fn stdout_and_stderr_into_one_file_keep_both() {
    // `referee play ... > file 2>&1`: the bots' stderr must not overwrite
    // the transcript written through the same file.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.txt");
    let file = std::fs::File::create(&path).unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["play", "meta-ttt", &meta_bot("ex"), &meta_bot("oh")])
        .args(["--max-rounds", "3"])
        .current_dir(dir.path())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    assert!(status.success());
    let all = std::fs::read_to_string(&path).unwrap();
    for needle in [
        "ex-says-X\n",
        "oh-says-O\n",
        "Round 1: X plays 44\n",
        "Result: no winner after 3 rounds.\n",
    ] {
        assert!(all.contains(needle), "{needle:?} in {all}");
    }
}

#[test]
fn a_reader_that_stops_early_ends_play_quietly_with_success() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["play", "meta-ttt", &meta_bot("x"), &meta_bot("o")])
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("referee runs");
    // `| head -1`: one line read, then the pipe is closed.
    let mut first = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    reader.read_line(&mut first).unwrap();
    drop(reader);
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with("Round 1:"), "{first}");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Broken pipe"), "{}", stderr(&out));
}
