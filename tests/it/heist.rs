//! heist end to end with real processes: the spec's vectors driven through
//! the process runner with scripted dice, a probe that checks every call's
//! 31 arguments, misbehaving bots, `referee play heist`, logs, and resume
//! after a kill.

use crate::common::{bot, c_bot, python, q, referee, root, stderr, stdout, tournament};
use game_heist::{Dice, GameReport, Seat, Tournament};
use referee::bot::{BotLog, BotProgram};
use referee::challenges::heist::{self, play_game, Bots};
use referee_sandbox::Confinement;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------
// The spec's vectors (§9) with real bot processes and scripted draws.

/// Draws named per player, as the §9 vectors state them. A heist draw or
/// rabble draw the script lacks fails (0.99); rehire draws fail unless given.
#[derive(Debug, Default)]
struct Scripted {
    /// Round-1 order; empty: the bots in list order.
    round1: Vec<Seat>,
    /// Round-2 order; empty: round-1 order.
    round2: Vec<Seat>,
    rabble_bet: HashMap<Seat, f64>,
    rabble_back_out: HashMap<Seat, f64>,
    heist: HashMap<Seat, f64>,
    rehire: HashMap<Seat, f64>,
    fingers: HashMap<Seat, VecDeque<Seat>>,
}

impl Dice for Scripted {
    fn seating(&mut self, bots: usize, _pool: usize) -> Vec<Seat> {
        if self.round1.is_empty() {
            (0..bots).map(Seat::Bot).collect()
        } else {
            self.round1.clone()
        }
    }
    fn decision_order(&mut self, heisters: &[Seat]) -> Vec<usize> {
        if self.round2.is_empty() {
            return (0..heisters.len()).collect();
        }
        self.round2
            .iter()
            .map(|s| heisters.iter().position(|h| h == s).expect("a heister"))
            .collect()
    }
    fn rabble_bet(&mut self, seat: Seat) -> f64 {
        self.rabble_bet.get(&seat).copied().unwrap_or(0.99)
    }
    fn rabble_back_out(&mut self, seat: Seat) -> f64 {
        self.rabble_back_out.get(&seat).copied().unwrap_or(0.99)
    }
    fn heist(&mut self, seat: Seat) -> f64 {
        self.heist.get(&seat).copied().unwrap_or(0.99)
    }
    fn finger(&mut self, fingerer: Seat, candidates: &[Seat]) -> usize {
        let drawn = self
            .fingers
            .get_mut(&fingerer)
            .and_then(VecDeque::pop_front)
            .expect("a scripted finger draw");
        candidates
            .iter()
            .position(|&c| c == drawn)
            .expect("a candidate")
    }
    fn rehire(&mut self, seat: Seat) -> f64 {
        self.rehire.get(&seat).copied().unwrap_or(0.99)
    }
    fn lost_guards(&mut self, _seat: Seat, _guards: usize, lost: usize) -> Vec<usize> {
        (0..lost).collect()
    }
}

/// Bots of a scripted game: each a probe process (which checks and records
/// its arguments) with a fixed bet and answer.
struct Field {
    names: Vec<String>,
    programs: Vec<BotProgram>,
    logs: Vec<BotLog>,
    dir: tempfile::TempDir,
}

impl Field {
    fn new(bots: &[(&str, i64, &str)]) -> Field {
        let dir = tempfile::tempdir().unwrap();
        let mut programs = Vec::new();
        let mut logs = Vec::new();
        for &(name, bet, answer) in bots {
            programs.push(probe_program(name, bet, answer, dir.path()));
            logs.push(BotLog::new(dir.path().join(format!("{name}.log"))));
        }
        Field {
            names: bots.iter().map(|b| b.0.to_string()).collect(),
            programs,
            logs,
            dir,
        }
    }

    fn tournament(&self) -> Tournament {
        Tournament::new(self.names.clone(), 0, 100).unwrap()
    }

    /// Gives bot `name` a new bet and answer for the next game.
    fn set(&mut self, name: &str, bet: i64, answer: &str) {
        let i = self.index(name);
        self.programs[i] = probe_program(name, bet, answer, self.dir.path());
    }

    fn index(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).unwrap()
    }

    fn seat(&self, name: &str) -> Seat {
        Seat::Bot(self.index(name))
    }

    async fn play(&self, t: &mut Tournament, dice: Scripted) -> GameReport {
        let limits = referee::bot::Limits {
            deadline: std::time::Duration::from_secs(20),
            stdout_cap: 4096,
            stderr_cap: 16 * 1024,
        };
        let bots = Bots {
            programs: &self.programs,
            logs: &self.logs,
            limits,
            label: "vector",
        };
        let played = play_game(t, dice, &bots, &CancellationToken::new(), |_| {})
            .await
            .expect("started")
            .expect("not cancelled");
        played.report
    }

    /// Every argument list bot `name` received, as its process saw them.
    fn calls(&self, name: &str) -> Vec<Vec<String>> {
        recorded_calls(&self.dir.path().join(format!("{name}.log")))
    }
}

fn probe_program(name: &str, bet: i64, answer: &str, folder: &Path) -> BotProgram {
    BotProgram {
        name: name.to_string(),
        argv: vec![
            python().to_string(),
            bot("heist_probe.py").to_string_lossy().into_owned(),
            "--fixed".to_string(),
            bet.to_string(),
            answer.to_string(),
        ],
        cwd: root(),
        folder: folder.to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        quota: None,
    }
}

/// The argument lists a probe recorded on stderr (in its bot log); a probe
/// that found a contract violation fails the test here.
fn recorded_calls(log: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    assert!(!text.contains("PROBE FAIL"), "{text}");
    // The preflight's call before the first game is not a game's: its
    // section of the log is passed over.
    let mut preflight = false;
    text.lines()
        .filter_map(|l| {
            if let Some(label) = l.strip_prefix("--- ") {
                preflight = label.starts_with("preflight");
                return None;
            }
            l.strip_prefix("ARGS ").filter(|_| !preflight)
        })
        .map(|json| serde_json::from_str(json).unwrap())
        .collect()
}

fn credits(t: &Tournament, f: &Field, name: &str) -> i64 {
    t.players()[f.index(name)].credits
}

fn draws(pairs: &[(Seat, f64)]) -> HashMap<Seat, f64> {
    pairs.iter().copied().collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn t1_log_block_and_next_game_arguments_through_processes() {
    let mut f = Field::new(&[("A", 100, "guncheck"), ("B", 50, "guncheck"), ("C", 0, "x")]);
    let mut t = f.tournament();
    let (a, b, c) = (f.seat("A"), f.seat("B"), f.seat("C"));
    let report = f
        .play(
            &mut t,
            Scripted {
                round2: vec![b, a],
                heist: draws(&[(a, 0.10), (b, 0.90)]),
                ..Scripted::default()
            },
        )
        .await;
    assert_eq!(
        [
            credits(&t, &f, "A"),
            credits(&t, &f, "B"),
            credits(&t, &f, "C")
        ],
        [560, 430, 480]
    );
    assert_eq!(
        report.log_block(t.names()),
        "#####GAME 0: 3 players######\nRound 1:\nA bet 100.\nB bet 50.\nC bet 0.\n\
         Round 2\nB decided to guncheck.\nA decided to guncheck.\nResults\n\
         A was successful, and may gain \u{a5}180\nB failed. :(\nResults:\n\
         0. A: 560\n1. C: 480\n2. B: 430\n\n"
    );
    // C bet nothing, so its process was called once, in round 1.
    assert_eq!(f.calls("C").len(), 1);

    // Game 1: B moves first in round 1 and receives the spec's line.
    f.set("B", 0, "guncheck");
    f.play(
        &mut t,
        Scripted {
            round1: vec![b, a, c],
            ..Scripted::default()
        },
    )
    .await;
    let calls = f.calls("B");
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(
        calls[2].join(" "),
        "1 1 3 0 0 0 0 0 430 0 240 1 3 490.0 46.6666666667 560 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
    assert_eq!(calls[2].len(), 31, "31 separate argv entries");
}

#[tokio::test(flavor = "multi_thread")]
async fn t2_a_back_out_and_the_second_movers_arguments() {
    let f = Field::new(&[
        ("A", 100, "guncheck"),
        ("B", 100, "guncheck"),
        ("C", 100, "back out"),
        ("D", 100, "guncheck"),
    ]);
    let mut t = f.tournament();
    let [a, b, c, d] = ["A", "B", "C", "D"].map(|n| f.seat(n));
    let report = f
        .play(
            &mut t,
            Scripted {
                round2: vec![c, a, b, d],
                heist: draws(&[(a, 0.40), (b, 0.45), (d, 0.99)]),
                ..Scripted::default()
            },
        )
        .await;
    assert_eq!(
        ["A", "B", "C", "D"].map(|n| credits(&t, &f, n)),
        [560, 380, 240, 380]
    );
    assert!(report
        .log_block(t.names())
        .contains("Round 2\nC decided to back out.\nA decided to guncheck.\n"));
    let calls = f.calls("A");
    assert_eq!(
        calls[1].join(" "),
        "0 2 4 1 4 400 0 0 240 100 240 1 1 240.0 0.0 240 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn t3_all_in_through_processes() {
    let f = Field::new(&[
        ("A", 10, "all in"),
        ("B", 20, "all in"),
        ("C", 30, "back out"),
    ]);
    let mut t = f.tournament();
    t.player_mut(0).unwrap().credits = 1000;
    let [a, b, c] = ["A", "B", "C"].map(|n| f.seat(n));
    let report = f
        .play(
            &mut t,
            Scripted {
                round2: vec![c, a, b],
                heist: draws(&[(a, 0.50), (b, 0.60)]),
                ..Scripted::default()
            },
        )
        .await;
    assert_eq!(["A", "B", "C"].map(|n| credits(&t, &f, n)), [2232, 0, 240]);
    assert!(report
        .log_block(t.names())
        .contains("\nA was successful, and may gain \u{a5}0\nB failed. :(\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn t6_a_finger_identifies_the_double_crosser() {
    // "double cross" reaches the bot as one argv entry and comes back as one line.
    let f = Field::new(&[
        ("A", 100, "finger"),
        ("B", 40, "double cross"),
        ("C", 60, "guncheck"),
    ]);
    let mut t = f.tournament();
    t.player_mut(1).unwrap().credits = 1000;
    let [a, b, c] = ["A", "B", "C"].map(|n| f.seat(n));
    let report = f
        .play(
            &mut t,
            Scripted {
                heist: draws(&[(a, 0.1), (b, 0.1), (c, 0.1)]),
                fingers: [(a, VecDeque::from(vec![c, a, b, b, c, a, a, c]))]
                    .into_iter()
                    .collect(),
                ..Scripted::default()
            },
        )
        .await;
    assert_eq!(["A", "B", "C"].map(|n| credits(&t, &f, n)), [800, 792, 528]);
    assert!(report
        .log_block(t.names())
        .contains("\nA decided to finger.\nB decided to double cross.\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn t11_an_unemployed_bots_next_arguments() {
    let mut f = Field::new(&[("A", 10, "change jobs")]);
    let mut t = f.tournament();
    let a = f.seat("A");
    f.play(
        &mut t,
        Scripted {
            heist: draws(&[(a, 0.1)]),
            ..Scripted::default()
        },
    )
    .await;
    assert_eq!(credits(&t, &f, "A"), 248);
    f.set("A", 0, "guncheck");
    f.play(
        &mut t,
        Scripted {
            rehire: draws(&[(a, 0.01)]),
            ..Scripted::default()
        },
    )
    .await;
    assert_eq!(
        f.calls("A")[2].join(" "),
        "1 1 1 0 0 0 0 0 248 0 240 0 1 248.0 0.0 248 0 0 0 0 0 0.54 0.488 0.425 0.387 0.324 0.8 1.1 1.3 1.65 1.95"
    );
    assert_eq!(credits(&t, &f, "A"), 500);
}

#[tokio::test(flavor = "multi_thread")]
async fn t13_rabble_appear_only_in_the_header() {
    let f = Field::new(&[("A", 100, "guncheck")]);
    let mut t = Tournament::new(f.names.clone(), 3, 10).unwrap();
    *t.rabble_mut(0).unwrap() = 500;
    *t.rabble_mut(1).unwrap() = 60;
    *t.rabble_mut(2).unwrap() = 80085;
    let a = f.seat("A");
    let (r1, r2, r3) = (Seat::Rabble(0), Seat::Rabble(1), Seat::Rabble(2));
    let report = f
        .play(
            &mut t,
            Scripted {
                round1: vec![r1, a, r2, r3],
                round2: vec![r3, r1, a],
                rabble_bet: draws(&[(r1, 0.3), (r2, 0.1), (r3, 0.5)]),
                rabble_back_out: draws(&[(r3, 0.5), (r1, 0.03)]),
                heist: draws(&[(a, 0.35), (r3, 0.7)]),
                ..Scripted::default()
            },
        )
        .await;
    assert_eq!(credits(&t, &f, "A"), 560);
    assert_eq!(t.rabble(), &[500, 300, 240]);
    assert_eq!(
        report.log_block(t.names()),
        "#####GAME 0: 4 players######\nRound 1:\nA bet 100.\nRound 2\nA decided to guncheck.\n\
         Results\nA was successful, and may gain \u{a5}180\nResults:\n0. A: 560\n\n"
    );
    // A moved second in round 1, after R1's 420, and third in round 2.
    let calls = f.calls("A");
    assert_eq!(&calls[0][..8], ["0", "1", "4", "1", "1", "420", "0", "0"]);
    assert_eq!(&calls[1][..8], ["0", "2", "4", "2", "3", "80605", "1", "0"]);
}

// ---------------------------------------------------------------------------
// The referee binary.

/// The instructions of a tournament of probes and fixed bots.
fn probe_tournament(settings: &str) -> tempfile::TempDir {
    field(settings, 2)
}

/// `probes` probe bots (Python) and three shell bots with fixed answers.
fn field(settings: &str, probes: usize) -> tempfile::TempDir {
    let probe_lines: String = (1..=probes)
        .map(|i| format!("probe{i} {} {}\n", python(), q(&bot("heist_probe.py"))))
        .collect();
    tournament(&format!(
        "challenge: heist\n{settings}\n{probe_lines}\
         crosser sh {fixed} 5 'double cross'\n\
         snitch sh {fixed} 3 finger\n\
         passive sh {fixed} 0 guncheck\n",
        fixed = q(&bot("heist_fixed.sh")),
    ))
}

fn json_rows(dir: &Path) -> Vec<Value> {
    let out = referee(dir, &["standings", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str::<Value>(&stdout(&out))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter().find(|r| r["name"] == name).unwrap()
}

/// The blocks of a tournament log: (header line, lines) per game.
fn blocks(log: &str) -> Vec<Vec<&str>> {
    log.split("\n\n")
        .filter(|b| !b.is_empty())
        .map(|b| b.lines().collect())
        .collect()
}

/// `N. NAME: CREDITS` lines after `Results:`.
fn results(block: &[&str]) -> Vec<(String, i64)> {
    let at = block.iter().position(|l| *l == "Results:").unwrap();
    block[at + 1..]
        .iter()
        .map(|l| {
            let (_, rest) = l.split_once(". ").unwrap();
            let (name, credits) = rest.rsplit_once(": ").unwrap();
            (name.to_string(), credits.parse().unwrap())
        })
        .collect()
}

#[test]
fn probes_see_a_consistent_contract_on_every_call() {
    let dir = probe_tournament("seed: 11\ngames: 16\ntournaments: 2\nrabble: 40");
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--jobs", "1"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // The final output is the results table, highest first.
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Program Name      Final Score");
    assert_eq!(lines[1], "--------------  -------------");
    assert_eq!(lines.len(), 8, "{text}");
    let rows = json_rows(dir.path());
    assert_eq!(
        lines[7],
        format!("Winner: {}", rows[0]["name"].as_str().unwrap())
    );
    let scores: Vec<i64> = rows.iter().map(|r| r["score"].as_i64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    for (line, r) in lines[2..].iter().zip(&rows) {
        assert_eq!(
            *line,
            format!(
                "{:<14}  {:>13}",
                r["name"].as_str().unwrap(),
                r["score"].as_i64().unwrap()
            )
        );
        assert_eq!(r["played"], 2);
        assert_eq!(r["faults"], serde_json::json!({}), "{r}");
    }
    let wins: u64 = rows.iter().map(|r| r["wins"].as_u64().unwrap()).sum();
    assert!(wins >= 2, "each tournament has a winner");

    // Each probe's calls against the tournament logs. With --jobs 1 the
    // tournaments run one after the other, so the calls come in game order:
    // a round-1 call per game, then a round-2 call exactly when the log
    // shows a positive bet. Both calls of a game show the same state, and
    // that state is what the previous game's results say.
    let logs: Vec<String> = (1..=2)
        .map(|t| {
            std::fs::read_to_string(dir.path().join(format!("heist-logs/tournament-{t}.log")))
                .unwrap()
        })
        .collect();
    for probe in ["probe1", "probe2"] {
        let calls = recorded_calls(&dir.path().join(format!("logs/{probe}.log")));
        let mut i = 0;
        for log in &logs {
            let games = blocks(log);
            assert_eq!(games.len(), 16);
            for (g, block) in games.iter().enumerate() {
                let call = &calls[i];
                assert_eq!(call.len(), 31);
                assert_eq!(call[0], g.to_string());
                assert_eq!(call[1], "1");
                assert_eq!(
                    block[0],
                    format!("#####GAME {g}: {} players######", call[2])
                );
                // Statistics and my state come from the previous game's results.
                let previous: Vec<(String, i64)> = if g == 0 {
                    ["probe1", "probe2", "crosser", "snitch", "passive"]
                        .map(|n| (n.to_string(), 240))
                        .to_vec()
                } else {
                    results(&games[g - 1])
                };
                let mine = previous.iter().find(|(n, _)| n == probe).unwrap().1;
                let richer = previous.iter().filter(|(_, c)| *c > mine).count();
                let top = previous.iter().map(|(_, c)| *c).max().unwrap();
                let mean = previous.iter().map(|(_, c)| *c as f64).sum::<f64>() / 5.0;
                assert_eq!(call[8], mine.to_string(), "my credits");
                assert_eq!(call[12], (richer + 1).to_string(), "my rank");
                assert_eq!(call[15], top.to_string(), "max");
                let shown_mean: f64 = call[13].parse().unwrap();
                assert!((shown_mean - mean).abs() <= 1e-9 * mean.max(1.0), "mean");
                let bet: i64 = block
                    .iter()
                    .find_map(|l| l.strip_prefix(&format!("{probe} bet ")))
                    .map(|b| b.trim_end_matches('.').parse().unwrap())
                    .unwrap();
                i += 1;
                if bet > 0 {
                    let next = &calls[i];
                    assert_eq!(next[..2], [g.to_string(), "2".to_string()]);
                    assert_eq!(next[2], call[2], "N is the same in both rounds");
                    assert_eq!(next[9], bet.to_string(), "round 2 shows my bet");
                    assert_eq!(next[8], call[8], "credits, the bet not deducted");
                    assert_eq!(next[10..], call[10..], "the same state in both rounds");
                    i += 1;
                }
            }
        }
        assert_eq!(i, calls.len(), "no other calls");
    }
    // The other bots' answers are in the logs as given.
    assert!(logs
        .iter()
        .any(|l| l.contains("\ncrosser decided to double cross.\n")));
    assert!(logs
        .iter()
        .any(|l| l.contains("\nsnitch decided to finger.\n")));
    assert!(!logs.iter().any(|l| l.contains("passive decided")));
}

#[test]
fn misbehaving_bots_get_the_contracts_default() {
    let crasher = c_bot(&bot("crasher.c"), "crasher");
    let misbehave = q(&bot("heist_misbehave.sh"));
    // Generous: a well-behaved call must never time out on a loaded machine.
    let dir = tournament(&format!(
        "challenge: heist\nseed: 3\ngames: 2\nrabble: 0\ntimeout-ms: 2000\n\
         sleeper {py} {sleeper} 30\n\
         crasher {crasher}\n\
         garbage node {garbage}\n\
         flood sh {flood}\n\
         slow2 sh {misbehave} sleep 2\n\
         crash2 sh {misbehave} crash 2\n\
         exit2 sh {misbehave} exit1 2\n\
         utf2 sh {misbehave} nonutf8 2\n\
         flood2 sh {misbehave} flood 2\n\
         control2 sh {misbehave} control 2\n\
         decimal1 sh {misbehave} garbage 1\n\
         good sh {fixed} 7 guncheck\n",
        py = python(),
        sleeper = q(&bot("sleeper.py")),
        crasher = q(&crasher),
        garbage = q(&bot("garbage.js")),
        flood = q(&bot("flood.sh")),
        fixed = q(&bot("heist_fixed.sh")),
    ));
    let out = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--quiet"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = std::fs::read_to_string(dir.path().join("heist-logs/tournament-1.log")).unwrap();
    let games = blocks(&log);
    assert_eq!(games.len(), 2);
    for block in &games {
        // Round 1 failures bet nothing, whatever they printed first.
        for name in ["sleeper", "crasher", "garbage", "flood", "decimal1"] {
            assert!(
                block.contains(&format!("{name} bet 0.").as_str()),
                "{block:?}"
            );
        }
        // Round 2 failures go along with their bet at stake, and say why.
        for (name, shown) in [
            ("slow2", "(timeout)"),
            ("crash2", "(crash)"),
            ("exit2", "(crash)"),
            ("utf2", "(bad output)"),
            ("flood2", "(bad output)"),
            ("control2", "(bad output)"),
            ("good", "guncheck"),
        ] {
            let line = format!("{name} decided to {shown}.");
            assert!(block.contains(&line.as_str()), "{line} in {block:?}");
            let stayed = block.iter().any(|l| {
                *l == format!("{name} failed. :(")
                    || l.starts_with(&format!("{name} was successful"))
            });
            assert!(stayed, "{name} stays in the heist: {block:?}");
        }
    }
    let rows = json_rows(dir.path());
    let faults = |name: &str| row(&rows, name)["faults"].clone();
    let json = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    assert_eq!(faults("sleeper"), json(r#"{"timeout": 2}"#));
    assert_eq!(faults("crasher"), json(r#"{"crash": 2}"#));
    assert_eq!(faults("garbage"), json(r#"{"bad_output": 2}"#));
    assert_eq!(faults("flood"), json(r#"{"bad_output": 2}"#));
    assert_eq!(faults("slow2"), json(r#"{"timeout": 2}"#));
    assert_eq!(faults("crash2"), json(r#"{"crash": 2}"#));
    assert_eq!(faults("exit2"), json(r#"{"crash": 2}"#));
    assert_eq!(faults("utf2"), json(r#"{"bad_output": 2}"#));
    assert_eq!(faults("flood2"), json(r#"{"bad_output": 2}"#));
    assert_eq!(faults("decimal1"), json(r#"{"bad_output": 2}"#));
    // An odd answer is the post's way to go along, not a fault.
    assert_eq!(faults("control2"), json("{}"));
    assert_eq!(faults("good"), json("{}"));
    // stderr went to the bot's log, not the referee's output.
    let crash_log = std::fs::read_to_string(dir.path().join("logs/crasher.log")).unwrap();
    assert!(crash_log.contains("crasher: about to die"));
    assert!(!stderr(&out).contains("about to die"));
}

#[test]
fn play_prints_the_blocks_then_the_table_and_replays_with_its_seed() {
    let dir = tempfile::tempdir().unwrap();
    let fixed = |bet: &str, answer: &str| {
        format!(
            "sh {} {bet} {}",
            q(&bot("heist_fixed.sh")),
            shell_words::quote(answer)
        )
    };
    let args = [
        "play".to_string(),
        "heist".to_string(),
        fixed("100", "guncheck"),
        fixed("0", "guncheck"),
        fixed("3", "double cross"),
        "--games".into(),
        "3".into(),
        "--seed".into(),
        "77".into(),
        "--rabble".into(),
        "30".into(),
        "--names".into(),
        "bold,idle,sly".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = referee(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let games = blocks(&text);
    assert_eq!(games.len(), 4, "3 blocks and the table: {text}");
    for (g, block) in games[..3].iter().enumerate() {
        assert!(
            block[0].starts_with(&format!("#####GAME {g}: ")),
            "{block:?}"
        );
        assert!(block.contains(&"idle bet 0."));
        assert_eq!(block.last().map(|l| l.starts_with("2. ")), Some(true));
    }
    assert_eq!(games[3][0], "Program Name      Final Score");
    assert_eq!(games[3].len(), 5);
    // The same seed plays the same games.
    assert_eq!(stdout(&referee(dir.path(), &args)), text);

    // --trace shows each call with its 31 arguments, output and status.
    let mut traced = args.clone();
    traced.push("--trace");
    let out = referee(dir.path(), &traced);
    assert!(out.status.success(), "{}", stderr(&out));
    let trace = stdout(&out);
    let calls: Vec<&str> = trace.lines().filter(|l| l.starts_with("> ")).collect();
    assert!(calls.len() >= 9, "{trace}");
    for call in &calls {
        let words = shell_words::split(call.split_once(": ").unwrap().1).unwrap();
        // `sh heist_fixed.sh BET ANSWER`, then the 31 arguments.
        assert_eq!(words.len(), 4 + 31, "{call}");
    }
    assert!(trace.contains("< stdout \"100\\n\", exit status 0, "));
    // Without the trace lines, the output is the same as before.
    let plain: String = trace
        .lines()
        .filter(|l| !l.starts_with("> ") && !l.starts_with("< "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(plain, text);
}

#[test]
fn play_rejects_names_that_do_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let out = referee(
        dir.path(),
        &["play", "heist", "true", "true", "--names", "a"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--names gives 1 names for 2 bots"));
    let out = referee(
        dir.path(),
        &["play", "heist", "true", "true", "--names", "a,a"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn settings_flags_override_headers_and_bad_ones_are_refused() {
    let dir = probe_tournament("games: 500\nrabble: 5");
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--games",
            "2",
            "--tournaments",
            "2",
            "--seed",
            "1",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    for t in 1..=2 {
        let log =
            std::fs::read_to_string(dir.path().join(format!("heist-logs/tournament-{t}.log")))
                .unwrap();
        assert_eq!(blocks(&log).len(), 2);
    }
    let bad = referee(
        dir.path(),
        &["--instructions", "instructions.txt", "--set", "seed=4"],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--seed"), "{}", stderr(&bad));
    let dir = probe_tournament("games: 0");
    let bad = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        stderr(&bad),
        "referee: error: instructions.txt:2: setting `games` must be at least 1\n"
    );
}

#[test]
fn without_a_seed_a_run_draws_one_and_the_rerun_keeps_it() {
    let dir = probe_tournament("games: 3\nrabble: 10");
    let first = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let seed_of = |o: &std::process::Output| {
        let err = stderr(o);
        err.lines()
            .find_map(|l| l.strip_prefix("seed "))
            .and_then(|l| l.split(',').next())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no seed line: {err}"))
    };
    assert!(stderr(&first).contains("drawn at random"));
    let again = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(again.status.success());
    assert_eq!(seed_of(&again), seed_of(&first));
    assert!(stderr(&again).contains("resuming: 3 of 3"));
    assert_eq!(stdout(&again), stdout(&first));
}

// ---------------------------------------------------------------------------
// Resume.

fn resume_setup() -> tempfile::TempDir {
    field("seed: 5\ngames: 25\ntournaments: 2\nrabble: 60", 1)
}

fn logs_of(dir: &Path) -> Vec<Vec<u8>> {
    (1..=2)
        .map(|t| std::fs::read(dir.join(format!("heist-logs/tournament-{t}.log"))).unwrap())
        .collect()
}

#[test]
fn a_killed_run_resumes_to_identical_results_and_logs() {
    let whole = resume_setup();
    let full = referee(
        whole.path(),
        &["--instructions", "instructions.txt", "--jobs", "1"],
    );
    assert!(full.status.success(), "{}", stderr(&full));

    let cut = resume_setup();
    let reported = crate::common::kill_after_reports(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
        15,
    );
    assert_eq!(reported, 15);

    let again = referee(
        cut.path(),
        &["--instructions", "instructions.txt", "--jobs", "2"],
    );
    assert!(again.status.success(), "{}", stderr(&again));
    let err = stderr(&again);
    let resumed = crate::common::resumed_games(&err);
    assert!((15..50).contains(&resumed), "{resumed} games kept");
    let played = err.lines().filter(|l| l.starts_with('[')).count();
    assert_eq!(played, 50 - resumed, "only the missing games are played");

    assert_eq!(stdout(&again), stdout(&full));
    assert_eq!(json_rows(cut.path()), json_rows(whole.path()));
    assert_eq!(logs_of(cut.path()), logs_of(whole.path()));
}

#[test]
fn a_damaged_log_is_rebuilt_from_the_database() {
    let dir = probe_tournament("seed: 8\ngames: 5\nrabble: 10");
    let first = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let path: PathBuf = dir.path().join("heist-logs/tournament-1.log");
    let good = std::fs::read(&path).unwrap();
    assert_eq!(blocks(&String::from_utf8(good.clone()).unwrap()).len(), 5);

    // A block past the committed length (a crash between log and commit) is cut off.
    let mut longer = good.clone();
    longer.extend_from_slice(b"#####GAME 5: 9 players######\nRound 1:\n");
    std::fs::write(&path, &longer).unwrap();
    let again = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(again.status.success());
    assert!(!stderr(&again).contains("rewritten"));
    assert_eq!(std::fs::read(&path).unwrap(), good);

    // An edited or shortened log is rewritten from the stored games.
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    let again = referee(dir.path(), &["--instructions", "instructions.txt"]);
    assert!(again.status.success());
    assert!(stderr(&again).contains("rewritten"), "{}", stderr(&again));
    assert_eq!(std::fs::read(&path).unwrap(), good);
}

/// A cancelled call abandons the game: nothing about the tournament changes.
#[tokio::test(flavor = "multi_thread")]
async fn cancellation_abandons_the_game_and_kills_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let sleeper = BotProgram {
        name: "s".into(),
        argv: vec![
            python().to_string(),
            bot("sleeper.py").to_string_lossy().into_owned(),
            "30".into(),
        ],
        cwd: root(),
        folder: dir.path().to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        quota: None,
    };
    let mut t = Tournament::new(vec!["s".into()], 5, 3).unwrap();
    let before = t.clone();
    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        stop.cancel();
    });
    let started = std::time::Instant::now();
    let programs = [sleeper];
    let logs = [BotLog::discard()];
    let bots = Bots {
        programs: &programs,
        logs: &logs,
        limits: heist::limits(&game_heist::Settings::default()),
        label: "cancel",
    };
    let played = play_game(
        &mut t,
        game_heist::game_dice(1, 1, 0),
        &bots,
        &cancel,
        |_| {},
    )
    .await;
    assert!(played.expect("started").is_none());
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    assert_eq!(t, before);
}

// ---------------------------------------------------------------------------
// The bundled example.

#[test]
fn the_example_tournament_runs_and_its_bots_never_fault() {
    let src = root().join("examples/bots/heist");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        src.join("instructions.txt"),
        dir.path().join("instructions.txt"),
    )
    .unwrap();
    for (name, files) in [
        ("planner", &["bot.py", "bot.toml"][..]),
        ("crosser", &["crosser.c", "bot.toml"]),
        ("snitch", &["bot.js", "bot.toml"]),
        ("passive", &["bot.sh", "bot.toml"]),
    ] {
        std::fs::create_dir(dir.path().join(name)).unwrap();
        for f in files {
            std::fs::copy(src.join(name).join(f), dir.path().join(name).join(f)).unwrap();
        }
    }
    // A few games are enough to see every bot answer; a generous limit
    // because `python3` may be a slow shim on a loaded machine.
    let out = referee(
        dir.path(),
        &[
            "--instructions",
            "instructions.txt",
            "--games",
            "6",
            "--timeout-ms",
            "20000",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        dir.path().join("crosser/crosser").is_file(),
        "built by bot.toml"
    );
    let rows = json_rows(dir.path());
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["faults"], serde_json::json!({}), "{r}");
        assert_eq!(r["played"], 2);
    }
    let logs: String = (1..=2)
        .map(|t| {
            std::fs::read_to_string(dir.path().join(format!("heist-logs/tournament-{t}.log")))
                .unwrap()
        })
        .collect();
    assert_eq!(blocks(&logs).len(), 12);
    assert!(logs.contains("\ncrosser bet 1.\n"));
    assert!(logs.contains("\npassive bet 0.\n"));
}

#[test]
fn ctrl_c_stops_the_run_and_the_rerun_finishes_the_same() {
    let settings = "seed: 6\ngames: 12\nrabble: 20";
    let whole = field(settings, 1);
    let full = referee(whole.path(), &["--instructions", "instructions.txt"]);
    assert!(full.status.success(), "{}", stderr(&full));

    let cut = field(settings, 1);
    let mut child = Command::new(env!("CARGO_BIN_EXE_referee"))
        .args(["--instructions", "instructions.txt"])
        .current_dir(cut.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().starts_with("[4/") {
            break;
        }
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{rest:?}");
    assert!(
        rest.iter().any(|l| l.starts_with("interrupted: ")),
        "{rest:?}"
    );
    // The standings so far (no finished tournament yet) are printed.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Program Name"));

    let again = referee(cut.path(), &["--instructions", "instructions.txt"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("resuming: "));
    assert_eq!(stdout(&again), stdout(&full));
    assert_eq!(
        std::fs::read(cut.path().join("heist-logs/tournament-1.log")).unwrap(),
        std::fs::read(whole.path().join("heist-logs/tournament-1.log")).unwrap()
    );
}
