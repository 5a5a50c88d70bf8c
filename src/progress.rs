//! Human-facing progress on stderr, never mixed into the standings on
//! stdout: a bar with games done, rate and ETA when stderr is a terminal,
//! plain lines otherwise, nothing with `--quiet` (but warnings).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
    /// A challenge's own bar drawn with `\r` is on the last line (forty).
    bar_shown: AtomicBool,
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
            bar_shown: AtomicBool::new(false),
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
                let mut err = std::io::stderr().lock();
                if self.bar_shown.swap(false, Ordering::Relaxed) {
                    let _ = writeln!(err);
                }
                let _ = writeln!(err, "{line}");
            }
        });
    }

    /// Whether a progress bar would be shown: not quiet, and stderr is a
    /// terminal.
    pub fn shows_bar(&self) -> bool {
        !self.quiet && self.terminal
    }

    /// Redraws a challenge's own bar in place (forty draws the original's):
    /// `text` starts with `\r` and has no newline.
    pub fn bar(&self, text: &str) {
        if self.shows_bar() {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text.as_bytes());
            let _ = err.flush();
            self.bar_shown.store(true, Ordering::Relaxed);
        }
    }

    /// Ends a challenge's own bar line, if one is shown.
    pub fn end_bar(&self) {
        if self.bar_shown.swap(false, Ordering::Relaxed) {
            let _ = writeln!(std::io::stderr().lock());
        }
    }

    pub fn start(&self, total: usize, already_done: usize) {
        self.total.store(total, Ordering::Relaxed);
        self.done.store(already_done, Ordering::Relaxed);
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
