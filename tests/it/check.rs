//! `referee check` for gun-duel, heist, forty and bf-joust: real bots in
//! Python, shell and C (tests/bots/check/), each with a fresh folder `bot/`
//! in a fresh tournament folder, so what it writes is reported and nothing
//! lands in the repository. A check runs the bot as a tournament in that
//! folder would: from the tournament folder, with `bot/` its own.

use crate::common::{bot, c_bot, python, q, referee, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// A test bot of tests/bots/check/.
fn check_bot(name: &str) -> String {
    q(&bot(&format!("check/{name}")))
}

/// `referee check ARGS...` run in the tournament folder `dir`, with
/// `dir/bot/` (created if missing) as the bot's folder.
fn check_in(dir: &Path, args: &[&str]) -> Output {
    let folder = dir.join("bot");
    std::fs::create_dir_all(&folder).unwrap();
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let cwd = folder.to_string_lossy().into_owned();
    all.extend_from_slice(&["--cwd", &cwd]);
    referee(dir, &all)
}

fn check(args: &[&str]) -> (Output, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = check_in(dir.path(), args);
    let text = stdout(&out);
    (out, text, dir)
}

#[test]
fn check_gun_duel_io_bot_that_follows_the_contract_passes() {
    let (out, text, dir) = check(&[
        "gun-duel",
        &format!("{} {} good", python(), check_bot("gun_io.py")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.starts_with("interface: io (the default;"), "{text}");
    // It loads with no ammo and fires when loaded: a bullet into a shield,
    // then into a loader (a win), in duels 1 and 4.
    assert_eq!(text.matches("-> legal move").count(), 8, "{text}");
    assert_eq!(
        text.matches("-> legal move 1 (bullet)").count(),
        3,
        "{text}"
    );
    assert_eq!(text.matches("ammo 0; sent").count(), 5, "{text}");
    assert!(text.contains("result (the bot is A): A wins after 4 turns: A=0101 B=0-0="));
    assert!(text.contains("sent P? I7 F"), "{text}");
    assert!(
        text.contains("exited with status 0 within 1000 ms"),
        "{text}"
    );
    assert!(
        text.contains("files: created duels.txt in its folder"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bot/duels.txt")).unwrap(),
        "4\n"
    );
    assert!(text.contains("processes: none left behind"), "{text}");
    assert!(text.ends_with("verdict: the bot follows the gun-duel contract on every position.\n"));
}

#[test]
fn check_gun_duel_names_garbage_a_stalled_move_and_two_moves_per_f() {
    let run = |mode: &str| {
        check(&[
            "gun-duel",
            &format!("{} {} {mode}", python(), check_bot("gun_io.py")),
            "--timeout-ms",
            "300",
        ])
    };
    let (out, text, _dir) = run("garbage");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "  - position 3: not one of the five moves (bad output): no action, so its gun explodes"
        ),
        "{text}"
    );
    assert!(text.contains("answer: \"x\" -> ILLEGAL"), "{text}");

    let (out, text, _dir) = run("stall");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  - position 3: no move in time (timeout)"),
        "{text}"
    );
    assert!(text.contains("time: over the limit of 300 ms"), "{text}");
    assert!(
        text.contains("the bot is dead for the rest of a tournament"),
        "{text}"
    );
    assert!(!text.contains("position 4:"), "{text}");

    let (out, text, _dir) = run("double");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("writes more than one move per F (left over: \"0\")"),
        "{text}"
    );
}

#[test]
fn check_gun_duel_exit_code_interface_from_bot_toml_or_the_option() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bot")).unwrap();
    std::fs::write(
        dir.path().join("bot/bot.toml"),
        "interface = \"exit-code\"\n",
    )
    .unwrap();
    let out = check_in(
        dir.path(),
        &["gun-duel", &format!("sh {} good", check_bot("gun_exit.sh"))],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.starts_with("interface: exit-code (from "), "{text}");
    assert!(text.contains("  arguments: 0 2 3 1 1 -0 -0\n"), "{text}");
    assert!(
        text.contains("  answer: exit status 48 -> legal move 0 (load)"),
        "{text}"
    );
    assert_eq!(text.matches("-> legal move").count(), 4, "{text}");
    assert!(text.contains("  arguments: 5 1 2 -1 1 1 0\n"), "{text}");
    assert_eq!(
        text.matches("-> ignored, as it should be").count(),
        2,
        "{text}"
    );

    let (out, text, _dir) = check(&[
        "gun-duel",
        &format!("sh {} fire", check_bot("gun_exit.sh")),
        "--interface",
        "exit-code",
    ]);
    // Firing without ammo is legal (an explosion, no fault): a warning only.
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("interface: exit-code (from --interface)"));
    assert!(text.contains("legal, but worth a look:"), "{text}");
    assert!(
        text.contains(
            "  - position 1: fires a bullet with 0 ammo: its gun explodes and it loses the duel"
        ),
        "{text}"
    );
    assert!(
        text.contains("  - position 4: fires a bullet with 0 ammo"),
        "{text}"
    );
}

#[test]
fn check_heist_good_bot_passes_and_faults_are_named() {
    let (out, text, _dir) = check(&["heist", &format!("sh {} good", check_bot("heist.sh"))]);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_eq!(text.matches("  arguments (31): ").count(), 5, "{text}");
    assert!(text.contains("-> bets 24 of 240 credits"), "{text}");
    assert!(text.contains("-> bets 0 of 5 credits"), "{text}");
    assert_eq!(text.matches("-> action `deposit`").count(), 2, "{text}");
    assert!(text.contains(" 2.77555756156e-17 "), "{text}");
    assert!(
        text.contains("files: wrote nothing in its folder"),
        "{text}"
    );

    let (out, text, _dir) = check(&[
        "heist",
        &format!("sh {} garbage 1", q(&bot("heist_misbehave.sh"))),
    ]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  - position 1: not one integer (bad output): it bets 0"),
        "{text}"
    );
    assert!(text.contains("-> `guncheck` is not one of the nine actions: it goes along as normal (allowed, not a fault)"));

    let (out, text, _dir) = check(&[
        "heist",
        &format!("sh {} sleep 2", q(&bot("heist_misbehave.sh"))),
        "--timeout-ms",
        "500",
    ]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "  - position 4: no answer in time (timeout): it goes along, its bet still at stake"
        ),
        "{text}"
    );
    assert!(text.contains("time: over the limit of 500 ms"), "{text}");
}

#[test]
fn check_heist_reports_writes_to_its_read_only_folder_and_leftover_processes() {
    let (out, text, dir) = check(&["heist", &format!("sh {} write", check_bot("heist.sh"))]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    if dir.path().join("bot/note.txt").exists() {
        // No Landlock here: the write went through and is the problem.
        assert!(
            text.contains("writes files in its folder (created note.txt)"),
            "{text}"
        );
    } else {
        assert!(
            text.contains("files: it tried to touch something it may not (its stderr says:"),
            "{text}"
        );
        assert!(
            text.contains("  - position 1: exit status 3 (crash): it bets 0"),
            "{text}"
        );
    }

    let (out, text, _dir) = check(&["heist", &format!("sh {} linger", check_bot("heist.sh"))]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(
            "processes: left 5 process(es) still running in its group after it exited; the referee killed them"
        ),
        "{text}"
    );
    assert!(text.contains("  - leaves processes behind"), "{text}");
}

#[test]
fn check_forty_runs_a_class_file_through_the_host() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bot")).unwrap();
    std::fs::copy(bot("check/forty_class.py"), dir.path().join("bot/bot.py")).unwrap();
    let out = check_in(dir.path(), &["forty", "bot/bot.py"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.starts_with("bot/bot.py is a Python class file: it runs through the forty host"));
    assert!(text.contains("-> ok, name CheckedBot"), "{text}");
    assert!(
        text.contains("batch 1, one write of 6 lines: new 0 0 40 | new 5 2 40 | new 9 1 40 | ask 0 0 4 0,0,0 | ask 5 0 1 5,0,0 | ask 9 1 3 40,0"),
        "{text}"
    );
    // In the last round it throws while it does not lead. The host's reply
    // carries the decision's own time.
    let line = text
        .lines()
        .find(|l| {
            l.starts_with("  ask 9 1 3 40,0 (last round, first decision of its turn) -> \"9 1 ")
        })
        .unwrap_or_else(|| panic!("{text}"));
    let (micros, rest) = line
        .split_once("-> \"9 1 ")
        .and_then(|(_, r)| r.split_once('"'))
        .unwrap_or_else(|| panic!("{line}"));
    assert!(micros.bytes().all(|b| b.is_ascii_digit()), "{line}");
    assert!(rest.starts_with(": throw; time "), "{line}");
    assert!(rest.contains("; it reported "), "{line}");
    assert!(text.contains("end 9"), "{text}");
    assert!(
        text.contains("exited with status 0 within 1000 ms"),
        "{text}"
    );
    assert!(text.contains("files: wrote nothing"), "{text}");
    assert!(text.ends_with("verdict: the bot follows the forty protocol on every position.\n"));
}

#[test]
fn check_shows_the_exception_at_the_end_of_a_traceback() {
    // The class file's import fails: the host prints `loading ... failed:`
    // and a traceback whose last line is what a bot author needs.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bot")).unwrap();
    std::fs::write(
        dir.path().join("bot/bot.py"),
        "import no_such_module_here\n\nclass Broken(Bot):\n    def make_throw(self, scores, last_round):\n        yield False\n",
    )
    .unwrap();
    let out = check_in(dir.path(), &["forty", "bot/bot.py"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(
        text.contains(
            "stderr (its log in a tournament): forty_host: loading bot/bot.py failed:\n  ... ModuleNotFoundError: No module named 'no_such_module_here'\n"
        ),
        "{text}"
    );
    // The same for a per-move bot: its call's stderr, then the exception.
    std::fs::write(
        dir.path().join("bot/move.py"),
        "import sys\nimport no_such_module_here\n",
    )
    .unwrap();
    let out = check_in(
        dir.path(),
        &["meta-ttt", &format!("{} bot/move.py", python())],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("-> ILLEGAL call: crash: exit status 1\n"),
        "{text}"
    );
    assert!(
        text.contains("  stderr (kept in the bot's log in a tournament): Traceback (most recent call last):\n    ... ModuleNotFoundError: No module named 'no_such_module_here'\n"),
        "{text}"
    );
    assert!(
        text.contains("  - position 1: crash: exit status 1 (crash) (and 4 more like it)"),
        "{text}"
    );
}

#[test]
fn check_forty_line_bot_in_c_and_its_exit_behaviour() {
    let bin = c_bot(&bot("check/forty_line.c"), "forty_line");
    let (out, text, _dir) = check(&["forty", &q(&bin)]);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("-> ok, name LineBot"), "{text}");
    assert!(
        text.contains("  ask 0 0 4,5 0,0,0 (it threw again) -> \"0 1\": throw"),
        "{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");

    let (out, text, _dir) = check(&["forty", &format!("{} linger", q(&bin))]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  - does not exit within 1000 ms when its stdin is closed"),
        "{text}"
    );
}

#[test]
fn check_forty_names_malformed_replies_timeouts_and_crashes() {
    let raw = |mode: &str| {
        check(&[
            "forty",
            &format!("{} {} {mode}", python(), q(&bot("forty_raw.py"))),
        ])
    };
    let (out, text, _dir) = raw("garbage");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  - game 0, `ask 0 0 4 0,0,0` answered \"0 maybe\": the right game id but not `1`, `0` or `e` (malformed): the turn is lost (and "),
        "{text}"
    );

    let (out, text, _dir) = raw("stall 2");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  ask 9 1 3 40,0 (last round, first decision of its turn) -> nothing: FAILED: no reply within the turn's budget (timeout)"),
        "{text}"
    );
    assert!(
        text.contains("  - crash: no reply within kill-ms after the deadline"),
        "{text}"
    );

    let (out, text, _dir) = raw("extra");
    assert_eq!(out.status.code(), Some(1), "{text}");
    // The extra line came in the same read as the replies: nothing was
    // asked any more.
    assert!(
        text.contains(
            "  - crash: out of step: a line with no ask outstanding (\"oops, an extra line\")"
        ),
        "{text}"
    );
}

#[test]
fn check_bf_joust_plays_a_valid_program_and_names_what_is_wrong() {
    let (out, text, _dir) = check(&["bf-joust", &bot("check/careful.bf").to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("14 tokens after comments are dropped: valid"),
        "{text}"
    );
    assert!(
        text.contains("  match 1: tape 10, the bot on the left: won after 267 cycles: the enemy flag was zeroed"),
        "{text}"
    );
    assert_eq!(text.matches("  match ").count(), 12, "{text}");
    assert!(text.contains("tape: its pointer never left the tape in 12 matches"));

    let broken = bot("check/broken.bf").to_string_lossy().into_owned();
    let (out, text, _dir) = check(&["bf-joust", &broken]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("  {broken}:3:6: unmatched ']'\n")),
        "{text}"
    );
    assert!(text.contains("  3:   [-]]\n          ^\n"), "{text}");
    assert!(
        text.contains("  - the program is invalid: unmatched ']' at line 3, column 6"),
        "{text}"
    );
    assert!(!text.contains("match 1"), "{text}");

    // Leaving the tape is legal and loses the match: a warning, exit 0.
    let (out, text, _dir) = check(&["bf-joust", &bot("check/overshoot.bf").to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("legal, but worth a look:"), "{text}");
    assert!(
        text.contains(
            "  match 1 (against idle, tape 10, on the left): past the enemy flag in cycle 10"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  - its pointer leaves the tape (it loses the match at once) in 6 of 12 matches"
        ),
        "{text}"
    );
}

#[test]
fn check_refuses_options_of_another_challenge_and_missing_files() {
    let (out, _, _dir) = check(&["heist", "sh x.sh", "--interface", "io"]);
    assert_eq!(out.status.code(), Some(2));
    // Each challenge has its own options: clap names the stranger.
    assert!(
        stderr(&out).contains("unexpected argument '--interface'"),
        "{}",
        stderr(&out)
    );
    let (out, _, _dir) = check(&["bf-joust", "x.bf", "--timeout-ms", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let (out, _, _dir) = check(&["bf-joust", "missing.bf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("missing.bf: cannot read"),
        "{}",
        stderr(&out)
    );
    let (out, _, _dir) = check(&["forty", "missing.py"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_timed_out_bots_own_children_did_not_escape_but_a_setsid_child_did() {
    // The shell forks `sleep` and waits: at the deadline the whole group is
    // killed, and the orphaned sleeper comes back to the referee. It was in
    // the bot's group all along: no escape.
    let (out, text, _dir) = check(&["meta-ttt", "sh -c 'sleep 30; true'", "--timeout-ms", "300"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("timeout"), "{text}");
    assert!(!text.contains("escaped"), "{text}");
    assert!(text.contains("processes: none left behind"), "{text}");
    // A child that left the group with setsid did escape, and is reported.
    let (out, text, _dir) = check(&[
        "meta-ttt",
        "sh -c 'setsid sleep 30 & sleep 30; true'",
        "--timeout-ms",
        "300",
    ]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("escaped its process group; the referee killed them"),
        "{text}"
    );
}
