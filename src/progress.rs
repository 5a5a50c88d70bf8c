//! Human-facing progress on stderr: never mixed into the standings on stdout.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Progress reporting for one run.
#[derive(Debug)]
pub struct Progress {
    quiet: bool,
    total: AtomicUsize,
    done: AtomicUsize,
    started: Instant,
    /// A bar drawn with `\r` is on the last line of the terminal.
    bar_shown: AtomicBool,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            started: Instant::now(),
            bar_shown: AtomicBool::new(false),
        }
    }

    /// A message line (stderr), unless quiet.
    pub fn say(&self, line: &str) {
        if !self.quiet {
            let mut err = std::io::stderr().lock();
            if self.bar_shown.swap(false, Ordering::Relaxed) {
                let _ = writeln!(err);
            }
            let _ = writeln!(err, "{line}");
        }
    }

    /// Whether a progress bar would be shown: not quiet, and stderr is a
    /// terminal.
    pub fn shows_bar(&self) -> bool {
        !self.quiet && std::io::stderr().is_terminal()
    }

    /// Redraws a bar in place: `text` starts with `\r` and has no newline.
    pub fn bar(&self, text: &str) {
        if self.shows_bar() {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
            let _ = err.flush();
            self.bar_shown.store(true, Ordering::Relaxed);
        }
    }

    /// Ends a bar's line, if one is shown.
    pub fn end_bar(&self) {
        if self.bar_shown.swap(false, Ordering::Relaxed) {
            let _ = writeln!(std::io::stderr().lock());
        }
    }

    pub fn start(&self, total: usize, already_done: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(already_done, Ordering::Relaxed);
        if already_done > 0 {
            self.say(&format!(
                "resuming: {already_done} of {total} games already in the results database"
            ));
        }
    }

    pub fn game_done(&self, summary: &str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        self.say(&format!("[{done}/{total}] {summary}"));
    }

    pub fn finish(&self) {
        let secs = self.started.elapsed().as_secs_f64();
        self.say(&format!("played for {secs:.1} s"));
    }
}
