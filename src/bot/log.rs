//! Per-bot log files: a bot's stderr, capped, never mixed into the
//! referee's own output.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How much of a bot's stderr one log keeps over a whole run.
pub const LOG_CAP: u64 = 4 << 20;

/// An append-only, capped log for one bot. Cheap to clone.
#[derive(Debug, Clone)]
pub struct BotLog {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    file: Option<File>,
    written: u64,
    truncated: bool,
    /// The label of the last section written: a stream that arrives in many
    /// chunks (a persistent bot's stderr) gets its header once.
    last_label: String,
    /// Whether the file ends with a newline (a chunk may end mid-line).
    at_line_start: bool,
    /// Each section ends with a newline (on a terminal shared with the
    /// transcript, the next line must not start mid-line).
    whole_lines: bool,
}

impl BotLog {
    /// A log at `path`, created (with its folder) on the first write.
    pub fn new(path: impl Into<PathBuf>) -> BotLog {
        BotLog {
            inner: Arc::new(Mutex::new(Inner {
                path: path.into(),
                file: None,
                written: 0,
                truncated: false,
                last_label: String::new(),
                at_line_start: true,
                whole_lines: false,
            })),
        }
    }

    /// A log that keeps nothing (`referee play -q`).
    pub fn discard() -> BotLog {
        BotLog::new(PathBuf::new())
    }

    /// A log on the referee's own stderr (`referee play`), through a
    /// duplicate of descriptor 2: it shares stderr's file offset, so that
    /// `> file 2>&1` interleaves it with stdout instead of overwriting it
    /// (reopening `/dev/stderr` would start a second offset).
    pub fn stderr() -> BotLog {
        use std::os::fd::AsFd;
        let file = std::io::stderr()
            .as_fd()
            .try_clone_to_owned()
            .ok()
            .map(File::from);
        let log = BotLog::new("/dev/stderr");
        if let Ok(mut inner) = log.inner.lock() {
            inner.truncated = file.is_none();
            inner.file = file;
            inner.whole_lines = true;
        }
        log
    }

    pub fn path(&self) -> PathBuf {
        self.inner
            .lock()
            .map(|i| i.path.clone())
            .unwrap_or_default()
    }

    /// Appends one labelled section (a call's stderr, a build's output).
    /// Nothing is written for an empty body. Write errors are reported once
    /// through tracing and otherwise ignored: a full disk must not stop a game.
    pub fn section(&self, label: &str, body: &[u8]) {
        if body.is_empty() {
            return;
        }
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        if inner.path.as_os_str().is_empty() || inner.truncated {
            return;
        }
        if inner.file.is_none() {
            match open_append(&inner.path) {
                Ok(f) => inner.file = Some(f),
                Err(e) => {
                    tracing::warn!("cannot open bot log {}: {e}", inner.path.display());
                    inner.truncated = true;
                    return;
                }
            }
        }
        let room = LOG_CAP.saturating_sub(inner.written);
        let take = body.len().min(room as usize);
        let mut text = Vec::with_capacity(take + label.len() + 64);
        if inner.last_label != label {
            if !inner.at_line_start {
                text.push(b'\n');
            }
            text.extend_from_slice(format!("--- {label}\n").as_bytes());
            inner.last_label = label.to_string();
        }
        text.extend_from_slice(&body[..take]);
        if inner.whole_lines && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        inner.at_line_start = text.ends_with(b"\n");
        if take < body.len() {
            if !inner.at_line_start {
                text.push(b'\n');
            }
            text.extend_from_slice(b"--- log cap reached; later output is discarded\n");
            inner.truncated = true;
        }
        inner.written += take as u64;
        if let Some(f) = inner.file.as_mut() {
            if let Err(e) = f.write_all(&text) {
                tracing::warn!("cannot write bot log: {e}");
            }
        }
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_shown_on_a_terminal_ends_every_section_with_a_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shown.log");
        let log = BotLog::new(&path);
        log.inner.lock().unwrap().whole_lines = true;
        log.section("X call 1", b"cannot start");
        log.section("X call 1", b"more\n");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "--- X call 1\ncannot start\nmore\n");
    }

    #[test]
    fn a_chunked_stream_gets_one_header_and_sections_start_on_new_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/bot.log");
        let log = BotLog::new(&path);
        log.section("bot (pid 1) stderr", b"thinking ab");
        log.section("bot (pid 1) stderr", b"out it\nline two\n");
        log.section("game 2 call 1", b"no newline at the end");
        log.section("game 2 call 3", b"next\n");
        log.section("game 2 call 4", b"");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "--- bot (pid 1) stderr\nthinking about it\nline two\n--- game 2 call 1\nno newline at the end\n--- game 2 call 3\nnext\n"
        );
    }
}
