//! `referee play heist`: its options, and games between commands from the
//! initial state with the post's log (every call shown with `--trace`).

use super::{limits, play_game, Bots};
use crate::bot::BotLog;
use crate::error::{Error, Result};
use crate::play::Shown;
use crate::status::Status;
use game_heist::{game_dice, Settings, Totals, Tournament};
use std::io::Write;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

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
    /// Show every call: its 31 arguments, raw output, exit status, time.
    #[arg(long)]
    pub trace: bool,
}

/// `referee play heist BOT... [--games N] [--seed N] [--rabble N]
/// [--timeout-ms N] [--names a,b,...] [--trace]`: N games from the initial
/// state, their log blocks, then the leaderboard (`-q`: the leaderboard
/// only).
pub async fn play(args: PlayArgs, quiet: bool, cancel: CancellationToken) -> Result<Status> {
    let shown = Shown::new(quiet, args.trace);
    let mut settings = Settings {
        games: Some(1),
        ..Settings::default()
    };
    if let Some(g) = args.games {
        settings
            .set("games", &g.to_string())
            .map_err(Error::input)?;
    }
    if let Some(r) = args.rabble {
        settings
            .set("rabble", &r.to_string())
            .map_err(Error::input)?;
    }
    if let Some(t) = args.timeout_ms {
        settings
            .set("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    let names: Vec<String> = match &args.names {
        Some(names) => {
            if names.len() != args.bots.len() {
                return Err(Error::input(format!(
                    "--names gives {} names for {} bots",
                    names.len(),
                    args.bots.len()
                )));
            }
            names.iter().map(|n| n.trim().to_string()).collect()
        }
        None => (1..=args.bots.len()).map(|i| format!("bot{i}")).collect(),
    };
    let seed = match args.seed {
        Some(s) => s,
        None => {
            let s = rand::random();
            eprintln!("referee: seed {s} (pass --seed {s} to play these games again)");
            s
        }
    };
    let cwd = crate::play::directory(args.cwd.as_deref())?;
    let mut programs = Vec::new();
    for (name, cmd) in names.iter().zip(&args.bots) {
        programs.push(crate::play::program(name, cmd, &cwd)?);
    }
    let games = settings.games.unwrap_or(1);
    let mut tournament = Tournament::new(names.clone(), settings.rabble, games)
        .map_err(|m| Error::input(format!("--names: {m}")))?;
    let limits = limits(&settings);
    let logs: Vec<BotLog> = names.iter().map(|_| shown.bot_log()).collect();
    let bots = Bots {
        programs: &programs,
        logs: &logs,
        limits,
        label: "play",
    };
    while !tournament.is_finished() {
        let g = tournament.next_game();
        let played = play_game(
            &mut tournament,
            game_dice(seed, 1, g),
            &bots,
            &cancel,
            |view| {
                if !shown.trace() {
                    return;
                }
                if let Some(p) = programs.get(view.request.bot) {
                    let who = format!("{} round {}", p.name, view.request.args.round.number());
                    let text = crate::play::call_trace(&who, p, view.args, view.outcome, &limits);
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                }
            },
        )
        .await?;
        let Some(played) = played else {
            return Ok(Status::Interrupted);
        };
        if shown.transcript() {
            crate::output::print_stdout(&played.report.log_block(tournament.names()))?;
        }
    }
    let mut totals = Totals::new(names);
    totals.add_tournament(&tournament.credits());
    crate::output::print_stdout(&totals.table())?;
    Ok(Status::Done)
}
