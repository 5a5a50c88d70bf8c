//! Durable results: a SQLite database (WAL) that one writer owns.
//!
//! Games are stored by challenge and *game key*, a string that names
//! everything a game's outcome depends on (settings, the bots' identities,
//! their colours). A tournament is a plan of game keys: resuming it, or
//! rerunning it after a bot was added, plays only the keys not stored yet.

mod shards;
mod store;
mod writer;

pub use shards::{Merged, ShardRow};
pub use store::{Checkpoint, GameRow, Store, TournamentRow, TournamentTimes};
pub use writer::{Pending, Writer, WriterThread};
