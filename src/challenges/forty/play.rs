//! `referee play forty BOT...`: one game with the bots seated in order,
//! its transcript on stdout as it happens.
//!
//! It is the tournament's [`Engine`] with one game, fixed seats, optional
//! fixed dice and a transcript observer; a crashed process is not
//! restarted (its later turns are lost).

use super::engine::{Engine, EngineLimits, Notice};
use super::{with_env, EXIT_GRACE};
use crate::bot::BotLog;
use crate::error::{Error, Result};
use crate::status::Status;
use game_forty::{dice, play_game, transcript, Event, Observer, Settings, TurnRecord};
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// `referee play forty 'CMD' 'CMD' ...`: one game, turn by turn.
#[derive(Debug, clap::Args)]
#[command(after_help = "A game has at most 200 rounds (fixed by the rules, no option).")]
pub struct PlayArgs {
    /// The bots: quoted commands, or Python class files run through the host.
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
}

/// Prints each turn and event of the game as it happens.
struct PrintTranscript {
    names: Vec<String>,
}

impl Observer for PrintTranscript {
    fn turn(&mut self, turn: &TurnRecord<'_>) {
        let name = transcript::seat_name(self.names.get(turn.seat).map(String::as_str), turn.seat);
        print_line(&transcript::turn_line(turn, &name));
    }

    fn event(&mut self, event: &Event) {
        print_line(&transcript::event_line(event));
    }
}

fn print_line(line: &str) {
    let _ = crate::output::print_stdout(&format!("{line}\n"));
}

/// A fresh folder for the logs of one `referee play`.
fn play_log_dir() -> Result<std::path::PathBuf> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let dir = base.join(format!(
            "referee-forty-play-{}-{stamp}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::machine(format!(
                    "{}: cannot create the log folder: {e}",
                    dir.display()
                )))
            }
        }
    }
    Err(Error::machine("cannot create a log folder for the bots"))
}

/// `referee play forty BOT...`: game 0 with the bots seated in order, and
/// its transcript on stdout.
pub async fn play(args: PlayArgs, cancel: CancellationToken) -> Result<Status> {
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
    let log_dir = play_log_dir()?;
    let mut programs = Vec::new();
    let mut logs = Vec::new();
    for (seat, cmd) in args.bots.iter().enumerate() {
        let mut program = crate::play::program(&format!("seat {seat}"), cmd, &cwd)?;
        program.name = format!("seat{seat}");
        programs.push(with_env(program));
        logs.push(BotLog::new(log_dir.join(format!("seat{seat}.log"))));
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
    let mut engine = Engine::new(
        programs,
        logs,
        vec![0; k],
        vec![0; k],
        limits,
        PrintTranscript { names: Vec::new() },
    );
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
    let mut header = transcript::header_lines(0, &names).join("\n");
    header.push('\n');
    crate::output::print_stdout(&header)?;
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
    print_line(&format!("bot logs: {}", log_dir.display()));
    Ok(Status::Done)
}
