//! The command line (clap). See `referee --help`.

use crate::challenges::ChallengeId;
use crate::standings::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Runs King-of-the-Hill bot tournaments: starts the bots, speaks each
/// challenge's I/O contract, enforces limits and records every result.
///
/// Exit status: 0 when the tournament completed (bots misbehaving is
/// normal), 1 when the machine prevented it, 2 for bad input (instructions,
/// bot.toml, arguments), 130 when interrupted.
#[derive(Debug, Parser)]
#[command(name = "referee", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub run: RunArgs,

    /// More log output on stderr (-v, -vv); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// No progress output.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a tournament, or resume it where it stopped (the default command).
    Run(RunArgs),
    /// Play one game with a readable transcript.
    Play(PlayArgs),
    /// Print the leaderboard again from the results database.
    Standings(StandingsArgs),
}

#[derive(Debug, Args, Default)]
pub struct RunArgs {
    /// The tournament's instructions.txt.
    #[arg(long, value_name = "FILE")]
    pub instructions: Option<PathBuf>,
    /// The challenge, when instructions.txt has no `challenge:` line.
    #[arg(long, value_name = "ID")]
    pub challenge: Option<ChallengeId>,
    /// Tournament seed (overrides `seed:`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Results database (default: results.db beside instructions.txt).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Games (and bot processes) at once; at most the number of cores.
    #[arg(long, short)]
    pub jobs: Option<usize>,
    /// A challenge setting, overriding its header key (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::config::parse_set)]
    pub settings: Vec<(String, String)>,
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The challenge.
    pub challenge: ChallengeId,
    /// The bots: quoted commands.
    #[arg(required = true)]
    pub bots: Vec<String>,
    /// Per-call time limit in milliseconds.
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Calls after which the game stops (meta-ttt).
    #[arg(long)]
    pub max_rounds: Option<u32>,
    /// Working directory of the bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Seed of the game's randomness.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The dice to use first, comma-separated; `v*n` repeats v n times
    /// (forty). The seeded generator continues when the list runs out.
    #[arg(long, value_name = "LIST")]
    pub dice: Option<String>,
}

#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// Results database (default: results.db beside --instructions, or in the current directory).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Locate the database beside this instructions file.
    #[arg(long, value_name = "FILE")]
    pub instructions: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// A tournament id (default: the most recently run).
    #[arg(long)]
    pub tournament: Option<i64>,
}
