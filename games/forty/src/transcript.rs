//! The readable transcript of `referee play forty` (section 9), as pure
//! formatting of a game's turns and events.

use std::fmt::Write;

use crate::decision::Outcome;
use crate::game::{Event, GameResult, Observer, Phase, TurnRecord, END_SCORE, ROUND_LIMIT};

/// The name shown for a seat: its handshake name, otherwise `botI`.
pub fn seat_name(handshake_name: Option<&str>, seat: usize) -> String {
    match handshake_name {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!("bot{seat}"),
    }
}

/// `game G: K seats, end score 40, round limit 200`, then `seat I NAME`
/// per seat.
pub fn header_lines(game_id: u64, names: &[String]) -> Vec<String> {
    let mut lines = Vec::with_capacity(names.len() + 1);
    lines.push(format!(
        "game {game_id}: {} seats, end score {END_SCORE}, round limit {ROUND_LIMIT}",
        names.len()
    ));
    for (seat, name) in names.iter().enumerate() {
        lines.push(format!("seat {seat} {name}"));
    }
    lines
}

/// `PHASE sI NAME FLAG DICE... : DECISIONS OUTCOME SCORE`.
pub fn turn_line(turn: &TurnRecord<'_>, name: &str) -> String {
    let mut line = String::with_capacity(64);
    match turn.phase {
        Phase::Pass(n) => {
            let _ = write!(line, "r{n}");
        }
        Phase::Final => line.push_str("fin"),
    }
    let _ = write!(
        line,
        " s{} {} {}",
        turn.seat,
        name,
        if turn.last_round { "L" } else { "-" }
    );
    for die in turn.dice {
        let _ = write!(line, " {die}");
    }
    line.push_str(" :");
    let marks: Vec<&str> = turn.decisions.iter().filter_map(|d| d.mark()).collect();
    if marks.is_empty() {
        line.push_str(" -");
    }
    for mark in marks {
        line.push(' ');
        line.push_str(mark);
    }
    let _ = write!(line, " {} {}", Outcome::name(turn.outcome), turn.score);
    line
}

/// An event's own line.
pub fn event_line(event: &Event) -> String {
    match *event {
        Event::LastRound { seat, score, round } => {
            format!("last round: s{seat} reached {score} in round {round}")
        }
        Event::RoundLimit { rounds } => format!("round limit: {rounds} rounds played"),
        Event::DiceExhausted { after } => format!("dice list exhausted after {after} dice"),
    }
}

/// `result: scores S0 S1 ...; winners sI ...; rounds N; tied yes|no; round limit yes|no`.
pub fn result_line(result: &GameResult) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let scores: Vec<String> = result.scores.iter().map(u32::to_string).collect();
    let winners: Vec<String> = result.winners.iter().map(|s| format!("s{s}")).collect();
    format!(
        "result: scores {}; winners {}; rounds {}; tied {}; round limit {}",
        scores.join(" "),
        winners.join(" "),
        result.rounds,
        yes_no(result.tied),
        yes_no(result.round_limit)
    )
}

/// An [`Observer`] that formats each turn and event as it happens and
/// hands the line to `sink` (which prints it, or keeps it).
pub struct TranscriptWriter<'a, F: FnMut(String)> {
    names: &'a [String],
    sink: F,
}

impl<'a, F: FnMut(String)> TranscriptWriter<'a, F> {
    pub fn new(names: &'a [String], sink: F) -> Self {
        TranscriptWriter { names, sink }
    }
}

impl<F: FnMut(String)> Observer for TranscriptWriter<'_, F> {
    fn turn(&mut self, turn: &TurnRecord<'_>) {
        let fallback;
        let name = match self.names.get(turn.seat) {
            Some(name) => name.as_str(),
            None => {
                fallback = seat_name(None, turn.seat);
                fallback.as_str()
            }
        };
        (self.sink)(turn_line(turn, name));
    }

    fn event(&mut self, event: &Event) {
        (self.sink)(event_line(event));
    }
}
