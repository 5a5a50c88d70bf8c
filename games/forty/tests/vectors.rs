//! The test vectors of section 11, played through the rules and the wire
//! codec with scripted bots (no processes).
//!
//! Each test bot below implements the behaviour section 11 gives it. It sees
//! exactly what a process would: the encoded `ask` line. Its reply goes
//! through `wire::judge` as a transport's `LineReply` would. The expected
//! transcripts are the spec's vector notation, expanded by `expand` into
//! full transcript lines (names and flags filled in, implied decisions
//! written out).

use game_core::LineReply;
use game_forty::dice::parse_dice_list;
use game_forty::transcript::{header_lines, result_line};
use game_forty::wire::{self, ProcessFate};
use game_forty::{play_game, Decision, Failure, Game, Next, SeatTally, TranscriptWriter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    GoToTen,
    ThrowTwice,
    Stop,
    CatchUp,
    Exhaust,
    /// ErrorBot; the variant decides what replaces its exception.
    Error(Trouble),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trouble {
    /// The exception: the host answers `G e`.
    Raise,
    /// A 300 ms sleep: the transport reports a timeout.
    Sleep,
    /// `os._exit(3)`: the transport reports the pipe closed.
    Exit,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::GoToTen => "GoToTenBot",
            Kind::ThrowTwice => "ThrowTwiceBot",
            Kind::Stop => "StopBot",
            Kind::CatchUp => "CatchUpBot",
            Kind::Exhaust => "ExhaustBot",
            Kind::Error(_) => "ErrorBot",
        }
    }
}

/// What a test bot reads from an ask line.
struct Ask {
    game: u64,
    last_round: bool,
    throws: Vec<u32>,
    scores: Vec<u32>,
}

fn parse_ask(line: &[u8]) -> Ask {
    let text = std::str::from_utf8(line).expect("ask lines are ASCII");
    let text = text.strip_suffix('\n').expect("ask lines end in LF");
    let fields: Vec<&str> = text.split(' ').collect();
    assert_eq!(fields.len(), 5, "ask line {text:?}");
    assert_eq!(fields[0], "ask");
    let list = |f: &str| -> Vec<u32> { f.split(',').map(|x| x.parse().unwrap()).collect() };
    Ask {
        game: fields[1].parse().unwrap(),
        last_round: match fields[2] {
            "1" => true,
            "0" => false,
            other => panic!("flag {other:?}"),
        },
        throws: list(fields[3]),
        scores: list(fields[4]),
    }
}

struct TestBot {
    kind: Kind,
    seat: usize,
    /// Decisions made in the current turn (the generator's position).
    step: usize,
    asks: usize,
}

impl TestBot {
    fn new(kind: Kind, seat: usize) -> Self {
        TestBot {
            kind,
            seat,
            step: 0,
            asks: 0,
        }
    }

    fn respond(&mut self, line: &[u8]) -> LineReply {
        let ask = parse_ask(line);
        assert!(ask.throws.iter().all(|&d| (1..=5).contains(&d)));
        if ask.throws.len() == 1 {
            self.step = 0;
        }
        self.asks += 1;
        let sum: u32 = ask.throws.iter().sum();
        let mine = ask.scores[self.seat];
        let step = self.step;
        self.step += 1;
        let token = match self.kind {
            Kind::GoToTen => throw_if(sum < 10),
            Kind::ThrowTwice => throw_if(step == 0),
            Kind::Stop => "0",
            Kind::CatchUp => {
                let best = ask.scores.iter().copied().max().unwrap_or(0);
                throw_if(ask.last_round && mine + sum <= best)
            }
            Kind::Exhaust => throw_if(sum < 8),
            Kind::Error(trouble) => {
                if step == 0 {
                    "1"
                } else if mine + sum >= 40 {
                    match trouble {
                        Trouble::Raise => "e",
                        Trouble::Sleep => return LineReply::TimedOut,
                        Trouble::Exit => return LineReply::Closed,
                    }
                } else {
                    "0"
                }
            }
        };
        LineReply::Message(format!("{} {token}", ask.game).into_bytes())
    }
}

fn throw_if(throw: bool) -> &'static str {
    if throw {
        "1"
    } else {
        "0"
    }
}

struct Played {
    lines: Vec<String>,
    game: Game,
    bots: Vec<TestBot>,
}

/// Plays game 0 as `referee play` would, with the bots in seat order and
/// the given dice, answering `Lost` for a seat whose process has died.
fn play(kinds: &[Kind], dice: &str) -> Played {
    let names: Vec<String> = kinds.iter().map(|k| k.name().to_string()).collect();
    let mut bots: Vec<TestBot> = kinds
        .iter()
        .enumerate()
        .map(|(seat, &kind)| TestBot::new(kind, seat))
        .collect();
    let mut dead = vec![false; kinds.len()];
    let mut game = play_game(1, kinds.len(), Some(parse_dice_list(dice).unwrap())).unwrap();
    let mut lines = header_lines(0, &names);
    let mut buf = Vec::new();
    {
        let mut writer = TranscriptWriter::new(&names, |line| lines.push(line));
        let mut steps = 0;
        while let Next::Ask { seat } = game.advance(&mut writer) {
            steps += 1;
            assert!(steps < 100_000, "the game does not end");
            let decision = if dead[seat] {
                Decision::Failed(Failure::Lost)
            } else {
                buf.clear();
                game.write_ask(0, &mut buf);
                let verdict = wire::judge(&bots[seat].respond(&buf), 0);
                if verdict.fate != ProcessFate::Healthy {
                    dead[seat] = true;
                }
                verdict.decision
            };
            game.answer(decision).unwrap();
        }
    }
    lines.push(result_line(game.result().expect("the game is over")));
    Played { lines, game, bots }
}

/// Expands the spec's vector notation into transcript lines. Names and `-`
/// flags are filled in; a turn without `: decisions` gets the implied ones
/// (`T` before each die after the first, then `S` if it banked).
fn expand(notation: &str, kinds: &[Kind]) -> Vec<String> {
    let names: Vec<String> = kinds.iter().map(|k| k.name().to_string()).collect();
    let mut lines = header_lines(0, &names);
    for line in notation.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(event) = line.strip_prefix("→ ") {
            lines.push(event.to_string());
            continue;
        }
        if line.starts_with("result:") {
            lines.push(line.to_string());
            continue;
        }
        let (phase, turns) = line.split_once(": ").expect("PHASE: turns");
        for turn in turns.split(" | ") {
            let (turn, event) = match turn.split_once(" → ") {
                Some((t, e)) => (t, Some(e)),
                None => (turn, None),
            };
            lines.push(expand_turn(phase, turn, &names));
            if let Some(event) = event {
                lines.push(event.to_string());
            }
        }
    }
    lines
}

fn expand_turn(phase: &str, turn: &str, names: &[String]) -> String {
    let mut tokens: Vec<&str> = turn.split_whitespace().collect();
    let seat: usize = tokens.remove(0)[1..].parse().expect("sI");
    let flag = if tokens[0] == "L" {
        tokens.remove(0);
        "L"
    } else {
        "-"
    };
    let score = tokens.pop().expect("score");
    let outcome = tokens.pop().expect("outcome");
    let (dice, decisions) = match tokens.iter().position(|t| *t == ":") {
        Some(colon) => (tokens[..colon].to_vec(), tokens[colon + 1..].join(" ")),
        None => {
            let mut implied = vec!["T"; tokens.len() - 1];
            if outcome == "bank" {
                implied.push("S");
            }
            let implied = if implied.is_empty() {
                "-".to_string()
            } else {
                implied.join(" ")
            };
            (tokens.clone(), implied)
        }
    };
    format!(
        "{phase} s{seat} {} {flag} {} : {decisions} {outcome} {score}",
        names[seat],
        dice.join(" ")
    )
}

fn assert_transcript(played: &Played, expected: &[String]) {
    for (i, (got, want)) in played.lines.iter().zip(expected).enumerate() {
        assert_eq!(got, want, "line {i} differs");
    }
    assert_eq!(
        played.lines.len(),
        expected.len(),
        "transcript length; got:\n{}",
        played.lines.join("\n")
    );
}

/// Every listed die was used, none past the list.
fn assert_all_dice_used(played: &Played, dice: &str) {
    let listed = parse_dice_list(dice).unwrap().len();
    assert_eq!(played.game.dice().listed_used(), listed);
    assert!(!played.lines.iter().any(|l| l.starts_with("dice list")));
}

/// (max, throws, successes, turns) of a seat.
fn stats(played: &Played, seat: usize) -> (u32, u64, u64, u64) {
    let t: &SeatTally = &played.game.tallies()[seat];
    let score = played.game.result().unwrap().scores[seat];
    (score, t.throws, t.successes, t.turns)
}

const GO_THROW_STOP: [Kind; 3] = [Kind::GoToTen, Kind::ThrowTwice, Kind::Stop];

#[test]
fn v1_first_throw_sixes_and_no_final_turns() {
    let dice = "4,5,3,6,5,5,5,3,6,2,6,4,5,6,5,4,2,5,5,3,3,4,5,4,4,1";
    let played = play(&GO_THROW_STOP, dice);
    let expected = expand(
        "r1: s0 4 5 3 : T T S bank 12 | s1 6 : - six 0 | s2 5 : S bank 5
         r2: s0 5 5 : T S bank 22 | s1 3 6 : T six 0 | s2 2 : S bank 7
         r3: s0 6 : - six 22 | s1 4 5 : T S bank 9 | s2 6 : - six 7
         r4: s0 5 4 2 bank 33 | s1 5 5 bank 19 | s2 3 bank 10
         r5: s0 3 4 5 bank 45 → last round: s0 reached 45 in round 5 | s1 L 4 4 bank 27 | s2 L 1 bank 11
         result: scores 45 27 11; winners s0; rounds 5; tied no; round limit no",
        &GO_THROW_STOP,
    );
    assert_transcript(&played, &expected);
    assert_all_dice_used(&played, dice);
    // Statistics (max/throws/successes/turns); each seat's max is its one
    // final score here.
    assert_eq!(stats(&played, 0), (45, 12, 4, 5));
    assert_eq!(stats(&played, 1), (27, 9, 3, 5));
    assert_eq!(stats(&played, 2), (11, 5, 4, 5));
}

#[test]
fn v2_bust_at_exactly_40_and_a_six_at_39() {
    let dice = "5,5,5,5,2,4,4,4,5,5,3,4,5,4,5,4,4,5,6,3,2,1,5,5,5,6,2,5,5,4,3,5,4,6";
    let played = play(&GO_THROW_STOP, dice);
    // The spec's remarks "(35+5 ≥ 40)" and "(34+5 = 39)" are left out.
    let expected = expand(
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 2 bank 2
         r2: s0 4 4 4 bank 22 | s1 5 5 bank 20 | s2 3 bank 5
         r3: s0 4 5 4 bank 35 | s1 5 4 bank 29 | s2 4 bank 9
         r4: s0 5 6 bust 0 | s1 3 2 bank 34 | s2 1 bank 10
         r5: s0 5 5 bank 10 | s1 5 6 six 34 | s2 2 bank 12
         r6: s0 5 5 bank 20 | s1 4 3 bank 41 → last round: s1 reached 41 in round 6 | s2 L 5 bank 17
         fin: s0 L 4 6 six 20
         result: scores 20 41 17; winners s1; rounds 6; tied no; round limit no",
        &GO_THROW_STOP,
    );
    assert_transcript(&played, &expected);
    assert_all_dice_used(&played, dice);
}

#[test]
fn v3_a_second_seat_past_40_in_the_same_pass_changes_nothing() {
    let kinds = [Kind::Stop, Kind::GoToTen, Kind::ThrowTwice];
    let dice = "1,4,6,5,5,2,5,5,5,5,3,5,5,4,5,4,5,5,5,5,5,5,4,3,3,2,5";
    let played = play(&kinds, dice);
    let expected = expand(
        "r1: s0 1 bank 1 | s1 4 6 six 0 | s2 5 5 bank 10
         r2: s0 2 bank 3 | s1 5 5 bank 10 | s2 5 5 bank 20
         r3: s0 3 bank 6 | s1 5 5 bank 20 | s2 4 5 bank 29
         r4: s0 4 bank 10 | s1 5 5 bank 30 | s2 5 5 bank 39
         r5: s0 5 bank 15 | s1 5 4 3 bank 42 → last round: s1 reached 42 in round 5 | s2 L 3 2 bank 44
         fin: s0 L 5 bank 20
         result: scores 20 42 44; winners s2; rounds 5; tied no; round limit no",
        &kinds,
    );
    assert_transcript(&played, &expected);
    assert_all_dice_used(&played, dice);
}

#[test]
fn v4_a_tie() {
    let dice = "5,5,5,5,1,5,5,5,5,1,5,5,5,5,1,5,5,5,5,1";
    let played = play(&GO_THROW_STOP, dice);
    // Written out from the spec's prose: each pass banks 10, 10 and 1; in
    // r4 s0 reaches 40, then s1 (L) banks 40 and s2 (L) banks 4.
    let expected = expand(
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
         r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
         r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
         r4: s0 5 5 bank 40 → last round: s0 reached 40 in round 4 | s1 L 5 5 bank 40 | s2 L 1 bank 4
         result: scores 40 40 4; winners s0 s1; rounds 4; tied yes; round limit no",
        &GO_THROW_STOP,
    );
    assert_transcript(&played, &expected);
    assert_all_dice_used(&played, dice);
}

#[test]
fn v5_four_seats_flag_snapshot_and_an_exhausted_generator() {
    let kinds = [Kind::CatchUp, Kind::Exhaust, Kind::Stop, Kind::GoToTen];
    let dice = "3,3,4,2,5,5,5,2,5,4,5,4,4,4,1,6,5,3,4,5,4,1*8,5,5,6,2*5,5,4,5,3,5*8,6,6";
    let played = play(&kinds, dice);
    // "1 (8 times)" and "5 (7 times)" written out.
    let expected = expand(
        "r1: s0 3 : S bank 3 | s1 3 4 2 : T T S bank 9 | s2 5 bank 5 | s3 5 5 bank 10
         r2: s0 2 bank 5 | s1 5 4 bank 18 | s2 5 bank 10 | s3 4 4 4 bank 22
         r3: s0 1 bank 6 | s1 6 : - six 18 | s2 5 bank 15 | s3 3 4 5 bank 34
         r4: s0 4 bank 10 | s1 1 1 1 1 1 1 1 1 bank 26 | s2 5 bank 20 | s3 5 6 six 34
         r5: s0 2 bank 12 | s1 2 2 2 2 bank 34 | s2 5 bank 25 | s3 4 5 3 bank 46 → last round: s3 reached 46 in round 5
         fin: s0 L 5 5 5 5 5 5 5 bank 47 | s1 L 5 6 six 34 | s2 L 6 : - six 25
         result: scores 47 34 25 46; winners s0; rounds 5; tied no; round limit no",
        &kinds,
    );
    assert_transcript(&played, &expected);
    assert_all_dice_used(&played, dice);
}

const V6_DICE: &str = "5,5,5,5,1,5,5,5,5,1,5,5,5,5,1,5,5,2,3,4,1,1,4,5";

fn v6_kinds(trouble: Trouble) -> [Kind; 3] {
    [Kind::Error(trouble), Kind::GoToTen, Kind::Stop]
}

fn v6_expected(trouble: Trouble, r4_s0: &str) -> Vec<String> {
    let notation = format!(
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
         r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
         r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
         r4: {r4_s0} | s1 2 3 4 1 bank 40 → last round: s1 reached 40 in round 4 | s2 L 1 bank 4
         fin: s0 L 4 5 bank 39
         result: scores 39 40 4; winners s1; rounds 4; tied no; round limit no"
    );
    expand(&notation, &v6_kinds(trouble))
}

#[test]
fn v6_a_failed_turn_at_40_loses_the_points_without_reset() {
    let played = play(&v6_kinds(Trouble::Raise), V6_DICE);
    assert_transcript(
        &played,
        &v6_expected(Trouble::Raise, "s0 5 5 : T E error 30"),
    );
    assert_all_dice_used(&played, V6_DICE);
    let t = &played.game.tallies()[0];
    assert_eq!((t.throws, t.successes, t.turns, t.errors), (10, 4, 5, 1));
}

#[test]
fn v6_timeout_variant() {
    let played = play(&v6_kinds(Trouble::Sleep), V6_DICE);
    assert_transcript(
        &played,
        &v6_expected(Trouble::Sleep, "s0 5 5 : T TO timeout 30"),
    );
    assert_all_dice_used(&played, V6_DICE);
    let t = &played.game.tallies()[0];
    assert_eq!((t.timeouts, t.errors), (1, 0));
}

#[test]
fn v6_crash_variant() {
    let kinds = v6_kinds(Trouble::Exit);
    let played = play(&kinds, V6_DICE);
    let expected = expand(
        "r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
         r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
         r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
         r4: s0 5 5 : T X crash 30 | s1 2 3 4 1 bank 40 → last round: s1 reached 40 in round 4 | s2 L 1 bank 4
         fin: s0 L 4 : - lost 30
         result: scores 30 40 4; winners s1; rounds 4; tied no; round limit no",
        &kinds,
    );
    assert_transcript(&played, &expected);
    // The last 5 is never drawn.
    let listed = parse_dice_list(V6_DICE).unwrap().len();
    assert_eq!(played.game.dice().listed_used(), listed - 1);
    let t = &played.game.tallies()[0];
    assert_eq!((t.crash_turns, t.lost_turns), (1, 1));
    // The dead process was not asked again.
    assert_eq!(played.bots[0].asks, 8);
}

#[test]
fn v7_the_round_limit_with_all_scores_at_0() {
    let dice = "6*603";
    let played = play(&GO_THROW_STOP, dice);
    let mut notation = String::new();
    for round in 1..=200 {
        notation.push_str(&format!("r{round}: s0 6 six 0 | s1 6 six 0 | s2 6 six 0\n"));
    }
    notation.push_str(
        "→ round limit: 200 rounds played
         fin: s0 L 6 six 0 | s1 L 6 six 0 | s2 L 6 six 0
         result: scores 0 0 0; winners s0 s1 s2; rounds 200; tied yes; round limit yes",
    );
    assert_transcript(&played, &expand(&notation, &GO_THROW_STOP));
    assert_all_dice_used(&played, dice);
    for seat in 0..3 {
        assert_eq!(stats(&played, seat), (0, 201, 0, 201), "seat {seat}");
        assert_eq!(played.bots[seat].asks, 0, "seat {seat} was consulted");
    }
}

#[test]
fn v8_last_round_in_pass_200_then_everyone_plays_again() {
    let kinds = [Kind::Stop, Kind::ThrowTwice, Kind::GoToTen];
    let dice = "4,6,6,4,6,6,4,6,6,4,6,6,4,6,6,4,6,6,4,6,6,4,6,6,4,6,6,6*570,4,6,6,6,5,5,5,5";
    let played = play(&kinds, dice);
    let mut notation = String::new();
    for round in 1..=9 {
        notation.push_str(&format!(
            "r{round}: s0 4 bank {} | s1 6 six 0 | s2 6 six 0\n",
            4 * round
        ));
    }
    for round in 10..=199 {
        notation.push_str(&format!(
            "r{round}: s0 6 six 36 | s1 6 six 0 | s2 6 six 0\n"
        ));
    }
    notation.push_str(
        "r200: s0 4 bank 40 → last round: s0 reached 40 in round 200 | s1 L 6 six 0 | s2 L 6 six 0
         → round limit: 200 rounds played
         fin: s0 L 6 : - bust 0 | s1 L 5 5 bank 10 | s2 L 5 5 bank 10
         result: scores 0 10 10; winners s1 s2; rounds 200; tied yes; round limit yes",
    );
    assert_transcript(&played, &expand(&notation, &kinds));
    assert_all_dice_used(&played, dice);
    // Statistics (throws/successes/turns).
    let t = |seat: usize| {
        let t = &played.game.tallies()[seat];
        (t.throws, t.successes, t.turns)
    };
    assert_eq!(t(0), (201, 10, 201));
    assert_eq!(t(1), (202, 1, 201));
    assert_eq!(t(2), (202, 1, 201));
}

#[test]
fn the_spec_example_exchange() {
    // Section 4's example: seat 0 of V1 with dice 4, 5, 3 asks three times.
    let mut game = play_game(1, 3, Some(vec![4, 5, 3, 6, 5])).unwrap();
    let mut sent = Vec::new();
    let mut buf = Vec::new();
    for reply in ["0 1", "0 1", "0 0"] {
        assert_eq!(game.advance(&mut ()), Next::Ask { seat: 0 });
        buf.clear();
        game.write_ask(0, &mut buf);
        sent.push(String::from_utf8(buf.clone()).unwrap());
        let verdict = wire::judge(&LineReply::Message(reply.as_bytes().to_vec()), 0);
        game.answer(verdict.decision).unwrap();
    }
    assert_eq!(
        sent,
        [
            "ask 0 0 4 0,0,0\n",
            "ask 0 0 4,5 0,0,0\n",
            "ask 0 0 4,5,3 0,0,0\n"
        ]
    );
    // Seat 1 throws a first 6 and is skipped; seat 2 is asked next with the
    // banked 12 in its snapshot.
    assert_eq!(game.advance(&mut ()), Next::Ask { seat: 2 });
    assert_eq!(game.scores(), &[12, 0, 0]);
    buf.clear();
    game.write_ask(0, &mut buf);
    assert_eq!(buf, b"ask 0 0 5 12,0,0\n");
}

#[test]
fn an_extra_line_puts_the_process_out_of_step_at_its_next_reply() {
    // Asks for games 3 and 5 are outstanding at one process; it prints an
    // extra line after its first reply. Pairing the n-th line with the n-th
    // ask, the extra line meets game 5's ask: the process is killed.
    let outstanding = [3u64, 5];
    let lines: [&[u8]; 3] = [b"3 1", b"3 0", b"5 1"];
    let verdicts: Vec<_> = outstanding
        .iter()
        .zip(lines)
        .map(|(&g, line)| wire::judge(&LineReply::Message(line.to_vec()), g))
        .collect();
    assert_eq!(verdicts[0].decision, Decision::Throw);
    assert_eq!(verdicts[0].fate, ProcessFate::Healthy);
    assert_eq!(verdicts[1].decision, Decision::Failed(Failure::Crash));
    assert!(matches!(verdicts[1].fate, ProcessFate::Kill(_)));
}

#[test]
fn a_reply_of_0_maybe_is_malformed_and_costs_the_turn() {
    let mut game = play_game(1, 2, Some(vec![3, 4, 2])).unwrap();
    assert_eq!(game.advance(&mut ()), Next::Ask { seat: 0 });
    let verdict = wire::judge(&LineReply::Message(b"0 maybe".to_vec()), 0);
    assert_eq!(verdict.fate, ProcessFate::Healthy);
    game.answer(verdict.decision).unwrap();
    assert_eq!(game.advance(&mut ()), Next::Ask { seat: 1 });
    assert_eq!(game.scores(), &[0, 0]);
    assert_eq!(game.tallies()[0].malformed, 1);
    assert_eq!(game.tallies()[0].throws, 1);
}
