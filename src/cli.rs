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
    /// Run what is missing, then keep watching the tournament folder: a new or
    /// changed bot folder is built and its games played; stops on SIGTERM.
    Watch(RunArgs),
    /// Play one game with a readable transcript.
    Play(PlayArgs),
    /// Print the leaderboard again from the results database.
    Standings(StandingsArgs),
    /// Check a bot against scripted positions before submitting it: output
    /// format, time per move, files written, exit behaviour.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The challenge.
    pub challenge: ChallengeId,
    /// The bot: a quoted command (forty: also a Python class file, run
    /// through the host; bf-joust: a .bf file).
    pub bot: String,
    /// Per-call time limit in milliseconds (default: the challenge's;
    /// forty: per turn).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// The bot's folder and working directory (default: the current
    /// directory; bf-joust: where a relative file is found).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// gun-duel: the bot's interface (default: bot.toml `interface` in its
    /// folder, else `io`).
    #[arg(long, value_enum, value_name = "K")]
    pub interface: Option<InterfaceArg>,
}

impl CheckArgs {
    /// Options the chosen challenge does not have are an error rather than
    /// silently ignored.
    pub fn reject_foreign_options(&self) -> crate::error::Result<()> {
        let bf = self.challenge == ChallengeId::BfJoust;
        let gun = self.challenge == ChallengeId::GunDuel;
        let given = [
            ("--timeout-ms", self.timeout_ms.is_some(), !bf),
            ("--interface", self.interface.is_some(), gun),
        ];
        match given.iter().find(|(_, set, known)| *set && !*known) {
            Some((flag, _, _)) => Err(crate::error::Error::input(format!(
                "{flag} is not an option of `referee check {}`",
                self.challenge
            ))),
            None => Ok(()),
        }
    }
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
    /// Same as `--set timeout-ms=N`.
    #[arg(long, value_name = "N")]
    pub timeout_ms: Option<u64>,
    /// Same as `--set games=N` (heist, forty).
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,
    /// Same as `--set tournaments=N` (heist).
    #[arg(long, value_name = "N")]
    pub tournaments: Option<u32>,
    /// Same as `--set rabble=N` (heist).
    #[arg(long, value_name = "N")]
    pub rabble: Option<usize>,
    /// Same as `--set matches-per-pairing=N` (bf-joust).
    #[arg(long, value_name = "N")]
    pub matches_per_pairing: Option<String>,
    /// Same as `--set tape-lengths=random|all` (bf-joust).
    #[arg(long, value_name = "random|all")]
    pub tape_lengths: Option<String>,
    /// Same as `--set cycles=N` (bf-joust).
    #[arg(long, value_name = "N")]
    pub cycles: Option<String>,
}

impl RunArgs {
    /// The challenge settings given as their own flags, as `(key, value)`.
    /// They are applied after `--set`, so they win.
    pub fn setting_flags(&self) -> Vec<(String, String)> {
        [
            ("timeout-ms", self.timeout_ms.map(|v| v.to_string())),
            ("games", self.games.map(|v| v.to_string())),
            ("tournaments", self.tournaments.map(|v| v.to_string())),
            ("rabble", self.rabble.map(|v| v.to_string())),
            ("matches-per-pairing", self.matches_per_pairing.clone()),
            ("tape-lengths", self.tape_lengths.clone()),
            ("cycles", self.cycles.clone()),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
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
    /// Games to play (heist; default 1).
    #[arg(long, value_name = "N")]
    pub games: Option<u32>,
    /// Size of the rabble pool (heist; default 500).
    #[arg(long, value_name = "N")]
    pub rabble: Option<usize>,
    /// The bots' names, comma-separated (heist; default bot1, bot2, ...).
    #[arg(long, value_name = "A,B,...", value_delimiter = ',')]
    pub names: Option<Vec<String>>,
    /// heist: show every call (argv, raw output, exit status, time);
    /// bf-joust: print the tape before the first cycle and after every cycle.
    #[arg(long)]
    pub trace: bool,
    /// Interface of bot A (gun-duel).
    #[arg(long, value_enum, value_name = "K")]
    pub interface_a: Option<InterfaceArg>,
    /// Interface of bot B (gun-duel).
    #[arg(long, value_enum, value_name = "K")]
    pub interface_b: Option<InterfaceArg>,
    /// Duels to play, the bots' processes kept between them (gun-duel).
    #[arg(long, value_name = "N")]
    pub duels: Option<u32>,
    /// Turn limit of a duel (gun-duel).
    #[arg(long, value_name = "T")]
    pub turns: Option<u32>,
    /// The dice to use first, comma-separated; `v*n` repeats v n times
    /// (forty). The seeded generator continues when the list runs out.
    #[arg(long, value_name = "LIST")]
    pub dice: Option<String>,
    /// bf-joust: the tape length, 10 to 30 (default: drawn at random).
    #[arg(long, value_name = "N")]
    pub tape_len: Option<u64>,
    /// bf-joust: the cycle limit (default 10000; 0 ends the match at once).
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
}

impl PlayArgs {
    /// Options given that the chosen challenge does not have are an error
    /// rather than silently ignored.
    pub fn reject_foreign_options(&self) -> crate::error::Result<()> {
        let bf = self.challenge == ChallengeId::BfJoust;
        let heist = self.challenge == ChallengeId::Heist;
        let gun = self.challenge == ChallengeId::GunDuel;
        let forty = self.challenge == ChallengeId::Forty;
        let meta = self.challenge == ChallengeId::MetaTtt;
        let given = [
            ("--timeout-ms", self.timeout_ms.is_some(), !bf),
            ("--max-rounds", self.max_rounds.is_some(), meta),
            ("--cwd", self.cwd.is_some(), !bf),
            ("--tape-len", self.tape_len.is_some(), bf),
            ("--cycles", self.cycles.is_some(), bf),
            ("--trace", self.trace, bf || heist),
            ("--games", self.games.is_some(), heist),
            ("--rabble", self.rabble.is_some(), heist),
            ("--names", self.names.is_some(), heist),
            ("--interface-a", self.interface_a.is_some(), gun),
            ("--interface-b", self.interface_b.is_some(), gun),
            ("--duels", self.duels.is_some(), gun),
            ("--turns", self.turns.is_some(), gun),
            ("--dice", self.dice.is_some(), forty),
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
