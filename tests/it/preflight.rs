//! The preflight: before the first game every bot is started once as the
//! tournament starts it. A bot that cannot start is reported in one line
//! naming its instructions line before the first game, and left out and
//! listed under the standings (or the run stops with `--preflight stop`);
//! a bot that started is not called again while it is unchanged; `referee
//! check --instructions` does the same on demand; and `referee check` runs
//! a bot exactly as a tournament does.

use crate::common::{bot, first_legal, python, q, referee, stderr, stdout, tournament};
use std::path::Path;

/// `tests/bots/data_counter.py` in `mode` (`relative` or `home`).
fn counter(mode: &str) -> String {
    format!(
        "{} {} {mode}",
        q(Path::new(python())),
        q(&bot("data_counter.py"))
    )
}

/// Whether this machine confines files (Landlock): without it a bot may
/// read the tournament folder, and a bot whose files lie there starts.
fn files_confined() -> bool {
    let landlock = referee_sandbox::Support::probe().landlock_abi.is_some();
    if !landlock {
        eprintln!("no Landlock on this machine: a bot may read the tournament folder");
    }
    landlock
}

/// The calls `counter`'s data.txt counted, in tournament `dir`.
fn counted(dir: &Path) -> u32 {
    std::fs::read_to_string(dir.join("counter/data.txt"))
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0)
}

/// A meta-ttt tournament of two bots that play and three that cannot
/// start: a command that is not installed (line 5), a script that does not
/// exist (line 6) and one in the tournament folder rather than its own
/// (line 7, as the heist post laid its bots out).
fn broken_field() -> tempfile::TempDir {
    let py = q(Path::new(python()));
    let dir = tournament(&format!(
        "challenge: meta-ttt\nmax-rounds: 3\ngood {}\ncounter {}\n\
         typo pyhton3-not-installed typo/bot.py\nmissing {py} missing/bot.py\nroot {py} root.py\n",
        q(&first_legal()),
        counter("home"),
    ));
    std::fs::write(dir.path().join("root.py"), "print('44')\n").unwrap();
    dir
}

/// The one stderr line saying that `name` cannot start.
fn cannot_start<'a>(err: &'a str, name: &str) -> (usize, &'a str) {
    err.lines()
        .enumerate()
        .find(|(_, l)| l.starts_with(&format!("referee: bot `{name}` cannot start (")))
        .unwrap_or_else(|| panic!("no line for {name} in {err}"))
}

#[test]
fn a_bot_that_cannot_start_is_reported_before_the_first_game_and_left_out() {
    let dir = broken_field();
    let t = dir.path();
    let out = referee(t, &["--instructions", "instructions.txt"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let confined = files_confined();
    let (typo_at, typo) = cannot_start(&err, "typo");
    assert_eq!(
        typo,
        "referee: bot `typo` cannot start (instructions.txt:5): command \
         `pyhton3-not-installed` not found on the PATH; left out of this run"
    );
    let (missing_at, missing) = cannot_start(&err, "missing");
    assert!(
        missing.starts_with(
            "referee: bot `missing` cannot start (instructions.txt:6): exit status 2 before answering: "
        ) && missing.contains("can't open file")
            && missing.ends_with("No such file or directory; left out of this run"),
        "{missing}"
    );
    let mut reported = vec![typo_at, missing_at];
    let mut absent = vec!["typo", "missing"];
    if confined {
        let (root_at, root) = cannot_start(&err, "root");
        assert!(
            root.starts_with(
                "referee: bot `root` cannot start (instructions.txt:7): exit status 2"
            ) && root.contains(
                "; `root.py` is in the tournament folder, outside the bot's own folder `root/`: \
                     a bot may read and run only the files of its own folder"
            ) && root.ends_with("name it `root/root.py` in the command; left out of this run"),
            "{root}"
        );
        reported.push(root_at);
        absent.push("root");
    }
    // Before the first game: every line comes before the first `[1/N]`.
    let first_game = err
        .lines()
        .position(|l| l.starts_with("[1/"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(reported.iter().all(|&at| at < first_game), "{err}");

    // The others played (the preflight calls are not games), and the left
    // out are listed under the standings with why.
    let text = stdout(&out);
    assert!(text.starts_with("Bot 1, good, "), "{text}");
    assert!(text.contains("\nBot 2, counter, "), "{text}");
    let listed = text
        .split_once("\nnot playing:\n")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("{text}"));
    for name in &absent {
        assert!(
            listed.contains(&format!("  {name}: cannot start (instructions.txt:")),
            "{name}: {text}"
        );
    }
    let json = stdout(&referee(t, &["standings", "--format", "json"]));
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2 + absent.len(), "{json}");
    for (row, name) in rows[2..].iter().zip(&absent) {
        assert_eq!(row["name"], *name);
        assert!(row["rank"].is_null() && row["score"].is_null(), "{row}");
        assert!(row["not_playing"].as_str().is_some(), "{row}");
    }
    assert_eq!(rows[0]["played"].as_u64(), Some(2), "{json}");
}

#[test]
fn with_preflight_stop_nothing_is_played() {
    let dir = broken_field();
    let t = dir.path();
    let out = referee(
        t,
        &["--instructions", "instructions.txt", "--preflight", "stop"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let n = if files_confined() { 3 } else { 2 };
    assert_eq!(
        err.lines().last(),
        Some(
            format!(
                "referee: error: instructions.txt: {n} bot(s) cannot start (--preflight stop): \
                 nothing was played; fix them, or run with --preflight skip to leave them out"
            )
            .as_str()
        ),
        "{err}"
    );
    let (_, typo) = cannot_start(&err, "typo");
    assert!(!typo.contains("left out"), "{typo}");
    assert!(!err.lines().any(|l| l.starts_with('[')), "{err}");
    assert!(stdout(&out).is_empty());
    // No tournament was recorded, and the counter's preflight call left
    // no trace in its folder: no data.txt at all.
    let standings = referee(t, &["standings"]);
    assert_eq!(standings.status.code(), Some(2));
    assert!(stderr(&standings).contains("no tournament recorded"));
    assert!(!t.join("counter/data.txt").exists());
}

#[test]
fn a_bot_that_started_is_not_called_again_until_it_changes() {
    let dir = tournament(&format!(
        "challenge: meta-ttt\nmax-rounds: 3\ngood {}\ncounter {}\n",
        q(&first_legal()),
        counter("home"),
    ));
    let t = dir.path();
    let run = || {
        let out = referee(t, &["--instructions", "instructions.txt"]);
        assert!(out.status.success(), "{}", stderr(&out));
        stderr(&out)
    };
    let first = run();
    assert!(
        first.contains("preflight: starting 2 bot(s) once before the first game"),
        "{first}"
    );
    // The counter's moves in its two games (the preflight's call left no
    // trace).
    let after_first = counted(t);
    assert!(after_first > 1, "{after_first}");

    // Finished and unchanged: no call at all.
    let second = run();
    assert!(!second.contains("preflight:"), "{second}");
    assert_eq!(counted(t), after_first);

    // Its folder changed: it is started again, and its games replayed.
    std::fs::write(t.join("counter/notes.md"), "a change\n").unwrap();
    let third = run();
    assert!(
        third.contains("preflight: starting 1 bot(s) once before the first game"),
        "{third}"
    );
    assert!(counted(t) > after_first + 1);
}

#[test]
fn check_instructions_starts_every_bot_once_and_names_those_that_cannot_start() {
    let dir = broken_field();
    let t = dir.path();
    let out = referee(t, &["check", "--instructions", "instructions.txt"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "preflight of instructions.txt (meta-ttt): each bot started once as the tournament starts it"
    );
    assert!(
        lines[1].starts_with("  good: ok: answered its first call in "),
        "{text}"
    );
    assert!(lines[2].starts_with("  counter: ok: "), "{text}");
    assert_eq!(
        lines[3],
        "  typo: CANNOT START (instructions.txt:5): command `pyhton3-not-installed` not found on the PATH"
    );
    assert!(lines[4].starts_with("  missing: CANNOT START (instructions.txt:6): exit status 2"));
    let n = if files_confined() { 3 } else { 2 };
    assert_eq!(
        lines.last().copied(),
        Some(
            format!(
                "verdict: {n} of 5 bots cannot play as they are; a run would leave them out \
                 (--preflight skip) or stop (--preflight stop)."
            )
            .as_str()
        )
    );
    // Not a tournament: nothing recorded.
    assert_eq!(referee(t, &["standings"]).status.code(), Some(2));

    std::fs::write(
        t.join("instructions.txt"),
        format!(
            "challenge: meta-ttt\ngood {}\ncounter {}\n",
            q(&first_legal()),
            counter("home")
        ),
    )
    .unwrap();
    let out = referee(t, &["check", "--instructions", "instructions.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).ends_with("verdict: all 2 bots can play.\n"));
}

#[test]
fn a_bot_naming_its_files_from_its_folder_fails_check_as_it_fails_the_tournament() {
    let confined = files_confined();
    for mode in ["relative", "home"] {
        let dir = tournament(&format!(
            "challenge: meta-ttt\nmax-rounds: 2\ngood {fl}\ngood2 {fl}\ncounter {}\n",
            counter(mode),
            fl = q(&first_legal()),
        ));
        let t = dir.path();
        std::fs::create_dir(t.join("counter")).unwrap();
        // As its author would check it, from the tournament folder.
        let check = referee(
            t,
            &["check", "meta-ttt", &counter(mode), "--cwd", "counter"],
        );
        let report = stdout(&check);
        let run = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
        let err = stderr(&run);
        assert!(run.status.success(), "{err}");
        let check_passes = check.status.code() == Some(0);
        let starts = !err.contains("referee: bot `counter` cannot start");
        assert_eq!(check_passes, starts, "{mode}: {report}\n{err}");
        if mode == "home" || !confined {
            assert!(check_passes, "{mode}: {report}");
            continue;
        }
        // The same reason, in the same words, both times.
        let reason = "PermissionError: [Errno 13] Permission denied: 'data.txt'";
        assert!(report.contains(reason), "{report}");
        assert!(
            report.contains(
                "paths: a bot runs in the tournament folder and may use only its own folder: \
                 its files are `counter/FILE` from there"
            ),
            "{report}"
        );
        let (_, line) = cannot_start(&err, "counter");
        assert!(
            line.contains(&format!(
                "exit status 1 before answering: {reason}; a bot runs in the tournament folder"
            )),
            "{line}"
        );
    }
}

#[test]
fn persistent_bots_that_cannot_start_are_found_by_their_first_exchange() {
    let py = q(Path::new(python()));
    let broken = format!("{py} -c 'import no_such_module_here'");
    let io = format!("{py} {} 0- -", q(&bot("gun-duel/io_script.py")));
    // gun-duel: a process (interface 2) and a call (interface 1).
    let dir = tournament(&format!(
        "challenge: gun-duel\nduels-per-pair: 1\nturns: 3\n\
         A {io}\nB {io}\nBroken {broken}\nGone {py} Gone/bot.py\n"
    ));
    let t = dir.path();
    std::fs::create_dir(t.join("Gone")).unwrap();
    std::fs::write(t.join("Gone/bot.toml"), "interface = \"exit-code\"\n").unwrap();
    let out = referee(t, &["--instructions", "instructions.txt", "--quiet"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let (_, line) = cannot_start(&err, "Broken");
    assert!(
        line.ends_with(
            "exit status 1 before answering: ModuleNotFoundError: No module named \
             'no_such_module_here'; left out of this run"
        ),
        "{line}"
    );
    let (_, line) = cannot_start(&err, "Gone");
    assert!(line.contains("exit status 2 before answering: "), "{line}");

    // forty: the handshake.
    let good = format!("{py} {} good", q(&bot("forty_raw.py")));
    let dir = tournament(&format!(
        "challenge: forty\ngames: 10\nA {good}\nB {good}\nBroken {broken}\n"
    ));
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let (_, line) = cannot_start(&err, "Broken");
    assert!(
        line.ends_with("No module named 'no_such_module_here'; left out of this run"),
        "{line}"
    );
    assert!(
        stdout(&out).contains("\nnot playing:\n  Broken: cannot start ("),
        "{}",
        stdout(&out)
    );
}
