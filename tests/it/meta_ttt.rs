//! meta-ttt end to end: the referee binary, real bots, the spec's vectors
//! V1, V9 and V12, misbehaving bots, data.txt and parallel play.

use crate::common::{bot, first_legal, python, q, referee, stderr, stdout, tournament};
use std::path::Path;

fn script(dir: &Path, name: &str, lines: &[&str]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    format!("sh {} {}", q(&bot("scripted.sh")), q(&path))
}

#[test]
fn v1_post_example_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let x = script(dir.path(), "x.txt", &["38", "30"]);
    let o = script(dir.path(), "o.txt", &["84", "00"]);
    let out = referee(
        dir.path(),
        &[
            "play",
            "meta-ttt",
            &x,
            &o,
            "--max-rounds",
            "6",
            "--cwd",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Round 1: X plays 38");
    assert_eq!(lines[1], "");
    assert_eq!(lines[12], " | |X ||  | |  ||  | |", "the picture after 38");
    assert!(text.contains("Round 2: O plays 84\n"));
    assert!(text.contains("Round 3: X illegal (must play board 4), output \"30\"\n"));
    assert!(text.contains("Round 4: O plays 00\n"));
    assert!(text.contains("Round 5: X illegal (garbage output), output \"\"\n"));
    assert!(text.ends_with(&format!(
        "Result: no winner after 6 rounds.\nX, {x}, has 0 wins and made 2 illegal moves, for a total of -12 points.\nO, {o}, has 0 wins and made 1 illegal moves, for a total of -11 points.\n"
    )), "{text}");
}

#[test]
fn v9_round_limit_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let x = script(dir.path(), "x.txt", &["44"]);
    let out = referee(
        dir.path(),
        &[
            "play",
            "meta-ttt",
            &x,
            "true",
            "--cwd",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Round 250: O illegal (garbage output), output \"\"\n"));
    assert!(!text.contains("Round 251"));
    assert!(text.ends_with(&format!(
        "Result: no winner after 250 rounds.\nX, {x}, has 0 wins and made 124 illegal moves, for a total of -134 points.\nO, true, has 0 wins and made 125 illegal moves, for a total of -135 points.\n"
    )), "{text}");
}

#[test]
fn v12_tournament_output_is_the_posts() {
    let fl = first_legal();
    let dir = tournament(&format!(
        "challenge: meta-ttt\n2\nfirstLegal\n{}\nsilent\ntrue\n",
        q(&fl)
    ));
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // The post's lines (best first), the time line, then the winner and
    // the faults of each bot that had any.
    assert_eq!(lines.len(), 5, "{text}");
    assert_eq!(lines[3], "Winner: firstLegal", "{text}");
    assert!(lines[4].starts_with("faults: silent: "), "{text}");
    assert_eq!(
        lines[0],
        "Bot 1, firstLegal, has 2 wins and made 0 illegal moves, for a total of 344 points."
    );
    assert_eq!(
        lines[1],
        "Bot 2, silent, has 0 wins and made 17 illegal moves, for a total of -17 points."
    );
    let secs = lines[2]
        .strip_prefix("With 2 bots, This program took ")
        .and_then(|s| s.strip_suffix(" seconds to finish."))
        .unwrap_or_else(|| panic!("time line: {}", lines[2]));
    let (whole, frac) = secs.split_once('.').unwrap();
    assert!(whole.bytes().all(|b| b.is_ascii_digit()) && !whole.is_empty());
    assert!(
        frac.len() == 3 && frac.bytes().all(|b| b.is_ascii_digit()),
        "{secs}"
    );
    // data.txt is created for each bot, and `standings` prints the same lines.
    assert!(dir.path().join("firstLegal/data.txt").is_file());
    assert!(dir.path().join("silent/data.txt").is_file());
    let again = referee(dir.path(), &["standings"]);
    assert_eq!(stdout(&again), text);
}

#[test]
fn misbehaving_bots_in_four_languages_get_the_contracts_answer() {
    let crasher = crate::common::c_bot(&bot("crasher.c"), "crasher");
    // A generous limit: only the bots' behaviour, not machine load, may decide.
    let instructions = format!(
        "challenge: meta-ttt\ntimeout-ms: 3000\nmax-rounds: 24\n\
         firstLegal {}\ngarbage node {}\ncrasher {}\nflood sh {}\norphan sh {}\n",
        q(&first_legal()),
        q(&bot("garbage.js")),
        q(&crasher),
        q(&bot("flood.sh")),
        q(&bot("orphan.sh")),
    );
    let dir = tournament(&instructions);
    std::fs::create_dir(dir.path().join("garbage")).unwrap();
    std::fs::write(dir.path().join("garbage/data.txt"), "kept").unwrap();
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // A line per bot and the time line, then the winner and faults.
    let text = stdout(&out);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("Bot ")).count(),
        5,
        "{text}"
    );
    assert_eq!(
        text.lines().nth(5).map(|l| l.starts_with("With 5 bots")),
        Some(true),
        "{text}"
    );
    // data.txt is never reset.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("garbage/data.txt")).unwrap(),
        "kept"
    );

    let json = stdout(&referee(dir.path(), &["standings", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(rows[0]["name"], "firstLegal");
    assert_eq!(row("firstLegal")["faults"], serde_json::json!({}));
    assert_eq!(row("firstLegal")["wins"], 8);
    assert!(row("garbage")["faults"]["bad_output"].as_u64().unwrap() > 0);
    assert!(row("crasher")["faults"]["crash"].as_u64().unwrap() > 0);
    assert!(row("flood")["faults"]["too_long"].as_u64().unwrap() > 0);
    // The orphan plays 38 every time: legal once, then illegal moves, not crashes.
    assert!(row("orphan")["faults"]["illegal_move"].as_u64().unwrap() > 0);
    // It wrote the pid of its child (in its own PID namespace): that
    // child, like every process of the bot, is gone.
    assert!(dir.path().join("orphan/orphan.pid").exists());
    let left = crate::common::processes_of_bot(&dir.path().join("orphan"));
    assert!(left.is_empty(), "a bot's child outlived its call: {left:?}");
    // stderr went to the bots' logs, not to the referee's output.
    let log = std::fs::read_to_string(dir.path().join("logs/crasher.log")).unwrap();
    assert!(log.contains("crasher: about to die"));
    assert!(!stderr(&out).contains("about to die"));
}

#[test]
fn a_python_bot_past_the_deadline_loses_its_calls() {
    let instructions = format!(
        "challenge: meta-ttt\ntimeout-ms: 300\nmax-rounds: 6\nsleeper {} {} 5\nsilent true\n",
        python(),
        q(&bot("sleeper.py")),
    );
    let dir = tournament(&instructions);
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Both games hit the round limit: the sleeper times out on each of its
    // 6 calls although it printed a legal move first.
    assert!(
        stdout(&out).starts_with(
            "Bot 1, sleeper, has 0 wins and made 6 illegal moves, for a total of -26 points.\n\
         Bot 2, silent, has 0 wins and made 6 illegal moves, for a total of -26 points.\n"
        ),
        "{}",
        stdout(&out)
    );
    let json = stdout(&referee(dir.path(), &["standings", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sleeper = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "sleeper")
        .unwrap();
    assert_eq!(sleeper["faults"]["timeout"], 6);
}

/// Reads "start end" lines of every bot's calls.txt: per bot, and all together.
fn intervals(dir: &Path, bots: &[&str]) -> Vec<Vec<(u128, u128)>> {
    bots.iter()
        .map(|b| {
            std::fs::read_to_string(dir.join(b).join("calls.txt"))
                .unwrap()
                .lines()
                .map(|l| {
                    let (s, e) = l.split_once(' ').unwrap();
                    (s.parse().unwrap(), e.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

fn max_overlap(mut iv: Vec<(u128, u128)>) -> usize {
    let mut events: Vec<(u128, i32)> = iv.drain(..).flat_map(|(s, e)| [(s, 1), (e, -1)]).collect();
    events.sort_by_key(|&(t, d)| (t, d));
    let (mut cur, mut max) = (0i32, 0i32);
    for (_, d) in events {
        cur += d;
        max = max.max(cur);
    }
    max as usize
}

#[test]
fn parallel_play_keeps_each_bot_in_one_game_and_at_most_j_games() {
    let names = ["a", "b", "c", "d"];
    let mut ins = String::from("challenge: meta-ttt\ntimeout-ms: 5000\nmax-rounds: 8\n");
    for n in names {
        ins.push_str(&format!("{n} {} {}\n", python(), q(&bot("timed.py"))));
    }
    let dir = tournament(&ins);
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--jobs",
            "2",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let per_bot = intervals(dir.path(), &names);
    for (name, iv) in names.iter().zip(&per_bot) {
        assert_eq!(
            max_overlap(iv.clone()),
            1,
            "bot {name} ran two calls at once"
        );
    }
    let all: Vec<(u128, u128)> = per_bot.into_iter().flatten().collect();
    let overlap = max_overlap(all);
    assert!(overlap <= 2, "{overlap} calls at once with --jobs 2");
    if referee::tournament::cores() >= 2 {
        assert_eq!(overlap, 2, "with 2 cores, two games should run at once");
    }
}

#[test]
fn check_tells_a_bot_author_whether_the_bot_follows_the_contract() {
    // A fresh tournament folder holding the bot's folder: check runs the
    // bot from there, as a tournament would (the test bots live outside it).
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("bot");
    std::fs::create_dir(&folder).unwrap();
    let cwd = folder.to_string_lossy().into_owned();
    let good = referee(
        dir.path(),
        &["check", "meta-ttt", &q(&first_legal()), "--cwd", &cwd],
    );
    assert_eq!(good.status.code(), Some(0), "{}", stdout(&good));
    let text = stdout(&good);
    assert_eq!(text.matches("-> legal move").count(), 5, "{text}");
    assert!(text.contains("verdict: the bot follows the meta-ttt contract on every position."));

    let bad = referee(
        dir.path(),
        &["check", "meta-ttt", "sh -c 'echo 00'", "--cwd", &cwd],
    );
    assert_eq!(bad.status.code(), Some(1));
    let text = stdout(&bad);
    assert!(
        text.contains("  - position 2: illegal move 00 (must play board 8)"),
        "{text}"
    );
    assert!(
        text.contains("  - position 4: illegal move 00 (board 0 is won)"),
        "{text}"
    );

    let slow = referee(
        dir.path(),
        &[
            "check",
            "meta-ttt",
            &format!("{} {} 3", python(), q(&bot("sleeper.py"))),
            "--timeout-ms",
            "300",
            "--cwd",
            &cwd,
        ],
    );
    assert_eq!(slow.status.code(), Some(1));
    assert_eq!(
        stdout(&slow).matches("ILLEGAL call: timeout").count(),
        5,
        "{}",
        stdout(&slow)
    );
}

#[test]
fn a_dangling_data_txt_link_is_not_followed_when_the_folder_is_prepared() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("created-by-the-referee");
    let fl = first_legal();
    let dir = tournament(&format!(
        "challenge: meta-ttt\nmax-rounds: 2\n2\nfirstLegal\n{}\nsilent\ntrue\n",
        q(&fl)
    ));
    std::fs::create_dir(dir.path().join("silent")).unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("silent/data.txt")).unwrap();
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!target.exists(), "the referee wrote through the bot's link");
    // The link is the bot's own business: left as it was.
    assert!(
        std::fs::symlink_metadata(dir.path().join("silent/data.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // The other bot's data.txt is still created.
    assert!(dir.path().join("firstLegal/data.txt").is_file());
}

#[test]
fn a_bot_that_exits_non_zero_without_a_move_is_a_crash_with_its_status() {
    // What a JVM or Python does on an uncaught exception: nothing on
    // stdout, a traceback on stderr, exit status 1.
    let dies = "sh -c 'echo Exception in thread main >&2; exit 1'";
    let dir = tournament(&format!(
        "challenge: meta-ttt\ntimeout-ms: 3000\nmax-rounds: 6\n\
         firstLegal {}\ndies {dies}\nsilent true\n",
        q(&first_legal()),
    ));
    // Without the preflight, which would leave out a bot that cannot
    // answer at all: here its every call is the point.
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--quiet",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json = stdout(&referee(dir.path(), &["standings", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let faults = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()["faults"]
            .clone()
    };
    // 4 games, 3 calls each at most: every call of `dies` is a crash.
    let crashes = faults("dies")["crash"].as_u64().unwrap();
    assert!(crashes >= 6, "{json}");
    assert_eq!(
        faults("dies")["bad_output"],
        serde_json::Value::Null,
        "{json}"
    );
    // Exit status 0 with nothing printed is still bad output.
    assert!(
        faults("silent")["bad_output"].as_u64().unwrap() >= 6,
        "{json}"
    );
    assert_eq!(faults("silent")["crash"], serde_json::Value::Null, "{json}");

    // `play` names the crash and its status.
    let out = referee(
        dir.path(),
        &["play", "meta-ttt", dies, "true", "--max-rounds", "2"],
    );
    let text = stdout(&out);
    assert!(
        text.contains("Round 1: X illegal (crash: exit status 1), output \"\"\n"),
        "{text}"
    );
    assert!(
        text.contains("Round 2: O illegal (garbage output), output \"\"\n"),
        "{text}"
    );
}
