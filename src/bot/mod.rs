//! Game-agnostic transport: starting bot processes and collecting what they
//! produce. Nothing here knows a challenge's rules or wire format; every bot
//! behaviour (timeout, crash, flood, silence, a sandbox denial) comes back
//! as a value. Only the referee's own failure to start a process (out of
//! descriptors, memory or processes: [`start`]) is an error.

pub mod call_times;
pub mod cpu_lanes;
pub mod cpu_wait;
pub mod folder_quota;
pub mod framing;
pub mod log;
pub mod one_shot;
pub mod persistent;
pub mod program;
pub mod reaper;
pub mod start;

pub use call_times::CallTimes;
pub use folder_quota::FolderQuota;
pub use log::BotLog;
pub use one_shot::{
    run_once, run_once_checked, run_once_with, Leftovers, Limits, OnOverflow, Outcome,
};
pub use persistent::{Batch, Frame, Framing, Incoming, LineProcess, Piece};
pub use program::BotProgram;
pub use start::StartFailure;
