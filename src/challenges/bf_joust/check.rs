//! `referee check bf-joust FILE.bf`: the program against the rules of §1
//! (a parse error is reported with its line and column, and the line is
//! shown), its length, and a few matches against simple built-in opponents
//! on the shortest and the longest tape, on both sides: who wins, after how
//! many cycles, and whether its pointer ever leaves the tape (which loses
//! the match at once).

use crate::challenge::ChallengeId;
use crate::check::Report;
use crate::error::{Error, Result};
use crate::status::Status;
use game_bf_joust::{
    run_match_observed, CycleView, EndReason, MatchResult, Outcome, ParseError, Program, Rules,
    DEFAULT_CYCLES, HILL_CYCLES, MAX_TAPE_LEN, MIN_TAPE_LEN,
};
use std::path::Path;

/// The built-in opponents, written for the check: a name, what it does,
/// and its program.
const OPPONENTS: [(&str, &str, &str); 3] = [
    ("idle", "does nothing (a sitting target)", ""),
    (
        "rush",
        "runs at the enemy flag clearing every cell on the way",
        ">(>[-])*29",
    ),
    (
        "decoys",
        "sets three decoy cells in front of its flag, then waits",
        ">(+)*16>(-)*16>(+)*16",
    ),
];

/// Tape lengths played: the shortest and the longest.
const TAPES: [usize; 2] = [MIN_TAPE_LEN, MAX_TAPE_LEN];

/// Where the bot's pointer left the tape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OffTape {
    OwnEnd,
    PastEnemyFlag,
}

/// One match from the bot's side: the result and where (and when) its
/// pointer left the tape, if it did.
fn play(
    bot: &Program,
    other: &Program,
    tape: usize,
    bot_left: bool,
) -> (MatchResult, Option<(u64, OffTape)>) {
    let cycles = if bot.rules() == Rules::Hill {
        HILL_CYCLES
    } else {
        DEFAULT_CYCLES
    };
    let mut off = None;
    let len = tape as isize;
    let mut watch = |view: &CycleView<'_>| {
        if off.is_some() {
            return;
        }
        // Left counts up from cell 0, right down from the last cell.
        let (ptr, own_end) = if bot_left {
            (view.left_ptr, -1)
        } else {
            (view.right_ptr, len)
        };
        if ptr < 0 || ptr >= len {
            let place = if ptr == own_end {
                OffTape::OwnEnd
            } else {
                OffTape::PastEnemyFlag
            };
            off = Some((view.cycle, place));
        }
    };
    let result = if bot_left {
        run_match_observed(bot, other, tape, cycles, &mut watch)
    } else {
        run_match_observed(other, bot, tape, cycles, &mut watch)
    };
    (result, off)
}

/// The match in words, from the bot's side.
fn words(result: &MatchResult, bot_left: bool, off: Option<(u64, OffTape)>) -> String {
    let mine = if bot_left {
        Outcome::LeftWins
    } else {
        Outcome::RightWins
    };
    let c = result.cycles;
    let off_words = |place: OffTape| match place {
        OffTape::OwnEnd => "its pointer left the tape at its own end",
        OffTape::PastEnemyFlag => "its pointer ran past the enemy flag, off the tape",
    };
    match (result.outcome, result.end) {
        (Outcome::Draw, EndReason::Limit) if c == HILL_CYCLES => {
            format!("draw: no result within {c} cycles (a tie at the limit)")
        }
        (Outcome::Draw, EndReason::Limit) => {
            format!("draw: no result within {c} cycles, both flags equally far from 0")
        }
        (o, EndReason::Limit) if o == mine => {
            format!("won at the cycle limit ({c}): its flag was further from 0")
        }
        (_, EndReason::Limit) => {
            format!("lost at the cycle limit ({c}): its flag was nearer to 0")
        }
        (Outcome::Draw, _) => match off {
            Some((_, place)) => format!(
                "draw after {c} cycles: {} as the other bot lost",
                off_words(place)
            ),
            None => format!("draw after {c} cycles: both bots lost at once"),
        },
        (o, EndReason::Flag) if o == mine => {
            format!("won after {c} cycles: the enemy flag was zeroed")
        }
        (_, EndReason::Flag) => format!("lost after {c} cycles: its flag was zeroed"),
        (o, _) if o == mine => format!("won after {c} cycles: the opponent left the tape"),
        (_, _) => match off {
            Some((_, place)) => format!("lost after {c} cycles: {}", off_words(place)),
            None => format!("lost after {c} cycles"),
        },
    }
}

/// The source line of a parse error with a caret under its column.
fn pointed(source: &[u8], e: &ParseError) -> Option<[String; 2]> {
    let p = e.position?;
    let line = source.split(|&b| b == b'\n').nth(p.line.checked_sub(1)?)?;
    let text = String::from_utf8_lossy(line);
    if text.chars().count() > 200 {
        return None;
    }
    // Columns count bytes; pad with the bytes before it (tabs kept).
    let pad: String = line
        .iter()
        .take(p.col.saturating_sub(1))
        .map(|&b| if b == b'\t' { '\t' } else { ' ' })
        .collect();
    Some([
        format!("  {}: {text}", p.line),
        format!("  {}  {pad}^", " ".repeat(p.line.to_string().len())),
    ])
}

/// `referee check bf-joust BOT`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot: a .bf file.
    pub bot: String,
    /// Where a relative file is found (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// The rules to check against: 2014 (default) or hill (the hill's
    /// program format, 100000 cycles).
    #[arg(long, value_name = "2014|hill", default_value = "2014", value_parser = ["2014", "hill"])]
    pub rules: String,
}

/// `referee check bf-joust FILE.bf`.
pub async fn check(args: CheckArgs) -> Result<Status> {
    let path = match &args.cwd {
        Some(dir) => dir.join(&args.bot),
        None => Path::new(&args.bot).to_path_buf(),
    };
    let source = crate::challenges::bf_joust::read_program(&path)
        .map_err(|e| Error::input(format!("{}: cannot read: {e}", args.bot)))?;
    let rules = if args.rules == "hill" {
        Rules::Hill
    } else {
        Rules::Y2014
    };
    let mut report = Report::new();
    let program = match Program::parse_rules(&source, rules) {
        Ok(p) => p,
        Err(e) => {
            report.line(format!("program: {} bytes", source.len()));
            report.line(format!("  {}", e.with_file(&args.bot)));
            if let Some([line, caret]) = pointed(&source, &e) {
                report.line(line);
                report.line(caret);
            }
            report.problem(match e.position {
                Some(p) => format!(
                    "the program is invalid: {} at line {}, column {} (in a tournament it scores 0)",
                    e.kind, p.line, p.col
                ),
                None => format!("the program is invalid: {} (in a tournament it scores 0)", e.kind),
            });
            return report.print(ChallengeId::BfJoust, "");
        }
    };
    let tokens = program.tokens().len();
    report.line(format!(
        "program: {} bytes, {tokens} tokens after comments are dropped: valid",
        source.len()
    ));
    if tokens == 0 {
        report.line("  note: no instructions at all: it never moves (it can only win if the opponent loses by itself)");
    }
    report.gap();
    let mut off_tape = Vec::new();
    let mut n = 0;
    for (name, what, code) in OPPONENTS {
        let Ok(other) = Program::parse_rules(code.as_bytes(), rules) else {
            continue;
        };
        let shown = if code.is_empty() {
            "an empty program".to_string()
        } else {
            format!("`{code}`")
        };
        report.line(format!("against {name}: {what} ({shown})"));
        for tape in TAPES {
            for bot_left in [true, false] {
                n += 1;
                let (result, off) = play(&program, &other, tape, bot_left);
                let side = if bot_left { "left" } else { "right" };
                report.line(format!(
                    "  match {n}: tape {tape}, the bot on the {side}: {}",
                    words(&result, bot_left, off)
                ));
                if let Some((cycle, place)) = off {
                    let place = match place {
                        OffTape::OwnEnd => "off its own end",
                        OffTape::PastEnemyFlag => "past the enemy flag",
                    };
                    off_tape.push(format!(
                        "match {n} (against {name}, tape {tape}, on the {side}): {place} in cycle {cycle}"
                    ));
                }
            }
        }
    }
    report.gap();
    if off_tape.is_empty() {
        report.line(format!(
            "tape: its pointer never left the tape in {n} matches"
        ));
    } else {
        report.line(format!(
            "tape: its pointer left the tape in {} of {n} matches, which loses at once:",
            off_tape.len()
        ));
        for o in &off_tape {
            report.line(format!("  {o}"));
        }
        // Legal (the program is valid), but it loses: a warning.
        report.warning(format!(
            "its pointer leaves the tape (it loses the match at once) in {} of {n} matches; first: {}",
            off_tape.len(),
            off_tape[0]
        ));
    }
    report.line("no bot process: the referee interprets the program, so there are no files, time limit or processes to check");
    report.print(ChallengeId::BfJoust, "the program is valid.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_opponents_are_valid_programs() {
        for (name, _, code) in OPPONENTS {
            assert!(Program::parse(code.as_bytes()).is_ok(), "{name}");
        }
    }

    #[test]
    fn a_rusher_beats_idle_and_a_backward_step_leaves_the_tape() {
        let rush = Program::parse(b">(>[-])*29").unwrap();
        let idle = Program::parse(b"").unwrap();
        for tape in TAPES {
            for left in [true, false] {
                let (r, off) = play(&rush, &idle, tape, left);
                assert_eq!(off, None);
                assert_eq!(r.end, EndReason::Flag);
                assert!(
                    words(&r, left, off).starts_with("won after"),
                    "{tape} {left}"
                );
            }
        }
        let back = Program::parse(b"<").unwrap();
        let (r, off) = play(&back, &idle, 10, false);
        assert_eq!(off, Some((1, OffTape::OwnEnd)));
        assert_eq!(
            words(&r, false, off),
            "lost after 1 cycles: its pointer left the tape at its own end"
        );
        let far = Program::parse(b"(>)*10").unwrap();
        let (_, off) = play(&far, &idle, 10, true);
        assert_eq!(off, Some((10, OffTape::PastEnemyFlag)));
    }

    #[test]
    fn a_parse_error_points_at_its_column() {
        let src = b"+++\n  [-]]\n";
        let e = Program::parse(src).unwrap_err();
        let [line, caret] = pointed(src, &e).unwrap();
        assert_eq!(line, "  2:   [-]]");
        assert_eq!(caret, "          ^");
    }
}
