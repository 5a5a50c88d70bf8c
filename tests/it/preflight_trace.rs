//! The preflight leaves no trace and asks only what the tournament could
//! ask: a strict bot that records every call in its own folder
//! (`tests/bots/call_log.py`) and refuses any call its tournament could
//! not make is never left out, `check --instructions` leaves its folder
//! exactly as it was, and after a tournament its record holds exactly the
//! calls of its games (those of the same tournament played without a
//! preflight), for each challenge whose bots are processes.

use crate::common::{bot, python, q, referee, stderr, stdout, tournament};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// `call_log.py CHALLENGE ARGS...` as an instructions command.
fn logger(args: &str) -> String {
    format!(
        "{} {} {args}",
        q(Path::new(python())),
        q(&bot("call_log.py"))
    )
}

/// Names, kinds, sizes, permission bits, bytes and modification times of
/// everything in `folder`, in path order.
fn listing(folder: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let bytes = if meta.is_file() {
            std::fs::read(&p).unwrap()
        } else {
            Vec::new()
        };
        out.push(format!(
            "{} {:?} {} {:o} {:?} {}.{}",
            p.strip_prefix(folder).unwrap().display(),
            meta.file_type(),
            meta.len(),
            meta.mode(),
            bytes,
            meta.mtime(),
            meta.mtime_nsec()
        ));
        if meta.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        }
    }
    out.sort();
    out
}

/// The strict bot's record after a run, its lines sorted (games may run
/// in any order at --jobs 2).
fn record(t: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(t.join("strict/calls.log")).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// A heist bot's record: its folder is read-only in play, so it records
/// its calls on stderr, which its log keeps under each call's label; the
/// preflight's call is the referee's check, not a game.
fn heist_record(t: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(t.join("logs/strict.log")).unwrap_or_default();
    let mut in_game = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if let Some(label) = line.strip_prefix("--- ") {
            in_game = !label.starts_with("preflight");
        } else if let Some(call) = line.strip_prefix("CALL ").filter(|_| in_game) {
            lines.push(call.to_string());
        }
    }
    lines.sort();
    lines
}

/// The whole check for one tournament whose strict bot is `strict`.
fn no_trace_and_only_real_calls(instructions: &str) {
    only_real_calls(instructions, record)
}

/// [`no_trace_and_only_real_calls`] with the strict bot's record read by
/// `record`.
fn only_real_calls(instructions: &str, record: fn(&Path) -> Vec<String>) {
    // The strict bot's folder holds a file of its own before anything runs.
    let make = || {
        let dir = tournament(instructions);
        let folder = dir.path().join("strict");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("notes.txt"), "mine\n").unwrap();
        dir
    };
    let dir = make();
    let t = dir.path();
    let before = listing(&t.join("strict"));

    let out = referee(t, &["check", "--instructions", "instructions.txt"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("  strict: ok: answered its first call in "),
        "{text}"
    );
    assert_eq!(listing(&t.join("strict")), before, "check left a trace");

    let run = |t: &Path, extra: &[&str]| {
        let mut args = vec!["--instructions", "instructions.txt", "--jobs", "2"];
        args.extend_from_slice(extra);
        let out = referee(t, &args);
        let err = stderr(&out);
        assert!(out.status.success(), "{err}");
        assert!(!err.contains("cannot start"), "{err}");
        assert!(!err.contains("first answer was a fault"), "{err}");
        assert!(!stdout(&out).contains("not playing"), "{}", stdout(&out));
    };
    run(t, &[]);
    let played = record(t);
    assert!(!played.is_empty(), "the strict bot played no call");

    // The same tournament without a preflight: the games' calls alone.
    let bare = make();
    run(bare.path(), &["--preflight", "off"]);
    assert_eq!(played, record(bare.path()));
    assert!(
        !t.join(".referee/preflight/strict").exists(),
        "the preflight's copy was not removed"
    );
}

#[test]
fn meta_ttt_the_preflight_leaves_data_and_records_untouched() {
    no_trace_and_only_real_calls(&format!(
        "challenge: meta-ttt\nmax-rounds: 6\nstrict {}\nother {}\n",
        logger("meta-ttt"),
        logger("meta-ttt"),
    ));
}

#[test]
fn heist_a_bot_checking_its_tournament_strictly_is_asked_what_the_tournament_asks() {
    // Four bots and a rabble of 4: no game has 3 players only. Every game
    // asks each bot once (round 1; a bet of 0 is never asked round 2).
    let strict = logger("heist 4 4 3");
    let instructions = format!(
        "challenge: heist\nseed: 5\ngames: 3\nrabble: 4\n\
         strict {strict}\nb {strict}\nc {strict}\nd {strict}\n"
    );
    only_real_calls(&instructions, heist_record);
    let dir = tournament(&instructions);
    let out = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let games: Vec<String> = heist_record(dir.path())
        .iter()
        .map(|c| c.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(games, ["0 1", "1 1", "2 1"]);
}

#[test]
fn gun_duel_interface_1_sees_only_its_duels() {
    no_trace_and_only_real_calls(&format!(
        "challenge: gun-duel\nseed: 9\nduels-per-pair: 1\nturns: 3\ninterface: exit-code\n\
         strict {}\nb {}\nc {}\n",
        logger("gun-duel 3"),
        logger("gun-duel 3"),
        logger("gun-duel 3"),
    ));
}

#[test]
fn forty_the_handshake_and_first_ask_leave_no_record() {
    no_trace_and_only_real_calls(&format!(
        "challenge: forty\nseed: 4\ngames: 30\nconcurrency: 1\ntimeout-ms: 5000\n\
         strict {}\nb {}\nc {}\n",
        logger("forty 3"),
        logger("forty 3"),
        logger("forty 3"),
    ));
}
