//! How long a bot waited for a CPU, so that its time limits measure the bot
//! and not the machine.
//!
//! The rule: a call (a move, or a persistent bot's ask) is charged its
//! wall-clock time minus the time its processes were runnable but not
//! running because every CPU was busy, and never less than the CPU time
//! they used. Sleeping, blocking on I/O and its own computation all count,
//! so a bot that sleeps past its limit times out exactly as on an idle
//! machine. Charging at least the CPU used means a bot cannot buy time by
//! crowding the CPUs itself (many busy threads make each other wait, but
//! their CPU time is charged).
//!
//! Two sources, the better first:
//! - A stall group: each call's processes are born in a cgroup v2 group of
//!   their own, whose pressure-stall figures (`cpu.pressure`) count the
//!   time any of them waited for a CPU, including processes that already
//!   exited (the helpers a version manager's launcher starts before the
//!   interpreter). See `referee_sandbox::stall`.
//! - Elsewhere, the kernel's per-task scheduler statistics
//!   (`/proc/PID/task/TID/schedstat`: CPU time, run-queue wait) of the
//!   call's live process tree and, at the end, its main process. Waits of
//!   helpers that already exited are not seen.
//!
//! Where neither exists (`CONFIG_SCHED_INFO` off), [`available`] is false
//! and time limits are wall-clock time; the start-up line says so.
//!
//! Reading is done only when it matters: a call that ends within its
//! nominal limit reads its figures once, at the end.

use referee_sandbox::stall::{Stall, StallLease};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;
use std::time::Duration;

/// CPU figures of one task, or of a tree of tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    /// CPU time used (a tree: the sum over its tasks).
    pub cpu: Duration,
    /// Time spent runnable but waiting for a CPU (a tree: the longest wait
    /// of any one task, since tasks wait side by side).
    pub wait: Duration,
}

impl Times {
    /// What accrued since `earlier` (figures never run backwards; a task
    /// that was replaced reads as zero).
    pub fn since(self, earlier: Times) -> Times {
        Times {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            wait: self.wait.saturating_sub(earlier.wait),
        }
    }

    /// The larger of each figure.
    pub fn max(self, other: Times) -> Times {
        Times {
            cpu: self.cpu.max(other.cpu),
            wait: self.wait.max(other.wait),
        }
    }
}

/// The time charged for a call that took `wall` and accrued `times` over
/// it: wall minus the wait for a CPU, at least the CPU used, at most wall.
pub fn charged(wall: Duration, times: Times) -> Duration {
    wall.saturating_sub(times.wait).max(times.cpu).min(wall)
}

/// The wall-clock time after which a call ends whatever its waits: a
/// wedged machine still ends every move. Ten times the limit, and at
/// least two seconds more than it.
pub fn wall_cap(limit: Duration) -> Duration {
    limit
        .saturating_mul(10)
        .max(limit.saturating_add(Duration::from_secs(2)))
}

/// When to look again at a call that has been running for `wall` and been
/// charged `charged` of its `limit`: `None` when its time is up (charged
/// time reached the limit, or wall time the cap), else how long from now.
/// A bot charged nothing yet is looked at again after at least 1 ms, so a
/// stalled machine is not polled in a loop.
pub fn recheck_in(limit: Duration, wall: Duration, charged: Duration) -> Option<Duration> {
    let cap = wall_cap(limit);
    if charged >= limit || wall >= cap {
        return None;
    }
    let left = (limit - charged).max(Duration::from_millis(1));
    Some(left.min(cap - wall))
}

/// Parses a `schedstat` line: CPU time, run-queue wait, timeslices.
fn parse(text: &[u8]) -> Option<Times> {
    let text = std::str::from_utf8(text).ok()?;
    let mut fields = text.split_ascii_whitespace();
    let cpu: u64 = fields.next()?.parse().ok()?;
    let wait: u64 = fields.next()?.parse().ok()?;
    Some(Times {
        cpu: Duration::from_nanos(cpu),
        wait: Duration::from_nanos(wait),
    })
}

/// Whether the kernel reports run-queue waits (probed once). A kernel
/// without `CONFIG_SCHED_INFO` prints `0 0 0` for every task.
pub fn available() -> bool {
    static PROBE: OnceLock<bool> = OnceLock::new();
    *PROBE.get_or_init(|| {
        // This thread has run, so a kernel that keeps the figures shows a
        // timeslice count above zero.
        std::fs::read("/proc/thread-self/schedstat")
            .ok()
            .and_then(|t| {
                let text = String::from_utf8(t).ok()?;
                let slices: u64 = text.split_ascii_whitespace().nth(2)?.parse().ok()?;
                Some(slices > 0)
            })
            .unwrap_or(false)
    })
}

/// The start-up line's phrase when waits for a CPU are measured only in
/// part or not at all, or `None` when every call has a stall group.
pub fn missing_note() -> Option<&'static str> {
    if referee_sandbox::stall::root().is_some() {
        None
    } else if available() {
        Some(
            "time limits: no cgroup v2 group with pressure-stall figures here (psi=1, and a \
             cgroup v2 group this user may create groups in), so waits for a CPU are read per \
             process and those of short-lived helpers are charged",
        )
    } else {
        Some(
            "time limits are wall-clock time: this kernel does not report how long a task \
             waits for a CPU (/proc/PID/schedstat), so a busy machine can time bots out",
        )
    }
}

/// A persistent process's running totals since it started: its stall
/// group's when it was born in one (every thread and child counted), else
/// its main thread's.
#[derive(Debug)]
pub enum ProcessClock {
    Group { lease: StallLease, start: Stall },
    Task(TaskClock),
    Off,
}

impl ProcessClock {
    /// The clock of a process just started as `pid`.
    pub fn new(lease: Option<StallLease>, start: Option<Stall>, in_group: bool, pid: u32) -> Self {
        match (lease, start) {
            (Some(lease), Some(start)) if in_group => ProcessClock::Group { lease, start },
            _ => TaskClock::open(pid).map_or(ProcessClock::Off, ProcessClock::Task),
        }
    }

    /// CPU used and time spent waiting for a CPU since the start; `None`
    /// where nothing is measured (or the process is reaped).
    pub fn read(&self) -> Option<Times> {
        match self {
            ProcessClock::Group { lease, start } => {
                let now = lease.group()?.read()?;
                Some(Times {
                    cpu: Duration::from_micros(now.cpu_us.saturating_sub(start.cpu_us)),
                    wait: Duration::from_micros(now.waiting_us.saturating_sub(start.waiting_us)),
                })
            }
            ProcessClock::Task(clock) => clock.read(),
            ProcessClock::Off => None,
        }
    }
}

/// How one call's waits are read.
#[derive(Debug)]
pub enum Meter {
    /// The call's processes were born in this stall group, which read
    /// `start` before they were.
    Group { lease: StallLease, start: Stall },
    /// The process tree under this pid, read while it lives.
    Tree(u32),
}

impl Meter {
    /// The meter of a call whose main process is `pid`: its stall group if
    /// it was born in one (`in_group`), else its process tree.
    pub fn new(lease: Option<StallLease>, start: Option<Stall>, in_group: bool, pid: u32) -> Meter {
        match (lease, start) {
            (Some(lease), Some(start)) if in_group => Meter::Group { lease, start },
            _ => Meter::Tree(pid),
        }
    }

    /// What the call accrued so far. A tree meter keeps the largest
    /// figures seen in `seen` (a tree loses the figures of tasks that end).
    pub fn read(&self, seen: &mut Times) -> Times {
        match self {
            Meter::Group { lease, start } => {
                if let Some(now) = lease.group().and_then(|g| g.read()) {
                    let t = Times {
                        cpu: Duration::from_micros(now.cpu_us.saturating_sub(start.cpu_us)),
                        wait: Duration::from_micros(
                            now.waiting_us.saturating_sub(start.waiting_us),
                        ),
                    };
                    *seen = seen.max(t);
                }
            }
            Meter::Tree(pid) => *seen = seen.max(tree(*pid)),
        }
        *seen
    }

    /// At the end, with the main process a zombie not yet reaped: a tree
    /// meter adds the main process's own figures.
    pub fn read_final(&self, seen: &mut Times) -> Times {
        match self {
            Meter::Group { .. } => self.read(seen),
            Meter::Tree(pid) => {
                *seen = seen.max(task(*pid));
                *seen
            }
        }
    }
}

/// One task's figures, kept open so that reading again costs one `pread`.
#[derive(Debug)]
pub struct TaskClock {
    file: File,
}

impl TaskClock {
    /// The main thread of process `pid`. `None` if it is gone or the
    /// kernel keeps no figures.
    pub fn open(pid: u32) -> Option<TaskClock> {
        if !available() {
            return None;
        }
        let file = File::open(format!("/proc/{pid}/schedstat")).ok()?;
        Some(TaskClock { file })
    }

    /// The figures now; `None` once the task is reaped.
    pub fn read(&self) -> Option<Times> {
        let mut buf = [0u8; 96];
        let n = self.file.read_at(&mut buf, 0).ok()?;
        parse(&buf[..n])
    }
}

/// The main thread of `pid` now (a zombie's figures are still there until
/// it is reaped). Zero if unreadable.
pub fn task(pid: u32) -> Times {
    if !available() {
        return Times::default();
    }
    std::fs::read(format!("/proc/{pid}/schedstat"))
        .ok()
        .and_then(|t| parse(&t))
        .unwrap_or_default()
}

/// Every thread of `pid` and of its descendants now: CPU summed, the
/// longest wait. Tasks that already exited are not counted. Zero if the
/// kernel keeps no figures.
pub fn tree(pid: u32) -> Times {
    let mut total = Times::default();
    if !available() {
        return total;
    }
    let mut stack = vec![pid];
    // Bounded: a tree changing under the walk must not keep it going.
    let mut budget = 4096usize;
    while let Some(p) = stack.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            if budget == 0 {
                return total;
            }
            budget -= 1;
            let dir = t.path();
            if let Some(times) = std::fs::read(dir.join("schedstat"))
                .ok()
                .and_then(|b| parse(&b))
            {
                total.cpu += times.cpu;
                total.wait = total.wait.max(times.wait);
            }
            if let Ok(kids) = std::fs::read_to_string(dir.join("children")) {
                stack.extend(kids.split_ascii_whitespace().filter_map(|k| k.parse::<u32>().ok()));
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn waiting_for_a_cpu_is_not_charged_but_sleeping_is() {
        // 900 ms of wall: 100 ms computing, 300 ms waiting for a CPU, the
        // rest asleep.
        let t = Times {
            cpu: 100 * MS,
            wait: 300 * MS,
        };
        assert_eq!(charged(900 * MS, t), 600 * MS);
    }

    #[test]
    fn the_cpu_used_is_always_charged() {
        // Four busy threads on two CPUs wait a lot for each other; their
        // CPU time is still charged, capped at the wall time.
        let t = Times {
            cpu: 1800 * MS,
            wait: 900 * MS,
        };
        assert_eq!(charged(1000 * MS, t), 1000 * MS);
        let t = Times {
            cpu: 400 * MS,
            wait: 900 * MS,
        };
        assert_eq!(charged(1000 * MS, t), 400 * MS);
    }

    #[test]
    fn a_call_is_looked_at_again_until_its_charged_time_or_the_cap_runs_out() {
        let limit = 100 * MS;
        assert_eq!(recheck_in(limit, 100 * MS, 40 * MS), Some(60 * MS));
        assert_eq!(recheck_in(limit, 100 * MS, 100 * MS), None);
        // Charged nothing (all waiting): not polled in a loop.
        assert_eq!(recheck_in(limit, 500 * MS, Duration::from_micros(99_900)), Some(MS));
        // The cap: 10 x the limit, at least the limit + 2 s.
        assert_eq!(wall_cap(limit), 2100 * MS);
        assert_eq!(wall_cap(1000 * MS), 10_000 * MS);
        assert_eq!(recheck_in(limit, 2050 * MS, 0 * MS), Some(50 * MS));
        assert_eq!(recheck_in(limit, 2100 * MS, 0 * MS), None);
    }

    #[test]
    fn schedstat_lines_parse_and_garbage_does_not() {
        assert_eq!(
            parse(b"379952778 808435 40\n"),
            Some(Times {
                cpu: Duration::from_nanos(379_952_778),
                wait: Duration::from_nanos(808_435),
            })
        );
        assert_eq!(parse(b""), None);
        assert_eq!(parse(b"x y z"), None);
    }

    #[test]
    fn a_busy_thread_shows_cpu_time_in_its_own_figures() {
        if !available() {
            return;
        }
        let clock = TaskClock::open(std::process::id()).expect("own schedstat");
        let before = clock.read().expect("readable");
        // The main thread of the test binary is not this thread, so read
        // this thread's own figures around some work instead.
        let own = || parse(&std::fs::read("/proc/thread-self/schedstat").unwrap()).unwrap();
        let start = own();
        let mut x = 0u64;
        let t = std::time::Instant::now();
        while t.elapsed() < 30 * MS {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = own().since(start);
        assert!(used.cpu >= 5 * MS, "{used:?}");
        assert!(clock.read().expect("readable").cpu >= before.cpu);
    }
}
