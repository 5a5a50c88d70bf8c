//! How long a bot waited for a CPU, so that its time limits measure the bot
//! and not the machine.
//!
//! The rule: a call (a move, or a persistent bot's ask) is charged its
//! wall-clock time minus the time its processes were runnable but not
//! running because every CPU was busy, and never less than the CPU time
//! they used divided by the CPUs they could use. Sleeping, blocking on I/O
//! and its own computation all count, so a bot that sleeps past its limit
//! times out exactly as on an idle machine. The floor means a bot cannot
//! buy time by crowding the CPUs itself: its own busy threads make its main
//! thread wait, but their CPU time is charged, spread over the CPUs.
//!
//! The source is the kernel's per-task scheduler statistics
//! (`/proc/PID/task/TID/schedstat`: CPU time and run-queue wait, in
//! nanoseconds), exact per task. A call's process tree (every thread of its
//! main process and of their descendants) is sampled while it runs, every
//! [`sample_every`], and every task's latest figures are summed
//! ([`TreeSamples`]): helpers that start and exit within the call are
//! counted too (a version manager's launcher runs several in turn while the
//! machine is busy). Only what a helper did after the last sample that saw
//! it (at most one interval's worth) is missed, and charged.
//!
//! The kernel's cgroup pressure figures (`cpu.pressure`) were measured and
//! rejected: they average a group's stalls over the CPUs its tasks ran on,
//! so a single process that moves between two CPUs shows about half of its
//! real wait (1.6 s of 3.1 s under load).
//!
//! Where the figures are missing (`CONFIG_SCHED_INFO` off), [`available`]
//! is false and limits are wall-clock time; the start-up line says so.
//!
//! Cost: a call shorter than one interval (a native bot's move) reads only
//! its main process's figures, once, at the end.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;
use std::time::Duration;

/// CPU figures of one task, or of a tree of tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Times {
    /// CPU time used (a tree: the sum over its tasks).
    pub cpu: Duration,
    /// Time spent runnable but waiting for a CPU (a tree: the sum over its
    /// tasks).
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
/// it: wall minus the wait for a CPU, at least the CPU used spread over
/// the CPUs this process may use, at most wall.
pub fn charged(wall: Duration, times: Times) -> Duration {
    charged_on(wall, times, cpus())
}

/// [`charged`] on a machine of `cpus` CPUs.
pub fn charged_on(wall: Duration, times: Times, cpus: u32) -> Duration {
    let floor = times.cpu / cpus.max(1);
    wall.saturating_sub(times.wait).max(floor).min(wall)
}

/// CPUs this process may use (probed once).
fn cpus() -> u32 {
    static CPUS: OnceLock<u32> = OnceLock::new();
    *CPUS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX))
    })
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

/// The start-up line's phrase when time limits fall back to wall-clock
/// time, or `None` when waits are measured.
pub fn missing_note() -> Option<&'static str> {
    (!available()).then_some(
        "time limits are wall-clock time: this kernel does not report how long a task waits \
         for a CPU (/proc/PID/schedstat), so a busy machine can time bots out",
    )
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

/// The CPU time of process `pid`, every thread (and every child it has
/// reaped), from `/proc/PID/stat`, in clock ticks (10 ms on most systems).
pub fn process_cpu(pid: u32) -> Option<Duration> {
    parse_stat(&std::fs::read(format!("/proc/{pid}/stat")).ok()?)
}

/// [`process_cpu`] kept open, so that reading again costs one `pread`
/// rather than an open, two reads and a close (a gun-duel bot is read once
/// per duel, thousands of times a second).
#[derive(Debug)]
pub struct ProcessCpu {
    file: File,
}

impl ProcessCpu {
    /// Process `pid`; `None` if it is gone.
    pub fn open(pid: u32) -> Option<ProcessCpu> {
        let file = File::open(format!("/proc/{pid}/stat")).ok()?;
        Some(ProcessCpu { file })
    }

    /// Its CPU time now; `None` once the process is reaped.
    pub fn read(&self) -> Option<Duration> {
        // The line is a few hundred bytes; its command name is at most 64.
        let mut buf = [0u8; 1024];
        let n = self.file.read_at(&mut buf, 0).ok()?;
        parse_stat(&buf[..n])
    }
}

/// utime + stime + cutime + cstime of a `/proc/PID/stat` line.
fn parse_stat(text: &[u8]) -> Option<Duration> {
    let text = std::str::from_utf8(text).ok()?;
    // Fields after the command name, which may hold spaces: state is
    // field 3, utime 14, stime 15, cutime 16, cstime 17.
    let (_, rest) = text.rsplit_once(')')?;
    let ticks: u64 = rest
        .split_ascii_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    let hz = ticks_per_second();
    Some(Duration::from_nanos(
        ticks.saturating_mul(1_000_000_000) / hz.max(1),
    ))
}

fn ticks_per_second() -> u64 {
    static HZ: OnceLock<u64> = OnceLock::new();
    *HZ.get_or_init(|| {
        nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .ok()
            .flatten()
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(100)
    })
}

/// Every thread of `pid` and of its descendants now, summed (one sample
/// of [`TreeSamples`]).
pub fn tree(pid: u32) -> Times {
    let mut samples = TreeSamples::default();
    samples.sample(pid);
    samples.total()
}

/// How often a running call's process tree is sampled: a hundredth of its
/// limit, between 2 and 10 ms. Helper processes that start and exit within
/// a call (a version manager's launcher reads its settings through several
/// in turn) are seen while they live, so their waits are not charged.
pub fn sample_every(limit: Duration) -> Duration {
    (limit / 100).clamp(Duration::from_millis(2), Duration::from_millis(10))
}

/// A call's process tree, sampled: every task ever seen in it, by thread
/// id, with the latest figures read. A task that exits keeps what was
/// last read of it, so the total is the sum over every task that lived.
#[derive(Debug, Default)]
pub struct TreeSamples {
    tasks: HashMap<u32, Times>,
}

/// Tasks kept per call: a tree that forks without end stops being tracked
/// in detail (its CPU floor still applies at the end).
const MAX_TASKS: usize = 4096;

impl TreeSamples {
    /// Reads every thread of `pid` and of its descendants now (zombies
    /// not yet reaped by their parent included).
    pub fn sample(&mut self, pid: u32) {
        if !available() {
            return;
        }
        let mut stack = vec![pid];
        // Bounded: a tree changing under the walk must not keep it going.
        let mut budget = MAX_TASKS;
        while let Some(p) = stack.pop() {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
                continue;
            };
            for t in tasks.flatten() {
                if budget == 0 {
                    return;
                }
                budget -= 1;
                let Some(tid) = t.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                let dir = t.path();
                if let Some(times) = std::fs::read(dir.join("schedstat"))
                    .ok()
                    .and_then(|b| parse(&b))
                {
                    self.record(tid, times);
                }
                if let Ok(kids) = std::fs::read_to_string(dir.join("children")) {
                    stack.extend(
                        kids.split_ascii_whitespace()
                            .filter_map(|k| k.parse::<u32>().ok()),
                    );
                }
            }
        }
    }

    /// Reads the main thread of `pid` only (at the end, a zombie's
    /// figures are still there until it is reaped).
    pub fn sample_main(&mut self, pid: u32) {
        if !available() {
            return;
        }
        if let Some(times) = std::fs::read(format!("/proc/{pid}/schedstat"))
            .ok()
            .and_then(|b| parse(&b))
        {
            self.record(pid, times);
        }
    }

    fn record(&mut self, tid: u32, times: Times) {
        if self.tasks.len() < MAX_TASKS || self.tasks.contains_key(&tid) {
            let entry = self.tasks.entry(tid).or_default();
            *entry = entry.max(times);
        }
    }

    /// Every task's latest figures, summed.
    pub fn total(&self) -> Times {
        self.tasks.values().fold(Times::default(), |sum, t| Times {
            cpu: sum.cpu + t.cpu,
            wait: sum.wait + t.wait,
        })
    }
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
    fn the_cpu_used_is_charged_spread_over_the_cpus() {
        // Eight busy threads on two CPUs for a second wait 6 s in all for
        // each other: their 2 s of CPU over 2 CPUs is still the whole
        // second, so crowding the CPUs buys nothing.
        let t = Times {
            cpu: 2000 * MS,
            wait: 6000 * MS,
        };
        assert_eq!(charged_on(1000 * MS, t, 2), 1000 * MS);
        // A multi-threaded program on a busy machine: its threads waited
        // longer than the call lasted; charged its CPU over the CPUs.
        let t = Times {
            cpu: 800 * MS,
            wait: 1500 * MS,
        };
        assert_eq!(charged_on(1000 * MS, t, 2), 400 * MS);
        // Never more than the wall time.
        assert_eq!(charged_on(1000 * MS, t, 0), 800 * MS);
    }

    #[test]
    fn a_call_is_looked_at_again_until_its_charged_time_or_the_cap_runs_out() {
        let limit = 100 * MS;
        assert_eq!(recheck_in(limit, 100 * MS, 40 * MS), Some(60 * MS));
        assert_eq!(recheck_in(limit, 100 * MS, 100 * MS), None);
        // Charged nothing (all waiting): not polled in a loop.
        assert_eq!(
            recheck_in(limit, 500 * MS, Duration::from_micros(99_900)),
            Some(MS)
        );
        // The cap: 10 x the limit, at least the limit + 2 s.
        assert_eq!(wall_cap(limit), 2100 * MS);
        assert_eq!(wall_cap(1000 * MS), 10_000 * MS);
        assert_eq!(recheck_in(limit, 2050 * MS, Duration::ZERO), Some(50 * MS));
        assert_eq!(recheck_in(limit, 2100 * MS, Duration::ZERO), None);
    }

    #[test]
    fn a_process_cpu_time_covers_its_threads() {
        let before = process_cpu(std::process::id()).expect("own stat");
        let kept = ProcessCpu::open(std::process::id()).expect("own stat");
        let kept_before = kept.read().expect("own stat");
        let t = std::time::Instant::now();
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    let mut x = 0u64;
                    while t.elapsed() < 60 * MS {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    }
                    std::hint::black_box(x);
                });
            }
        });
        let after = process_cpu(std::process::id()).expect("own stat");
        assert!(after >= before + 20 * MS, "{before:?} {after:?}");
        // Read again through the descriptor kept open: the same figures.
        let kept_after = kept.read().expect("own stat");
        assert!(
            kept_after >= kept_before + 20 * MS,
            "{kept_before:?} {kept_after:?}"
        );
    }

    #[test]
    fn a_helper_that_exited_keeps_what_was_last_read_of_it() {
        if !available() {
            return;
        }
        // A shell that runs a busy helper for a while, then sleeps.
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("(i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done); sleep 0.3")
            .spawn()
            .expect("sh starts");
        let mut samples = TreeSamples::default();
        // Sampled until the shell itself exits: by then the helper has
        // long been reaped, and only the samples remember it.
        while child.try_wait().ok().flatten().is_none() {
            samples.sample(child.id());
            std::thread::sleep(5 * MS);
        }
        // The shell, its helper and `sleep`.
        assert!(samples.tasks.len() >= 3, "{samples:?}");
        // The helper's busy loop is most of the CPU; the shell and `sleep`
        // use almost none.
        assert!(samples.total().cpu >= 20 * MS, "{samples:?}");
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
