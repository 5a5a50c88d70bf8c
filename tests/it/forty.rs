//! forty end to end: the spec's vectors through `referee play forty` with
//! fixed dice and real bot processes, misbehaving bots in a tournament,
//! resume after SIGKILL, determinism across --jobs and concurrency, what a
//! batch answered in one write costs each of its asks, the bundled example,
//! the host's own unittest suite, and the win rates of two simple
//! strategies against their exact values.

use crate::common::{bot, c_bot, python, q, referee, root, stderr, stdout, tournament};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn host() -> PathBuf {
    root().join("protocols/forty/forty_host.py")
}

/// The command of an example bot of `protocols/forty/examples`, run
/// through the host.
fn example(name: &str) -> String {
    format!(
        "{} {} {}",
        q(Path::new(python())),
        q(&host()),
        q(&root().join(format!("protocols/forty/examples/{name}.py")))
    )
}

/// `referee play forty` with these example bots and dice; stdout lines.
fn play(bots: &[&str], dice: &str, extra: &[&str]) -> Vec<String> {
    let commands: Vec<String> = bots.iter().map(|b| example(b)).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = vec!["play", "forty"];
    args.extend(commands.iter().map(String::as_str));
    args.extend(["--dice", dice]);
    // Generous unless the test sets its own: a loaded machine must not
    // turn a slow decision into a timeout.
    if !extra.contains(&"--timeout-ms") {
        args.extend(["--timeout-ms", "5000"]);
    }
    args.extend(extra);
    let out = referee(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}

/// The turn, event and result lines of a transcript (header left out).
fn body(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.starts_with("game ") && !l.starts_with("seat "))
        .cloned()
        .collect()
}

/// Expands the spec's vector notation into transcript lines: turns share a
/// line separated by ` | `, names are omitted, the flag is given only when
/// it is `L`, `: decisions` may be omitted when implied (`T` before each
/// die after the first, then `S` if the turn banked), and ` → ` starts an
/// event printed right after its turn.
fn expand(names: &[&str], text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("result:") {
            out.push(line.to_string());
            continue;
        }
        if let Some(event) = line.strip_prefix("→ ") {
            out.push(event.to_string());
            continue;
        }
        let (phase, turns) = line.split_once(": ").expect("PHASE: turns");
        for turn in turns.split(" | ") {
            let (turn, event) = match turn.split_once(" → ") {
                Some((t, e)) => (t, Some(e)),
                None => (turn, None),
            };
            let mut words = turn.split_whitespace().peekable();
            let seat: usize = words.next().unwrap()[1..].parse().unwrap();
            let flag = if words.peek() == Some(&"L") {
                words.next();
                "L"
            } else {
                "-"
            };
            let mut dice = Vec::new();
            while let Some(d) = words.peek().and_then(|w| w.parse::<u8>().ok()) {
                dice.push(d);
                words.next();
            }
            let rest: Vec<&str> = words.collect();
            let (decisions, outcome, score) = match rest.as_slice() {
                [":", decisions @ .., outcome, score] => (decisions.join(" "), *outcome, *score),
                [outcome, score] => {
                    let mut d: Vec<&str> = vec!["T"; dice.len().saturating_sub(1)];
                    if *outcome == "bank" {
                        d.push("S");
                    }
                    let d = if d.is_empty() {
                        "-".to_string()
                    } else {
                        d.join(" ")
                    };
                    (d, *outcome, *score)
                }
                other => panic!("cannot read turn {turn:?}: {other:?}"),
            };
            let dice: Vec<String> = dice.iter().map(u8::to_string).collect();
            out.push(format!(
                "{phase} s{seat} {} {flag} {} : {decisions} {outcome} {score}",
                names[seat],
                dice.join(" ")
            ));
            if let Some(e) = event {
                out.push(e.to_string());
            }
        }
    }
    out
}

const V1_DICE: &str = "4,5,3,6,5,5,5,3,6,2,6,4,5,6,5,4,2,5,5,3,3,4,5,4,4,1";

#[test]
fn v1_first_throw_sixes_and_no_final_turns() {
    let names = ["GoToTenBot", "ThrowTwiceBot", "StopBot"];
    let lines = play(&names, V1_DICE, &[]);
    assert_eq!(lines[0], "game 0: 3 seats, end score 40, round limit 200");
    assert_eq!(
        lines[1..4],
        [
            "seat 0 GoToTenBot",
            "seat 1 ThrowTwiceBot",
            "seat 2 StopBot"
        ]
    );
    assert!(lines.last().unwrap().starts_with("result: "));
    let expected = expand(
        &names,
        "r1: s0 4 5 3 : T T S bank 12 | s1 6 : - six 0 | s2 5 : S bank 5
         r2: s0 5 5 : T S bank 22 | s1 3 6 : T six 0 | s2 2 : S bank 7
         r3: s0 6 : - six 22 | s1 4 5 : T S bank 9 | s2 6 : - six 7
         r4: s0 5 4 2 bank 33 | s1 5 5 bank 19 | s2 3 bank 10
         r5: s0 3 4 5 bank 45 → last round: s0 reached 45 in round 5 | s1 L 4 4 bank 27 | s2 L 1 bank 11
         result: scores 45 27 11; winners s0; rounds 5; tied no; round limit no",
    );
    assert_eq!(body(&lines), expected);
}

#[test]
fn v2_a_bust_at_exactly_40_and_a_six_at_39() {
    let names = ["GoToTenBot", "ThrowTwiceBot", "StopBot"];
    let lines = play(
        &names,
        "5,5,5,5,2,4,4,4,5,5,3,4,5,4,5,4,4,5,6,3,2,1,5,5,5,6,2,5,5,4,3,5,4,6",
        &[],
    );
    let expected = expand(
        &names,
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 2 bank 2
         r2: s0 4 4 4 bank 22 | s1 5 5 bank 20 | s2 3 bank 5
         r3: s0 4 5 4 bank 35 | s1 5 4 bank 29 | s2 4 bank 9
         r4: s0 5 6 bust 0 | s1 3 2 bank 34 | s2 1 bank 10
         r5: s0 5 5 bank 10 | s1 5 6 six 34 | s2 2 bank 12
         r6: s0 5 5 bank 20 | s1 4 3 bank 41 → last round: s1 reached 41 in round 6 | s2 L 5 bank 17
         fin: s0 L 4 6 six 20
         result: scores 20 41 17; winners s1; rounds 6; tied no; round limit no",
    );
    assert_eq!(body(&lines), expected);
}

#[test]
fn v3_a_second_seat_past_40_changes_nothing() {
    let names = ["StopBot", "GoToTenBot", "ThrowTwiceBot"];
    let lines = play(
        &names,
        "1,4,6,5,5,2,5,5,5,5,3,5,5,4,5,4,5,5,5,5,5,5,4,3,3,2,5",
        &[],
    );
    let expected = expand(
        &names,
        "r1: s0 1 bank 1 | s1 4 6 six 0 | s2 5 5 bank 10
         r2: s0 2 bank 3 | s1 5 5 bank 10 | s2 5 5 bank 20
         r3: s0 3 bank 6 | s1 5 5 bank 20 | s2 4 5 bank 29
         r4: s0 4 bank 10 | s1 5 5 bank 30 | s2 5 5 bank 39
         r5: s0 5 bank 15 | s1 5 4 3 bank 42 → last round: s1 reached 42 in round 5 | s2 L 3 2 bank 44
         fin: s0 L 5 bank 20
         result: scores 20 42 44; winners s2; rounds 5; tied no; round limit no",
    );
    assert_eq!(body(&lines), expected);
}

#[test]
fn v4_a_tie() {
    let names = ["GoToTenBot", "ThrowTwiceBot", "StopBot"];
    let dice = ["5,5,5,5,1"; 4].join(",");
    let lines = body(&play(&names, &dice, &[]));
    let expected = expand(
        &names,
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
         r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
         r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
         r4: s0 5 5 bank 40 → last round: s0 reached 40 in round 4 | s1 L 5 5 bank 40 | s2 L 1 bank 4
         result: scores 40 40 4; winners s0 s1; rounds 4; tied yes; round limit no",
    );
    assert_eq!(lines, expected);
}

#[test]
fn v5_the_flag_the_snapshot_and_an_ended_generator() {
    let names = ["CatchUpBot", "ExhaustBot", "StopBot", "GoToTenBot"];
    let lines = play(
        &names,
        "3,3,4,2,5,5,5,2,5,4,5,4,4,4,1,6,5,3,4,5,4,1*8,5,5,6,2*5,5,4,5,3,5*8,6,6",
        &[],
    );
    let expected = expand(
        &names,
        "r1: s0 3 : S bank 3 | s1 3 4 2 : T T S bank 9 | s2 5 bank 5 | s3 5 5 bank 10
         r2: s0 2 bank 5 | s1 5 4 bank 18 | s2 5 bank 10 | s3 4 4 4 bank 22
         r3: s0 1 bank 6 | s1 6 : - six 18 | s2 5 bank 15 | s3 3 4 5 bank 34
         r4: s0 4 bank 10 | s1 1 1 1 1 1 1 1 1 bank 26 | s2 5 bank 20 | s3 5 6 six 34
         r5: s0 2 bank 12 | s1 2 2 2 2 bank 34 | s2 5 bank 25 | s3 4 5 3 bank 46 → last round: s3 reached 46 in round 5
         fin: s0 L 5 5 5 5 5 5 5 bank 47 | s1 L 5 6 six 34 | s2 L 6 : - six 25
         result: scores 47 34 25 46; winners s0; rounds 5; tied no; round limit no",
    );
    assert_eq!(body(&lines), expected);
}

const V6_DICE: &str = "5,5,5,5,1,5,5,5,5,1,5,5,5,5,1,5,5,2,3,4,1,1,4,5";

fn v6_expected(first: &str, r4_s0: &str, fin: &str, result: &str) -> Vec<String> {
    let names = [first, "GoToTenBot", "StopBot"];
    expand(
        &names,
        &format!(
            "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
             r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
             r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
             r4: s0 {r4_s0} | s1 2 3 4 1 bank 40 → last round: s1 reached 40 in round 4 | s2 L 1 bank 4
             fin: s0 L {fin}
             {result}"
        ),
    )
}

#[test]
fn v6_a_failed_turn_keeps_the_score() {
    let lines = play(&["ErrorBot", "GoToTenBot", "StopBot"], V6_DICE, &[]);
    assert_eq!(
        body(&lines),
        v6_expected(
            "ErrorBot",
            "5 5 : T E error 30",
            "4 5 bank 39",
            "result: scores 39 40 4; winners s1; rounds 4; tied no; round limit no"
        )
    );
}

#[test]
fn v6_timeout_a_late_reply_is_discarded() {
    // The bot sleeps 300 ms; every other decision has 250 ms.
    let lines = play(
        &["SlowErrorBot", "GoToTenBot", "StopBot"],
        V6_DICE,
        &["--timeout-ms", "250"],
    );
    assert_eq!(
        body(&lines),
        v6_expected(
            "SlowErrorBot",
            "5 5 : T TO timeout 30",
            "4 5 bank 39",
            "result: scores 39 40 4; winners s1; rounds 4; tied no; round limit no"
        )
    );
}

#[test]
fn v6_crash_later_turns_are_lost() {
    let lines = play(&["CrashErrorBot", "GoToTenBot", "StopBot"], V6_DICE, &[]);
    assert_eq!(
        body(&lines),
        v6_expected(
            "CrashErrorBot",
            "5 5 : T X crash 30",
            "4 : - lost 30",
            "result: scores 30 40 4; winners s1; rounds 4; tied no; round limit no"
        )
    );
}

#[test]
fn v7_the_round_limit_with_all_scores_at_zero() {
    let names = ["GoToTenBot", "ThrowTwiceBot", "StopBot"];
    let lines = body(&play(&names, "6*603", &[]));
    assert_eq!(lines.len(), 600 + 1 + 3 + 1, "{lines:?}");
    for (i, line) in lines[..600].iter().enumerate() {
        let (pass, seat) = (i / 3 + 1, i % 3);
        assert_eq!(
            line,
            &format!("r{pass} s{seat} {} - 6 : - six 0", names[seat])
        );
    }
    let mut tail = vec!["round limit: 200 rounds played".to_string()];
    for (seat, name) in names.iter().enumerate() {
        tail.push(format!("fin s{seat} {name} L 6 : - six 0"));
    }
    tail.push(
        "result: scores 0 0 0; winners s0 s1 s2; rounds 200; tied yes; round limit yes".to_string(),
    );
    assert_eq!(lines[600..], tail[..]);
}

#[test]
fn v8_the_last_round_starts_in_pass_200_and_everyone_plays_again() {
    let names = ["StopBot", "ThrowTwiceBot", "GoToTenBot"];
    let dice = format!("{},6*570,4,6,6,6,5,5,5,5", ["4,6,6"; 9].join(","));
    let lines = body(&play(&names, &dice, &[]));
    for pass in 1..=9 {
        let i = (pass - 1) * 3;
        assert_eq!(
            lines[i],
            format!("r{pass} s0 StopBot - 4 : S bank {}", 4 * pass)
        );
        assert_eq!(
            lines[i + 1],
            format!("r{pass} s1 ThrowTwiceBot - 6 : - six 0")
        );
        assert_eq!(lines[i + 2], format!("r{pass} s2 GoToTenBot - 6 : - six 0"));
    }
    assert_eq!(lines[27], "r10 s0 StopBot - 6 : - six 36");
    let expected_tail = expand(
        &names,
        "r200: s0 4 bank 40 → last round: s0 reached 40 in round 200 | s1 L 6 six 0 | s2 L 6 six 0
         → round limit: 200 rounds played
         fin: s0 L 6 : - bust 0 | s1 L 5 5 bank 10 | s2 L 5 5 bank 10
         result: scores 0 10 10; winners s1 s2; rounds 200; tied yes; round limit yes",
    );
    assert_eq!(lines.len(), 600 + 1 + 1 + 3 + 1);
    assert_eq!(
        lines[lines.len() - expected_tail.len()..],
        expected_tail[..]
    );
}

#[test]
fn a_short_dice_list_is_continued_by_the_generator_and_said_once() {
    let names = ["GoToTenBot", "StopBot"];
    let lines = play(&names, "4,5,3", &["--seed", "5"]);
    let notes: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("dice list"))
        .collect();
    assert_eq!(notes, ["dice list exhausted after 3 dice"]);
    // It comes right after the turn that used the list up (s0 banks 12).
    let at = lines
        .iter()
        .position(|l| l.starts_with("dice list"))
        .unwrap();
    assert!(
        lines[at - 1].starts_with("r1 s0 GoToTenBot - 4 5 3 "),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("result: ")));
    // The same seed gives the same game.
    assert_eq!(body(&lines), body(&play(&names, "4,5,3", &["--seed", "5"])));
}

#[test]
fn play_rejects_bad_dice_and_foreign_options() {
    let dir = tempfile::tempdir().unwrap();
    let stop = example("StopBot");
    for (args, needle) in [
        (vec!["--dice", "7"], "--dice"),
        (vec!["--dice", "3*0"], "--dice"),
        (vec!["--max-rounds", "3"], "--max-rounds"),
    ] {
        let mut all = vec!["play", "forty", stop.as_str()];
        all.extend(args);
        let out = referee(dir.path(), &all);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{}", stderr(&out));
    }
}

// ---------------------------------------------------------------------------
// Tournaments

fn raw(mode: &str) -> String {
    format!(
        "{} {} {mode}",
        q(Path::new(python())),
        q(&bot("forty_raw.py"))
    )
}

/// Runs a tournament; returns (exit status, stdout, stderr).
fn run_tournament(dir: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["--instructions", "instructions.txt"];
    args.extend(extra);
    let out = referee(dir, &args);
    (out.status.code(), stdout(&out), stderr(&out))
}

/// `referee standings --format json` as (name -> row).
fn standings(dir: &Path, db: Option<&str>) -> HashMap<String, Value> {
    let mut args = vec!["standings", "--format", "json"];
    match db {
        Some(db) => args.extend(["--db", db]),
        None => args.extend(["--instructions", "instructions.txt"]),
    }
    let out = referee(dir, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    rows.into_iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r))
        .collect()
}

fn fault(row: &Value, kind: &str) -> u64 {
    row["faults"][kind].as_u64().unwrap()
}

#[test]
fn misbehaving_bots_cost_their_turns_and_crashers_are_disqualified() {
    let dir = tournament(&format!(
        "challenge: forty\nseed: 11\ngames: 300\nconcurrency: 20\ntimeout-ms: 1000\nkill-ms: 300\nstartup-ms: 15000\n\
         GoToTenBot {}\nStopBot {}\nPrinter {} {} Printer/bot.py\nGood {}\nGarbage {}\nStall {}\n\
         Reverse {}\nCrasher {}\nCrashOnce {}\nExtra {}\nSilent {}\nBadShake {}\n",
        example("GoToTenBot"),
        example("StopBot"),
        q(Path::new(python())),
        q(&host()),
        raw("good"),
        raw("garbage"),
        raw("stall 5"),
        raw("reverse"),
        raw("crash 20"),
        raw("crash-once 20"),
        raw("extra"),
        raw("noshake"),
        raw("badshake"),
    ));
    // The printing bot: a class that prints on every decision.
    std::fs::create_dir_all(dir.path().join("Printer")).unwrap();
    std::fs::write(
        dir.path().join("Printer/bot.py"),
        "class Printer(Bot):\n    def make_throw(self, scores, last_round):\n        print('thinking about', scores)\n        while sum(self.current_throws) < 12:\n            yield True\n        yield False\n",
    )
    .unwrap();

    let started = Instant::now();
    // The tournament's own handling of each misbehaviour, timed: no
    // preflight first (it would wait `startup-ms` for Silent once more).
    let (code, out, err) = run_tournament(dir.path(), &["--quiet", "--preflight", "off"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(started.elapsed() < Duration::from_secs(120));
    assert!(
        out.contains("\tStarting simulation with 12 bots\n"),
        "{out}"
    );
    assert!(
        out.contains("\tSimulating 300 games with 8 bots per game\n"),
        "{out}"
    );
    assert!(
        out.contains("\tRunning simulation with 12 isolated bot processes\n"),
        "{out}"
    );
    assert!(
        out.contains("\tSimulation or 300 games between 12 bots completed in "),
        "{out}"
    );
    let rows = standings(dir.path(), None);
    let total_played: u64 = rows.values().map(|r| r["played"].as_u64().unwrap()).sum();
    // 8 seats while 8 or more bots are eligible, then 4 (section 3.1).
    assert!(
        (300 * 4..=300 * 8).contains(&total_played),
        "{total_played}"
    );

    for name in ["GoToTenBot", "StopBot", "Printer", "Good"] {
        let r = &rows[name];
        assert!(r["played"].as_u64().unwrap() > 0, "{name}");
        for kind in ["timeout", "error", "malformed", "crash", "lost"] {
            assert_eq!(fault(r, kind), 0, "{name} {kind}: {r}");
        }
        assert!(r["out"].is_null(), "{r}");
    }
    // A bot's prints land in its log, never on the wire.
    let log = std::fs::read_to_string(dir.path().join("logs/Printer.log")).unwrap();
    assert!(log.contains("thinking about ["), "{log}");

    let g = &rows["Garbage"];
    assert!(fault(g, "malformed") > 0, "{g}");
    assert_eq!(fault(g, "crash"), 0, "{g}");
    assert_eq!(g["wins"], 0, "a malformed reply loses every turn");
    assert_eq!(g["max"], 0);

    let s = &rows["Stall"];
    assert!(fault(s, "timeout") >= 3, "{s}");
    assert_eq!(
        fault(s, "crash"),
        3,
        "killed kill-ms after each deadline: {s}"
    );
    assert_eq!(s["out"], "disqualified after 3 crashes");

    for name in ["Reverse", "Crasher", "Extra"] {
        let r = &rows[name];
        assert_eq!(fault(r, "crash"), 3, "{name}: {r}");
        assert!(fault(r, "lost") > 0, "{name}: {r}");
        assert_eq!(r["out"], "disqualified after 3 crashes", "{name}");
    }

    let once = &rows["CrashOnce"];
    assert_eq!(fault(once, "crash"), 1, "{once}");
    assert!(fault(once, "lost") > 0, "{once}");
    assert!(once["out"].is_null(), "{once}");
    assert!(
        once["wins"].as_u64().unwrap() > 0,
        "the restarted process plays on"
    );

    // No handshake: disqualified before the first game, so it plays nothing.
    for name in ["Silent", "BadShake"] {
        let r = &rows[name];
        assert_eq!(r["played"], 0, "{name}");
        assert_eq!(fault(r, "crash"), 3, "{name}");
        assert_eq!(r["out"], "disqualified after 3 crashes", "{name}");
    }

    // The text report: disqualified bots last with (DQ), and the failures table.
    let text = referee(
        dir.path(),
        &["standings", "--instructions", "instructions.txt"],
    );
    let text = stdout(&text);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("|Win%|"))
        .skip(2)
        .take_while(|l| l.starts_with("\t|"))
        .collect();
    assert_eq!(table.len(), 12, "{text}");
    let dq_from = table.iter().position(|l| l.contains("(DQ)")).unwrap();
    assert!(
        table[dq_from..].iter().all(|l| l.contains("(DQ)")),
        "{text}"
    );
    assert_eq!(table.len() - dq_from, 6, "{text}");
    assert!(text.contains("|Timeouts|  Errors|Malformed| Crashes|    Lost|Status|"));
    assert!(text.contains("|CrashOnce"), "{text}");
}

#[test]
fn a_tournament_stops_when_too_few_bots_are_left() {
    let dir = tournament(&format!(
        "challenge: forty\ngames: 2000\nconcurrency: 10\nmax-crashes: 1\ntimeout-ms: 10000\nGood {}\nCrasher {}\n",
        raw("good"),
        raw("crash 3"),
    ));
    let (code, out, err) = run_tournament(dir.path(), &["--quiet"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the tournament stopped early: at least 2 eligible bots are needed, 1 left (disqualified: Crasher)"), "{err}");
    assert!(
        out.contains("|Crasher (DQ)"),
        "the standings are printed: {out}"
    );
}

/// The rows without the time columns, which vary from run to run.
fn outcomes(rows: &HashMap<String, Value>) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = rows
        .iter()
        .map(|(name, row)| {
            let mut row = row.clone();
            if let Some(o) = row.as_object_mut() {
                o.remove("time");
                o.remove("charged_time");
                o.remove("cpu_seconds");
            }
            (name.clone(), row)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn deterministic_field() -> String {
    format!(
        "challenge: forty\nseed: 2024\ngames: 8000\nbots-per-game: 3\ntimeout-ms: 10000\n\
         GoToTenBot {}\nStopBot {}\nThrowTwiceBot {}\nCatchUpBot {}\nExhaustBot {}\n",
        example("GoToTenBot"),
        example("StopBot"),
        example("ThrowTwiceBot"),
        example("CatchUpBot"),
        example("ExhaustBot"),
    )
}

fn blocks_in(db: &Path) -> i64 {
    if !db.exists() {
        return 0;
    }
    rusqlite::Connection::open(db)
        .and_then(|c| c.query_row("SELECT count(*) FROM games", [], |r| r.get(0)))
        .unwrap_or(0)
}

#[test]
fn a_resume_after_sigkill_gives_the_uninterrupted_results() {
    // The uninterrupted run.
    let whole = tournament(&deterministic_field());
    let (code, _, err) = run_tournament(whole.path(), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let expected = standings(whole.path(), None);
    assert_eq!(
        blocks_in(&whole.path().join("results.db")),
        8,
        "one row per block"
    );

    // Killed once a block or two is committed, then resumed.
    let dir = tournament(&deterministic_field());
    let db = dir.path().join("results.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt", "--quiet"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    while blocks_in(&db) < 1 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let at_kill = blocks_in(&db);
    assert!(
        (1..8).contains(&at_kill),
        "killed after {at_kill} of 8 blocks"
    );

    let (code, _, err) = run_tournament(dir.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!("resuming: {} of 8000 games", at_kill * 1000)),
        "{err}"
    );
    assert_eq!(blocks_in(&db), 8);
    assert_eq!(outcomes(&standings(dir.path(), None)), outcomes(&expected));
    let played: u64 = expected
        .values()
        .map(|r| r["played"].as_u64().unwrap())
        .sum();
    assert_eq!(played, 8000 * 3);

    // A complete tournament run again plays nothing.
    let (code, out, err) = run_tournament(dir.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("resuming: 8000 of 8000 games"), "{err}");
    assert!(
        out.contains("\tSimulation or 8000 games between 5 bots"),
        "{out}"
    );
}

#[test]
fn results_do_not_depend_on_jobs_or_concurrency() {
    let a = tournament(&deterministic_field());
    let (code, _, err) = run_tournament(
        a.path(),
        &["--quiet", "--jobs", "1", "--set", "concurrency=7"],
    );
    assert_eq!(code, Some(0), "{err}");
    let b = tournament(&deterministic_field());
    let (code, _, err) = run_tournament(
        b.path(),
        &["--quiet", "--jobs", "2", "--set", "concurrency=3000"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        outcomes(&standings(a.path(), None)),
        outcomes(&standings(b.path(), None))
    );
}

// ---------------------------------------------------------------------------
// Time: a batch answered in one write, charged ask by ask

/// A class file of `tests/bots`, run through the host.
fn class_bot(file: &str) -> String {
    format!(
        "{} {} {}",
        q(Path::new(python())),
        q(&host()),
        q(&bot(file))
    )
}

/// `tests/bots/forty_native.c`, compiled once.
fn native() -> PathBuf {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| c_bot(&bot("forty_native.c"), "forty_native"))
        .clone()
}

/// The concurrencies every timing test runs at: the default (2048, so a
/// process gets hundreds of asks per batch) and 64.
const CONCURRENCIES: [Option<usize>; 2] = [None, Some(64)];

/// A tournament of `games` games among `bots` (instructions lines) with
/// default limits, at `concurrency` (`None`: the default); its standings.
fn timed_tournament(
    bots: &str,
    games: u64,
    concurrency: Option<usize>,
) -> (tempfile::TempDir, HashMap<String, Value>) {
    let header = concurrency.map_or(String::new(), |c| format!("concurrency: {c}\n"));
    let dir = tournament(&format!(
        "challenge: forty\nseed: 31\ngames: {games}\n{header}{bots}"
    ));
    let (code, out, err) = run_tournament(dir.path(), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}{out}");
    let rows = standings(dir.path(), None);
    (dir, rows)
}

fn assert_no_faults(rows: &HashMap<String, Value>, name: &str, at: Option<usize>) {
    let r = &rows[name];
    assert!(r["played"].as_u64().unwrap() > 0, "{name}: {r}");
    for kind in ["timeout", "error", "malformed", "crash", "lost"] {
        assert_eq!(
            fault(r, kind),
            0,
            "{name} {kind} at concurrency {at:?}: {r}"
        );
    }
}

#[test]
fn a_bot_sleeping_2_ms_per_decision_never_times_out_at_any_concurrency() {
    // The host answers a whole batch in one write; at the default
    // concurrency a batch holds ~100 asks of ~2 ms each. Each ask must be
    // charged its own 2 ms, not the batch's 200 ms.
    let bots = format!(
        "Sleepy {}\nGoToTenBot {}\nThrowTwiceBot {}\n",
        class_bot("forty_sleepy.py"),
        example("GoToTenBot"),
        example("ThrowTwiceBot"),
    );
    for at in CONCURRENCIES {
        let (_dir, rows) = timed_tournament(&bots, 300, at);
        for name in ["Sleepy", "GoToTenBot", "ThrowTwiceBot"] {
            assert_no_faults(&rows, name, at);
        }
        // Its own time: at least its sleeps, which dwarf the others'.
        let sleepy = rows["Sleepy"]["time"].as_f64().unwrap();
        let other = rows["GoToTenBot"]["time"].as_f64().unwrap();
        assert!(sleepy > 1.0 && sleepy > 10.0 * other, "{rows:?}");
    }
}

#[test]
fn a_decision_over_its_turns_budget_still_times_out_at_any_concurrency() {
    // On turns whose first die is a 1 (a sixth of them), one decision
    // sleeps 150 ms among many quick ones of the same batch: its own
    // report, not an even split of the batch, decides.
    let bots = format!(
        "SlowTurn {}\nGoToTenBot {}\nThrowTwiceBot {}\n",
        class_bot("forty_slow_turn.py"),
        example("GoToTenBot"),
        example("ThrowTwiceBot"),
    );
    for at in CONCURRENCIES {
        let (_dir, rows) = timed_tournament(&bots, 100, at);
        let r = &rows["SlowTurn"];
        assert!(fault(r, "timeout") > 0, "at {at:?}: {r}");
        for kind in ["error", "malformed", "crash", "lost"] {
            assert_eq!(fault(r, kind), 0, "{kind} at {at:?}: {r}");
        }
        assert!(r["out"].is_null(), "{r}");
        for name in ["GoToTenBot", "ThrowTwiceBot"] {
            assert_no_faults(&rows, name, at);
        }
    }
}

#[test]
fn a_native_bot_reporting_no_time_is_still_charged_what_it_took() {
    // 120 ms per decision, each batch in one write, every reply claiming 0
    // microseconds: the batch's time is split evenly, so every ask is over
    // its 100 ms and the whole time is charged.
    let bots = format!(
        "Liar {} lie 120\nGoToTenBot {}\nThrowTwiceBot {}\n",
        q(&native()),
        example("GoToTenBot"),
        example("ThrowTwiceBot"),
    );
    let (dir, rows) = timed_tournament(&bots, 15, None);
    let asks: u64 = std::fs::read_to_string(dir.path().join("Liar/asks.txt"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let r = &rows["Liar"];
    assert!(asks > 10, "{asks}");
    // Each ask is the one decision of its turn, and each timed out.
    assert_eq!(fault(r, "timeout"), asks, "{r}");
    assert_eq!(fault(r, "crash"), 0, "{r}");
    // Charged what it slept, not the nothing it claimed (within a margin:
    // a last timed-out ask whose late reply came after the last game ended
    // is charged its 100 ms budget, not its 120 ms).
    let charged = r["charged_time"].as_f64().unwrap();
    assert!(
        charged >= 0.9 * asks as f64 * 0.120,
        "{asks} asks, charged {charged}: {r}"
    );
    // Its own time is what it claimed, but for that last ask's budget,
    // which no report settles.
    assert!(r["time"].as_f64().unwrap() <= 0.100_001, "{r}");
}

#[test]
fn every_process_has_its_own_startup_time() {
    // 100 interpreters started one after another on a machine that is
    // busy (with each other, and with the rest of the suite): together
    // they take seconds of CPU, but each is charged only its own start,
    // well within its 1.5 s.
    let mut bots = String::new();
    for i in 0..100 {
        bots.push_str(&format!("S{i} {}\n", example("StopBot")));
    }
    let dir = tournament(&format!(
        "challenge: forty\ngames: 20\nstartup-ms: 1500\n{bots}"
    ));
    let (code, out, err) = run_tournament(dir.path(), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}{out}");
    let rows = standings(dir.path(), None);
    assert_eq!(rows.len(), 100);
    for (name, r) in &rows {
        assert_eq!(fault(r, "crash"), 0, "{name}: {err}");
    }
}

/// A batch as `tests/bots/forty_spans.py` recorded it: start and end
/// (monotonic ns), the CPUs the process was allowed, and its asks.
struct Span {
    start: u64,
    end: u64,
    cpus: Vec<usize>,
    asks: usize,
}

/// The batches bot `S{b}` of `tournament_dir` served.
fn spans(tournament_dir: &Path, b: usize) -> Vec<Span> {
    let text = std::fs::read_to_string(tournament_dir.join(format!("S{b}/spans.txt"))).unwrap();
    let spans: Vec<Span> = text
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l.split(' ').collect();
            Span {
                start: fields[0].parse().unwrap(),
                end: fields[1].parse().unwrap(),
                cpus: fields[2].split(',').map(|c| c.parse().unwrap()).collect(),
                asks: fields[3].parse().unwrap(),
            }
        })
        .collect();
    assert!(
        spans.len() > 10,
        "bot S{b} served only {} batches",
        spans.len()
    );
    spans
}

/// A forty tournament of `bots` copies of `tests/bots/forty_spans.py`
/// (named S0, S1, ...) run with `args`, under `header`.
fn spans_tournament(header: &str, bots: usize, args: &str) -> tempfile::TempDir {
    let mut ins = format!("challenge: forty\n{header}");
    for b in 0..bots {
        ins.push_str(&format!(
            "S{b} {} {} {args}\n",
            q(Path::new(python())),
            q(&bot("forty_spans.py"))
        ));
    }
    tournament(&ins)
}

/// The most processes busy at one instant, from the spans each bot of
/// `tournament_dir` recorded.
fn most_busy_at_once(tournament_dir: &Path, bots: usize) -> usize {
    let mut edges: Vec<(u64, i32)> = Vec::new();
    for b in 0..bots {
        for Span { start, end, .. } in spans(tournament_dir, b) {
            edges.push((start, 1));
            edges.push((end, -1));
        }
    }
    // Ends sort before starts at the same instant: touching spans do not
    // overlap.
    edges.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in edges {
        now += step;
        most = most.max(now);
    }
    usize::try_from(most).unwrap()
}

#[test]
fn no_more_processes_than_jobs_are_served_at_once() {
    let bots = 6;
    for jobs in [1usize, 2] {
        let dir = spans_tournament("seed: 7\ngames: 400\nbots-per-game: 4\n", bots, "1");
        let (code, _, err) = run_tournament(dir.path(), &["--quiet", "--jobs", &jobs.to_string()]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(most_busy_at_once(dir.path(), bots), jobs, "--jobs {jobs}");
    }
}

#[test]
fn each_slot_runs_its_process_on_its_own_cpu() {
    // Pinning needs two CPUs to choose from; with one there is nothing to
    // check (and nothing is pinned).
    let allowed = std::thread::available_parallelism().map_or(1, usize::from);
    if allowed < 2 {
        eprintln!("skipped: one CPU");
        return;
    }
    let bots = 5;
    let dir = spans_tournament("seed: 3\ngames: 300\nbots-per-game: 4\n", bots, "1");
    let (code, _, err) = run_tournament(dir.path(), &["--quiet", "--jobs", "2"]);
    assert_eq!(code, Some(0), "{err}");
    let all: Vec<Span> = (0..bots).flat_map(|b| spans(dir.path(), b)).collect();
    // Every batch ran pinned to one CPU...
    for span in &all {
        assert_eq!(span.cpus.len(), 1, "a batch ran on CPUs {:?}", span.cpus);
    }
    // ...and two processes served at once were never on the same one.
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            if a.start < b.end && b.start < a.end {
                assert_ne!(a.cpus, b.cpus, "two slots shared a CPU");
            }
        }
    }
    // Both CPUs were used.
    let used: std::collections::HashSet<usize> = all.iter().map(|s| s.cpus[0]).collect();
    assert_eq!(used.len(), 2, "CPUs used: {used:?}");
}

#[test]
fn a_process_whose_turns_go_on_keeps_its_slot_for_a_bounded_streak() {
    // Two bots that always throw share every game, so most of a batch's
    // games ask the same process again. With one slot, plain oldest-first
    // would alternate strictly between the two; the streak rule gives the
    // slot back to the same process while its follow-ups have 16 asks or
    // more, for up to 16 more batches. With 350 games waiting on each, a
    // streak lasts long enough to meet that cap. (Each batch is one write
    // into an empty pipe, so the bot reads it whole.)
    let dir = spans_tournament(
        "seed: 5\ngames: 700\nbots-per-game: 2\nconcurrency: 700\n",
        2,
        "0 throw",
    );
    let (code, _, err) = run_tournament(dir.path(), &["--quiet", "--jobs", "1"]);
    assert_eq!(code, Some(0), "{err}");
    let mut all: Vec<(u64, usize, usize)> = (0..2)
        .flat_map(|b| {
            spans(dir.path(), b)
                .into_iter()
                .map(move |s| (s.start, b, s.asks))
        })
        .collect();
    all.sort();
    // Runs of consecutive batches of the same process, while many games
    // are in flight: at the end, when every game left waits on one process,
    // oldest-first itself serves it again and again.
    let bulk = all
        .iter()
        .position(|&(_, _, asks)| asks < 8)
        .unwrap_or(all.len());
    assert!(bulk > 100, "only {bulk} batches before the tail");
    let mut runs: Vec<usize> = Vec::new();
    let mut last = usize::MAX;
    for &(_, bot, _) in &all[..bulk] {
        if bot == last {
            *runs.last_mut().unwrap() += 1;
        } else {
            runs.push(1);
            last = bot;
        }
    }
    let longest = runs.iter().copied().max().unwrap_or(0);
    assert!(
        longest <= 17,
        "a process held the slot for {longest} batches"
    );
    assert_eq!(longest, 17, "the cap was never reached: {runs:?}");
    let streaks = runs.iter().filter(|&&r| r >= 3).count();
    assert!(streaks >= 3, "runs: {runs:?}");
}

#[test]
fn the_bundled_example_runs_copied_out_of_the_repository() {
    // A folder of its own, away from the repository: the example names the
    // host as `{protocols}/...`, the referee's own copy.
    let dir = tempfile::tempdir().unwrap();
    let src = root().join("examples/bots/forty");
    copy_dir(&src, dir.path());
    let ins = std::fs::read_to_string(dir.path().join("instructions.txt")).unwrap();
    assert!(
        ins.contains("python3 {protocols}/forty/forty_host.py Steady/bot.py"),
        "{ins}"
    );
    assert!(!ins.contains("../"), "{ins}");
    let started = Instant::now();
    let (code, out, err) = run_tournament(dir.path(), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    // Well under a minute on an idle machine; generous for a loaded one.
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "{:?}",
        started.elapsed()
    );
    let rows = standings(dir.path(), None);
    assert_eq!(rows.len(), 8, "{out}");
    for (name, row) in &rows {
        let played = row["played"].as_u64().unwrap();
        assert!(played > 0, "{name}");
        // The example bots never fail by themselves. A 100 ms turn can still
        // time out when the machine is overloaded (tests run in parallel),
        // so a rare timeout is tolerated; any other failure is not.
        for kind in ["error", "malformed", "crash", "lost"] {
            assert_eq!(fault(row, kind), 0, "{name} {kind}: {out}");
        }
        assert!(fault(row, "timeout") * 100 <= played, "{name}: {out}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "results.db" || name == "logs" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------
// The host's own tests

#[test]
fn the_python_host_unittest_suite_passes() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 is missing: the host's unittest suite is skipped");
        return;
    }
    let out = Command::new(python())
        .args(["-m", "unittest", "discover", "-s", "protocols/forty"])
        .current_dir(root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("\nOK"), "{err}");
}

// ---------------------------------------------------------------------------
// Win rates against their exact values

/// Score distribution after one turn of a bot that throws while its turn
/// sum is below `target`, from score `score` (section 2: the first die is
/// thrown without asking; a 6 loses the turn, or busts to 0 when the score
/// plus the turn so far is at least 40).
fn turn_outcomes(score: u32, target: u32) -> Vec<(u32, f64)> {
    fn go(score: u32, target: u32, sum: u32, p: f64, out: &mut Vec<f64>) {
        for die in 1..=6u32 {
            let q = p / 6.0;
            if die == 6 {
                let after = if score + sum >= 40 { 0 } else { score };
                out[after as usize] += q;
            } else if sum + die >= target {
                out[(score + sum + die) as usize] += q;
            } else {
                go(score, target, sum + die, q, out);
            }
        }
    }
    let mut out = vec![0.0; (score + target + 6) as usize];
    go(score, target, 0, 1.0, &mut out);
    out.into_iter()
        .enumerate()
        .filter(|&(_, p)| p > 0.0)
        .map(|(s, p)| (s as u32, p))
        .collect()
}

/// Exact chances that seat 0 and seat 1 win (ties count for both) when
/// seat 0 throws to `t0` and seat 1 to `t1`, round limit included; and the
/// probability mass not followed to the end (a bound on the error).
fn exact_two_seats(t0: u32, t1: u32) -> (f64, f64, f64) {
    let mut cache: HashMap<(u32, u32), Vec<(u32, f64)>> = HashMap::new();
    let mut turn = |s: u32, t: u32| {
        cache
            .entry((s, t))
            .or_insert_with(|| turn_outcomes(s, t))
            .clone()
    };
    let (mut w0, mut w1) = (0.0f64, 0.0f64);
    let settle = |a: u32, b: u32, p: f64, w0: &mut f64, w1: &mut f64| {
        if a >= b {
            *w0 += p;
        }
        if b >= a {
            *w1 += p;
        }
    };
    // Scores at the start of a pass, both below 40.
    let mut dist = vec![[0.0f64; 40]; 40];
    dist[0][0] = 1.0;
    for pass in 1..=200u32 {
        let mut next = vec![[0.0f64; 40]; 40];
        for s0 in 0..40u32 {
            for s1 in 0..40u32 {
                let p = dist[s0 as usize][s1 as usize];
                if p == 0.0 {
                    continue;
                }
                for (n0, q0) in turn(s0, t0) {
                    for (n1, q1) in turn(s1, t1) {
                        let pq = p * q0 * q1;
                        if pass == 200 {
                            // The round limit: everyone plays again.
                            for (m0, r0) in turn(n0, t0) {
                                for (m1, r1) in turn(n1, t1) {
                                    settle(m0, m1, pq * r0 * r1, &mut w0, &mut w1);
                                }
                            }
                        } else if n0 >= 40 {
                            // Seat 0 started the last round; seat 1 played it.
                            settle(n0, n1, pq, &mut w0, &mut w1);
                        } else if n1 >= 40 {
                            // Seat 1 started it: seat 0 plays once more.
                            for (m0, r0) in turn(n0, t0) {
                                settle(m0, n1, pq * r0, &mut w0, &mut w1);
                            }
                        } else {
                            next[n0 as usize][n1 as usize] += pq;
                        }
                    }
                }
            }
        }
        dist = next;
        let left: f64 = dist.iter().flatten().sum();
        if left < 1e-15 {
            return (w0, w1, left);
        }
    }
    (w0, w1, 0.0)
}

#[test]
fn exact_turn_outcomes_add_up() {
    for (score, target) in [(0, 1), (0, 10), (35, 10), (39, 20)] {
        let total: f64 = turn_outcomes(score, target).iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12, "{score} {target}: {total}");
    }
    // StopBot: banks its first die unless it is a 6.
    assert_eq!(
        turn_outcomes(7, 1),
        vec![
            (7, 1.0 / 6.0),
            (8, 1.0 / 6.0),
            (9, 1.0 / 6.0),
            (10, 1.0 / 6.0),
            (11, 1.0 / 6.0),
            (12, 1.0 / 6.0)
        ]
    );
}

#[test]
fn two_strategies_win_at_their_exact_rates() {
    // GoToTenBot throws while its turn is below 10; StopBot is "below 1".
    let (g0, s1, left_a) = exact_two_seats(10, 1);
    let (s0, g1, left_b) = exact_two_seats(1, 10);
    // Seats are drawn at random, each order with probability 1/2.
    let go_to_ten = (g0 + g1) / 2.0;
    let stop = (s0 + s1) / 2.0;
    let slack = left_a + left_b;
    assert!(go_to_ten > 0.5 && stop < 0.5 && go_to_ten + stop >= 1.0);

    const GAMES: u64 = 20_000;
    let dir = tournament(&format!(
        "challenge: forty\nseed: 77\ngames: {GAMES}\ntimeout-ms: 10000\nGoToTenBot {}\nStopBot {}\n",
        example("GoToTenBot"),
        example("StopBot"),
    ));
    let (code, _, err) = run_tournament(dir.path(), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let rows = standings(dir.path(), None);
    // Each game is an independent draw of seats and dice, so a bot's wins
    // are a sum of GAMES independent Bernoulli trials with the exact
    // probability. Hoeffding: P(|rate - p| >= 0.025) <= 2 exp(-2 n 0.025^2)
    // = 2 exp(-25) ~ 3e-11 per bot. (The seed is fixed, so the test is
    // also deterministic.)
    const EPS: f64 = 0.025;
    for (name, p) in [("GoToTenBot", go_to_ten), ("StopBot", stop)] {
        let r = &rows[name];
        assert_eq!(r["played"].as_u64().unwrap(), GAMES);
        let rate = r["wins"].as_u64().unwrap() as f64 / GAMES as f64;
        assert!(
            (rate - p).abs() <= EPS + slack,
            "{name}: measured {rate:.4}, exact {p:.6}"
        );
    }
}
