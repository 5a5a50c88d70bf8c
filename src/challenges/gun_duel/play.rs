//! `referee play gun-duel`: its options.

use std::path::PathBuf;

/// `referee play gun-duel 'CMD_A' 'CMD_B'`: duels with every turn shown.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// The bots as quoted commands: A, then B.
    #[arg(required = true, value_name = "BOT")]
    pub bots: Vec<String>,
    /// Per-call time limit in milliseconds.
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Working directory of the bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Interface of bot A.
    #[arg(long, value_enum, value_name = "K")]
    pub interface_a: Option<InterfaceArg>,
    /// Interface of bot B.
    #[arg(long, value_enum, value_name = "K")]
    pub interface_b: Option<InterfaceArg>,
    /// Duels to play, the bots' processes kept between them.
    #[arg(long, value_name = "N")]
    pub duels: Option<u32>,
    /// Turn limit of a duel.
    #[arg(long, value_name = "T")]
    pub turns: Option<u32>,
}

/// A gun-duel bot interface on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InterfaceArg {
    /// Interface 2: one process, `I`/`F`/`P` lines on stdin, moves on stdout.
    #[value(name = "io")]
    Io,
    /// Interface 1: one process per turn, the exit status is the move.
    #[value(name = "exit-code")]
    ExitCode,
}
