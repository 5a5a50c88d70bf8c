//! `referee play forty`: its options.

use std::path::PathBuf;

/// `referee play forty 'CMD' 'CMD' ...`: one game, turn by turn.
#[derive(Debug, clap::Args)]
#[command(after_help = "A game has at most 200 rounds (fixed by the rules, no option).")]
pub struct PlayArgs {
    /// The bots: quoted commands, or Python class files run through the host.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Time limit of one turn in milliseconds.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Working directory of the bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Seed of the game's dice.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The dice to use first, comma-separated; `v*n` repeats v n times.
    /// The seeded generator continues when the list runs out.
    #[arg(long, value_name = "LIST")]
    pub dice: Option<String>,
}
