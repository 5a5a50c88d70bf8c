//! The command line (clap). See `referee --help`.

use crate::challenge::ChallengeId;
use crate::challenges::{bf_joust, forty, gun_duel, heist, meta_ttt};
use crate::setting_flags::SettingFlags;
use crate::standings::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Runs King-of-the-Hill bot tournaments: starts the bots, speaks each
/// challenge's I/O contract, enforces limits and records every result.
///
/// Exit status: 0 when the tournament completed (bots misbehaving is
/// normal), 1 when the machine prevented it, 2 for bad input (instructions,
/// bot.toml, arguments), 3 when `merge` found parts of the tournament
/// missing, 130 when interrupted.
#[derive(Debug, Parser)]
#[command(
    name = "referee",
    version,
    args_conflicts_with_subcommands = true,
    after_long_help = crate::setting_flags::settings_help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub run: RunArgs,

    /// More log output on stderr (-v, -vv); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// No progress output; `play` prints the result only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a tournament, or resume it where it stopped (the default command).
    #[command(after_long_help = crate::setting_flags::settings_help())]
    Run(RunArgs),
    /// Run what is missing, then keep watching the tournament folder: a new or
    /// changed bot folder is built and its games played; stops on SIGTERM.
    Watch(RunArgs),
    /// Play one game with a readable transcript.
    #[command(subcommand)]
    Play(PlayCommand),
    /// Print the leaderboard again from the results database.
    Standings(StandingsArgs),
    /// Combine the databases of a tournament's shards (`--shard I/N`) into
    /// one; `standings` then shows what an unsharded run shows. Refuses a
    /// shard of another tournament; says which parts are missing (exit 3).
    Merge(crate::merge::MergeArgs),
    /// Write a self-contained HTML report of a stored tournament: settings,
    /// standings, faults, pictures and replays (no network needed to open it).
    Report(ReportArgs),
    /// Check a bot against scripted positions before submitting it: output
    /// format, time per move, files written, exit behaviour. With
    /// --instructions instead: start every bot of a tournament once, as the
    /// tournament starts it, and say which cannot start.
    #[command(args_conflicts_with_subcommands = true)]
    Check(CheckArgs),
    /// Print the folder holding this referee's copy of protocols/ (forty's
    /// host, gun-duel's C++ adapter): what `{protocols}` stands for in
    /// instructions.txt and bot.toml. Written out first if missing.
    Protocols,
    /// Write a starter bot folder for a challenge, in a language of your
    /// choice, that `referee check` passes as written.
    New(crate::new_bot::NewArgs),
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
    /// When another referee is using the results database, wait for it to
    /// end instead of refusing (exit 2).
    #[arg(long)]
    pub wait: bool,
    /// Before the first game every bot is started once: one that cannot
    /// start is left out (skip, listed under the standings), stops the run
    /// (stop, exit status 2), or is not looked for (off).
    #[arg(long, value_enum, value_name = "WHAT", default_value_t)]
    pub preflight: crate::preflight::Mode,
    /// A challenge setting, overriding its header key (repeatable). A
    /// setting's own flag (below) beats it.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = crate::config::parse_set)]
    pub settings: Vec<(String, String)>,
    /// Play only part I of N of the tournament (0 <= I < N; the parts are
    /// disjoint and cover it), into shard-I-of-N.db unless --db says
    /// otherwise; `referee merge` combines the parts. `auto`: the part a
    /// Slurm array task or a Kubernetes Indexed Job is (see README,
    /// "Running on a cluster"). Not for gun-duel.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<crate::shard::ShardArg>,
    /// With `--shard auto` in a Kubernetes Indexed Job: the number of
    /// shards (the Job's completions); else the REFEREE_SHARDS variable.
    #[arg(long, value_name = "N", requires = "shard")]
    pub shards: Option<u32>,
    /// Serve the live report over HTTP while games are played (read-only):
    /// HOST:PORT, or a port alone for 127.0.0.1:PORT. Port 0 picks a free
    /// one; the address is printed on stderr.
    #[arg(long, value_name = "ADDR", value_parser = crate::report::serve::parse_addr)]
    pub serve: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub setting_flags: SettingFlags,
}

/// `referee play CHALLENGE ...`: each challenge with its own options.
#[derive(Debug, Subcommand)]
pub enum PlayCommand {
    #[command(name = "meta-ttt")]
    MetaTtt(meta_ttt::PlayArgs),
    #[command(name = "bf-joust")]
    BfJoust(bf_joust::PlayArgs),
    #[command(name = "heist")]
    Heist(heist::PlayArgs),
    #[command(name = "forty")]
    Forty(forty::PlayArgs),
    #[command(name = "gun-duel")]
    GunDuel(gun_duel::PlayArgs),
}

/// `referee check`: a challenge and a bot, or a tournament's every bot.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(subcommand)]
    pub challenge: Option<CheckCommand>,
    /// `--instructions FILE` (and the run's other options): every bot of
    /// that tournament started once.
    #[command(flatten)]
    pub tournament: RunArgs,
}

/// `referee check CHALLENGE BOT`: each challenge with its own options.
#[derive(Debug, Subcommand)]
pub enum CheckCommand {
    #[command(name = "meta-ttt")]
    MetaTtt(meta_ttt::CheckArgs),
    #[command(name = "bf-joust")]
    BfJoust(bf_joust::CheckArgs),
    #[command(name = "heist")]
    Heist(heist::CheckArgs),
    #[command(name = "forty")]
    Forty(forty::CheckArgs),
    #[command(name = "gun-duel")]
    GunDuel(gun_duel::CheckArgs),
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

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The tournament's instructions.txt: the database beside it, and the
    /// report's default place (report.html beside it).
    #[arg(long, value_name = "FILE")]
    pub instructions: Option<PathBuf>,
    /// Results database (default: results.db beside --instructions, or in the current directory).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Where to write the page (default: report.html beside instructions.txt,
    /// or beside the database).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// A tournament id (default: the most recently run).
    #[arg(long)]
    pub tournament: Option<i64>,
}
