//! Standings, transcripts and reports on stdout (progress goes to stderr).

use crate::error::{Error, Result};
use std::io::Write;

/// Writes `text` to stdout and flushes it.
pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::machine(format!("cannot write to stdout: {e}")))
}
