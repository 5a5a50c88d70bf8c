//! Game-agnostic transport: starting bot processes and collecting what they
//! produce. Nothing here knows a challenge's rules or wire format; every bot
//! behaviour (timeout, crash, flood, silence) comes back as a value.

pub mod call_times;
pub mod cpu_lanes;
pub mod cpu_wait;
pub mod log;
pub mod one_shot;
pub mod persistent;
pub mod program;
pub mod reaper;

pub use call_times::CallTimes;
pub use log::BotLog;
pub use one_shot::{
    run_once, run_once_checked, run_once_with, Leftovers, Limits, OnOverflow, Outcome,
};
pub use persistent::{Batch, Frame, Framing, Incoming, LineProcess, Piece};
pub use program::BotProgram;
