//! gun-duel end to end: `referee play` transcripts with the spec's vectors
//! over both interfaces, the exact argv and lines of section 3 and 4,
//! misbehaving interface-2 bots in a tournament, C++ players built with the
//! adapter's command, the end of the tournament, and resume after a kill.

use crate::common::{
    bot, c_bot, processes_of_bot, python, q, referee, root, stderr, stdout, tournament,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The interface-1 test bot, compiled.
fn exit_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| c_bot(&bot("gun-duel/exit_script.c"), "gd_exit_script"))
        .clone()
}

/// An interface-1 bot playing `script`, recording its argv to `record`.
fn exit_cmd(script: &str, record: &Path) -> String {
    format!("{} {script} {}", q(&exit_bin()), q(record))
}

/// An interface-2 bot playing `scripts`, recording its lines to `record`.
fn io_cmd(scripts: &str, record: &Path) -> String {
    format!(
        "{} {} {scripts} {}",
        python(),
        q(&bot("gun-duel/io_script.py")),
        q(record)
    )
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(String::from)
        .collect()
}

fn play(dir: &Path, a: &str, b: &str, extra: &[&str]) -> Output {
    let mut args = vec!["play", "gun-duel", a, b, "--cwd", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = referee(dir, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// Where a tournament bot named like `name` (capitalised) records what it
/// sees: inside its own folder, the only place the sandbox lets it write.
fn rec(d: &Path, name: &str) -> PathBuf {
    let mut folder = name.to_string();
    if let Some(first) = folder.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    let dir = d.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}.rec"))
}

/// The spec's example (section 3 and 4): A plays `0-1`, B plays `010`.
#[test]
fn the_spec_example_over_exit_codes_gets_the_exact_argv() {
    let dir = tempfile::tempdir().unwrap();
    let (ra, rb) = (dir.path().join("a.rec"), dir.path().join("b.rec"));
    let out = play(
        dir.path(),
        &exit_cmd("0-1", &ra),
        &exit_cmd("010", &rb),
        &[
            "--interface-a",
            "exit-code",
            "--interface-b",
            "exit-code",
            "--timeout-ms",
            "10000",
        ],
    );
    assert_eq!(
        stdout(&out),
        "turn 0: A=0 (ammo 1), B=0 (ammo 1)\n\
         turn 1: A=- (ammo 1), B=1 (ammo 0)\n\
         turn 2: A=1 (ammo 0), B=0 (ammo 1) -> A wins\n\
         A wins after 3 turns: A=0-1 B=010\n"
    );
    // In `play`, A has id 0 and B id 1 (the spec's table has 2 and 5).
    assert_eq!(
        lines(&ra),
        [
            "1 0 3 0 0",
            "1 1 3 1 1 0 0",
            "1 2 3 1 0 0- 01",
            "1 3 1 0 1 0-1 010"
        ]
    );
    assert_eq!(
        lines(&rb),
        [
            "0 0 3 0 0",
            "0 1 3 1 1 0 0",
            "0 2 3 0 1 01 0-",
            "0 3 2 1 0 010 0-1"
        ]
    );
}

#[test]
fn the_spec_example_over_io_gets_the_exact_lines_then_eof() {
    let dir = tempfile::tempdir().unwrap();
    let (ra, rb) = (dir.path().join("a.rec"), dir.path().join("b.rec"));
    let out = play(
        dir.path(),
        &io_cmd("0-1", &ra),
        &io_cmd("010", &rb),
        &["--timeout-ms", "10000"],
    );
    assert!(
        stdout(&out).ends_with("A wins after 3 turns: A=0-1 B=010\n"),
        "{}",
        stdout(&out)
    );
    assert_eq!(lines(&ra), ["I1", "F", "P0", "F", "P1", "F", "P0", "EOF"]);
    assert_eq!(lines(&rb), ["I0", "F", "P0", "F", "P-", "F", "P1", "EOF"]);
}

/// Section 9.1, every hand-made vector, through real processes over every
/// mix of interfaces. `?` is played as bad output.
#[test]
fn every_hand_made_vector_plays_the_same_over_both_interfaces() {
    let h17a = "0-".repeat(50);
    let h17b = "-0".repeat(50);
    let h18x = "0020101--=0=02=-0-=1".repeat(5);
    let h18y = "00201--01==00=2-0=-1".repeat(5);
    // name, A, B, result words, turns, ammo A, ammo B, turn limit
    type Vector<'a> = (&'a str, &'a str, &'a str, &'a str, u32, i32, i32, u32);
    let vectors: Vec<Vector> = vec![
        ("H1", "00", "01", "B wins", 2, 2, 0, 100),
        ("H2", "000", "002", "B wins", 3, 3, 0, 100),
        ("H3", "0-1", "010", "A wins", 3, 0, 1, 100),
        ("H4", "01", "0=", "A wins", 2, 0, 1, 100),
        ("H5", "001", "002", "B wins", 3, 1, 0, 100),
        ("H6", "002", "000", "A wins", 3, 0, 3, 100),
        ("H7", "002", "001", "A wins", 3, 0, 1, 100),
        ("H8", "002", "00-", "A wins", 3, 0, 2, 100),
        ("H9", "00-", "002", "B wins", 3, 2, 0, 100),
        ("H10", "0=", "01", "B wins", 2, 1, 0, 100),
        ("H11", "011", "01-", "B wins", 3, -1, 0, 100),
        ("H12", "02", "00", "B wins", 2, -1, 2, 100),
        ("H13", "1", "0", "B wins", 1, -1, 1, 100),
        ("H14", "1", "2", "draw", 1, -1, -2, 100),
        ("H15", "0?", "0-", "B wins", 2, 1, 1, 100),
        ("H16", "?", "1", "draw", 1, 0, -1, 100),
        ("H17", &h17a, &h17b, "draw", 100, 50, 50, 100),
        ("H17/3", &h17a, &h17b, "draw", 3, 2, 1, 3),
        ("H18", &h18x, &h18y, "draw", 100, 0, 0, 100),
        (
            "P",
            "001-000-1201101001----2",
            "00-10-=1-==--0100-1---1",
            "B wins",
            23,
            -1,
            1,
            100,
        ),
    ];
    let mixes = [
        ("exit-code", "exit-code"),
        ("io", "io"),
        ("io", "exit-code"),
        ("exit-code", "io"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (n, (name, a, b, words, turns, ammo_a, ammo_b, limit)) in vectors.into_iter().enumerate() {
        let (ia, ib) = mixes[n % mixes.len()];
        let cmd = |interface: &str, script: &str| {
            let script = script.replace('?', "x");
            match interface {
                "io" => io_cmd(&script, Path::new("-")),
                _ => exit_cmd(&script, Path::new("-")),
            }
        };
        let out = play(
            dir.path(),
            &cmd(ia, a),
            &cmd(ib, b),
            &[
                "--interface-a",
                ia,
                "--interface-b",
                ib,
                "--turns",
                &limit.to_string(),
                "--timeout-ms",
                "10000",
            ],
        );
        let text = stdout(&out);
        let played = |s: &str| s[..turns as usize].to_string();
        let unit = if turns == 1 { "turn" } else { "turns" };
        let result = format!(
            "{words} after {turns} {unit}: A={} B={}",
            played(a),
            played(b)
        );
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(all.len(), turns as usize + 1, "{name} ({ia}/{ib}):\n{text}");
        assert_eq!(all[turns as usize], result, "{name} ({ia}/{ib})");
        let last = all[turns as usize - 1];
        let at = turns as usize - 1;
        assert!(
            last.contains(&format!("A={} (ammo {ammo_a})", &a[at..=at]))
                && last.contains(&format!("B={} (ammo {ammo_b})", &b[at..=at])),
            "{name} ({ia}/{ib}): {last}"
        );
        if a.contains('?') {
            assert!(text.contains("A=? (ammo "), "{name}: {text}");
            assert!(text.contains("[bad-output] explodes"), "{name}: {text}");
        }
    }
}

#[test]
fn several_moves_in_one_write_become_later_moves() {
    let dir = tempfile::tempdir().unwrap();
    // A writes its three moves at once on the first `F`, then nothing.
    let out = play(
        dir.path(),
        &io_cmd("B0-1", Path::new("-")),
        &exit_cmd("010", Path::new("-")),
        &["--interface-b", "exit-code", "--timeout-ms", "10000"],
    );
    assert!(
        stdout(&out).ends_with("A wins after 3 turns: A=0-1 B=010\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn interface_1_stdout_is_only_logged_and_every_failure_is_no_action() {
    let dir = tempfile::tempdir().unwrap();
    // 100 KB on stdout each turn, then a load: stdout is never the answer.
    let out = play(
        dir.path(),
        &exit_cmd("o", Path::new("-")),
        &exit_cmd("01", Path::new("-")),
        &[
            "--interface-a",
            "exit-code",
            "--interface-b",
            "exit-code",
            "--timeout-ms",
            "10000",
        ],
    );
    assert!(stdout(&out).ends_with("B wins after 2 turns: A=00 B=01\n"));
    for (script, fault, timeout) in [
        ("0x", "bad-output", "10000"),
        ("0k", "crash", "10000"),
        ("0s", "timeout", "700"),
    ] {
        let start = Instant::now();
        let out = play(
            dir.path(),
            &exit_cmd(script, Path::new("-")),
            &exit_cmd("0-", Path::new("-")),
            &[
                "--interface-a",
                "exit-code",
                "--interface-b",
                "exit-code",
                "--timeout-ms",
                timeout,
            ],
        );
        assert_eq!(
            stdout(&out),
            format!(
                "turn 0: A=0 (ammo 1), B=0 (ammo 1)\n\
                 turn 1: A=? (ammo 1) [{fault}] explodes, B=- (ammo 1) -> B wins\n\
                 B wins after 2 turns: A=0? B=0-\n"
            )
        );
        // The sleeper is killed at its deadline, not after its 60 s.
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

#[test]
fn interface_2_whitespace_flood_is_bad_output_and_the_bot_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("a.rec");
    let out = play(
        dir.path(),
        &io_cmd("w", &record),
        &io_cmd("0-", Path::new("-")),
        &["--duels", "2", "--timeout-ms", "10000"],
    );
    let text = stdout(&out);
    // Duel 1: more than 4096 spaces before the move is bad output. The rest
    // of that write (spaces, then `0`) is the next move: the bot is alive.
    assert!(text.contains("B wins after 1 turn: A=? B=0\n"), "{text}");
    assert!(
        text.contains("duel 2\nturn 0: A=0 (ammo 1), B=0 (ammo 1)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("2 duels: A won 0, B won 2, 0 drawn\n"),
        "{text}"
    );
    // The last `P` of duel 1 travels with duel 2's `I` and `F`.
    assert_eq!(
        lines(&record),
        ["I1", "F", "P0", "I1", "F", "P0", "F", "P-", "EOF"]
    );
}

/// A tournament folder's standings as JSON.
fn standings_json(dir: &Path) -> serde_json::Value {
    let out = referee(dir, &["standings", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn row<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json.as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {json}"))
}

#[test]
fn misbehaving_interface_2_bots_in_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let watcher = rec(d, "watcher");
    let ins = format!(
        "challenge: gun-duel\nduels-per-pair: 3\nturns: 10\ntimeout-ms: 1500\n\
         Staller {}\nGarbage {}\nDier {}\nSolid {}\nWatcher {}\n",
        io_cmd("0-,s", &rec(d, "staller")),
        io_cmd("x", &rec(d, "garbage")),
        io_cmd("0-,q", &rec(d, "dier")),
        exit_cmd("0-", Path::new("-")),
        io_cmd("0-", &watcher),
    );
    std::fs::write(d.join("instructions.txt"), ins).unwrap();
    std::fs::create_dir(d.join("Solid")).unwrap();
    std::fs::write(d.join("Solid/bot.toml"), "interface = \"exit-code\"\n").unwrap();
    // The watcher's record must hold the tournament's duels only: no
    // preflight call before them (tests/it/preflight.rs has those).
    let out = referee(
        d,
        &[
            "--instructions",
            "instructions.txt",
            "--jobs",
            "2",
            "--preflight",
            "off",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json = standings_json(d);
    // The staller times out once; every later move is no action at once,
    // never counted again.
    assert_eq!(
        row(&json, "Staller")["faults"],
        serde_json::json!({"timeout": 1})
    );
    assert_eq!(
        row(&json, "Dier")["faults"],
        serde_json::json!({"crash": 1})
    );
    // Garbage explodes on turn 0 of each of its 12 round-1 duels (3 per
    // pair, 4 opponents) and leaves with 0 points.
    let garbage = row(&json, "Garbage");
    assert_eq!(garbage["faults"], serde_json::json!({"bad_output": 12}));
    assert_eq!(garbage["score"], 0);
    assert_eq!(garbage["rounds_survived"], 0);
    assert_eq!(row(&json, "Solid")["faults"], serde_json::json!({}));
    let log = std::fs::read_to_string(d.join("logs/Staller.log")).unwrap();
    assert!(log.contains("no move within 1500 ms"), "{log}");
    // The watcher plays normal duels against dead bots: it is told `P?`.
    let seen = lines(&watcher);
    assert!(seen.iter().any(|l| l == "P?"), "{seen:?}");
    assert_eq!(seen.last().map(String::as_str), Some("EOF"));
    // Its lines are whole duels: `I<id>`, then `F` and `P<c>` pairs.
    let mut i = 0;
    while i < seen.len() - 1 {
        assert!(seen[i].starts_with('I'), "line {i}: {seen:?}");
        i += 1;
        while i < seen.len() - 1 && seen[i] == "F" {
            assert!(seen[i + 1].starts_with('P') && seen[i + 1].len() == 2);
            i += 2;
        }
    }
    // Every process is gone once the referee has exited.
    // (Found by their HOME: the pids they recorded are their namespace's.)
    for name in ["staller", "garbage", "dier", "watcher"] {
        assert!(rec(d, name).with_extension("rec.pid").exists(), "{name}");
        let folder = rec(d, name).parent().unwrap().to_path_buf();
        let left = processes_of_bot(&folder);
        assert!(left.is_empty(), "{name} ({left:?}) survived the tournament");
    }
    // Boards after every round, then the final table.
    let text = stdout(&out);
    assert!(text.starts_with(" :: ScoreBoard\n"), "{text}");
    assert!(text.contains("| Player                                   | Language   | Points |"));
}

#[test]
fn ids_argv_lines_and_joint_winners_in_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ins = format!(
        "challenge: gun-duel\nduels-per-pair: 2\nturns: 3\ninterface: exit-code\n\
         X {}\nY {}\nZ {}\n",
        exit_cmd("0-", &rec(d, "x")),
        exit_cmd("0-", &rec(d, "y")),
        io_cmd("0-", &rec(d, "z")),
    );
    std::fs::write(d.join("instructions.txt"), ins).unwrap();
    std::fs::create_dir_all(d.join("Z")).unwrap();
    std::fs::write(d.join("Z/bot.toml"), "interface = \"io\"\n").unwrap();
    // Every call is counted below: no preflight call before the duels.
    let out = referee(
        d,
        &["--instructions", "instructions.txt", "--preflight", "off"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Load then shield forever: every duel is a draw at the limit, so all
    // three tie on 0/0 and are joint winners after round 1.
    assert_eq!(
        stdout(&out),
        " :: ScoreBoard\n     0 ALIVE      0/     0 1 X\n     1 ALIVE      0/     0 1 Y\n     2 ALIVE      0/     0 1 Z\n\
         | Player                                   | Language   | Points |     1 |\n\
         |:---------------------------------------- |:---------- | ------:| -----:|\n\
         | X                                        | -          |      0 |     0 |\n\
         | Y                                        | -          |      0 |     0 |\n\
         | Z                                        | -          |      0 |     0 |\n\
         Winners (tied): X, Y, Z\n"
    );
    assert!(
        stderr(&out).contains("joint winners: X, Y, Z"),
        "{}",
        stderr(&out)
    );
    let mut seen_by = Vec::new();
    for name in ["x", "y"] {
        let calls = lines(&rec(d, name));
        // 4 duels (2 per opponent), 3 turns and the final call each.
        assert_eq!(calls.len(), 16, "{calls:?}");
        let mut ids = std::collections::BTreeSet::new();
        for (n, call) in calls.iter().enumerate() {
            let f: Vec<&str> = call.split(' ').collect();
            ids.insert(f[0].to_string());
            let turn = n % 4;
            assert_eq!(f[1], turn.to_string(), "{call}");
            let expected = match turn {
                0 => vec!["3", "0", "0"],
                1 => vec!["3", "1", "1", "0", "0"],
                2 => vec!["3", "1", "1", "0-", "0-"],
                _ => vec!["0", "1", "1", "0--", "0--"],
            };
            assert_eq!(f[2..], expected[..], "{call}");
        }
        seen_by.push(ids);
    }
    let z = lines(&rec(d, "z"));
    let intros: std::collections::BTreeSet<String> = z
        .iter()
        .filter_map(|l| l.strip_prefix('I').map(String::from))
        .collect();
    assert_eq!(z.iter().filter(|l| l.starts_with('I')).count(), 4);
    assert_eq!(z.len(), 4 * 7 + 1, "{z:?}");
    seen_by.push(intros);
    // Each bot meets the other two ids; the id it never sees is its own, and
    // those make a permutation of 0..3.
    let mut own: Vec<String> = seen_by
        .iter()
        .map(|seen| {
            assert_eq!(seen.len(), 2, "{seen:?}");
            ["0", "1", "2"]
                .into_iter()
                .find(|id| !seen.contains(*id))
                .unwrap()
                .to_string()
        })
        .collect();
    own.sort();
    assert_eq!(own, ["0", "1", "2"]);
    // Shared ranks in json.
    let json = standings_json(d);
    for r in json.as_array().unwrap() {
        assert_eq!(r["rank"], 1);
        assert_eq!(r["rounds_survived"], 1);
        assert_eq!(r["round_points"], serde_json::json!([0]));
    }
}

#[test]
fn the_end_closes_stdin_waits_then_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ins = format!(
        "challenge: gun-duel\nduels-per-pair: 1\nturns: 2\nPolite {}\nStubborn {} stubborn\n",
        io_cmd("0-", &rec(d, "polite")),
        io_cmd("0-", &rec(d, "stubborn")),
    );
    std::fs::write(d.join("instructions.txt"), ins).unwrap();
    let start = Instant::now();
    // Every line is checked below: no preflight process before the duels.
    let out = referee(
        d,
        &["--instructions", "instructions.txt", "--preflight", "off"],
    );
    let took = start.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    // The last `P` comes before end of input.
    let polite = lines(&rec(d, "polite"));
    assert!(["I0", "I1"].contains(&polite[0].as_str()), "{polite:?}");
    assert_eq!(polite[1..], ["F", "P0", "F", "P-", "EOF"]);
    assert_eq!(
        lines(&rec(d, "stubborn")).last().map(String::as_str),
        Some("EOF")
    );
    // The stubborn bot had its 1 s, then its group (and child) was killed.
    assert!(took >= Duration::from_secs(1), "{took:?}");
    for file in ["stubborn.rec.pid", "stubborn.rec.child", "polite.rec.pid"] {
        let bot = file.split('.').next().unwrap_or(file);
        assert!(rec(d, bot).with_file_name(file).exists(), "{file}");
        let folder = rec(d, bot).parent().unwrap().to_path_buf();
        let left = processes_of_bot(&folder);
        assert!(left.is_empty(), "{file}: {left:?} survived the tournament");
    }
}

/// Copies a C++ test player to `dir/<name>/` with a bot.toml whose build is
/// the adapter's documented command.
fn cpp_player(dir: &Path, name: &str) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        bot(&format!("gun-duel/cpp/{name}.hpp")),
        folder.join(format!("{name}.hpp")),
    )
    .unwrap();
    let p = root().join("protocols/gun-duel");
    let p = p.to_str().unwrap();
    let build = format!(
        "g++ -std=c++14 -O2 -I {p} -include {name}.hpp -DGUNDUEL_PLAYER={name} {p}/driver.cpp -o {name}"
    );
    std::fs::write(
        folder.join("bot.toml"),
        format!("build = \"{build}\"\nlanguage = \"C++\"\ninterface = \"io\"\n"),
    )
    .unwrap();
}

#[test]
fn cpp_players_in_the_original_form_build_and_play_a_tournament() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cpp_player(d, "HoarderPlayer");
    cpp_player(d, "CounterPlayer");
    std::fs::create_dir(d.join("Exploder")).unwrap();
    std::fs::write(d.join("Exploder/bot.toml"), "language = \"JavaScript\"\n").unwrap();
    std::fs::write(
        d.join("instructions.txt"),
        format!(
            "challenge: gun-duel\nduels-per-pair: 4\n\
             HoarderPlayer HoarderPlayer/HoarderPlayer\n\
             CounterPlayer CounterPlayer/CounterPlayer\n\
             Exploder node {}\n",
            q(&bot("gun-duel/exploder.js"))
        ),
    )
    .unwrap();
    let out = referee(d, &["--instructions", "instructions.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // By the rules: Hoarder loads twice then fires plasma; Counter shields
    // against what the opponent can afford and shoots an unarmed one, so
    // every Hoarder-Counter duel is A=0020 B=0-=1 (Counter wins). The
    // exploder fires without ammo and loses every duel on turn 0.
    // Round 1: Hoarder 4, Counter 8, Exploder 0 (leaves). Round 2: Counter
    // 4, Hoarder 0 (leaves).
    let text = stdout(&out);
    assert_eq!(
        text,
        " :: ScoreBoard\n\
         \x20    0 ALIVE      4/     4 1 HoarderPlayer\n\
         \x20    1 ALIVE      8/     8 1 CounterPlayer\n\
         \x20    2 -----      0/     0 0 Exploder\n\
         \x20:: ScoreBoard\n\
         \x20    0 -----      0/     4 1 HoarderPlayer\n\
         \x20    1 ALIVE      4/    12 2 CounterPlayer\n\
         \x20    2 -----      0/     0 0 Exploder\n\
         | Player                                   | Language   | Points |     1 |     2 |\n\
         |:---------------------------------------- |:---------- | ------:| -----:| -----:|\n\
         | CounterPlayer                            | C++        |     12 |     8 |     4 |\n\
         | HoarderPlayer                            | C++        |      4 |     4 |     0 |\n\
         | Exploder                                 | JavaScript |      0 |     0 |\n\
         Winner: CounterPlayer\n"
    );
    // What the player printed on std::cout went to its log, not the referee.
    let log = std::fs::read_to_string(d.join("logs/HoarderPlayer.log")).unwrap();
    assert!(log.contains("hoarder turn 2 ammo 2"), "{log}");
    // Its twelfth and last duel (round 2, against Counter) was a loss, told
    // by `declared` after end of input.
    assert!(log.contains("hoarder duel 12 result 2"), "{log}");
    // The same duel through `play`, with the built binaries.
    let out = play(
        d,
        "./HoarderPlayer/HoarderPlayer",
        "./CounterPlayer/CounterPlayer",
        &["--duels", "2", "--timeout-ms", "10000"],
    );
    assert!(stdout(&out).contains("B wins after 4 turns: A=0020 B=0-=1\nduel 2\n"));
    assert!(stdout(&out).ends_with("2 duels: A won 0, B won 2, 0 drawn\n"));
    // The other formats.
    let csv = stdout(&referee(d, &["standings", "--format", "csv"]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "rank,name,score,played,wins,draws,losses,faults,out,cpu_seconds,\
             language,rounds_survived,round_1,round_2"
        )
    );
    // The CPU seconds (column 10) are measured; the rest is known.
    let rows: Vec<String> = lines
        .map(|l| {
            let mut f: Vec<&str> = l.split(',').collect();
            f.remove(9);
            f.join(",")
        })
        .collect();
    assert_eq!(
        rows,
        [
            // 4 duels a pair: Counter beats Exploder and Hoarder in round
            // 1 (8 duels) and Hoarder in round 2 (4); Hoarder beats Exploder.
            "1,CounterPlayer,12,12,12,0,0,,,C++,2,8,4",
            "2,HoarderPlayer,4,12,4,0,8,,,C++,1,4,0",
            "3,Exploder,0,8,0,0,8,,,JavaScript,0,0,"
        ],
        "{csv}"
    );
    let md = stdout(&referee(d, &["standings", "--format", "md"]));
    assert_eq!(
        md,
        text.split_once("| Player")
            .map(|(_, t)| format!("| Player{t}"))
            .unwrap()
    );
    assert!(
        md.ends_with("|\nWinner: CounterPlayer\n"),
        "the last bot standing is named: {md}"
    );
    let json = standings_json(d);
    let first = &json[0];
    assert_eq!(first["name"], "CounterPlayer");
    assert_eq!(first["rank"], 1);
    assert_eq!(first["score"], 12);
    assert_eq!(first["language"], "C++");
    assert_eq!(first["rounds_survived"], 2);
    assert_eq!(first["round_points"], serde_json::json!([8, 4]));
    assert_eq!(first["faults"], serde_json::json!({}));
}

#[test]
fn organiser_errors_name_the_file_and_line() {
    let dir = tournament("challenge: gun-duel\na true\nb true\n");
    std::fs::create_dir(dir.path().join("b")).unwrap();
    std::fs::write(
        dir.path().join("b/bot.toml"),
        "language = \"C\"\ninterface = \"stdin\"\n",
    )
    .unwrap();
    // The bot's own file: it is left out, which leaves too few bots.
    let out = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("referee: leaving out `b`: ")
            && lines[0].contains("b/bot.toml:2: unknown gun-duel interface `stdin`"),
        "{err}"
    );
    assert!(
        lines[1].ends_with("a tournament needs at least 2 bots, found 1 (1 left out)"),
        "{err}"
    );

    let dir = tournament("challenge: gun-duel\ninterface: pipes\na true\nb true\n");
    let out = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("instructions.txt:2: unknown gun-duel interface `pipes`"),
        "{}",
        stderr(&out)
    );
}

/// A tournament whose duels are the same whatever ran before: every bot
/// plays one fixed script per duel.
fn resumable(dir: &Path) {
    let ins = format!(
        "challenge: gun-duel\nseed: 7\nduels-per-pair: 12\nturns: 20\ntimeout-ms: 10000\n\
         P1 {}\nP2 {}\nP3 {}\nP4 {}\n",
        io_cmd("00-2=1", Path::new("-")),
        exit_cmd("0-0=1-", Path::new("-")),
        io_cmd("0=-0", Path::new("-")),
        exit_cmd("00-1-=", Path::new("-")),
    );
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
    for name in ["P2", "P4"] {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(
            dir.join(name).join("bot.toml"),
            "interface = \"exit-code\"\n",
        )
        .unwrap();
    }
}

/// Starts the referee on `dir`, stops it with `signal` once at least
/// `after` duels are committed, and returns how it exited.
fn interrupt(dir: &Path, after: usize, signal: nix::sys::signal::Signal) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt", "--jobs", "1"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let db = dir.join("results.db");
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < until, "no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the cut"
        );
        if db.exists() {
            let store = referee::results::Store::open(&db).unwrap();
            if store.games_with_prefix("gun-duel", "").unwrap().len() >= after {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    child.wait().unwrap().code()
}

#[test]
fn an_interrupted_tournament_resumes_to_the_same_result() {
    let whole = tempfile::tempdir().unwrap();
    resumable(whole.path());
    let full = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
    );
    assert!(full.status.success(), "{}", stderr(&full));
    let total: usize = stderr(&full)
        .lines()
        .find_map(|l| l.split_once(" duels played, 0 from the results database"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", stderr(&full)));

    let cut = tempfile::tempdir().unwrap();
    resumable(cut.path());
    // Killed without warning, then stopped with SIGTERM (finished duels are
    // kept, the bots stopped, exit 130).
    assert_eq!(
        interrupt(cut.path(), 15, nix::sys::signal::Signal::SIGKILL),
        None
    );
    assert_eq!(
        interrupt(cut.path(), 40, nix::sys::signal::Signal::SIGTERM),
        Some(130)
    );
    let again = referee(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "1"],
    );
    assert!(again.status.success(), "{}", stderr(&again));
    let err = stderr(&again);
    let kept: usize = err
        .lines()
        .find_map(|l| l.strip_prefix("resuming: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resume line in {err}"));
    assert!(kept >= 40 && kept < total, "{kept} of {total}");
    assert!(
        err.contains(&format!(
            "{} duels played, {kept} from the results database",
            total - kept
        )),
        "{err}"
    );
    // Same boards, same final table, same standings: with --jobs 2 at once
    // and with --jobs 1 in three pieces.
    assert_eq!(stdout(&again), stdout(&full));
    // CPU seconds are measured, the rest is the same.
    let outcomes = |dir: &Path| {
        let mut json = standings_json(dir);
        for r in json.as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("cpu_seconds");
        }
        json
    };
    assert_eq!(outcomes(cut.path()), outcomes(whole.path()));
    // A last run plays nothing and prints the same.
    let third = referee(cut.path(), &["--instructions", "instructions.txt"]);
    assert!(stderr(&third).contains(&format!(
        "0 duels played, {total} from the results database"
    )));
    assert_eq!(stdout(&third), stdout(&full));
}

#[test]
fn the_example_tournament_resolves_with_both_interfaces() {
    let path = root().join("examples/bots/gun-duel/instructions.txt");
    let resolved = referee::config::resolve(&path, &referee::config::Overrides::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.challenge.name(), "gun-duel");
    let (_, interfaces) = referee::challenges::gun_duel::resolve(&resolved.spec).unwrap();
    assert_eq!(interfaces.len(), 5);
    assert!(interfaces.contains(&game_gun_duel::Interface::Io));
    assert!(interfaces.contains(&game_gun_duel::Interface::ExitCode));
    assert!(resolved.spec.bots.iter().all(|b| b.language.is_some()));
    assert_eq!(resolved.builds.iter().flatten().count(), 2, "C and C++");
}

#[test]
fn the_example_and_a_dropped_in_adapter_player_run_copied_out_of_the_repository() {
    // The example's Hunter and the adapter's SteadyPlayer build with
    // `{protocols}/gun-duel`, the referee's own copy of the adapter, so a
    // copy of them anywhere builds and plays.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let copy = |from: &Path, to: &Path| {
        let ok = Command::new("cp")
            .arg("-R")
            .arg(from)
            .arg(to)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "cp {} {}", from.display(), to.display());
    };
    copy(&root().join("examples/bots/gun-duel"), &d.join("t"));
    copy(
        &root().join("protocols/gun-duel/examples/SteadyPlayer"),
        &d.join("t/SteadyPlayer"),
    );
    let t = d.join("t");
    for leftover in [
        "results.db",
        "logs",
        "Hunter/Hunter",
        "SteadyPlayer/SteadyPlayer",
    ] {
        let _ = std::fs::remove_dir_all(t.join(leftover));
        let _ = std::fs::remove_file(t.join(leftover));
    }
    let hunter = std::fs::read_to_string(t.join("Hunter/bot.toml")).unwrap();
    assert!(hunter.contains("-I {protocols}/gun-duel"), "{hunter}");
    // Two duels per pair and a generous limit: this is about finding the
    // adapter, not about speed on a loaded machine.
    let out = referee(
        &t,
        &[
            "--instructions",
            "instructions.txt",
            "--set",
            "duels-per-pair=2",
            "--timeout-ms",
            "10000",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let json = standings_json(&t);
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}\n{}", stderr(&out));
    for name in [
        "Hunter",
        "SteadyPlayer",
        "Sentinel",
        "Gambler",
        "Predictor",
        "Turtle",
    ] {
        assert_eq!(
            row(&json, name)["faults"],
            serde_json::json!({}),
            "{name}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_interface_2_bots_cpu_time_is_stored_per_duel() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let burner = root().join("tests/bots/gun-duel/io_burner.py");
    let ins = format!(
        "challenge: gun-duel\nduels-per-pair: 2\nturns: 6\ntimeout-ms: 5000\n\
         Burner {} {}\nIdle {}\n",
        python(),
        q(&burner),
        io_cmd("0", Path::new("-")),
    );
    std::fs::write(d.join("instructions.txt"), ins).unwrap();
    let out = referee(d, &["--instructions", "instructions.txt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let conn = rusqlite::Connection::open(d.join("results.db")).unwrap();
    let mut stmt = conn.prepare("SELECT record FROM games").unwrap();
    let records: Vec<serde_json::Value> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|r| serde_json::from_str(&r.unwrap()).unwrap())
        .collect();
    assert!(!records.is_empty());
    for rec in &records {
        let names = rec["names"].as_array().unwrap();
        let cpu = rec["cpu_seconds"].as_array().unwrap();
        let burner_seat = names.iter().position(|n| n == "Burner").unwrap();
        // Six answers of fixed work each: well above nothing.
        let used = cpu[burner_seat].as_f64().unwrap();
        assert!(used > 0.01, "{rec}");
    }
}
