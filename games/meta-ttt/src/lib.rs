//! The meta-ttt challenge (meta, or "ultimate", tic-tac-toe): pure rules,
//! the 12-argument wire codec, transcripts and standings.
//!
//! A runner drives one game like this:
//!
//! ```
//! use game_meta_ttt::{Game, Settings, wire};
//! use game_core::Reply;
//! let mut game = Game::new(Settings::default().max_rounds);
//! while !game.is_over() {
//!     let argv = wire::argv(&game);          // the 12 arguments for the side to move
//!     # let _ = argv;
//!     let reply = Reply::exited(b"".to_vec(), 0); // ... run the bot, get its reply
//!     let call = wire::read_reply(&reply);    // bytes / ending -> move or illegal reason
//!     game.apply(call);                       // the rules judge it
//! }
//! let record = game.record();
//! # assert!(record.points[0] < 0);
//! ```

pub mod render;
pub mod rules;
pub mod settings;
pub mod standings;
pub mod wire;

pub use rules::{Call, End, Game, GameRecord, Illegal, Mark, Move};
pub use settings::{Settings, SETTINGS};
