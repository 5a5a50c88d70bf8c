//! The heist challenge (bank-heist betting game, `heist.md`): the rules as
//! a deterministic state machine, the bot contract (31 arguments, decimal
//! text, reading answers), the per-game log and the final results table.
//! No I/O, no clock, no processes: randomness comes from a [`Dice`] passed
//! in, and bot decisions arrive as [`game_core::Reply`] values.
//!
//! # Public API
//!
//! - [`Settings`]: `games`, `tournaments`, `timeout-ms`, `rabble`, `seed`,
//!   with defaults ([`SETTINGS`] describes each); [`Settings::from_pairs`]
//!   validates header lines and
//!   [`Settings::set`] applies one key (a command-line flag overrides).
//! - [`Tournament`]: every player's persistent state. Create it with
//!   [`Tournament::for_run`] (settings, bot names, master seed, tournament
//!   number t from 1) or [`Tournament::new`] (names, rabble pool size,
//!   games). It is `Serialize`/`Deserialize`: store it after every game to
//!   resume (floats are kept bit-exact).
//! - [`games_in_tournament`] and [`game_dice`]: the number of games of
//!   tournament t and the seeded randomness of its game g, derived only from
//!   (master seed, t[, g]), so parallelism and resumes change nothing.
//! - [`Game`], started by [`Tournament::start_game`]: [`Game::request`] is
//!   the next bot decision ([`Request`]: bot index, round, [`Args`], and
//!   [`Request::argv`] = the 31 argv entries); [`Game::answer`] feeds back
//!   the [`Reply`](game_core::Reply); [`Game::finish`] settles the game and
//!   returns a [`GameReport`]. Decisions are strictly sequential (each
//!   depends on the answers before it), one bot process at a time.
//! - [`GameReport`]: per bot its bet, action, faults and credits
//!   ([`BotResult`]), the bank, the rabble who played, the new leaderboard,
//!   and [`GameReport::log_block`] (the §7 text, given the bot names).
//! - [`Totals`] and [`results_table`]: scores summed over tournaments, wins,
//!   ranks, and the original results table (§8).
//! - [`wire`]: the contract's limits ([`wire::STDOUT_CAP_BYTES`],
//!   [`wire::MEMORY_LIMIT_BYTES`], [`wire::BOT_FOLDER_READ_ONLY`]),
//!   [`wire::read_bet`] and [`wire::read_action`]; [`decimal::format_decimal`]
//!   is the §6.3 number text; [`log::log_path`] the log file of tournament t.
//!
//! # Driving a tournament
//!
//! ```
//! use game_core::Reply;
//! use game_heist::{game_dice, Settings, Tournament, Totals};
//!
//! let settings = Settings::from_pairs([("games", "3"), ("rabble", "20")]).unwrap();
//! let names = vec!["passive".to_string(), "bold".to_string()];
//! let seed = 42;
//! let mut totals = Totals::new(names.clone());
//! for t in 1..=settings.tournaments {
//!     let mut tournament = Tournament::for_run(names.clone(), &settings, seed, t).unwrap();
//!     let mut log = String::new();
//!     while !tournament.is_finished() {
//!         let dice = game_dice(seed, t, tournament.next_game());
//!         let mut game = tournament.start_game(dice);
//!         while let Some(request) = game.request() {
//!             // A runner starts `command + request.argv()` here, within the
//!             // limits of `wire`, and reports what it observed.
//!             let stdout = match (request.bot, request.args.round.number()) {
//!                 (1, 1) => request.args.credits.to_string(),
//!                 (1, _) => "double cross".to_string(),
//!                 _ => "0".to_string(),
//!             };
//!             // `Err` only for a `Cancelled` reply: drop the game, nothing changed.
//!             game.answer(&Reply::exited(stdout, 0)).unwrap();
//!         }
//!         let report = game.finish().unwrap();
//!         log.push_str(&report.log_block(tournament.names()));
//!         // A runner commits `report` and the serialised `tournament` here.
//!     }
//!     assert!(log.starts_with("#####GAME 0: "));
//!     totals.add_tournament(&tournament.credits());
//! }
//! print!("{}", totals.table());
//! ```
//!
//! # Decisions where the spec leaves room
//!
//! - Faults use the spec's kinds: oversized output and invalid UTF-8 are
//!   `Fault::BadOutput`; a program that cannot start is `Fault::SpawnFailed`
//!   and its round-2 line shows `(crash)`, as does a call the sandbox
//!   refused (`Fault::Sandbox`). A round-2 answer with a control
//!   character or over 200 bytes is shown as `(bad output)` without a fault.
//! - A `Cancelled` reply is refused ([`AnswerError::Cancelled`]); the game is
//!   meant to be dropped and replayed on resume. Nothing in the tournament
//!   changes before [`Game::finish`].
//! - Bot names must be non-empty, distinct and free of whitespace and
//!   control characters (the post forbids spaces; a line break would break
//!   the log).
//! - The `challenge` header key is accepted when it is `heist`; a repeated
//!   key is an error; `rabble` is capped at [`settings::MAX_RABBLE`].
//! - Non-finite floats (never produced by the rules) are written `nan`,
//!   `inf`, `-inf`.
//! - The draws of a game are made in a fixed order: the round-1 seating
//!   (rabble subset in random order, then each bot inserted at a uniform
//!   position), rabble round-1 draws, the round-2 shuffle, rabble round-2
//!   draws, then the heist draws of S in round-1 order, the fingerers' draws
//!   in round-1 order, and the rehire and guard draws in round-1 order.

pub mod bank;
pub mod decimal;
pub mod dice;
pub mod game;
pub mod log;
mod money;
pub mod player;
pub mod rabble;
mod resolve;
pub mod settings;
pub mod sharing;
pub mod standings;
pub mod stats;
pub mod tournament;
pub mod wire;

pub use dice::Dice;
pub use game::{AnswerError, BotResult, Game, GameReport, Request, Unfinished};
pub use log::GameLog;
pub use player::{Player, Seat};
pub use settings::{Settings, SETTINGS};
pub use standings::{results_table, Standing, Totals};
pub use tournament::{game_dice, game_stream_seed, games_in_tournament, Tournament};
pub use wire::{Action, Args, Round};
