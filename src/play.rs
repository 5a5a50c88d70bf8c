//! The shared kit of `referee play`: one game with a transcript, the bots
//! given on the command line. Each challenge's options and game loop are
//! in its folder's `play.rs`; what they share is here, so that `play`
//! behaves the same way for every challenge:
//!
//! - the transcript goes to stdout, and each bot's stderr to the
//!   referee's stderr, under a `--- LABEL` line per call or process
//!   ([`Shown::bot_log`]);
//! - `--trace` adds what was sent to each bot and what it answered, with
//!   the time of each move ([`call_trace`] for a process per move);
//! - `-q` prints the result alone: no transcript, no bot stderr;
//! - nothing is written outside the bots' directory (no log folder in
//!   `/tmp`).
//!
//! In this mode there are no bot folders, builds or sandbox: every bot runs
//! unconfined in one directory (`--cwd`, or the current one), as a bot
//! author runs their own bot while writing it.

use crate::bot::{BotLog, BotProgram, Limits, Outcome};
use crate::error::{Error, Result};
use game_core::Ending;
use referee_sandbox::Confinement;
use std::path::{Path, PathBuf};

/// What `referee play` shows: `-q` (the result only) beats `--trace`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shown {
    quiet: bool,
    trace: bool,
}

impl Shown {
    pub fn new(quiet: bool, trace: bool) -> Shown {
        Shown { quiet, trace }
    }

    /// Whether the moves, turns or cycles are printed.
    pub fn transcript(self) -> bool {
        !self.quiet
    }

    /// Whether each exchange with a bot is printed.
    pub fn trace(self) -> bool {
        self.trace && !self.quiet
    }

    /// Where the bots' stderr goes: the referee's stderr (never mixed into
    /// the transcript on stdout), or nowhere with `-q`.
    pub fn bot_log(self) -> BotLog {
        if self.quiet {
            BotLog::discard()
        } else {
            BotLog::stderr()
        }
    }
}

/// The bots' directory: `--cwd`, or the current one.
pub fn directory(cwd: Option<&Path>) -> Result<PathBuf> {
    match cwd {
        Some(d) => Ok(d.to_path_buf()),
        None => std::env::current_dir()
            .map_err(|e| Error::machine(format!("no current directory: {e}"))),
    }
}

/// The bot `label` from its command line (split as in instructions.txt,
/// no shell, `{protocols}` expanded), run unconfined in `dir`, which is
/// also its folder.
pub fn program(label: &str, command: &str, dir: &Path) -> Result<BotProgram> {
    let argv = crate::instructions::split_command(command)
        .map_err(|m| Error::input(format!("{label}: {m}")))?;
    let argv = crate::protocols::expand_all(&argv)?;
    Ok(BotProgram {
        name: label.to_string(),
        argv,
        cwd: dir.to_path_buf(),
        folder: dir.to_path_buf(),
        confinement: Confinement::minimal(),
        env: Vec::new(),
        // Both bots share the folder: neither owns it.
        quota: None,
    })
}

/// How a call ended, in words, for `--trace`.
pub fn ending_text(ending: Ending, limits: &Limits) -> String {
    match ending {
        Ending::Exited(c) => format!("exit status {c}"),
        Ending::Signalled(s) => format!("killed by signal {s}"),
        Ending::TimedOut => format!(
            "timed out after {} ms (killed)",
            limits.deadline.as_millis()
        ),
        Ending::TooLong => format!("more than {} bytes on stdout (killed)", limits.stdout_cap),
        Ending::SpawnFailed => "could not be started".to_string(),
        Ending::Sandbox => "refused by the sandbox".to_string(),
        Ending::Cancelled => "cancelled".to_string(),
    }
}

/// The `--trace` lines of one call of a process-per-move bot: `> WHO:` and
/// the whole command line with its arguments, then `< stdout "..."`, how
/// it ended and the time it was charged (its stderr is on the referee's
/// stderr).
pub fn call_trace(
    who: &str,
    program: &BotProgram,
    args: &[String],
    outcome: &Outcome,
    limits: &Limits,
) -> String {
    let mut argv = program.argv.clone();
    argv.extend(args.iter().cloned());
    format!(
        "> {who}: {}\n< stdout \"{}\", {}, {}\n",
        shell_words::join(&argv),
        outcome.reply.stdout.escape_ascii(),
        ending_text(outcome.reply.ending, limits),
        millis(outcome.charged),
    )
}

/// A move's time for a trace: `12.3 ms`.
pub fn millis(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Bytes written to or read from a persistent bot, one line per message
/// joined by ` | ` (`I1 | F`), escaped.
pub fn lines_text(bytes: &[u8]) -> String {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| l.escape_ascii().to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_command_is_an_input_error_naming_the_bot() {
        let dir = Path::new("/");
        let p = program("X", "python3 'my bot.py' --fast", dir).unwrap();
        assert_eq!(p.argv, ["python3", "my bot.py", "--fast"]);
        assert_eq!((p.cwd.as_path(), p.folder.as_path()), (dir, dir));
        let e = program("O", "python3 'unclosed", dir).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("O: "), "{e}");
    }

    #[test]
    fn quiet_beats_trace_and_hides_the_bots_stderr() {
        let quiet = Shown::new(true, true);
        assert!(!quiet.transcript() && !quiet.trace());
        assert_eq!(quiet.bot_log().path(), PathBuf::new());
        let traced = Shown::new(false, true);
        assert!(traced.transcript() && traced.trace());
        assert_eq!(traced.bot_log().path(), PathBuf::from("/dev/stderr"));
    }

    #[test]
    fn lines_are_joined_and_escaped() {
        assert_eq!(lines_text(b"P0\nI1\nF\n"), "P0 | I1 | F");
        assert_eq!(lines_text(b"0 1\r\n"), "0 1\\r");
    }
}
