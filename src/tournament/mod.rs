//! Playing a whole tournament: what games exist (a pure plan), which may
//! run now (a pure scheduler), a bounded pool of running games, and the
//! round-robin loop that joins them for challenges whose whole plan is
//! known up front.

pub mod pool;
pub mod round_robin;
pub mod schedule;
pub mod spec;

pub use pool::Pool;
pub use round_robin::{GamePlan, PlannedGame, Played, RunReport};
pub use spec::{Absent, BotSpec, TournamentSpec};

/// Cores the referee may use for bots.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
