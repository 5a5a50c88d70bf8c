//! `referee play gun-duel`: its options, and duels between two commands
//! with every turn shown.

use super::bot::{play_duel, Bot, Trace};
use crate::error::{Error, Result};
use crate::play::Shown;
use crate::status::Status;
use game_gun_duel::{result_line, turn_line, Interface, Seat, Settings, Side};
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

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
    /// The bots' tournament ids, A's then B's: each is told the other's
    /// (default 0,1).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub ids: Option<Vec<u32>>,
    /// Show what each bot was sent and answered, with the time of each move.
    #[arg(long)]
    pub trace: bool,
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

/// The ids `--ids` gives A and B: two different numbers.
fn ids(given: Option<&[u32]>) -> Result<[u32; 2]> {
    match given {
        None => Ok([0, 1]),
        Some(&[a, b]) if a != b => Ok([a, b]),
        Some(&[_, _]) => Err(Error::input("--ids: A and B need different ids")),
        Some(other) => Err(Error::input(format!(
            "--ids takes two ids, A's and B's (e.g. --ids 3,7), not {}",
            other.len()
        ))),
    }
}

/// Prints what the bots' traces hold, A's lines first.
fn print_traces(traces: &[Trace; 2]) {
    for trace in traces {
        let lines = trace.lock().map(|mut l| std::mem::take(&mut *l));
        for line in lines.unwrap_or_default() {
            let _ = crate::output::print_stdout(&format!("{line}\n"));
        }
    }
}

/// `referee play gun-duel 'CMD_A' 'CMD_B'`: N duels with a transcript
/// (`-q`: the result only).
pub async fn play(args: PlayArgs, quiet: bool, cancel: CancellationToken) -> Result<Status> {
    let shown = Shown::new(quiet, args.trace);
    let ids = ids(args.ids.as_deref())?;
    if args.bots.len() != 2 {
        return Err(Error::input(format!(
            "gun-duel is played by 2 bots ('CMD_A' 'CMD_B'), not {}",
            args.bots.len()
        )));
    }
    let mut settings = Settings::default();
    if let Some(t) = args.timeout_ms {
        settings
            .apply("timeout-ms", &t.to_string())
            .map_err(Error::input)?;
    }
    if let Some(t) = args.turns {
        settings
            .apply("turns", &t.to_string())
            .map_err(Error::input)?;
    }
    let duels = args.duels.unwrap_or(1);
    if duels == 0 {
        return Err(Error::input("--duels must be at least 1"));
    }
    let interface = |k: Option<InterfaceArg>| match k {
        Some(InterfaceArg::ExitCode) => Interface::ExitCode,
        Some(InterfaceArg::Io) | None => Interface::Io,
    };
    let interfaces = [interface(args.interface_a), interface(args.interface_b)];
    let cwd = crate::play::directory(args.cwd.as_deref())?;
    let mut bots = Vec::new();
    for ((label, cmd), interface) in ["A", "B"].iter().zip(&args.bots).zip(interfaces) {
        let program = crate::play::program(label, cmd, &cwd)?;
        let mut bot = Bot::new(program, shown.bot_log(), interface);
        if shown.trace() {
            bot.trace = Some(Trace::default());
        }
        bot.start()?;
        bots.push(bot);
    }
    let [mut a, mut b]: [Bot; 2] = bots
        .try_into()
        .map_err(|_| Error::machine("two bots expected"))?;
    let timeout = Duration::from_millis(settings.timeout_ms);
    let traces = [
        a.trace.clone().unwrap_or_default(),
        b.trace.clone().unwrap_or_default(),
    ];
    // Each is told the other's id.
    let seats = [
        Seat {
            interface: interfaces[0],
            opponent_id: ids[1],
        },
        Seat {
            interface: interfaces[1],
            opponent_id: ids[0],
        },
    ];
    let say = |text: String| {
        if shown.transcript() {
            let _ = crate::output::print_stdout(&text);
        }
    };
    let mut wins = [0u32; 2];
    let mut draws = 0u32;
    let mut interrupted = false;
    for d in 1..=duels {
        if duels > 1 {
            say(format!("duel {d}\n"));
        }
        let labels = [format!("A, duel {d}"), format!("B, duel {d}")];
        let result = play_duel(
            settings.turns,
            seats,
            [&mut a, &mut b],
            timeout,
            [&labels[0], &labels[1]],
            &cancel,
            |report| {
                print_traces(&traces);
                say(format!("{}\n", turn_line(report)));
            },
        )
        .await;
        print_traces(&traces);
        let result = match result {
            Ok(Some(result)) => result,
            Ok(None) => {
                interrupted = true;
                break;
            }
            Err(e) => {
                tokio::join!(a.shutdown(), b.shutdown());
                return Err(e);
            }
        };
        match result.outcome.winner() {
            Some(side) => wins[side.index()] += 1,
            None => draws += 1,
        }
        // Alone, a duel's result line is the result.
        if shown.transcript() || duels == 1 {
            crate::output::print_stdout(&format!("{}\n", result_line(&result)))?;
        }
    }
    if duels > 1 && !interrupted {
        crate::output::print_stdout(&format!(
            "{duels} duels: A won {}, B won {}, {draws} drawn\n",
            wins[Side::A.index()],
            wins[Side::B.index()]
        ))?;
    }
    tokio::join!(a.shutdown(), b.shutdown());
    print_traces(&traces);
    Ok(if interrupted {
        Status::Interrupted
    } else {
        Status::Done
    })
}
