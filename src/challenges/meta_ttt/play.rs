//! `referee play meta-ttt`: its options.

use std::path::PathBuf;

/// `referee play meta-ttt 'CMD_X' 'CMD_O'`: one game, with the board after
/// every move.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The bots as quoted commands: X first, then O.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Per-call time limit in milliseconds.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Calls after which the game stops.
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<u32>,
    /// Working directory of the bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
}
