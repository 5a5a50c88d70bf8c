//! The hill rules against gearlance: every match of every ordered pair of
//! the test bots under `data/hill/bots/`, and which programs are rejected,
//! compared with results gearlance produced once (`data/hill/*.txt` say how).

use game_bf_joust::hill::{play_pairing, summary_line, HILL_CYCLES};
use game_bf_joust::{ParseErrorKind, Program, Rules};
use std::path::Path;

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hill")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bot(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hill/bots")
        .join(format!("{name}.bf"));
    let source = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Program::parse_rules(&source, Rules::Hill).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_match_of_the_test_bots_equals_gearlance() {
    let expected = data("results.txt");
    let mut pairings = 0;
    let mut wrong = Vec::new();
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.splitn(3, ' ');
        let (Some(left), Some(right), Some(gearlance)) = (words.next(), words.next(), words.next())
        else {
            panic!("bad line {line:?}");
        };
        let ours = summary_line(&play_pairing(&bot(left), &bot(right), HILL_CYCLES));
        if ours != gearlance {
            wrong.push(format!(
                "{left} vs {right}:\n  gearlance {gearlance}\n  referee   {ours}"
            ));
        }
        pairings += 1;
    }
    assert_eq!(pairings, 16 * 16, "every ordered pair of the 16 bots");
    assert!(
        wrong.is_empty(),
        "{} pairings differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// gearlance's message for each kind of program error.
fn kind_of(message: &str) -> ParseErrorKind {
    match message {
        "starting ( without a matching )" => ParseErrorKind::UnclosedParen,
        "terminating ) without a matching (" => ParseErrorKind::UnmatchedParen,
        "starting { without a matching }" => ParseErrorKind::HillUnclosedBrace,
        "terminating } without a matching {" => ParseErrorKind::HillUnmatchedBrace,
        "encountered { without suitable enclosing (" => ParseErrorKind::HillBraceWithoutGroup,
        "encountered second { on a same level" => ParseErrorKind::HillSecondBrace,
        "[..] crossing into a ({..}) level" => ParseErrorKind::HillBracketCrossesIn,
        "[..] crossing out of a ({..}) level" => ParseErrorKind::HillBracketCrossesOut,
        "terminating ] without a matching [" => ParseErrorKind::UnmatchedBracket,
        "starting [ without a matching ]" => ParseErrorKind::UnclosedBracket,
        other => panic!("unknown gearlance message {other:?}"),
    }
}

#[test]
fn programs_are_rejected_exactly_when_gearlance_rejects_them() {
    let idle = Program::parse_rules(b"", Rules::Hill).expect("valid");
    let expected = data("programs.txt");
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let (source, gearlance) = line.split_once('\t').expect("a tab");
        match (
            Program::parse_rules(source.as_bytes(), Rules::Hill),
            gearlance.strip_prefix("parse error: "),
        ) {
            (Err(e), Some(message)) => assert_eq!(e.kind, kind_of(message), "{source}: {e}"),
            (Ok(p), None) => assert_eq!(
                summary_line(&play_pairing(&p, &idle, HILL_CYCLES)),
                gearlance,
                "{source}"
            ),
            (ours, _) => panic!("{source}: gearlance says {gearlance:?}, the referee {ours:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn the_right_program_is_inverted_in_the_second_half() {
    // Left sets a decoy of 10 beside its flag. Right's `(-)*10` clears it
    // in the normal polarity and it goes on to the flag; inverted, the
    // decoy reaches 20, and right's loop runs it off the tape.
    let left = Program::parse_rules(b">(+)*10<", Rules::Hill).expect("valid");
    let right =
        Program::parse_rules(b"(.)*20(>)*8(-)*10[(>)*5]>(-)*128", Rules::Hill).expect("valid");
    let rows = play_pairing(&left, &right, HILL_CYCLES);
    assert_eq!(rows[0][0], game_bf_joust::Outcome::RightWins);
    assert_eq!(rows[1][0], game_bf_joust::Outcome::LeftWins);
    // gearlance's line for this pairing (printf the two programs to files,
    // `gearlance l.bf r.bf`).
    assert_eq!(
        summary_line(&rows),
        "><<<<<XXXXXXXXXXXXXXX <<<<<<XXXXXXXXXXXXXXX 10"
    );
}
