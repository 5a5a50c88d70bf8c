//! Human-facing progress on stderr, never mixed into the standings on
//! stdout: a bar with games done, rate and ETA when stderr is a terminal,
//! plain lines otherwise, nothing with `--quiet` (but warnings).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Progress reporting for one run.
#[derive(Debug)]
pub struct Progress {
    quiet: bool,
    terminal: bool,
    bar: Mutex<Option<ProgressBar>>,
    total: AtomicUsize,
    done: AtomicUsize,
    started: Instant,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            terminal: std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
            total: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            started: Instant::now(),
        }
    }

    fn with_bar<T>(&self, f: impl FnOnce(&Option<ProgressBar>) -> T) -> T {
        match self.bar.lock() {
            Ok(b) => f(&b),
            Err(p) => f(&p.into_inner()),
        }
    }

    /// A message line (stderr), unless quiet; printed above the bar if one is shown.
    pub fn say(&self, line: &str) {
        if self.quiet {
            return;
        }
        self.with_bar(|bar| match bar {
            Some(b) => b.println(line),
            None => {
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
        });
    }

    pub fn start(&self, total: usize, already_done: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(already_done, Ordering::Relaxed);
        if already_done > 0 {
            self.say(&format!(
                "resuming: {already_done} of {total} games already in the results database"
            ));
        }
        if self.quiet || !self.terminal || already_done >= total {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let style =
            ProgressStyle::with_template("{bar:30} {pos}/{len} games  {per_sec}  ETA {eta}  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_position(already_done as u64);
        bar.reset_eta();
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(bar);
        }
    }

    pub fn game_done(&self, summary: &str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.load(Ordering::Relaxed);
        if self.quiet {
            return;
        }
        self.with_bar(|bar| match bar {
            Some(b) => {
                b.inc(1);
                b.set_message(summary.to_string());
            }
            None => {
                let _ = writeln!(std::io::stderr().lock(), "[{done}/{total}] {summary}");
            }
        });
    }

    pub fn finish(&self) {
        if let Ok(mut b) = self.bar.lock() {
            if let Some(bar) = b.take() {
                bar.finish_and_clear();
            }
        }
        let secs = self.started.elapsed().as_secs_f64();
        self.say(&format!("played for {secs:.1} s"));
    }
}
