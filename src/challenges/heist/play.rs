//! `referee play heist`: its options.

use std::path::PathBuf;

/// `referee play heist 'CMD' 'CMD' ...`: games with the post's log.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The bots as quoted commands.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Per-call time limit in milliseconds.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Working directory of the bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Seed of the game's randomness.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games to play (default 1).
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,
    /// Size of the rabble pool (default 500).
    #[arg(long, value_name = "N")]
    pub rabble: Option<usize>,
    /// The bots' names, comma-separated (default bot1, bot2, ...).
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub names: Option<Vec<String>>,
    /// Show every call: argv, raw output, exit status, time.
    #[arg(long)]
    pub trace: bool,
}
