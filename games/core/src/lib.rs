//! Types shared by the pure game crates under `games/`.
//!
//! Nothing in the game crates performs I/O, reads a clock or starts a
//! process: each game is a deterministic state machine, and any randomness
//! comes from a seeded generator passed in by the caller. A challenge's wire
//! codec turns a state into what a bot is sent (argv entries or lines) and
//! turns what the transport observed ([`reply::Reply`]) into a move or a
//! [`reply::Fault`].

pub mod reply;
pub mod seed;
pub mod settings;

pub use reply::{Ending, Fault, FaultCounts, LineRef, LineReply, Reply};
pub use seed::{game_seed, rng, GameRng};
pub use settings::SettingInfo;
