//! The gun-duel challenge (Futuristic Gun Duel): pure rules, wire codecs,
//! tournament schedule and boards. Nothing here performs I/O, reads a clock
//! or starts a process; the runner does that and feeds back what it saw.
//!
//! # Public API
//!
//! - Settings: [`Settings`] (defaults of section 1, described by
//!   [`SETTINGS`]; [`Settings::apply`] /
//!   [`Settings::from_pairs`] for header keys, unknown key = error string),
//!   [`Interface`] (`io` / `exit-code`, [`Interface::parse`] for bot.toml),
//!   and the constants [`STARTUP_GRACE_MS`], [`END_GRACE_MS`],
//!   [`MAX_WHITESPACE`].
//! - Rules: [`Action`], [`clash`] (the outcome table), [`Duel`] (one duel:
//!   [`Duel::play`] takes both moves of a turn, `None` being no action, and
//!   returns a [`Turn`]), [`Side`], [`Outcome`].
//! - Interface 1: [`turn_args`], [`final_args`] (argv fields appended to the
//!   command) and [`read_exit_reply`] (a [`game_core::Reply`] to an
//!   [`Answer`]).
//! - Interface 2: [`intro_line`], [`ASK_LINE`], [`perceive_line`],
//!   [`frame_move`] (the framing the persistent transport must apply to
//!   stdout), [`read_line_reply`] (a [`game_core::LineReply`] to an
//!   [`Answer`]) and [`kills_bot`] (the bot is dead for the rest of the
//!   tournament).
//! - One duel over any mix of interfaces: [`DuelDriver`] with [`Seat`],
//!   [`Request`], [`Epilogue`], [`TurnReport`], [`DuelResult`]; readable
//!   lines for `referee play`: [`turn_line`], [`result_line`].
//! - Tournament: [`Tournament`] (seeded ids, rounds, points, elimination),
//!   [`Round`] (the round's schedule and the dispatch order that keeps each
//!   bot's duels in schedule order), [`DuelId`], [`assign_ids`],
//!   [`round_schedule`], [`Dispatcher`], [`eliminate`], [`Standing`],
//!   [`Elimination`].
//! - Output: [`BotRecord`], [`round_board`], [`final_table`], [`ranking`],
//!   [`standings_csv`].
//!
//! # Driving a tournament
//!
//! ```text
//! let mut t = Tournament::new(bots.len(), settings.duels_per_pair, seed);
//! // t.ids()[i] is bot i's id: opponents are told these.
//! while let Some(mut round) = t.start_round() {
//!     for each duel already in the results database for this round:
//!         round.record(round.position(&id)?, outcome)?;
//!     loop {
//!         // Start duels while fewer than --jobs run.
//!         while running < jobs { let Some(k) = round.next_ready() else { break }; spawn(k) }
//!         if round.is_complete() { break }
//!         // Wait for one duel to finish, commit it, then:
//!         round.record(k, result.outcome)?;
//!     }
//!     let elimination = t.finish_round(round)?;
//!     print!("{}", round_board(&t.records(&names, &languages)));
//! }
//! print!("{}", final_table(&t.records(&names, &languages)));
//! ```
//!
//! A resume replays every round the results database holds the same way:
//! `start_round`, `record` each recorded duel, play what is missing,
//! `finish_round`. The ids, the schedule and the live set are recomputed
//! from the seed and the recorded outcomes, so they come out identical.
//!
//! A duel `DuelId { round, pass, a, b }` (bots `a` and `b` are positions in
//! instructions order, `a` listed first) is played with a [`DuelDriver`]:
//! `DuelDriver::new(settings.turns, [Seat { interface: of a, opponent_id:
//! ids[b] }, Seat { interface: of b, opponent_id: ids[a] }])`, then while
//! [`DuelDriver::requests`] gives both requests, perform them at once and
//! [`DuelDriver::submit`] both answers; finally perform
//! [`DuelDriver::epilogue`] and record [`DuelDriver::result`]. An interface-2
//! bot that [`kills_bot`] reported dead is sent nothing more and answers
//! [`Answer::DEAD`]. A `None` from [`read_exit_reply`] means the referee
//! cancelled the run: drop the duel unrecorded.

mod action;
mod answer;
mod duel;
mod duel_driver;
mod elimination;
mod exit_code;
mod io_lines;
mod outcome_table;
mod schedule;
mod scoreboard;
mod settings;
mod tournament;
mod transcript;

pub use action::{history_string, move_char, parse_history, Action, NO_ACTION};
pub use answer::Answer;
pub use duel::{Duel, Outcome, Side, Turn};
pub use duel_driver::{DuelDriver, DuelResult, Epilogue, Request, Seat, TurnReport};
pub use elimination::eliminate;
pub use exit_code::{final_args, read_exit_reply, turn_args, STATUS_IN_PROGRESS};
pub use io_lines::{
    frame_move, intro_line, is_move_whitespace, kills_bot, perceive_line, read_line_reply, Frame,
    ASK_LINE,
};
pub use outcome_table::{clash, Clash};
pub use schedule::{assign_ids, pairs, pass_order, round_schedule, Dispatcher, DuelId};
pub use scoreboard::{final_table, ranking, round_board, round_columns, standings_csv, BotRecord};
pub use settings::{
    Interface, Settings, END_GRACE_MS, MAX_TURNS, MAX_WHITESPACE, SETTINGS, SHARED_KEYS,
    STARTUP_GRACE_MS,
};
pub use tournament::{Elimination, Round, Standing, Tournament};
pub use transcript::{fault_label, result_line, turn_line};

/// The challenge id used in instructions.txt and on the command line.
pub const CHALLENGE_ID: &str = "gun-duel";
