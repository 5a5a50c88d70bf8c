//! bf-joust through the `referee` binary: tournaments (scoreboard, invalid
//! bots, organiser errors, resume, parallelism, interruption) and `play`
//! (the spec's vectors and trace, byte for byte; bad options).

use crate::common::{referee, stderr, stdout, tournament};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `NAME/NAME.bf` for each bot.
fn bots(dir: &Path, bots: &[(&str, &str)]) {
    for (name, source) in bots {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(dir.join(name).join(format!("{name}.bf")), source).unwrap();
    }
}

fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--instructions", "instructions.txt"];
    args.extend_from_slice(extra);
    referee(dir, &args)
}

/// The progress lines of finished pairings.
fn pairing_lines(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.starts_with("===== ") && l.contains(" finished with "))
        .map(str::to_string)
        .collect()
}

/// Every stored match: a key (the pairing's row key, k and polarity) ->
/// the match as JSON (left, right, k, tape_len, polarity, limit, result,
/// cycles, end), read from the one row each pairing is stored in.
fn stored(db: &Path) -> BTreeMap<String, serde_json::Value> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT game_key, record FROM games WHERE challenge = 'bf-joust'")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    let mut matches = BTreeMap::new();
    for row in rows {
        let (key, record) = row.unwrap();
        let p: serde_json::Value = serde_json::from_str(&record).unwrap();
        let lengths = p["lengths"].as_array().unwrap();
        for (i, polarity) in p["polarities"].as_array().unwrap().iter().enumerate() {
            let results = p["results"][i].as_str().unwrap().as_bytes();
            let ends = p["ends"][i].as_str().unwrap().as_bytes();
            for (k, len) in lengths.iter().enumerate() {
                let result = match results[k] {
                    b'<' => "left-wins",
                    b'>' => "right-wins",
                    _ => "draw",
                };
                let end = match ends[k] {
                    b'f' => "flag",
                    b'o' => "off-tape",
                    b'b' => "both-lost",
                    _ => "limit",
                };
                matches.insert(
                    format!("{key}/k={k}/{}", polarity.as_str().unwrap()),
                    serde_json::json!({
                        "left": p["left"], "right": p["right"], "k": k,
                        "tape_len": len, "polarity": polarity, "limit": p["limit"],
                        "result": result, "cycles": p["cycles"][i][k], "end": end,
                    }),
                );
            }
        }
    }
    matches
}

/// Stored matches per (left, right) pairing.
fn per_pairing(matches: &BTreeMap<String, serde_json::Value>) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for m in matches.values() {
        let key = (
            m["left"].as_str().unwrap().to_string(),
            m["right"].as_str().unwrap().to_string(),
        );
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

// Bots whose every result follows from the rules on any tape length:
// - Rusher skips the eight cells that can never hold the enemy flag, then
//   clears each cell and steps on; a cleared flag stays 0 for the `]` check,
//   so it wins before stepping off the tape.
// - Mirror is the same program: two rushers kill both flags at the same
//   check, a draw.
// - Idle never moves: its flag stays 128.
// - Suicide steps off the tape at its own end in the first cycle.
const RUSHER: &str = "(>)*8([-]>)*22";
const FIELD: [(&str, &str); 4] = [
    ("Rusher", RUSHER),
    ("Mirror", RUSHER),
    ("Idle", "an empty program: just comments"),
    ("Suicide", "<"),
];

#[test]
fn a_tournament_prints_the_original_scoreboard() {
    let dir = tournament(
        "challenge: bf-joust\ntape-lengths: all\n\nRusher\nMirror Mirror/Mirror.bf\nIdle\nSuicide\n",
    );
    bots(dir.path(), &FIELD);
    std::fs::write(dir.path().join("Rusher/bot.toml"), "owner = \"alice\"\n").unwrap();
    let out = run(dir.path(), &["--jobs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 21 lengths: the rushers beat Idle and Suicide and draw each other;
    // Idle beats Suicide. Equal scores: name descending.
    assert_eq!(
        stdout(&out),
        "    | Owner |   Bot     Score |
    |-------|-----------------|
    | alice | Rusher  -  42   |
    | -     | Mirror  -  42   |
    | -     | Idle    -  21   |
    | -     | Suicide -  0    |
Winners (tied): Rusher, Mirror
"
    );
    assert_eq!(
        pairing_lines(&stderr(&out)),
        [
            "===== Rusher.bf vs. Mirror.bf finished with 0:0 =====",
            "===== Rusher.bf vs. Idle.bf finished with 21:0 =====",
            "===== Rusher.bf vs. Suicide.bf finished with 21:0 =====",
            "===== Mirror.bf vs. Idle.bf finished with 21:0 =====",
            "===== Mirror.bf vs. Suicide.bf finished with 21:0 =====",
            "===== Idle.bf vs. Suicide.bf finished with 21:0 =====",
        ]
        .map(String::from)
        .to_vec(),
        "one line per pairing; with one job, in plan order"
    );

    // Every match is recorded with its identity, length, result and ending.
    let matches = stored(&dir.path().join("results.db"));
    assert_eq!(matches.len(), 6 * 21);
    let lengths: Vec<u64> = matches
        .values()
        .filter(|m| m["left"] == "Rusher" && m["right"] == "Idle")
        .map(|m| m["tape_len"].as_u64().unwrap())
        .collect();
    let mut sorted = lengths.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (10..=30).collect::<Vec<u64>>());
    for m in matches.values() {
        let expected_end = match (m["left"].as_str(), m["right"].as_str()) {
            (_, Some("Suicide")) => "off-tape",
            (Some("Rusher"), Some("Mirror")) => "both-lost",
            _ => "flag",
        };
        assert_eq!(m["end"], expected_end, "{m}");
        assert_eq!(m["limit"], 10_000);
    }

    // The same scoreboard from the database, and the other formats.
    let again = referee(dir.path(), &["standings"]);
    assert_eq!(stdout(&again), stdout(&out));
    let md = referee(dir.path(), &["standings", "--format", "md"]);
    assert_eq!(stdout(&md), stdout(&out));
    let json = referee(dir.path(), &["standings", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v[0]["rank"], 1);
    assert_eq!(v[0]["name"], "Rusher");
    assert_eq!(v[0]["owner"], "alice");
    assert_eq!(v[0]["score"], 42);
    assert_eq!(
        (&v[0]["wins"], &v[0]["draws"], &v[0]["losses"]),
        (&42.into(), &21.into(), &0.into())
    );
    assert_eq!(v[0]["matches"], 63);
    assert_eq!(v[1]["rank"], 1, "equal scores share a rank");
    assert_eq!(v[3]["name"], "Suicide");
    assert_eq!(v[3]["rank"], 4);
    assert_eq!(v[3]["invalid"], false);
    assert_eq!(v[3]["faults"], serde_json::json!({}));
    let csv = referee(dir.path(), &["standings", "--format", "csv"]);
    assert_eq!(
        stdout(&csv).lines().next(),
        Some(
            "rank,name,score,played,wins,draws,losses,faults,out,cpu_seconds,\
             owner,matches,invalid,error"
        )
    );
    assert_eq!(
        stdout(&csv).lines().nth(4),
        Some("4,Suicide,0,63,0,0,63,,,,-,63,false,")
    );
}

#[test]
fn an_invalid_bot_scores_zero_and_the_rest_play() {
    let dir = tournament("challenge: bf-joust\nmatches-per-pairing: 3\nRusher\nBroken\nIdle\n");
    bots(
        dir.path(),
        &[
            ("Rusher", RUSHER),
            ("Broken", "a comment\n+ ] and more"),
            ("Idle", ""),
        ],
    );
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Broken/Broken.bf:2:3: unmatched ']'"),
        "the invalid bot is reported on stderr: {err}"
    );
    assert_eq!(
        pairing_lines(&err),
        ["===== Rusher.bf vs. Idle.bf finished with 3:0 ====="]
    );
    assert_eq!(
        stdout(&out),
        "    | Owner |  Bot     Score |
    |-------|----------------|
    | -     | Rusher -  3    |
    | -     | Idle   -  0    |
    | -     | Broken -  0    |

    invalid: Broken: Broken/Broken.bf:2:3: unmatched ']'
Winner: Rusher
"
    );
    let json = referee(dir.path(), &["standings", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let broken = &v[2];
    assert_eq!(broken["name"], "Broken");
    assert_eq!(broken["invalid"], true);
    assert_eq!(broken["faults"], serde_json::json!({"invalid": 1}));
    assert_eq!(broken["error"], "Broken/Broken.bf:2:3: unmatched ']'");
    assert_eq!(broken["matches"], 0);
    assert_eq!(stored(&dir.path().join("results.db")).len(), 3);
}

/// An organiser error: exit 2, one line naming the file and line, nothing run.
fn organiser_error(instructions: &str, files: &[(&str, &str)], expected: &str) {
    let dir = tournament(instructions);
    bots(dir.path(), files);
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), format!("referee: error: {expected}\n"));
    assert!(stdout(&out).is_empty());
    assert!(!dir.path().join("results.db").exists(), "nothing may run");
}

#[test]
fn extra_words_missing_files_and_duplicates_are_organiser_errors() {
    let two = [("A", "+"), ("B", "-")];
    organiser_error(
        "challenge: bf-joust\nA\n# b\nB B/B.bf B/other.bf\n",
        &two,
        "instructions.txt:4: bot `B`: extra words after the program file `B/B.bf`: `B/other.bf` (an entry is NAME [FILE]; quote a path with spaces)",
    );
    organiser_error(
        "challenge: bf-joust\n2\nA\nA/A.bf\nB\nB/B.bf --fast\n",
        &two,
        "instructions.txt:6: bot `B`: extra words after the program file `B/B.bf`: `--fast` (an entry is NAME [FILE]; quote a path with spaces)",
    );
    organiser_error(
        "challenge: bf-joust\nA\nC\nB\n",
        &two,
        "instructions.txt:3: bot `C`: program file `C/C.bf` not found",
    );
    organiser_error(
        "challenge: bf-joust\nA\nB B/b.bf\n",
        &two,
        "instructions.txt:3: bot `B`: program file `B/b.bf` not found",
    );
    organiser_error(
        "challenge: bf-joust\nA\nB\nA B/B.bf\n",
        &two,
        "instructions.txt:4: duplicate bot name `A` (first on line 2)",
    );
    organiser_error(
        "challenge: bf-joust\ncycles: 0\nA\nB\n",
        &two,
        "instructions.txt:2: cycles must be an integer >= 1, not '0'",
    );
    organiser_error(
        "challenge: bf-joust\ntimeout-ms: 5\nA\nB\n",
        &two,
        "instructions.txt:2: unknown setting 'timeout-ms' for bf-joust (known: matches-per-pairing, tape-lengths, cycles, rules, polarity)",
    );
}

#[test]
fn a_drop_in_names_its_file_relative_to_its_folder() {
    let dir = tournament("challenge: bf-joust\nmatches-per-pairing: 2\nIdle\n");
    bots(dir.path(), &[("Idle", "")]);
    let drop = dir.path().join("Drop");
    std::fs::create_dir(&drop).unwrap();
    std::fs::write(drop.join("rush.bf"), RUSHER).unwrap();
    std::fs::write(
        drop.join("bot.toml"),
        "name = \"Drop\"\nowner = \"zed\"\nrun = \"rush.bf\"\n",
    )
    .unwrap();
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\n    | zed   | Drop -  2    |\n"),
        "{}",
        stdout(&out)
    );

    std::fs::write(
        drop.join("bot.toml"),
        "name = \"Drop\"\n\nrun = \"missing.bf\"\n",
    )
    .unwrap();
    // The drop-in is left out, which leaves too few bots to play.
    let out = run(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let toml = dir.path().canonicalize().unwrap().join("Drop/bot.toml");
    assert_eq!(
        stderr(&out),
        format!(
            "referee: leaving out `Drop`: {}:3: bot `Drop`: program file `Drop/missing.bf` not found\n\
             referee: error: instructions.txt: a tournament needs at least 2 bots, found 1 (1 left out)\n",
            toml.display()
        )
    );
}

#[test]
fn adding_a_bot_plays_only_its_pairings() {
    let dir =
        tournament("challenge: bf-joust\nseed: 5\nmatches-per-pairing: 4\nRusher\nIdle\nSuicide\n");
    bots(dir.path(), &FIELD);
    let db = dir.path().join("results.db");
    let first = run(dir.path(), &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert_eq!(pairing_lines(&stderr(&first)).len(), 3);
    let before = stored(&db);
    assert_eq!(before.len(), 12);

    // Add Mirror: only its three pairings are played.
    std::fs::write(
        dir.path().join("instructions.txt"),
        "challenge: bf-joust\nseed: 5\nmatches-per-pairing: 4\nRusher\nIdle\nSuicide\nMirror\n",
    )
    .unwrap();
    let second = run(dir.path(), &[]);
    assert!(second.status.success(), "{}", stderr(&second));
    let mut lines = pairing_lines(&stderr(&second));
    lines.sort();
    assert_eq!(
        lines,
        [
            "===== Idle.bf vs. Mirror.bf finished with 0:4 =====",
            "===== Rusher.bf vs. Mirror.bf finished with 0:0 =====",
            "===== Suicide.bf vs. Mirror.bf finished with 0:4 =====",
        ]
    );
    let after = stored(&db);
    assert_eq!(after.len(), 24);
    for (key, record) in &before {
        assert_eq!(after.get(key), Some(record), "{key} unchanged");
    }
    assert!(stdout(&second).contains("| -     | Mirror  -  8    |"));

    // A comment-only edit replays nothing; a code edit replays that bot's pairings.
    std::fs::write(dir.path().join("Idle/Idle.bf"), "still idle, new words").unwrap();
    let third = run(dir.path(), &[]);
    assert!(
        pairing_lines(&stderr(&third)).is_empty(),
        "{}",
        stderr(&third)
    );
    assert_eq!(stored(&db).len(), 24);
    std::fs::write(dir.path().join("Idle/Idle.bf"), "<").unwrap();
    let fourth = run(dir.path(), &[]);
    let lines = pairing_lines(&stderr(&fourth));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("Idle")), "{lines:?}");
    assert_eq!(
        stored(&db).len(),
        36,
        "the old records are kept beside the new"
    );
}

#[test]
fn results_do_not_depend_on_jobs() {
    let examples = crate::common::root().join("examples/bots/bf-joust");
    let field: Vec<(String, String)> = ["QuickSweep", "Picket", "Sentinel", "Pendulum"]
        .iter()
        .map(|n| {
            let source = std::fs::read_to_string(examples.join(n).join(format!("{n}.bf"))).unwrap();
            (n.to_string(), source)
        })
        .chain(FIELD.iter().map(|(n, s)| (n.to_string(), s.to_string())))
        .collect();
    let field: Vec<(&str, &str)> = field
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_str()))
        .collect();
    // The count layout: a name line and a path line per bot.
    let mut ins = String::from("challenge: bf-joust\nseed: 99\nmatches-per-pairing: 6\n8\n");
    for (name, _) in &field {
        ins.push_str(&format!("{name}\n{name}/{name}.bf\n"));
    }
    let outputs: Vec<_> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let dir = tournament(&ins);
            bots(dir.path(), &field);
            let out = run(dir.path(), &["--jobs", jobs]);
            assert!(out.status.success(), "{}", stderr(&out));
            let mut lines = pairing_lines(&stderr(&out));
            lines.sort();
            (stdout(&out), lines, stored(&dir.path().join("results.db")))
        })
        .collect();
    assert_eq!(outputs[0].0, outputs[1].0, "scoreboards");
    assert_eq!(outputs[0].1, outputs[1].1, "pairing lines");
    assert_eq!(outputs[0].2, outputs[1].2, "every match record");
    assert_eq!(outputs[0].2.len(), 28 * 6);
    assert_eq!(outputs[0].1.len(), 28);
}

#[test]
fn every_stored_match_is_what_play_shows() {
    let dir = tournament(
        "challenge: bf-joust\nseed: 3\nmatches-per-pairing: 3\ncycles: 3000\nQuickSweep\nPicket\nSentinel\nPendulum\n",
    );
    let examples = crate::common::root().join("examples/bots/bf-joust");
    for n in ["QuickSweep", "Picket", "Sentinel", "Pendulum"] {
        std::fs::create_dir(dir.path().join(n)).unwrap();
        std::fs::copy(
            examples.join(n).join(format!("{n}.bf")),
            dir.path().join(n).join(format!("{n}.bf")),
        )
        .unwrap();
    }
    let out = run(
        dir.path(),
        &["--matches-per-pairing", "4", "--cycles", "2500"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let matches = stored(&dir.path().join("results.db"));
    assert_eq!(matches.len(), 6 * 4, "the flag overrides the header");
    let mut lengths = Vec::new();
    for m in matches.values() {
        assert_eq!(m["limit"], 2500, "the flag overrides the header");
        let (left, right) = (m["left"].as_str().unwrap(), m["right"].as_str().unwrap());
        let len = m["tape_len"].as_u64().unwrap();
        lengths.push(len);
        let shown = referee(
            dir.path(),
            &[
                "play",
                "bf-joust",
                &format!("{left}/{left}.bf"),
                &format!("{right}/{right}.bf"),
                "--tape-len",
                &len.to_string(),
                "--cycles",
                "2500",
            ],
        );
        let last = stdout(&shown).lines().nth(1).unwrap().to_string();
        let expected = match m["result"].as_str().unwrap() {
            "left-wins" => format!(
                "===== {left} won the battle after {} cycles =====",
                m["cycles"]
            ),
            "right-wins" => format!(
                "===== {right} won the battle after {} cycles =====",
                m["cycles"]
            ),
            _ => "===== Draw game =====".to_string(),
        };
        assert_eq!(last, expected, "{m}");
    }
    assert!(lengths.iter().all(|l| (10..=30).contains(l)));
    lengths.sort_unstable();
    lengths.dedup();
    assert!(lengths.len() > 3, "random lengths vary: {lengths:?}");
}

/// A field whose matches all run to a high cycle limit, where the flag
/// further from 0 wins: `Bi` lowers its own flag by i and waits, so `B1`
/// beats everyone, `B2` everyone but `B1`, ...
fn slow_field(dir: &Path, bots_count: usize, matches: usize) {
    let mut ins = format!("challenge: bf-joust\nmatches-per-pairing: {matches}\ncycles: 200000\n");
    let mut field = Vec::new();
    for i in 1..=bots_count {
        field.push((format!("B{i}"), format!("(-)*{i}")));
        ins.push_str(&format!("B{i}\n"));
    }
    std::fs::write(dir.join("instructions.txt"), ins).unwrap();
    let field: Vec<(&str, &str)> = field
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_str()))
        .collect();
    bots(dir, &field);
}

/// The expected scoreboard of [`slow_field`].
fn slow_scoreboard(bots_count: usize, matches: usize) -> String {
    let mut s = String::from("    | Owner | Bot   Score |\n    |-------|-------------|\n");
    for i in 1..=bots_count {
        let score = (bots_count - i) * matches;
        s.push_str(&format!("    | -     | B{i}  -  {score:<3}  |\n"));
    }
    s.push_str("Winner: B1\n");
    s
}

/// Starts the referee on `dir` and waits until `pairings` pairing lines are
/// reported; returns the child and the lines.
fn start_and_wait(dir: &Path, pairings: usize) -> (std::process::Child, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt"])
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    while seen.len() < pairings {
        let line = lines.next().expect("the run ended early").unwrap();
        if line.contains(" finished with ") {
            seen.push(line);
        }
    }
    // Keep draining stderr so the child never blocks on it.
    std::thread::spawn(move || lines.for_each(drop));
    (child, seen)
}

#[test]
fn a_killed_run_loses_no_reported_pairing_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (n, k) = (6, 60);
    slow_field(dir.path(), n, k);
    let (mut child, reported) = start_and_wait(dir.path(), 2);
    child.kill().unwrap();
    child.wait().unwrap();

    let db = dir.path().join("results.db");
    let kept = stored(&db);
    let counts = per_pairing(&kept);
    for line in &reported {
        let words: Vec<&str> = line.split(' ').collect();
        let name = |w: &str| w.trim_end_matches(".bf").to_string();
        let pair = (name(words[1]), name(words[3]));
        assert_eq!(counts.get(&pair), Some(&k), "{line} was committed");
    }
    assert!(kept.len() < 15 * k, "killed before the end");

    let again = run(dir.path(), &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stdout(&again), slow_scoreboard(n, k));
    let after = stored(&db);
    assert_eq!(after.len(), 15 * k);
    for (key, record) in &kept {
        assert_eq!(after.get(key), Some(record));
    }
    let replayed = pairing_lines(&stderr(&again));
    for line in &reported {
        assert!(!replayed.contains(line), "{line} reported again");
    }
}

#[test]
fn an_interrupt_stops_between_matches_and_keeps_what_finished() {
    let dir = tempfile::tempdir().unwrap();
    let (n, k) = (6, 60);
    slow_field(dir.path(), n, k);
    let (mut child, _) = start_and_wait(dir.path(), 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let mut partial = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut partial).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        partial.starts_with("    | Owner | Bot   Score |\n"),
        "{partial}"
    );
    let kept = stored(&dir.path().join("results.db")).len();
    assert!(kept >= k && kept < 15 * k, "{kept} matches kept");

    let again = run(dir.path(), &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains(&format!("resuming: {kept} of {} ", 15 * k)),
        "{}",
        stderr(&again)
    );
    assert_eq!(stdout(&again), slow_scoreboard(n, k));
}

/// Runs `referee play bf-joust L.bf R.bf ARGS...` on two fresh files.
fn play(left: &str, right: &str, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("L.bf"), left).unwrap();
    std::fs::write(dir.path().join("R.bf"), right).unwrap();
    let mut all = vec!["play", "bf-joust", "L.bf", "R.bf"];
    all.extend_from_slice(args);
    referee(dir.path(), &all)
}

#[test]
fn play_reproduces_every_spec_vector() {
    // Spec §8: (N, T, LEFT, RIGHT, result, cycles).
    type Vector = (
        u32,
        Option<u64>,
        &'static str,
        &'static str,
        &'static str,
        u64,
    );
    let vectors: [Vector; 32] = [
        (10, None, "<", "", "R", 1),
        (10, None, "", "(>)*10", "L", 10),
        (12, None, "<", "<", "draw", 1),
        (10, None, "(>)*9(-)*128", "", "L", 138),
        (10, None, "(>)*9(-)*128+-", "", "L", 140),
        (10, None, "(>)*9[-]", "", "L", 266),
        (15, None, "(-)*128", "(-)*128", "draw", 129),
        (20, None, "", "+", "L", 10000),
        (20, None, "-", "+", "draw", 10000),
        (10, None, "(.)*9999<", "-", "L", 10000),
        (10, None, "-", "(.)*9999<", "L", 10000),
        (10, None, "(.)*9998<", "-", "R", 9999),
        (10, None, "", "(.)*9999<", "draw", 10000),
        (10, None, ">(.)*7[<<]..<<", "(>)*8+", "R", 13),
        (10, None, "(>)*8+", ">(.)*7[<<]..<<", "L", 13),
        (10, None, "(>)*9((-)*16.)*8", "", "L", 145),
        (10, None, "(>)*0()*7(()*3)*2<", "", "R", 1),
        (10, None, ">([)*3-(])*3<<", "", "R", 7),
        (10, None, ">+++++([)*3-(])*3<<", "", "R", 27),
        (10, None, ">([)*2(].)*2<<", "", "R", 9),
        (10, None, ">([)*3(+])*2<<", "", "R", 13),
        (10, None, "(>)*9(-)*137", "(+)*9", "L", 147),
        (10, None, "(>)*9(-)*138", "(.)*9(+)*10", "L", 148),
        (10, None, "(>) times *9 then (-) times *128", "", "L", 138),
        (10, None, "(>)*1 0", "", "R", 10),
        (10, None, ">[<<]", "+", "L", 10000),
        (10, Some(50), "", "+", "L", 50),
        (10, Some(137), "(>)*9(-)*128", ".(>)*9(-)*128", "L", 137),
        (10, Some(138), "(>)*9(-)*128", ".(>)*9(-)*128", "draw", 138),
        (10, None, "(>)*9(-)*128", ".(>)*9(-)*128", "L", 138),
        (10, Some(0), "<", "<", "draw", 0),
        (30, None, "(>)*29(-)*128", "(>)*29(+)*128", "draw", 158),
    ];
    for (i, &(n, t, left, right, result, cycles)) in vectors.iter().enumerate() {
        let n = n.to_string();
        let t = t.map(|t| t.to_string());
        let mut args = vec!["--tape-len", n.as_str()];
        if let Some(t) = &t {
            args.extend(["--cycles", t.as_str()]);
        }
        let out = play(left, right, &args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "vector {}: {}",
            i + 1,
            stderr(&out)
        );
        let last = match result {
            "draw" => "===== Draw game =====".to_string(),
            who => format!("===== {who} won the battle after {cycles} cycles ====="),
        };
        assert_eq!(
            stdout(&out),
            format!(
                "===== Starting battle of <L> vs <R> with memory tape size: {n} =====\n{last}\n"
            ),
            "vector {}",
            i + 1
        );
        // How the match ended is said on stderr, beside the original's output.
        let ending = stderr(&out);
        assert!(
            ending.starts_with("ended ") && ending.ends_with('\n') && ending.lines().count() == 1,
            "vector {}: {ending}",
            i + 1
        );
        assert!(
            ending.contains(&format!("{cycles} cycles")),
            "vector {}: {ending}",
            i + 1
        );

        // The trace has one tape line per executed cycle, plus the initial one.
        let traced = play(left, right, &[args.as_slice(), &["--trace"]].concat());
        let text = stdout(&traced);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), cycles as usize + 5, "vector {}", i + 1);
        assert_eq!(lines[1], "");
        assert_eq!(lines[lines.len() - 2], "");
        assert_eq!(lines[lines.len() - 1], last);
    }
}

#[test]
fn play_trace_is_the_original_output_byte_for_byte() {
    let out = play(">+<<", "->", &["--tape-len", "10", "--trace"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "===== Starting battle of <L> vs <R> with memory tape size: 10 =====

[ >128 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 128< ]
[ 128 | >0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 127< ]
[ 128 | >1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | 127 ]
[ >128 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | 127 ]
[ 128 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | >127 ]

===== R won the battle after 4 cycles =====
"
    );
    let out = play(">+<<", "->", &["--tape-len", "10"]);
    assert_eq!(
        stdout(&out),
        "===== Starting battle of <L> vs <R> with memory tape size: 10 =====\n===== R won the battle after 4 cycles =====\n"
    );
}

#[test]
fn play_names_come_from_the_file_names_and_the_seed_draws_the_length() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("bots")).unwrap();
    std::fs::write(dir.path().join("bots/LethalLokeV2.1.bf"), RUSHER).unwrap();
    std::fs::write(dir.path().join("bots/x.bf"), "").unwrap();
    let show = |args: &[&str]| {
        let mut all = vec!["play", "bf-joust", "bots/LethalLokeV2.1.bf", "bots/x.bf"];
        all.extend_from_slice(args);
        referee(dir.path(), &all)
    };
    let seeded = show(&["--seed", "11"]);
    assert_eq!(seeded.status.code(), Some(0));
    let first = stdout(&seeded);
    assert!(
        first.starts_with(
            "===== Starting battle of <LethalLokeV2.1> vs <x> with memory tape size: "
        ),
        "{first}"
    );
    assert!(first.contains("===== LethalLokeV2.1 won the battle after "));
    assert_eq!(
        stdout(&show(&["--seed", "11"])),
        first,
        "same seed, same length"
    );
    let lengths: std::collections::BTreeSet<String> = (0..12)
        .map(|s| {
            let out = stdout(&show(&["--seed", &s.to_string()]));
            out.lines().next().unwrap().to_string()
        })
        .collect();
    assert!(lengths.len() > 1, "seeds draw different lengths");
}

#[test]
fn play_rejects_bad_options_and_invalid_programs() {
    for args in [
        &["--tape-len", "9"][..],
        &["--tape-len", "31"],
        &["--tape-len", "ten"],
        &["--cycles", "-1"],
        &["--cycles", "1.5"],
        &["--timeout-ms", "100"],
        &["--max-rounds", "3"],
        &["--unknown"],
    ] {
        let out = play("+", "-", args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(!stderr(&out).is_empty(), "{args:?}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    // An invalid program: the spec's one-line message on stderr.
    let out = play("+\n  ((-)*2", "-", &["--tape-len", "10"]);
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "L.bf:2:3: unclosed '('\n");
    assert!(stdout(&out).is_empty());
    let out = play("+", "-)", &["--tape-len", "10"]);
    assert_eq!(stderr(&out), "R.bf:1:2: unmatched ')'\n");
    assert_ne!(out.status.code(), Some(0));
    // One program, three programs, a missing file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.bf"), "+").unwrap();
    for args in [
        &["play", "bf-joust", "a.bf"][..],
        &["play", "bf-joust", "a.bf", "a.bf", "a.bf"],
        &["play", "bf-joust", "a.bf", "missing.bf"],
    ] {
        let out = referee(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).starts_with("referee: error: "), "{args:?}");
    }
    // bf-joust options are not meta-ttt options.
    let out = referee(
        dir.path(),
        &["play", "meta-ttt", "true", "true", "--tape-len", "12"],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_tournament_flags_are_errors() {
    let dir = tournament("challenge: bf-joust\nA\nB\n");
    bots(dir.path(), &[("A", "+"), ("B", "-")]);
    for (flag, value) in [
        ("--matches-per-pairing", "0"),
        ("--tape-lengths", "some"),
        ("--cycles", "many"),
    ] {
        let out = run(dir.path(), &[flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&out).starts_with(&format!("referee: error: {flag} {value}: ")),
            "{}",
            stderr(&out)
        );
    }
    assert!(!dir.path().join("results.db").exists());
}

/// A test bot of the hill test data (games/bf-joust/tests/data/hill/).
fn hill_bot(name: &str) -> String {
    let path = crate::common::root()
        .join("games/bf-joust/tests/data/hill/bots")
        .join(format!("{name}.bf"));
    std::fs::read_to_string(path).unwrap()
}

/// gearlance's line for LEFT vs RIGHT in the hill test data.
fn gearlance_line(left: &str, right: &str) -> String {
    let data = std::fs::read_to_string(
        crate::common::root().join("games/bf-joust/tests/data/hill/results.txt"),
    )
    .unwrap();
    let prefix = format!("{left} {right} ");
    data.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no line for {left} vs {right}"))
        .to_string()
}

#[test]
fn play_under_hill_rules_prints_gearlances_two_strings() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("braces.bf"), hill_bot("braces")).unwrap();
    std::fs::write(dir.path().join("rusher.bf"), hill_bot("rusher")).unwrap();
    let out = referee(
        dir.path(),
        &[
            "play",
            "bf-joust",
            "rusher.bf",
            "braces.bf",
            "--rules",
            "hill",
            "--tape-len",
            "11",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        lines[0],
        "===== Starting battle of <rusher> vs <braces> with memory tape size: 11 ====="
    );
    // Tape 11, normal polarity: the second character of the first string.
    let expected = gearlance_line("rusher", "braces");
    let who = match expected.as_bytes()[1] {
        b'<' => "rusher won",
        b'>' => "braces won",
        _ => "Draw game",
    };
    assert!(lines[1].contains(who), "{}", lines[1]);
    assert_eq!(lines[2], expected);
    assert!(stderr(&out).starts_with("ended "), "{}", stderr(&out));

    // `check --rules hill` reads the program the hill's way.
    let checked = referee(
        dir.path(),
        &["check", "bf-joust", "braces.bf", "--rules", "hill"],
    );
    assert_eq!(checked.status.code(), Some(0), "{}", stdout(&checked));
    assert!(stdout(&checked).contains("valid"), "{}", stdout(&checked));
    let checked = referee(dir.path(), &["check", "bf-joust", "braces.bf"]);
    assert_eq!(checked.status.code(), Some(1), "{}", stdout(&checked));
    assert!(
        stdout(&checked).contains("is a hill rules form"),
        "{}",
        stdout(&checked)
    );

    // The 2014 rules refuse the hill forms, naming the form and the place.
    let out = referee(dir.path(), &["play", "bf-joust", "rusher.bf", "braces.bf"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "rusher.bf:3:6: '%N' repeat count is a hill rules form (`rules: hill`); the 2014 rules need ')*N'\n\
         braces.bf:2:28: '%N' repeat count is a hill rules form (`rules: hill`); the 2014 rules need ')*N'\n"
    );
}

#[test]
fn a_hill_tournament_stores_a_row_per_pairing_and_shows_the_strings() {
    let names = ["tripwire", "decoy_rush", "polar", "braces"];
    let mut ins = String::from("challenge: bf-joust\nrules: hill\n");
    let sources: Vec<(String, String)> =
        names.iter().map(|n| (n.to_string(), hill_bot(n))).collect();
    for n in &names[..3] {
        ins.push_str(&format!("{n}\n"));
    }
    let dir = tournament(&ins);
    let files: Vec<(&str, &str)> = sources
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_str()))
        .collect();
    bots(dir.path(), &files);
    let out = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let board = stdout(&out);
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let (left, right) = (names[a], names[b]);
        let line = format!("    {left} vs {right}: {}\n", gearlance_line(left, right));
        assert!(board.contains(&line), "{line} in\n{board}");
    }
    let db = dir.path().join("results.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM games WHERE challenge = 'bf-joust'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 3, "one row per pairing");
    let before = stored(&db);
    assert_eq!(
        before.len(),
        3 * 42,
        "each row holds 21 lengths in 2 polarities"
    );
    assert!(before.values().all(|m| m["limit"] == 100_000));

    // Nothing is missing: nothing is played, and the run says so.
    let again = run(dir.path(), &[]);
    assert!(
        stderr(&again).contains("nothing to play: all 126 matches"),
        "{}",
        stderr(&again)
    );
    assert!(!stderr(&again).contains("played for"), "{}", stderr(&again));
    assert_eq!(stdout(&again), board);

    // A drop-in plays only its own pairings.
    std::fs::write(
        dir.path().join("braces/bot.toml"),
        "name = \"braces\"\nrun = \"braces.bf\"\n",
    )
    .unwrap();
    let third = run(dir.path(), &[]);
    assert!(third.status.success(), "{}", stderr(&third));
    let lines = pairing_lines(&stderr(&third));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|l| l.contains("braces.bf")), "{lines:?}");
    let after = stored(&db);
    assert_eq!(after.len(), 6 * 42);
    for (key, m) in &before {
        assert_eq!(after.get(key), Some(m), "{key} unchanged");
    }
    assert!(stdout(&third).contains(&format!(
        "    tripwire vs braces: {}\n",
        gearlance_line("tripwire", "braces")
    )));
}

#[test]
fn polarity_both_plays_each_match_twice_under_the_2014_rules() {
    let dir = tournament(
        "challenge: bf-joust\ntape-lengths: all\npolarity: both\nRusher\nIdle\nSuicide\n",
    );
    bots(dir.path(), &FIELD);
    let out = run(dir.path(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let matches = stored(&dir.path().join("results.db"));
    assert_eq!(matches.len(), 3 * 21 * 2);
    let inverted = matches
        .values()
        .filter(|m| m["polarity"] == "inverted")
        .count();
    assert_eq!(inverted, 3 * 21);
    // Idle and Suicide have no + or -, Rusher clears with loops: the
    // polarity changes nothing here, and each match counts once more.
    assert!(
        stdout(&out).contains("| -     | Rusher  -  84   |"),
        "{}",
        stdout(&out)
    );
    assert!(pairing_lines(&stderr(&out))
        .contains(&"===== Rusher.bf vs. Idle.bf finished with 42:0 =====".to_string()));
}
