//! `referee check meta-ttt 'CMD'`: the bot's move in five positions, each a
//! fresh process with the 12 argv entries of the contract.

use crate::bot::{run_once_checked, OnOverflow};
use crate::challenge::ChallengeId;
use crate::check::{quoted, signal_name, Report, Subject};
use crate::error::{Error, Result};
use crate::status::Status;
use game_core::{Ending, Fault};
use game_meta_ttt::{wire, Call, Game, Illegal, Move, Settings};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// One scripted call: a move `(board, tile)`, or `None` for an illegal call.
type ScriptedCall = Option<(u8, u8)>;

/// The scripted positions: a name and the calls that lead to it (`None` is
/// an illegal call, which makes the next move free).
const POSITIONS: &[(&str, &[ScriptedCall])] = &[
    ("the first move of a game (free move)", &[]),
    ("a forced board (must play board 8)", &[Some((3, 8))]),
    (
        "a free move after the opponent's illegal call (last move xx)",
        &[Some((3, 8)), Some((8, 4)), None],
    ),
    (
        "sent to a won board (free move; board 0 is closed)",
        &[
            Some((0, 1)),
            Some((1, 0)),
            Some((0, 2)),
            Some((2, 0)),
            Some((0, 0)),
        ],
    ),
    (
        "sent to a full, drawn board (free move; board 4 is closed)",
        &[
            Some((4, 2)),
            Some((2, 4)),
            Some((4, 7)),
            Some((7, 5)),
            Some((5, 1)),
            Some((1, 3)),
            Some((3, 4)),
            Some((4, 1)),
            Some((1, 4)),
            Some((4, 5)),
            Some((5, 5)),
            Some((5, 4)),
            Some((4, 8)),
            Some((8, 4)),
            Some((4, 0)),
            Some((0, 4)),
            Some((4, 3)),
            Some((3, 7)),
            Some((7, 4)),
            Some((4, 6)),
            Some((6, 4)),
            Some((4, 4)),
        ],
    ),
];

/// The game after a position's scripted calls.
fn position(settings: &Settings, calls: &[ScriptedCall]) -> Game {
    let mut game = Game::new(settings.max_rounds);
    for call in calls {
        let call = match call {
            Some((board, tile)) => Call::Move(Move {
                board: *board,
                tile: *tile,
            }),
            None => Call::Failed(Illegal::Garbage, Fault::BadOutput),
        };
        let _ = game.apply(call);
    }
    game
}

/// `referee check meta-ttt BOT`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The bot: a quoted command.
    pub bot: String,
    /// Per-call time limit in milliseconds (default: the challenge's).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// The bot's folder. The command runs from its parent, as a
    /// tournament there runs it, so BOT names its files from there
    /// (`python3 DIR/bot.py`). Default: the folder BOT names files in,
    /// relative to the current directory, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
}

/// `referee check meta-ttt 'CMD'`.
pub async fn check(args: CheckArgs, cancel: CancellationToken) -> Result<Status> {
    let settings = Settings {
        timeout_ms: args.timeout_ms.unwrap_or(Settings::default().timeout_ms),
        ..Settings::default()
    };
    let argv = crate::instructions::split_command(&args.bot).map_err(Error::input)?;
    let folder = crate::check::folder_of(args.cwd.as_deref(), &argv)?;
    let mut subject = Subject::prepare(ChallengeId::MetaTtt, folder, argv, Vec::new())?;
    let limits = crate::challenges::meta_ttt::limits(&settings);
    let limit = Duration::from_millis(settings.timeout_ms);
    let mut report = Report::new();
    for (i, (name, calls)) in POSITIONS.iter().enumerate() {
        let n = i + 1;
        let game = position(&settings, calls);
        let argv = wire::argv(&game);
        let (outcome, leftovers) =
            run_once_checked(&subject.program, &argv, &limits, OnOverflow::Kill, &cancel).await?;
        if outcome.reply.ending == Ending::Cancelled {
            return Ok(Status::Interrupted);
        }
        report.line(format!("position {n}: {name}"));
        report.line(format!("  arguments: {}", argv.join(" ")));
        let call = wire::read_reply(&outcome.reply);
        let moved = matches!(call, Call::Move(_));
        let verdict = match call {
            Call::Move(mv) => match game.check(mv) {
                Ok(()) => format!("legal move {mv}"),
                Err(reason) => {
                    report.problem(format!("position {n}: illegal move {mv} ({reason})"));
                    format!("ILLEGAL move {mv}: {reason}")
                }
            },
            Call::Failed(reason, fault) => {
                report.problem_of(
                    &reason.to_string(),
                    format!("position {n}: {reason} ({})", fault.name()),
                );
                format!("ILLEGAL call: {reason}")
            }
        };
        report.line(format!(
            "  output: {} -> {verdict}",
            quoted(wire::trimmed(&outcome.reply.stdout))
        ));
        report.call_time(&outcome, limit, outcome.reply.ending == Ending::TimedOut);
        // Without a move the verdict already names the crash.
        match outcome.reply.ending {
            Ending::Exited(c) if c != 0 && moved => report.line(format!(
                "  note: exit status {c} (ignored: the move counts, but worth a look)"
            )),
            Ending::Signalled(s) => report.line(format!("  note: killed by {}", signal_name(s))),
            _ => {}
        }
        report.stderr(&outcome.stderr);
        subject.after_call(&outcome.stderr, leftovers);
    }
    subject.finish(&mut report, "data.txt persists across games");
    report.print(
        ChallengeId::MetaTtt,
        "the bot follows the meta-ttt contract on every position.",
    )
}
