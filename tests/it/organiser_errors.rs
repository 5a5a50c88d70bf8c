//! Bad input from the organiser: one clear error line naming the file and
//! line, exit status 2, nothing run.

use crate::common::{referee, referee_within, stderr, stdout, tournament};

fn fails_with(instructions: &str, expected: &str) {
    let dir = tournament(instructions);
    let out = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    let path = dir.path().canonicalize().unwrap().join("instructions.txt");
    let line = err.trim_end();
    let rest = line
        .strip_prefix("referee: error: ")
        .unwrap_or_else(|| panic!("{line}"));
    // The path is as given on the command line.
    let rest = rest.strip_prefix("instructions.txt").unwrap_or(rest);
    assert_eq!(rest, expected, "{line} ({})", path.display());
    assert!(stdout(&out).is_empty());
    assert!(!dir.path().join("results.db").exists(), "nothing may run");
}

#[test]
fn a_wrong_count_names_the_count_line() {
    fails_with(
        "challenge: meta-ttt\n3\na\ntrue\nb\ntrue\n",
        ":2: the count says 3 bots but 2 are listed",
    );
}

#[test]
fn a_missing_command_names_the_bot_line() {
    fails_with(
        "challenge: meta-ttt\na true\nb\n",
        ":3: bot `b` has no command",
    );
}

#[test]
fn a_duplicate_name_names_both_lines() {
    fails_with(
        "challenge: meta-ttt\na true\nb true\na false\n",
        ":4: duplicate bot name `a` (first on line 2)",
    );
}

#[test]
fn an_unknown_key_names_its_line() {
    fails_with(
        "challenge: meta-ttt\ntimout-ms: 5\na true\nb true\n",
        ":2: unknown setting `timout-ms` for meta-ttt",
    );
}

#[test]
fn a_bad_value_names_its_line() {
    fails_with(
        "challenge: meta-ttt\nmax-rounds: many\na true\nb true\n",
        ":2: max-rounds must be a positive whole number, not `many`",
    );
}

#[test]
fn an_unknown_challenge_names_its_line() {
    fails_with(
        "# x\nchallenge: chess\na true\nb true\n",
        ":2: unknown challenge `chess` (known: meta-ttt, bf-joust, heist, forty, gun-duel)",
    );
}

#[test]
fn no_challenge_anywhere_is_an_error() {
    fails_with(
        "a true\nb true\n",
        ": no `challenge:` header; add one or pass --challenge ID",
    );
}

#[test]
fn the_challenge_may_come_from_the_command_line() {
    let dir = tournament("2\na\ntrue\nb\ntrue\n");
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--challenge",
            "meta-ttt",
            "--set",
            "max-rounds=4",
            "-q",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(
        "Bot 1, a, has 0 wins and made 4 illegal moves, for a total of -24 points.\n"
    ));
}

#[test]
fn a_bot_with_a_broken_or_hostile_bot_toml_is_left_out_and_the_rest_play() {
    let dir = tournament("challenge: meta-ttt\na true\nb true\nc true\n");
    let folder = |name: &str| {
        let f = dir.path().join(name);
        std::fs::create_dir_all(&f).unwrap();
        f
    };
    let drop_in = |name: &str| format!("name = \"{name}\"\nrun = \"true\"\n");
    // A listed bot with an unknown key; drop-ins that lack `run`, whose
    // bot.toml is a FIFO (reading it would block for ever), a link out of
    // the folder, or over 64 KiB.
    std::fs::write(
        folder("b").join("bot.toml"),
        "language = \"C\"\nrnu = \"make\"\n",
    )
    .unwrap();
    std::fs::write(folder("half").join("bot.toml"), "name = \"half\"\n").unwrap();
    // Drop-ins whose bot.toml is not TOML at all, or lacks `name`.
    std::fs::write(
        folder("broken").join("bot.toml"),
        "name = \"broken\nrun = \"true\"\n",
    )
    .unwrap();
    std::fs::write(folder("nameless").join("bot.toml"), "run = \"true\"\n").unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(folder("fifo").join("bot.toml"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    std::fs::write(dir.path().join("outside.toml"), drop_in("linked")).unwrap();
    std::os::unix::fs::symlink("../outside.toml", folder("linked").join("bot.toml")).unwrap();
    let padding = "# padding\n".repeat(7000);
    std::fs::write(folder("big").join("bot.toml"), drop_in("big") + &padding).unwrap();
    // A drop-in that is fine joins.
    std::fs::write(folder("late").join("bot.toml"), drop_in("late")).unwrap();

    let out = referee_within(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--set",
            "max-rounds=2",
        ],
        std::time::Duration::from_secs(300),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let toml = |name: &str| {
        dir.path()
            .canonicalize()
            .unwrap()
            .join(name)
            .join("bot.toml")
            .display()
            .to_string()
    };
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("referee: leaving out"))
        .collect();
    assert_eq!(
        warnings,
        [
            format!(
                "referee: leaving out `b`: {}:2: unknown field `rnu`, expected one of \
                 `name`, `run`, `build`, `build-timeout-s`, `language`, `owner`, `ignore`, `interface`",
                toml("b")
            ),
            format!("referee: leaving out `big`: {}: is larger than 64 KiB", toml("big")),
            format!(
                "referee: leaving out `broken`: {}:1: invalid basic string, expected `\"`",
                toml("broken")
            ),
            format!("referee: leaving out `fifo`: {}: is a FIFO, not a file", toml("fifo")),
            format!(
                "referee: leaving out `half`: {}: no `run`: a bot the instructions do not \
                 list joins with `name` and `run` in its bot.toml",
                toml("half")
            ),
            format!(
                "referee: leaving out `linked`: {}: is a symbolic link, not a file",
                toml("linked")
            ),
            format!(
                "referee: leaving out `nameless`: {}: no `name`: a bot the instructions do not \
                 list joins with `name` and `run` in its bot.toml",
                toml("nameless")
            ),
        ],
        "{err}"
    );
    let text = stdout(&out);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Bot "))
        .filter_map(|l| l.split(", ").nth(1))
        .collect();
    assert_eq!(names, ["a", "c", "late"], "{text}");
    // None vanishes: each is listed under the standings, with why.
    let listed: Vec<&str> = text
        .split_once("\nnot playing:\n")
        .map_or(Vec::new(), |(_, rest)| rest.lines().collect());
    let listed: Vec<&str> = listed
        .iter()
        .filter_map(|l| l.trim_start().split_once(": ").map(|(name, _)| name))
        .collect();
    assert_eq!(
        listed,
        ["b", "big", "broken", "fifo", "half", "linked", "nameless"],
        "{text}"
    );
}

#[test]
fn a_missing_instructions_file_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = referee(dir.path(), &["--instructions", "nope.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("referee: error: nope.txt: cannot read:"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_annotated_example_instructions_stay_valid() {
    let path = crate::common::root().join("instructions.example.txt");
    let resolved = referee::config::resolve(&path, &referee::config::Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.challenge.name(), "meta-ttt");
    assert!(resolved.spec.bots.len() >= 2);
}

#[test]
fn a_failing_build_leaves_the_bot_out_and_the_tournament_goes_on() {
    let dir = tournament("challenge: meta-ttt\na true\nb true\nc true\n");
    std::fs::create_dir(dir.path().join("c")).unwrap();
    std::fs::write(
        dir.path().join("c/bot.toml"),
        "build = \"echo compiling; echo oops >&2; exit 3\"\n",
    )
    .unwrap();
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--set",
            "max-rounds=2",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("build of `c` (echo compiling; echo oops >&2; exit 3) exited with status 3"),
        "{err}"
    );
    assert!(err.contains("    c | oops"), "{err}");
    // Two bots and the time line, the winners and faults, then the one
    // left out, with why.
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    assert_eq!(lines[3], "Winners (tied): a, b", "{text}");
    assert_eq!(lines[6], "not playing:");
    assert!(
        lines[7].starts_with("  c: its build failed (its output is in ")
            && lines[7].ends_with("logs/c.log)"),
        "{text}"
    );
    let log = std::fs::read_to_string(dir.path().join("logs/c.log")).unwrap();
    assert!(log.contains("compiling") && log.contains("oops"));
}

#[test]
fn each_challenge_has_its_own_play_and_check_options() {
    let dir = tempfile::tempdir().unwrap();
    // A flag of another challenge is refused by name, before anything runs.
    let out = referee(
        dir.path(),
        &["play", "forty", "true", "true", "--max-rounds", "3"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unexpected argument '--max-rounds'"),
        "{}",
        stderr(&out)
    );
    // Each challenge's --help lists its own options and no other's.
    let help = |args: &[&str]| {
        let out = referee(dir.path(), args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    };
    let meta = help(&["play", "meta-ttt", "--help"]);
    assert!(meta.contains("--max-rounds"), "{meta}");
    assert!(!meta.contains("--dice"), "{meta}");
    let forty = help(&["play", "forty", "--help"]);
    assert!(forty.contains("--dice"), "{forty}");
    assert!(!forty.contains("--max-rounds"), "{forty}");
    let gun = help(&["check", "gun-duel", "--help"]);
    assert!(gun.contains("--interface"), "{gun}");
    let bf = help(&["check", "bf-joust", "--help"]);
    assert!(!bf.contains("--timeout-ms"), "{bf}");
}
