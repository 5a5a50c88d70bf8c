//! The bf-joust challenge (BrainFuckedBotsForBattling): two Brainfuck
//! programs fight on a short tape. Everything here is pure: no I/O, no
//! clock, no process; randomness comes from seeds passed in.
//!
//! Public API, by task:
//! - **Load a program**: [`Program::parse`]`(&[u8]) -> Result<Program, ParseError>`;
//!   [`ParseError::with_file`] gives the one-line `FILE:LINE:COL: MESSAGE`.
//!   [`Program::token_hash`] identifies the token list for resume checks;
//!   [`MAX_PROGRAM_BYTES`] lets a caller refuse a huge file before reading it.
//! - **Rules**: [`Program::parse_rules`]`(&[u8], Rules)` reads a program under
//!   the 2014 rules or the hill's ([`hill`]: gearlance's format and limits);
//!   a match follows its left program's rules (the hill's tie at the limit).
//! - **Play one match**: [`run_match`]`(&left, &right, tape_len, cycles) -> MatchResult`
//!   ([`Outcome`], cycle count, [`EndReason`]); [`run_match_observed`] adds an
//!   [`Observer`] called with every tape state; [`run_match_with`] reuses a [`Scratch`].
//!   The `run_match_spec*` forms take a [`MatchSpec`] with a [`Polarity`].
//!   [`hill::play_pairing`] plays a pairing as gearlance does (both
//!   polarities, every length) and [`hill::summary_line`] prints its line.
//! - **Plan a tournament**: [`Settings::from_pairs`] validates the setting keys
//!   ([`SETTINGS`]); [`plan_matches`]`(&settings, &[Entry], seed) -> Vec<PlannedMatch>`
//!   lists every match with its tape length ([`match_tape_len`], [`match_identity`]);
//!   [`plan_pairings`] lists the pairings, each with its matches' lengths.
//! - **Run many matches**: [`run_plan`] plays a plan on worker threads and
//!   reports each result to the calling thread; [`run_plan_until`] also
//!   stops claiming matches once asked to (cancellation); [`run_pairings_until`]
//!   plays whole pairings, in each polarity, one per worker at a time.
//! - **Score and print**: [`standings`] builds the leaderboard rows from
//!   results ([`standings_under`] for the hill's points); [`format_scoreboard`]
//!   prints the original's table, [`format_pairings`] the hill's result strings;
//!   [`pairing_line`] is the per-pairing progress line.
//! - **`referee play`**: [`play`] / [`transcript()`] produce the start line,
//!   the `--trace` tape lines and the result line; [`bot_name`] derives a
//!   name from a path; [`play_tape_len`] draws a length from `--seed`.
//!   The pieces are public too: [`start_line`], [`tape_line`], [`result_line`].
//! - **Cell values**: [`cell::signed`] and [`cell::magnitude`].
//!
//! Inside: [`parse`] filters and validates (spec §1); `expand` unrolls the
//! groups that cannot tell they were unrolled; [`program`] compiles to a
//! flat op array with precomputed jumps and per-group counter slots (§2);
//! [`arena`] is the match loop and the end-of-match check (§3, §4).

#![forbid(unsafe_code)]

pub mod arena;
pub mod cell;
mod expand;
pub mod hill;
pub mod parallel;
pub mod parse;
pub mod program;
pub mod settings;
pub mod tournament;
pub mod transcript;

pub use arena::{
    run_match, run_match_observed, run_match_spec, run_match_spec_observed, run_match_spec_with,
    run_match_with, CycleView, EndReason, MatchResult, MatchSpec, NoObserver, Observer, Outcome,
    Polarity, Scratch, DEFAULT_CYCLES, MAX_TAPE_LEN, MIN_TAPE_LEN, TAPE_LENGTH_COUNT,
};
pub use hill::HILL_CYCLES;
pub use parallel::{run_pairings_until, run_plan, run_plan_until};
pub use parse::{ParseError, ParseErrorKind, Position, MAX_PROGRAM_BYTES};
pub use program::Program;
pub use settings::{Polarities, Rules, Settings, TapeLengths, SETTINGS};
pub use tournament::{
    format_pairings, format_scoreboard, match_identity, match_tape_len, pairing_line, plan_matches,
    plan_pairings, standings, standings_under, Entry, PairingSummary, PlannedMatch, PlannedPairing,
    Standing, DEFAULT_OWNER,
};
pub use transcript::{
    bot_name, ending_line, play, play_spec, play_tape_len, result_line, start_line, tape_line,
    transcript,
};
