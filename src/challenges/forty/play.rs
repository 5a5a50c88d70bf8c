//! `referee play forty BOT...`: one game with the bots seated in order,
//! its transcript on stdout as it happens.
//!
//! It is the tournament's [`Engine`] with one game, fixed seats, optional
//! fixed dice and a transcript observer; a crashed process is not
//! restarted (its later turns are lost). A BOT that is one word ending in
//! `.py` is a class file run through the shipped host, as in `check`.

use super::engine::{Engine, EngineLimits, Notice, Traffic};
use super::{with_env, EXIT_GRACE, HOST};
use crate::error::{Error, Result};
use crate::play::Shown;
use crate::status::Status;
use game_forty::{dice, play_game, transcript, Event, Observer, Settings, TurnRecord};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// `referee play forty 'CMD' 'CMD' ...`: one game, turn by turn.
#[derive(Debug, clap::Args)]
#[command(after_help = "A game has at most 200 rounds (fixed by the rules, no option).")]
pub struct PlayArgs {
    /// The bots, seat 0 first: quoted commands, or Python class files
    /// (one word ending in .py) run through the host.
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
    /// Show every line sent to each bot and every reply, with its time.
    #[arg(long)]
    pub trace: bool,
}

/// Prints each turn and event of the game as it happens (nothing with
/// `-q`).
struct PrintTranscript {
    names: Vec<String>,
    shown: bool,
}

impl Observer for PrintTranscript {
    fn turn(&mut self, turn: &TurnRecord<'_>) {
        if self.shown {
            let name =
                transcript::seat_name(self.names.get(turn.seat).map(String::as_str), turn.seat);
            print_line(&transcript::turn_line(turn, &name));
        }
    }

    fn event(&mut self, event: &Event) {
        if self.shown {
            print_line(&transcript::event_line(event));
        }
    }
}

fn print_line(line: &str) {
    let _ = crate::output::print_stdout(&format!("{line}\n"));
}

/// `--trace`: `> seatN: LINE | LINE` for each write, `< seatN: REPLY |
/// REPLY, T ms` for each read, T since the write it answers.
fn tracer(seats: usize) -> super::engine::Tracer {
    let mut sent: Vec<Option<Instant>> = vec![None; seats];
    Box::new(move |bot, traffic| match traffic {
        Traffic::Sent(bytes) => {
            if let Some(at) = sent.get_mut(bot) {
                *at = Some(Instant::now());
            }
            print_line(&format!("> seat{bot}: {}", crate::play::lines_text(bytes)));
        }
        Traffic::Read(batch) => {
            let replies: Vec<String> = batch
                .pieces
                .iter()
                .map(|&piece| match batch.reply(piece) {
                    game_core::LineRef::Message(m) => m.escape_ascii().to_string(),
                    game_core::LineRef::TooLong => "(a line over 4096 bytes)".into(),
                    game_core::LineRef::Closed => "(end of its output)".into(),
                    game_core::LineRef::TimedOut => "(nothing in time)".into(),
                })
                .collect();
            let took = sent
                .get(bot)
                .copied()
                .flatten()
                .map_or(String::new(), |at| {
                    format!(
                        ", {}",
                        crate::play::millis(batch.at.saturating_duration_since(at))
                    )
                });
            print_line(&format!("< seat{bot}: {}{took}", replies.join(" | ")));
        }
    })
}

/// The command of seat `seat`: BOT itself, or the host running BOT when it
/// is a Python class file (the host is written into `scratch`).
fn command(bot: &str, cwd: &Path, scratch: &mut Option<tempfile::TempDir>) -> Result<String> {
    let words = crate::instructions::split_command(bot).map_err(Error::input)?;
    let [file] = words.as_slice() else {
        return Ok(bot.to_string());
    };
    if !file.ends_with(".py") {
        return Ok(bot.to_string());
    }
    if !cwd.join(file).is_file() {
        return Err(Error::input(format!(
            "{file}: no such Python file (relative to {})",
            cwd.display()
        )));
    }
    if scratch.is_none() {
        let dir = tempfile::Builder::new()
            .prefix("referee-forty-host-")
            .tempdir()
            .map_err(|e| Error::machine(format!("cannot create a folder for the host: {e}")))?;
        std::fs::write(dir.path().join("forty_host.py"), HOST)
            .map_err(|e| Error::machine(format!("cannot write the forty host: {e}")))?;
        *scratch = Some(dir);
    }
    let host = scratch
        .as_ref()
        .map(|d| d.path().join("forty_host.py"))
        .ok_or_else(|| Error::machine("no folder for the host"))?;
    Ok(shell_words::join([
        "python3",
        &host.to_string_lossy(),
        file.as_str(),
    ]))
}

/// `referee play forty BOT...`: game 0 with the bots seated in order, and
/// its transcript on stdout (`-q`: the result line only).
pub async fn play(args: PlayArgs, quiet: bool, cancel: CancellationToken) -> Result<Status> {
    let shown = Shown::new(quiet, args.trace);
    let mut s = Settings::default();
    if let Some(t) = args.timeout_ms {
        s.set("timeout-ms", &t.to_string()).map_err(Error::input)?;
    }
    let dice_list = match &args.dice {
        Some(text) => {
            Some(dice::parse_dice_list(text).map_err(|m| Error::input(format!("--dice: {m}")))?)
        }
        None => None,
    };
    let seed = args.seed.unwrap_or(0);
    let cwd = crate::play::directory(args.cwd.as_deref())?;
    // Removed when play ends, however it ends.
    let mut scratch = None;
    let mut programs = Vec::new();
    let mut logs = Vec::new();
    for (seat, bot) in args.bots.iter().enumerate() {
        let cmd = command(bot, &cwd, &mut scratch)?;
        let mut program = crate::play::program(&format!("seat {seat}"), &cmd, &cwd)?;
        program.name = format!("seat{seat}");
        programs.push(with_env(program));
        logs.push(shown.bot_log());
    }
    let k = programs.len();
    let limits = EngineLimits {
        timeout: Duration::from_millis(s.timeout_ms),
        kill_after: Duration::from_millis(s.kill_ms),
        startup: Duration::from_millis(s.startup_ms),
        max_crashes: s.max_crashes,
        restart: false,
        jobs: crate::tournament::cores(),
        seed,
    };
    let observer = PrintTranscript {
        names: Vec::new(),
        shown: shown.transcript(),
    };
    let mut engine = Engine::new(programs, logs, vec![0; k], vec![0; k], limits, observer);
    if shown.trace() {
        engine.trace = Some(tracer(k));
    }
    let seats: Vec<usize> = (0..k).collect();
    engine.start(&seats);
    // Crashes are said as they come; the referee's own failure to start a
    // process ends the game.
    let say_crashes = |engine: &mut Engine<PrintTranscript>| {
        for notice in engine.notices.drain(..) {
            let Notice::Crash { bot, reason, .. } = notice;
            eprintln!("referee: seat {bot} crashed: {reason}");
        }
        engine.take_failure()
    };
    if let Some(e) = say_crashes(&mut engine) {
        engine.shutdown(Duration::ZERO).await;
        return Err(e);
    }
    while engine.starting() > 0 {
        if !engine.step(&cancel).await {
            engine.shutdown(Duration::ZERO).await;
            return Ok(Status::Interrupted);
        }
        if let Some(e) = say_crashes(&mut engine) {
            engine.shutdown(Duration::ZERO).await;
            return Err(e);
        }
    }
    let names: Vec<String> = (0..k)
        .map(|seat| transcript::seat_name(engine.handshake_name(seat), seat))
        .collect();
    if shown.transcript() {
        let mut header = transcript::header_lines(0, &names).join("\n");
        header.push('\n');
        crate::output::print_stdout(&header)?;
    }
    engine.observer.names = names;
    let game = play_game(seed, k, dice_list)
        .ok_or_else(|| Error::input("referee play forty needs at least one bot"))?;
    engine.start_game(0, seats, game);
    while engine.in_flight() > 0 {
        if !engine.step(&cancel).await {
            engine.shutdown(Duration::ZERO).await;
            return Ok(Status::Interrupted);
        }
        if let Some(e) = say_crashes(&mut engine) {
            engine.shutdown(Duration::ZERO).await;
            return Err(e);
        }
    }
    let result = engine
        .finished
        .pop()
        .and_then(|f| f.game.result().cloned())
        .ok_or_else(|| Error::machine("the game did not finish"))?;
    print_line(&transcript::result_line(&result));
    engine.shutdown(EXIT_GRACE).await;
    if let Some(e) = say_crashes(&mut engine) {
        return Err(e);
    }
    Ok(Status::Done)
}
