//! Playing a whole tournament: what games exist (a pure plan), which may
//! run now (a pure scheduler), and the async loop that runs them with
//! bounded concurrency, cancellation and one results writer.

pub mod run;
pub mod schedule;
pub mod spec;

pub use run::{run, run_with_store, Challenge, PlannedGame, RunReport};
pub use spec::{BotSpec, TournamentSpec};
