//! The output of `referee play bf-joust` (spec §6), byte for byte.
//!
//! Lines are produced without their newline; [`play`] hands each one to a
//! callback, so a caller can stream a long trace instead of holding it.

use rand::RngExt;

use crate::arena::{self, CycleView, EndReason, MatchResult, MatchSpec, Outcome, Polarity};
use crate::cell;
use crate::program::Program;

/// A bot's display name: the file name without directories and without its
/// last extension (`bots/LethalLokeV2.1.bf` → `LethalLokeV2.1`).
pub fn bot_name(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rfind('.') {
        // A leading dot starts a hidden file's name, not an extension.
        Some(dot) if dot > 0 => file[..dot].to_string(),
        _ => file.to_string(),
    }
}

/// `===== Starting battle of <LEFT> vs <RIGHT> with memory tape size: N =====`
pub fn start_line(left: &str, right: &str, tape_len: usize) -> String {
    format!(
        "===== Starting battle of <{left}> vs <{right}> with memory tape size: {tape_len} ====="
    )
}

/// `===== NAME won the battle after C cycles =====` or `===== Draw game =====`.
pub fn result_line(left: &str, right: &str, result: &MatchResult) -> String {
    let winner = match result.outcome {
        Outcome::LeftWins => left,
        Outcome::RightWins => right,
        Outcome::Draw => return "===== Draw game =====".to_string(),
    };
    format!(
        "===== {winner} won the battle after {} cycles =====",
        result.cycles
    )
}

/// One trace line: `[ ` + values joined by ` | ` + ` ]`, left's cell
/// prefixed by `>`, right's suffixed by `<`. A pointer just off the tape is
/// drawn wrapped, as the original does (−1 on the last cell, L on the first).
pub fn tape_line(tape: &[u8], left_ptr: isize, right_ptr: isize) -> String {
    let len = tape.len() as isize;
    let (l, r) = (left_ptr.rem_euclid(len), right_ptr.rem_euclid(len));
    let mut line = String::from("[ ");
    for (i, &v) in tape.iter().enumerate() {
        if i > 0 {
            line.push_str(" | ");
        }
        if i as isize == l {
            line.push('>');
        }
        line.push_str(&cell::signed(v).to_string());
        if i as isize == r {
            line.push('<');
        }
    }
    line.push_str(" ]");
    line
}

/// The tape length `play` uses without `--tape-len` when given `--seed`:
/// uniform over 10..=30 from the seeded generator.
pub fn play_tape_len(seed: u64) -> usize {
    let mut rng = game_core::rng(game_core::game_seed(seed, "bf-joust/play"));
    rng.random_range(arena::MIN_TAPE_LEN..=arena::MAX_TAPE_LEN)
}

/// Plays one match and emits the transcript's lines: two without `trace`;
/// with it, the start line, an empty line, the initial tape, one tape line
/// per cycle, an empty line and the result line.
#[allow(clippy::too_many_arguments)]
pub fn play(
    left_name: &str,
    right_name: &str,
    left: &Program,
    right: &Program,
    tape_len: usize,
    cycles: u64,
    trace: bool,
    emit: impl FnMut(&str),
) -> MatchResult {
    let spec = MatchSpec {
        tape_len,
        cycles,
        polarity: Polarity::Normal,
    };
    play_spec(left_name, right_name, left, right, spec, trace, emit)
}

/// [`play`] with a polarity.
pub fn play_spec(
    left_name: &str,
    right_name: &str,
    left: &Program,
    right: &Program,
    spec: MatchSpec,
    trace: bool,
    mut emit: impl FnMut(&str),
) -> MatchResult {
    emit(&start_line(left_name, right_name, spec.tape_len));
    let result = if trace {
        emit("");
        let mut on_cycle = |view: &CycleView<'_>| {
            emit(&tape_line(view.tape, view.left_ptr, view.right_ptr));
        };
        let result = arena::run_match_spec_observed(left, right, spec, &mut on_cycle);
        emit("");
        result
    } else {
        arena::run_match_spec(left, right, spec)
    };
    emit(&result_line(left_name, right_name, &result));
    result
}

/// How a match ended, in words: who lost and why, or why it was a draw.
pub fn ending_line(left: &str, right: &str, result: &MatchResult, tie_at_limit: bool) -> String {
    let (winner, loser) = match result.outcome {
        Outcome::LeftWins => (left, right),
        Outcome::RightWins => (right, left),
        Outcome::Draw => ("", ""),
    };
    let c = result.cycles;
    match (result.outcome, result.end) {
        (Outcome::Draw, EndReason::BothLost) => {
            format!("ended after {c} cycles: both lost at the same check (a flag at 0 twice, or off the tape): a draw")
        }
        (Outcome::Draw, _) if tie_at_limit => {
            format!("ended at the cycle limit ({c} cycles): a tie")
        }
        (Outcome::Draw, _) => {
            format!("ended at the cycle limit ({c} cycles): both flags equally far from 0: a draw")
        }
        (_, EndReason::Flag) => {
            format!("ended after {c} cycles: {loser}'s flag was 0 at two checks in a row: {winner} won")
        }
        (_, EndReason::OffTape) => {
            format!("ended after {c} cycles: {loser}'s pointer left the tape: {winner} won")
        }
        _ => format!(
            "ended at the cycle limit ({c} cycles): {winner}'s flag was further from 0: {winner} won"
        ),
    }
}

/// [`play`] collected into one string, each line ending in `\n`.
pub fn transcript(
    left_name: &str,
    right_name: &str,
    left: &Program,
    right: &Program,
    tape_len: usize,
    cycles: u64,
    trace: bool,
) -> (String, MatchResult) {
    let mut out = String::new();
    let result = play(
        left_name,
        right_name,
        left,
        right,
        tape_len,
        cycles,
        trace,
        |line| {
            out.push_str(line);
            out.push('\n');
        },
    );
    (out, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        Program::parse(src.as_bytes()).expect("valid test program")
    }

    #[test]
    fn the_spec_trace_example_is_reproduced_byte_for_byte() {
        let (out, _) = transcript("L", "R", &program(">+<<"), &program("->"), 10, 10_000, true);
        let expected = "\
===== Starting battle of <L> vs <R> with memory tape size: 10 =====

[ >128 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 128< ]
[ 128 | >0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 127< ]
[ 128 | >1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | 127 ]
[ >128 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | 127 ]
[ 128 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0< | >127 ]

===== R won the battle after 4 cycles =====
";
        assert_eq!(out, expected);
    }

    #[test]
    fn without_trace_there_are_two_lines() {
        let (out, result) = transcript(
            "LethalLokeV2.1",
            "x",
            &program("(>)*9(-)*128"),
            &program(""),
            10,
            10_000,
            false,
        );
        assert_eq!(
            out,
            "===== Starting battle of <LethalLokeV2.1> vs <x> with memory tape size: 10 =====\n\
             ===== LethalLokeV2.1 won the battle after 138 cycles =====\n"
        );
        assert_eq!(result.end, EndReason::Flag);
    }

    #[test]
    fn a_draw_and_a_single_cycle_keep_the_original_wording() {
        let draw = MatchResult {
            outcome: Outcome::Draw,
            cycles: 129,
            end: EndReason::BothLost,
        };
        assert_eq!(result_line("a", "b", &draw), "===== Draw game =====");
        let one = MatchResult {
            outcome: Outcome::RightWins,
            cycles: 1,
            end: EndReason::OffTape,
        };
        assert_eq!(
            result_line("a", "b", &one),
            "===== b won the battle after 1 cycles ====="
        );
    }

    #[test]
    fn a_zero_cycle_trace_shows_only_the_initial_tape() {
        let (out, _) = transcript("a", "b", &program("<"), &program("<"), 10, 0, true);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[1], "");
        assert_eq!(lines[2], "[ >128 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 128< ]");
        assert_eq!(lines[3], "");
        assert_eq!(lines[4], "===== Draw game =====");
    }

    #[test]
    fn pointers_off_the_tape_are_drawn_wrapped_and_shared_cells_show_both() {
        let tape = [128u8, 5, 0, 0, 0, 0, 0, 0, 0, 129];
        assert_eq!(
            tape_line(&tape, 1, 1),
            "[ 128 | >5< | 0 | 0 | 0 | 0 | 0 | 0 | 0 | -127 ]"
        );
        assert_eq!(
            tape_line(&tape, 10, -1),
            "[ >128 | 5 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | -127< ]"
        );
        assert_eq!(
            tape_line(&tape, -1, 10),
            "[ 128< | 5 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | >-127 ]"
        );
    }

    #[test]
    fn names_drop_directories_and_the_last_extension() {
        assert_eq!(bot_name("bots/LethalLokeV2.1.bf"), "LethalLokeV2.1");
        assert_eq!(bot_name("L.bf"), "L");
        assert_eq!(bot_name("a/b/noext"), "noext");
        assert_eq!(bot_name("./x/.hidden"), ".hidden");
    }

    #[test]
    fn seeded_play_lengths_are_reproducible_and_in_range() {
        let lengths: Vec<usize> = (0..200).map(play_tape_len).collect();
        assert!(lengths.iter().all(|l| (10..=30).contains(l)));
        assert_eq!(lengths, (0..200).map(play_tape_len).collect::<Vec<_>>());
        // Every length is reachable (200 draws over 21 values).
        for l in 10..=30 {
            assert!(lengths.contains(&l), "length {l} never drawn");
        }
    }
}
