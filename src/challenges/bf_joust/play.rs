//! `referee play bf-joust`: its options.

use super::read_program;
use crate::error::{Error, Result};
use crate::status::Status;
use game_bf_joust as bf;
use std::io::Write;
use std::path::Path;
use tokio_util::sync::CancellationToken;
/// `referee play bf-joust LEFT.bf RIGHT.bf`: one match, cycle by cycle.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Two .bf files, left first.
    #[arg(required = true, value_name = "FILE")]
    pub bots: Vec<String>,
    /// Seed that draws the tape length when --tape-len is not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print the tape before the first cycle and after every cycle.
    #[arg(long)]
    pub trace: bool,
    /// The tape length, 10 to 30 (default: drawn at random).
    #[arg(long, value_name = "N")]
    pub tape_len: Option<u64>,
    /// The cycle limit (default 10000, 100000 with --rules hill; 0 ends the match at once).
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    /// The rules: 2014 (default) or hill. With hill, the pairing's two
    /// result strings follow the transcript, as gearlance prints them.
    #[arg(long, value_name = "2014|hill", default_value = "2014", value_parser = ["2014", "hill"])]
    pub rules: String,
    /// The polarity of the match shown: normal (default) or inverted (the
    /// right program's + and - swapped).
    #[arg(long, value_name = "normal|inverted", default_value = "normal", value_parser = ["normal", "inverted"])]
    pub polarity: String,
}

/// Whether a line of the match's output is its result (`===== L won the
/// battle after C cycles =====`, `===== Draw game =====`): all `-q` prints.
fn is_result(line: &str) -> bool {
    line.starts_with("===== ") && !line.starts_with("===== Starting battle")
}

/// `referee play bf-joust LEFT.bf RIGHT.bf`: one match (spec §6); `-q`
/// prints its result line only.
pub async fn play(args: PlayArgs, quiet: bool, cancel: CancellationToken) -> Result<Status> {
    if args.bots.len() != 2 {
        return Err(Error::input(format!(
            "bf-joust is played by 2 programs (LEFT.bf RIGHT.bf), not {}",
            args.bots.len()
        )));
    }
    let tape_len = match args.tape_len {
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (bf::MIN_TAPE_LEN..=bf::MAX_TAPE_LEN).contains(n))
            .ok_or_else(|| {
                Error::input(format!(
                    "--tape-len must be from {} to {}, not {n}",
                    bf::MIN_TAPE_LEN,
                    bf::MAX_TAPE_LEN
                ))
            })?,
        None => bf::play_tape_len(args.seed.unwrap_or_else(rand::random)),
    };
    let rules = if args.rules == "hill" {
        bf::Rules::Hill
    } else {
        bf::Rules::Y2014
    };
    let hill = rules == bf::Rules::Hill;
    let polarity = if args.polarity == "inverted" {
        bf::Polarity::Inverted
    } else {
        bf::Polarity::Normal
    };
    let cycles = args.cycles.unwrap_or(if hill {
        bf::HILL_CYCLES
    } else {
        bf::DEFAULT_CYCLES
    });
    let mut programs = Vec::with_capacity(2);
    let mut invalid = false;
    for path in &args.bots {
        let bytes = read_program(Path::new(path))
            .map_err(|e| Error::input(format!("{path}: cannot read: {e}")))?;
        match bf::Program::parse_rules(&bytes, rules) {
            Ok(p) => programs.push(p),
            Err(e) => {
                // The spec's one-line message, which names the file itself.
                eprintln!("{}", e.with_file(path));
                invalid = true;
            }
        }
    }
    let (Some(right), Some(left), false) = (programs.pop(), programs.pop(), invalid) else {
        return Ok(Status::BadInput);
    };
    let names = [bf::bot_name(&args.bots[0]), bf::bot_name(&args.bots[1])];

    // On its own thread, so a long match (any --cycles is allowed) neither
    // blocks the runtime nor outlives an interrupt.
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("bf-joust-play".into())
        .spawn(move || {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut failed: Option<std::io::Error> = None;
            let spec = bf::MatchSpec {
                tape_len,
                cycles,
                polarity,
            };
            let result = bf::play_spec(
                &names[0],
                &names[1],
                &left,
                &right,
                spec,
                args.trace && !quiet,
                |line| {
                    if quiet && !is_result(line) {
                        return;
                    }
                    if failed.is_none() {
                        failed = writeln!(out, "{line}").err();
                    }
                },
            );
            if hill && failed.is_none() {
                let rows = bf::hill::play_pairing(&left, &right, cycles);
                failed = writeln!(out, "{}", bf::hill::summary_line(&rows)).err();
            }
            if failed.is_none() {
                failed = out.flush().err();
            }
            if !quiet {
                // How it ended is for the reader, beside the original's
                // output, so stdout stays byte for byte the original's.
                eprintln!("{}", bf::ending_line(&names[0], &names[1], &result, hill));
            }
            if failed.is_none() {
                failed = out.flush().err();
            }
            let _ = done.send(failed);
        })
        .map_err(|e| Error::machine(format!("cannot start the match thread: {e}")))?;
    tokio::select! {
        failed = finished => match failed {
            // A reader that stopped early (`| head`) is not a failure.
            Ok(None) => Ok(Status::Done),
            Ok(Some(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Status::Done),
            Ok(Some(e)) => Err(Error::machine(format!("cannot write to stdout: {e}"))),
            Err(_) => Err(Error::machine("the match thread failed")),
        },
        () = cancel.cancelled() => Ok(Status::Interrupted),
    }
}
