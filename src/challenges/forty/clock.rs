//! The time a forty bot's process is charged (section 5), by the rule of
//! [`cpu_wait`]: wall-clock time less the time its host waited for a CPU,
//! and at least the CPU time it used.
//!
//! The engine keeps one [`HostClock`] per process. It reads the process's
//! main thread (one `pread` of a kept-open schedstat file) at each batch
//! write and each read, so each group of replies is charged what the host
//! spent since the previous one ([`HostClock::measure`]); the
//! [`Pipeline`](game_forty::Pipeline) shares that among the replies. A
//! deadline is armed at its nominal instant (its limit of wall-clock time
//! after its start) and looked at again while waits for a CPU push it back
//! ([`HostClock::due`]), up to [`cpu_wait::wall_cap`]. Where the kernel keeps
//! no figures, every charge is wall-clock time.

use crate::bot::cpu_wait::{self, TaskClock, Times};
use std::time::{Duration, Instant};

/// One process's figures, and a deadline looked at too early.
#[derive(Debug, Default)]
pub struct HostClock {
    task: Option<TaskClock>,
    /// The figures at the last batch write or read: where the service of
    /// what is outstanding began.
    mark: Times,
    /// A deadline found not yet due: (its nominal instant, when to look
    /// again).
    recheck: Option<(Instant, Instant)>,
}

impl HostClock {
    /// The clock of process `pid`'s main thread (wall-clock time only if it
    /// cannot be read).
    pub fn open(pid: u32) -> HostClock {
        let task = TaskClock::open(pid);
        let mark = task.as_ref().and_then(TaskClock::read).unwrap_or_default();
        HostClock {
            task,
            mark,
            recheck: None,
        }
    }

    /// The figures now (the last ones once the task is gone).
    fn read(&self) -> Times {
        self.task
            .as_ref()
            .and_then(TaskClock::read)
            .unwrap_or(self.mark)
    }

    /// A batch was written: the service of its asks starts here.
    pub fn mark(&mut self) {
        self.mark = self.read();
    }

    /// The time charged from `start` to `at` (a read), since the mark; the
    /// mark moves here.
    pub fn measure(&mut self, start: Instant, at: Instant) -> Duration {
        let now = self.read();
        let times = now.since(self.mark);
        self.mark = now;
        cpu_wait::charged(at.saturating_duration_since(start), times)
    }

    /// The time charged from `start` to `now`; the mark stays.
    pub fn charged(&self, start: Instant, now: Instant) -> Duration {
        cpu_wait::charged(
            now.saturating_duration_since(start),
            self.read().since(self.mark),
        )
    }

    /// The figures accrued since the mark.
    pub fn since_mark(&self) -> Times {
        self.read().since(self.mark)
    }

    /// When to look at a deadline whose nominal instant is `nominal`.
    pub fn wake_at(&self, nominal: Instant) -> Instant {
        match self.recheck {
            Some((armed, wake)) if armed == nominal => wake,
            _ => nominal,
        }
    }

    /// Whether `limit` of charged time since `start` has run out by `now`,
    /// given the figures `times` accrued since `start`: the time charged
    /// (at least `limit` once the wall-clock cap passed), or `None` after
    /// arranging to look again.
    pub fn due(
        &mut self,
        start: Instant,
        limit: Duration,
        now: Instant,
        times: Times,
    ) -> Option<Duration> {
        let wall = now.saturating_duration_since(start);
        let charged = cpu_wait::charged(wall, times);
        match cpu_wait::recheck_in(limit, wall, charged) {
            None => {
                self.recheck = None;
                Some(charged.max(limit))
            }
            Some(wait) => {
                self.recheck = Some((start + limit, now + wait));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_deadline_moves_on_by_the_wait_for_a_cpu() {
        let mut clock = HostClock::default();
        let t0 = Instant::now();
        let limit = 100 * MS;
        assert_eq!(clock.wake_at(t0 + limit), t0 + limit);
        // At the nominal deadline the host had waited 60 ms for a CPU: 40
        // ms charged, looked at again in 60 ms.
        let waited = Times {
            cpu: 10 * MS,
            wait: 60 * MS,
        };
        assert_eq!(clock.due(t0, limit, t0 + limit, waited), None);
        assert_eq!(clock.wake_at(t0 + limit), t0 + 160 * MS);
        // Another deadline is not moved by this one's recheck.
        assert_eq!(clock.wake_at(t0 + 2 * limit), t0 + 2 * limit);
        assert_eq!(clock.due(t0, limit, t0 + 160 * MS, waited), Some(100 * MS));
        assert_eq!(clock.wake_at(t0 + limit), t0 + limit);
        // Past the wall-clock cap it is due, however long the waits.
        let stalled = Times {
            cpu: MS,
            wait: 5000 * MS,
        };
        let cap = cpu_wait::wall_cap(limit);
        assert_eq!(clock.due(t0, limit, t0 + cap, stalled), Some(limit));
    }

    #[test]
    fn without_figures_the_charge_is_wall_clock_time() {
        let mut clock = HostClock::default();
        let t0 = Instant::now();
        assert_eq!(clock.measure(t0, t0 + 7 * MS), 7 * MS);
        assert_eq!(clock.charged(t0, t0 + 9 * MS), 9 * MS);
        clock.mark();
        assert_eq!(clock.since_mark(), Times::default());
    }

    #[test]
    fn the_own_process_reads_and_measures() {
        if !cpu_wait::available() {
            return;
        }
        let mut clock = HostClock::open(std::process::id());
        assert!(clock.task.is_some());
        let t0 = Instant::now();
        clock.mark();
        let later = t0 + 50 * MS;
        // Never more than the wall time, whatever the main thread did.
        assert!(clock.measure(t0, later) <= 50 * MS);
    }
}
