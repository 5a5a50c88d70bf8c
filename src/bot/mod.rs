//! Game-agnostic transport: starting bot processes and collecting what they
//! produce. Nothing here knows a challenge's rules or wire format; every bot
//! behaviour (timeout, crash, flood, silence) comes back as a value.

pub mod log;
pub mod one_shot;
pub mod persistent;
pub mod program;

pub use log::BotLog;
pub use one_shot::{run_once, Limits, Outcome};
pub use persistent::{Batch, Frame, Framing, Incoming, LineProcess};
pub use program::BotProgram;
