//! Human-facing progress on stderr: never mixed into the standings on stdout.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Progress reporting for one run.
#[derive(Debug)]
pub struct Progress {
    quiet: bool,
    total: AtomicUsize,
    done: AtomicUsize,
    started: Instant,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            started: Instant::now(),
        }
    }

    /// A message line (stderr), unless quiet.
    pub fn say(&self, line: &str) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
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
