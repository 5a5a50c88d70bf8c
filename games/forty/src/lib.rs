//! The forty challenge ("A game of dice, but avoid number 6"): pure rules,
//! tournament structure, wire codec and output formats. No I/O, no clock,
//! no processes; the authority is the challenge's spec (`forty.md`).
//!
//! # Public API
//!
//! - [`settings`]: [`Settings`] with the defaults of section 1, described
//!   by [`SETTINGS`];
//!   [`Settings::from_pairs`] validates header lines and flag overrides
//!   (unknown key: an error string), skipping the shared `challenge` and
//!   `seed` keys.
//! - [`tournament`]: [`seats_for`] (section 3.1's k), [`plan_game`] (game
//!   `g`'s seating drawn from the eligible list and its [`Game`] with the
//!   rest of the same generator as dice), [`play_game`] for `referee play`,
//!   [`bot_seed`] for the handshake, and the 1000-game blocks
//!   ([`block_games`], [`block_count`]).
//! - [`game`]: [`Game`], the rules of section 2 as a state machine;
//!   [`Observer`] receives each [`TurnRecord`] and [`Event`];
//!   [`GameResult`] and per-seat [`SeatTally`].
//! - [`decision`]: [`Decision`] (throw, stop, or a [`Failure`]) and
//!   [`Outcome`].
//! - [`wire`]: the protocol lines ([`wire::write_hello`],
//!   [`wire::write_new`], [`Game::write_ask`], [`wire::write_end`]) and the
//!   judging of replies ([`wire::judge`], [`wire::judge_late`],
//!   [`wire::judge_handshake`]).
//! - [`pipeline`]: [`Pipeline`], the asks outstanding at one process:
//!   pairing of reply lines, each read's measured time shared among its
//!   replies by the times they report, the waiting asks' deadline, timeouts
//!   and their late replies, and what a crash leaves behind (section 5).
//! - [`dice`]: the dice sources, [`dice::parse_dice_list`] for `--dice`, and
//!   [`DICE_ALGORITHM`] to record in the database.
//! - [`stats`]: [`Aggregate`] (per-bot [`BotRecord`]s and [`Totals`]),
//!   summed per block and merged; [`FailureEvent`].
//! - [`report`]: section 8's preamble, summary and tables
//!   ([`report::report`]), the progress bar, and [`report::standing_rows`]
//!   for JSON and CSV.
//! - [`transcript`]: section 9's lines; [`TranscriptWriter`] is an
//!   [`Observer`] that prints a game as it is played.
//!
//! # Driving games
//!
//! One persistent process per bot serves all of that bot's games. Each
//! process is sent `wire::write_hello(buf, bot_seed(seed, name, restarts))`
//! first; its first line, due within `startup-ms`, is checked with
//! [`wire::judge_handshake`]. For a tournament game `g`:
//!
//! 1. `let mut planned = plan_game(seed, g, &eligible, settings.bots_per_game)?;`
//!    then, for each seat `i`, queue `wire::write_new(buf, g, i, END_SCORE)`
//!    for the process of bot `planned.seating[i]`, and remember which
//!    incarnation of that process heard it.
//! 2. Loop on `planned.game.advance(&mut ())`:
//!    - [`Next::Ask`]` { seat }`: if the seat's process is still the
//!      incarnation that heard `new` (not crashed, not disqualified), queue
//!      `game.write_ask(g, buf)` for it; when the batch is written,
//!      [`Pipeline::push`] the ask with its write time and
//!      `game.budget_left(timeout)`. Otherwise answer
//!      `Decision::Failed(Failure::Lost)` at once, without asking.
//!    - [`Next::Over`]: queue `wire::write_end(buf, g)` for every seat
//!      whose process is still that incarnation, and add the game to its
//!      block with [`Aggregate::record_game`].
//! 3. The lines of each read of a process go to its
//!    [`Pipeline::on_group`], with the read's timestamp and the time charged
//!    since [`Pipeline::service_start`]; its timer, at [`Pipeline::deadline`],
//!    to [`Pipeline::on_timer`] with the time charged by then. A
//!    [`PipelineEvent::Decided`] names the game: [`Game::spend`] the charged
//!    time, [`Game::answer`] the decision, and advance that game again.
//!    [`PipelineEvent::LateReply`] only adds charged time to the bot.
//! 4. [`PipelineEvent::Kill`] (or end of output): kill the process group,
//!    count one crash ([`BotRecord::add_failure`]`(Failure::Crash)`), call
//!    [`Pipeline::fail`] and answer each returned ask
//!    `Decision::Failed(Failure::Crash)`; then restart the process with a
//!    new seed, or disqualify the bot at `max-crashes`.
//!
//! A transport that reports one [`LineReply`](game_core::LineReply) per
//! request instead can use [`wire::judge`] (and [`wire::judge_late`] for the
//! reply of an ask that already timed out): it gives the same decisions and
//! says whether the process must go.
//!
//! A game never has two asks outstanding, so asks outstanding at one
//! process always belong to different games, and replies pair with asks in
//! order. `referee play` is the same loop on [`play_game`] (game id 0), with
//! a [`TranscriptWriter`] as the observer, [`transcript::header_lines`]
//! before and [`transcript::result_line`] after.

pub mod decision;
pub mod dice;
pub mod game;
pub mod pipeline;
pub mod report;
pub mod settings;
pub mod stats;
pub mod tournament;
pub mod transcript;
pub mod wire;

pub use decision::{Decision, Failure, Outcome};
pub use dice::{Dice, DICE_ALGORITHM};
pub use game::{
    Event, Game, GameResult, Next, NotAsking, Observer, Phase, SeatTally, TurnRecord, END_SCORE,
    ROUND_LIMIT,
};
pub use pipeline::{Deadline, Pipeline, PipelineEvent};
pub use settings::{Settings, SETTINGS};
pub use stats::{Aggregate, BotRecord, FailureCounts, FailureEvent, TimeTally, Totals};
pub use tournament::{
    block_count, block_games, bot_seed, plan_game, play_game, seats_for, PlannedGame, TooFewBots,
};
pub use transcript::TranscriptWriter;
