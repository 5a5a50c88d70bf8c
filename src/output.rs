//! Standings, transcripts and reports on stdout (progress goes to stderr).

use crate::error::{Error, Result};
use std::io::Write;

/// Writes `text` to stdout and flushes it.
///
/// A reader that stopped early (`referee play ... | head`) is not a
/// failure: the referee ends there, with status 0, as other command-line
/// tools do. Whatever it writes to stdout comes after what it stored
/// (standings after the games are committed), and its bots die with it.
pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Error::machine(format!("cannot write to stdout: {e}"))),
    }
}
