//! The readable transcript of `referee play gun-duel`: one line per turn,
//! then one result line.

use game_core::Fault;

use crate::action::move_char;
use crate::duel::{Outcome, Side};
use crate::duel_driver::{DuelResult, TurnReport};

/// One turn, e.g. `turn 2: A=1 (ammo 0), B=0 (ammo 1) -> A wins`, with the
/// fault behind a missing action in brackets (`A=? (ammo 1) [timeout]`) and
/// `explodes` after an invalid move.
pub fn turn_line(report: &TurnReport) -> String {
    let turn = &report.turn;
    let sides: Vec<String> = Side::BOTH
        .into_iter()
        .map(|side| {
            let i = side.index();
            let mut part = format!(
                "{}={} (ammo {})",
                side.letter(),
                move_char(turn.moves[i]),
                turn.ammo[i]
            );
            if let Some(fault) = report.faults[i] {
                part.push_str(&format!(" [{}]", fault_label(fault)));
            }
            if turn.exploded[i] {
                part.push_str(" explodes");
            }
            part
        })
        .collect();
    let mut line = format!("turn {}: {}", turn.index, sides.join(", "));
    if let Some(outcome) = turn.outcome {
        line.push_str(&format!(" -> {}", outcome_words(outcome)));
    }
    line
}

/// The result, e.g. `A wins after 3 turns: A=0-1 B=010`.
pub fn result_line(result: &DuelResult) -> String {
    let unit = if result.turns == 1 { "turn" } else { "turns" };
    format!(
        "{} after {} {unit}: A={} B={}",
        outcome_words(result.outcome),
        result.turns,
        result.histories[0],
        result.histories[1]
    )
}

fn outcome_words(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::AWins => "A wins",
        Outcome::BWins => "B wins",
        Outcome::Draw => "draw",
    }
}

/// Fault names as the spec's fault table writes them.
pub fn fault_label(fault: Fault) -> &'static str {
    match fault {
        Fault::BadOutput => "bad-output",
        Fault::Timeout => "timeout",
        Fault::Crash => "crash",
        other => other.name(),
    }
}
