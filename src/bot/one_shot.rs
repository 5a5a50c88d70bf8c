//! The per-decision runner: one fresh process per move (meta-ttt, heist,
//! gun-duel interface 1). Start, collect stdout up to a cap, wait for exit or
//! the deadline, kill the whole process group, reap, then measure the bot's
//! folder against its quota (not charged to the bot). Exit is awaited on a
//! pidfd, so there is no polling and no SIGCHLD handling.
//!
//! Whatever the bot does is an [`Outcome`]; `Err` is only the referee's
//! own failure to start a process (see [`super::start`]), which stops a
//! run without recording the call.

use super::cpu_wait;
use super::folder_quota;
use super::program::BotProgram;
use super::start::{self, StartFailure};
use crate::error::Error;
use game_core::{Ending, Reply};
use referee_sandbox::spawn::Stdin;
use referee_sandbox::sys::{self, ExitKind, PidFd};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio_util::sync::CancellationToken;

/// Limits of one call.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Time from spawn to exit, charged as [`cpu_wait`] says: wall-clock
    /// time less the time the bot's processes waited for a CPU.
    pub deadline: Duration,
    /// stdout beyond this many bytes ends the call as `TooLong`.
    pub stdout_cap: usize,
    /// stderr kept per call; the rest is read and discarded.
    pub stderr_cap: usize,
}

/// What happens when a call's stdout goes over `Limits::stdout_cap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnOverflow {
    /// The call ends as `TooLong` and its group is killed: for challenges
    /// whose answer is on stdout, where a flood is a failure.
    #[default]
    Kill,
    /// The first `stdout_cap` bytes are kept and the rest is read and
    /// discarded while the call goes on: for challenges that only log
    /// stdout (gun-duel interface 1 answers with its exit status).
    Discard,
}

/// What one call produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub reply: Reply,
    /// stderr, at most `stderr_cap` bytes (or the reason a spawn failed).
    pub stderr: Vec<u8>,
    /// CPU time of the process (and any children it reaped).
    pub cpu: Duration,
    /// Wall-clock time from spawn to reap.
    pub wall: Duration,
    /// The time the limit was measured against: `wall` less the time the
    /// bot waited for a CPU (see [`cpu_wait`]).
    pub charged: Duration,
}

/// After the process group is killed, how long to wait for stdout's EOF.
/// Only a process that escaped the group (setsid) can hold the pipe longer.
const DRAIN_GRACE: Duration = Duration::from_millis(50);

/// Runs one call of `program` with `args` appended. `Err` only when the
/// referee itself could not start the process (out of descriptors,
/// memory or processes): the call did not happen.
pub async fn run_once(
    program: &BotProgram,
    args: &[String],
    limits: &Limits,
    cancel: &CancellationToken,
) -> Result<Outcome, Error> {
    run_once_with(program, args, limits, OnOverflow::Kill, cancel).await
}

/// [`run_once`] with a choice of what a stdout flood does.
pub async fn run_once_with(
    program: &BotProgram,
    args: &[String],
    limits: &Limits,
    overflow: OnOverflow,
    cancel: &CancellationToken,
) -> Result<Outcome, Error> {
    Ok(run(program, args, limits, overflow, cancel, false).await?.0)
}

/// What a call left running when it ended, found by [`run_once_checked`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Processes still alive in the call's process group after its leader
    /// exited by itself (background children); all were killed.
    pub in_group: usize,
    /// Processes that had escaped the group (setsid, double fork) and were
    /// found and killed by the sweep.
    pub escaped: usize,
}

/// [`run_once_with`] that also counts what the call left running
/// (`referee check`). Counting reads /proc, so tournaments do not use it.
pub async fn run_once_checked(
    program: &BotProgram,
    args: &[String],
    limits: &Limits,
    overflow: OnOverflow,
    cancel: &CancellationToken,
) -> Result<(Outcome, Leftovers), Error> {
    run(program, args, limits, overflow, cancel, true).await
}

async fn run(
    program: &BotProgram,
    args: &[String],
    limits: &Limits,
    overflow: OnOverflow,
    cancel: &CancellationToken,
    census: bool,
) -> Result<(Outcome, Leftovers), Error> {
    let command = program.command(args, Stdin::Null);
    let spawning = Instant::now();
    let child = match start::start(program, &command) {
        Ok(child) => child,
        Err(failure) => return not_started(failure, spawning),
    };
    // The bot's time starts once its program runs: the referee's own work
    // to start it (a busy cgroup lock, the confinement) is not the bot's.
    let start = Instant::now();
    let pid = child.pid;
    let stdout = pipe::Receiver::from_owned_fd(child.stdout).ok();
    let stderr = pipe::Receiver::from_owned_fd(child.stderr).ok();
    let exited = match PidFd::register(child.pidfd) {
        Ok(fd) => fd,
        Err(e) => {
            // Without a registered pidfd we cannot wait without blocking:
            // give up on this call cleanly rather than hang.
            kill_group(pid);
            let _ = sys::wait4(pid, true);
            super::reaper::forget(pid);
            return not_started(start::judge(program, &e), start);
        }
    };
    let mut collector = Collector::new(stdout, stderr, limits, overflow);
    // The nominal deadline; when it passes, the bot's waits for a CPU are
    // read and the deadline moves on by what was not charged.
    let mut check_at = tokio::time::Instant::from_std(later(start, limits.deadline));
    // The process tree is sampled while it runs, so that helpers that come
    // and go are counted (see `cpu_wait`).
    let every = cpu_wait::sample_every(limits.deadline);
    let mut sample_at = tokio::time::Instant::from_std(start + every);
    let mut samples = cpu_wait::TreeSamples::default();
    // The folder is measured while the call runs too: one long move must
    // not fill the disk before the measure after it.
    let far = tokio::time::Instant::from_std(later(start, Duration::from_secs(86_400 * 365)));
    let mut quota_at = match program.quota {
        Some(_) => tokio::time::Instant::from_std(start + folder_quota::MEASURE_EVERY),
        None => far,
    };
    let mut over_quota: Option<String> = None;

    let mut ending: Option<Ending> = None;
    let mut has_exited = false;
    while ending.is_none() && !has_exited {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => ending = Some(Ending::Cancelled),
            r = exited.exited() => {
                // A pidfd error is treated like exit: the reap below tells the truth.
                drop(r);
                has_exited = true;
            }
            _ = tokio::time::sleep_until(sample_at.min(check_at).min(quota_at)) => {
                samples.sample(pid);
                let now = tokio::time::Instant::now();
                if let (true, Some(quota)) = (now >= quota_at, program.quota.as_ref()) {
                    quota_at = now + folder_quota::MEASURE_EVERY;
                    over_quota = folder_quota::measure(&program.folder, quota).note(quota);
                    if over_quota.is_some() {
                        ending = Some(Ending::Sandbox);
                        continue;
                    }
                }
                sample_at = now + every;
                if now >= check_at {
                    let wall = start.elapsed();
                    let charged = cpu_wait::charged(wall, samples.total());
                    match cpu_wait::recheck_in(limits.deadline, wall, charged) {
                        None => ending = Some(Ending::TimedOut),
                        Some(wait) => check_at = later(now.into_std(), wait).into(),
                    }
                }
            }
            over = collector.read_some(), if collector.open() => {
                if over { ending = Some(Ending::TooLong); }
            }
        }
    }
    // The leader is gone (a zombie until reaped): whatever else of its
    // group still runs was left behind.
    let in_group = if census && has_exited {
        super::reaper::group_members(pid)
    } else {
        Vec::new()
    };
    // The call is over: nothing of the group may outlive it. Killing before
    // reaping keeps the group id from being reused meanwhile.
    kill_group(pid);
    let wall = start.elapsed();
    let reaped = reap_reading(pid, &exited, &mut samples).await;
    super::reaper::forget(pid);
    // Killed members of the group that were orphaned (their parent had
    // exited) come back to the referee as zombies: they did not escape.
    // When the bot's pids cgroup says none of its processes is left (not
    // even a zombie), there is nothing to sweep: reading every thread's
    // child list from /proc is most of a fast call's cost.
    let clean = !census && program.confinement.bot_processes() == Some(0);
    let swept = if clean {
        Vec::new()
    } else {
        super::reaper::sweep_pids(&program.confinement)
    };
    // The call's own group was killed whole; what the sweep finds of it
    // (orphaned before the kill) did not escape.
    let escaped = swept
        .iter()
        .filter(|s| s.group != Some(pid) && !in_group.contains(&s.pid))
        .count();
    if ending.is_none() {
        // Exited by itself: what it wrote before exiting still counts.
        if collector.drain(DRAIN_GRACE).await {
            ending = Some(Ending::TooLong);
        }
    }
    let ending = ending.unwrap_or(match reaped.map(|r| r.exit) {
        Some(ExitKind::Code(c)) => Ending::Exited(c),
        Some(ExitKind::Signal(s)) => Ending::Signalled(s),
        None => Ending::Signalled(libc::SIGKILL),
    });
    let (stdout, mut stderr) = collector.finish();
    if escaped > 0 {
        stderr.extend_from_slice(
            format!(
                "\nreferee: killed {escaped} process(es) that escaped the bot's process group\n"
            )
            .as_bytes(),
        );
    }
    let charged = match ending {
        // Whatever was read last, a timed-out call used its whole limit.
        Ending::TimedOut => cpu_wait::charged(wall, samples.total()).max(limits.deadline),
        _ => cpu_wait::charged(wall, samples.total()),
    };
    // The call is over and the bot's processes are gone: what its folder
    // holds now is what it left. The walk is not part of the call's time.
    let over_quota = match program.quota.as_ref() {
        Some(quota) if ending != Ending::Cancelled && over_quota.is_none() => {
            folder_quota::measure(&program.folder, quota).note(quota)
        }
        _ => over_quota,
    };
    let ending = match over_quota {
        Some(note) => {
            stderr.extend_from_slice(format!("\n{note}\n").as_bytes());
            Ending::Sandbox
        }
        None => ending,
    };
    let outcome = Outcome {
        reply: Reply::ended(stdout, ending),
        stderr,
        cpu: reaped.map_or(Duration::ZERO, |r| r.cpu),
        wall,
        charged,
    };
    let leftovers = Leftovers {
        in_group: in_group.len(),
        escaped,
    };
    Ok((outcome, leftovers))
}

impl Outcome {
    /// What goes into the bot's log for this call: its stderr, and a
    /// `referee:` line with the call's times when it timed out or waited
    /// for a CPU long enough to matter (a tenth of `limit`), so that an
    /// organiser sees whether the bot or the machine was slow.
    pub fn log_text(&self, limit: Duration) -> std::borrow::Cow<'_, [u8]> {
        match time_note(self.reply.ending, self.wall, self.charged, limit) {
            None => std::borrow::Cow::Borrowed(&self.stderr),
            Some(note) => {
                let mut text = self.stderr.clone();
                text.extend_from_slice(note.as_bytes());
                std::borrow::Cow::Owned(text)
            }
        }
    }
}

fn time_note(ending: Ending, wall: Duration, charged: Duration, limit: Duration) -> Option<String> {
    let waited = wall.saturating_sub(charged);
    let figures = format!(
        "wall {:.3} s, charged {:.3} s, waited for a CPU {:.3} s",
        wall.as_secs_f64(),
        charged.as_secs_f64(),
        waited.as_secs_f64()
    );
    if ending == Ending::TimedOut {
        Some(format!("\nreferee: timed out ({figures})\n"))
    } else if waited >= limit / 10 && !waited.is_zero() {
        Some(format!("\nreferee: {figures} (the wait is not charged)\n"))
    } else {
        None
    }
}

/// `base + d`, or a year after `base` when `d` is too long to add (a limit
/// such as `build-timeout-s = 18446744073709551615` means "no limit", not
/// a crash).
fn later(base: Instant, d: Duration) -> Instant {
    const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);
    base.checked_add(d.min(YEAR)).unwrap_or(base)
}

/// A call whose process did not start: the bot's failure as its outcome
/// (the reason in its log), or the referee's as an error.
fn not_started(failure: StartFailure, start: Instant) -> Result<(Outcome, Leftovers), Error> {
    match failure {
        StartFailure::Bot { ending, note } => Ok((
            Outcome {
                reply: Reply::ended(Vec::new(), ending),
                stderr: note.into_bytes(),
                cpu: Duration::ZERO,
                wall: start.elapsed(),
                charged: start.elapsed(),
            },
            Leftovers::default(),
        )),
        StartFailure::Machine(e) => Err(e),
    }
}

/// SIGKILL to the whole process group (the child is its leader).
pub(crate) fn kill_group(pid: u32) {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    // ESRCH (already gone) is the normal case after a clean exit.
    let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
}

/// Reaps the (killed or exited) child once its pidfd says it has exited,
/// first reading its main thread's figures into `samples` (a zombie keeps them
/// until it is reaped).
async fn reap_reading(
    pid: u32,
    exited: &PidFd,
    samples: &mut cpu_wait::TreeSamples,
) -> Option<sys::Reaped> {
    if exited.exited().await.is_err() {
        tracing::warn!("cannot wait on bot process {pid}; reaping it blocking");
    }
    samples.sample_main(pid);
    // The pidfd said it has exited (or it was SIGKILLed just now), so this
    // returns at once.
    match sys::wait4(pid, true) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!("cannot reap bot process {pid}: {e}");
            None
        }
    }
}

/// Reads stdout (capped) and stderr (capped, excess discarded) concurrently.
struct Collector {
    stdout: Option<pipe::Receiver>,
    stderr: Option<pipe::Receiver>,
    out: Vec<u8>,
    err: Vec<u8>,
    out_cap: usize,
    err_cap: usize,
    overflow: OnOverflow,
    buf: Box<[u8; 8192]>,
    ebuf: Box<[u8; 4096]>,
}

impl Collector {
    fn new(
        stdout: Option<pipe::Receiver>,
        stderr: Option<pipe::Receiver>,
        limits: &Limits,
        overflow: OnOverflow,
    ) -> Self {
        Collector {
            stdout,
            stderr,
            out: Vec::new(),
            err: Vec::new(),
            out_cap: limits.stdout_cap,
            err_cap: limits.stderr_cap,
            overflow,
            buf: Box::new([0; 8192]),
            ebuf: Box::new([0; 4096]),
        }
    }

    fn open(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }

    /// Waits for either pipe to give bytes or EOF. Returns true once stdout
    /// has gone over its cap.
    async fn read_some(&mut self) -> bool {
        tokio::select! {
            r = read_opt(&mut self.stdout, &mut self.buf[..]) => {
                match r {
                    Ok(0) | Err(_) => self.stdout = None,
                    Ok(n) => {
                        let room = (self.out_cap + 1).saturating_sub(self.out.len());
                        self.out.extend_from_slice(&self.buf[..n.min(room)]);
                        if self.out.len() > self.out_cap {
                            match self.overflow {
                                OnOverflow::Kill => return true,
                                OnOverflow::Discard => self.out.truncate(self.out_cap),
                            }
                        }
                    }
                }
            }
            r = read_opt(&mut self.stderr, &mut self.ebuf[..]) => {
                match r {
                    Ok(0) | Err(_) => self.stderr = None,
                    Ok(n) => {
                        let room = self.err_cap.saturating_sub(self.err.len());
                        self.err.extend_from_slice(&self.ebuf[..n.min(room)]);
                    }
                }
            }
        }
        false
    }

    /// After the group is dead: reads what is left until EOF, for at most
    /// `grace`. Returns true if stdout went over its cap.
    async fn drain(&mut self, grace: Duration) -> bool {
        let until = tokio::time::Instant::now() + grace;
        while self.open() {
            match tokio::time::timeout_at(until, self.read_some()).await {
                Ok(true) => return true,
                Ok(false) => {}
                Err(_) => break,
            }
        }
        false
    }

    fn finish(mut self) -> (Vec<u8>, Vec<u8>) {
        self.out.truncate(self.out_cap);
        (self.out, self.err)
    }
}

/// Reads from a pipe that may already be closed; a closed one never completes.
async fn read_opt(pipe: &mut Option<pipe::Receiver>, buf: &mut [u8]) -> std::io::Result<usize> {
    match pipe {
        Some(p) => p.read(buf).await,
        None => std::future::pending().await,
    }
}
