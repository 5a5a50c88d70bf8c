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
    /// Refuse to run unless every sandbox protection can be applied.
    #[arg(long)]
    pub require_sandbox: bool,
    /// A challenge setting, overriding its header key (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::config::parse_set)]
    pub settings: Vec<(String, String)>,
    /// bf-joust: matches per pairing (overrides `matches-per-pairing:`).
    #[arg(long, value_name = "N")]
    pub matches_per_pairing: Option<String>,
    /// bf-joust: `random` or `all` (overrides `tape-lengths:`).
    #[arg(long, value_name = "random|all")]
    pub tape_lengths: Option<String>,
    /// bf-joust: the cycle limit of a match (overrides `cycles:`).
    #[arg(long, value_name = "N")]
    pub cycles: Option<String>,
}

impl RunArgs {
    /// The challenge settings given as their own flags, as `(key, value)`.
    pub fn setting_flags(&self) -> Vec<(String, String)> {
        [
            ("matches-per-pairing", &self.matches_per_pairing),
            ("tape-lengths", &self.tape_lengths),
            ("cycles", &self.cycles),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.to_string(), v.clone())))
        .collect()
    }
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The challenge.
    pub challenge: ChallengeId,
    /// The bots: quoted commands (bf-joust: two .bf files, left first).
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
    /// Seed of the game's randomness (bf-joust: draws the tape length).
    #[arg(long)]
    pub seed: Option<u64>,
    /// bf-joust: the tape length, 10 to 30 (default: drawn at random).
    #[arg(long, value_name = "N")]
    pub tape_len: Option<u64>,
    /// bf-joust: the cycle limit (default 10000; 0 ends the match at once).
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    /// bf-joust: print the tape before the first cycle and after every cycle.
    #[arg(long)]
    pub trace: bool,
}

impl PlayArgs {
    /// Options given that the chosen challenge does not have are an error
    /// rather than silently ignored.
    pub fn reject_foreign_options(&self) -> crate::error::Result<()> {
        let bf = self.challenge == ChallengeId::BfJoust;
        let given = [
            ("--timeout-ms", self.timeout_ms.is_some(), !bf),
            ("--max-rounds", self.max_rounds.is_some(), !bf),
            ("--cwd", self.cwd.is_some(), !bf),
            ("--tape-len", self.tape_len.is_some(), bf),
            ("--cycles", self.cycles.is_some(), bf),
            ("--trace", self.trace, bf),
        ];
        match given.iter().find(|(_, set, known)| *set && !*known) {
            Some((flag, _, _)) => Err(crate::error::Error::input(format!(
                "{flag} is not an option of `referee play {}`",
                self.challenge
            ))),
            None => Ok(()),
        }
    }
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
