//! `referee play meta-ttt`: its options.

use super::{limits, play_game};
use crate::error::{Error, Result};
use crate::play::Shown;
use crate::status::Status;
use game_meta_ttt::{render, Settings};
use std::io::Write;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

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
    /// Show every call: its 12 arguments, raw output, exit status, time.
    #[arg(long)]
    pub trace: bool,
}

/// `referee play meta-ttt 'CMD_X' 'CMD_O'`: the transcript of one game
/// (`-q`: its result only).
pub async fn play(args: PlayArgs, quiet: bool, cancel: CancellationToken) -> Result<Status> {
    let shown = Shown::new(quiet, args.trace);
    if args.bots.len() != 2 {
        return Err(Error::input(format!(
            "meta-ttt is played by 2 bots ('CMD_X' 'CMD_O'), not {}",
            args.bots.len()
        )));
    }
    let mut settings = Settings::default();
    if let Some(t) = args.timeout_ms {
        settings
            .set("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    if let Some(r) = args.max_rounds {
        settings
            .set("max-rounds", &r.to_string())
            .map_err(Error::input)?;
    }
    let limits = limits(&settings);
    let cwd = crate::play::directory(args.cwd.as_deref())?;
    let mut programs = Vec::new();
    for (label, cmd) in ["X", "O"].iter().zip(&args.bots) {
        programs.push(crate::play::program(label, cmd, &cwd)?);
    }
    let logs = [shown.bot_log(), shown.bot_log()];
    let result = play_game(
        [&programs[0], &programs[1]],
        [&logs[0], &logs[1]],
        &settings,
        "play",
        &cancel,
        |view| {
            if !shown.transcript() {
                return;
            }
            let round = view.game.calls();
            let mark = view.game.to_move().other();
            let mut text = String::new();
            if shown.trace() {
                let side = mark.index();
                text = crate::play::call_trace(
                    &format!("{} round {round}", mark.letter()),
                    &programs[side],
                    view.args,
                    view.outcome,
                    &limits,
                );
            }
            text += &match view.verdict {
                Ok(mv) => format!(
                    "{}\n\n{}\n",
                    render::legal_line(round, mark, mv),
                    render::picture(view.game)
                ),
                Err(reason) => format!(
                    "{}\n",
                    render::illegal_line(round, mark, reason, &view.outcome.reply.stdout)
                ),
            };
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        },
    )
    .await?;
    let Some((game, _, _)) = result else {
        return Ok(Status::Interrupted);
    };
    let record = game.record();
    let mut end = format!("{}\n", render::result_line(&game));
    for (i, (label, cmd)) in ["X", "O"].iter().zip(&args.bots).enumerate() {
        let wins = u64::from(record.winner.map(|w| w.index()) == Some(i));
        end.push_str(&render::bot_line(
            label,
            cmd,
            wins,
            u64::from(record.illegal[i]),
            record.points[i],
        ));
        end.push('\n');
    }
    crate::output::print_stdout(&end)?;
    Ok(Status::Done)
}
