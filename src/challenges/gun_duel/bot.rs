//! One gun-duel bot as the duels see it, over either interface, and one
//! duel between two of them.
//!
//! A bot is lent to one duel at a time; [`play_duel`] asks both of its bots
//! each turn through [`Bot`]'s transport and hands the crate's
//! [`DuelDriver`] their answers:
//!
//! ```text
//! let mut bot = Bot::new(program, log, interface);
//! bot.start();                                   // interface 2: once
//! play_duel(turns, seats, [&mut a, &mut b], ..)  // per duel; cpu_seconds()
//! bot.flush();                                   // after a round
//! bot.shutdown().await;                          // end of the tournament
//! ```
//!
//! This is the per-turn path (a turn is a few microseconds of referee work),
//! so the duel and the transport it calls stay in one module, which keeps
//! them in one codegen unit as they were before the split.

use crate::bot::persistent::{Frame, Framing};
use crate::bot::{cpu_wait, folder_quota};
use crate::bot::{
    run_once_with, BotLog, BotProgram, Incoming, Limits, LineProcess, OnOverflow, StartFailure,
};
use crate::error::Result;
use crate::first_call::{exchange, judge_call, Exchange, Verdict};
use game_core::{Ending, Fault, LineReply};
use game_gun_duel::{
    frame_move, kills_bot, read_exit_reply, read_line_reply, Answer, DuelDriver, DuelResult,
    Epilogue, Interface, Request, Seat, TurnReport, END_GRACE_MS, STARTUP_GRACE_MS,
};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Interface 1: stdout kept per call for the log (the rest is discarded,
/// never a fault: stdout is not the answer).
const STDOUT_LOG_CAP: usize = 16 * 1024;
/// Interface 1: stderr kept per call for the log.
const STDERR_LOG_CAP: usize = 16 * 1024;

/// Interface 2: how late a move may be before the bot's scheduler figures
/// are first read. Most moves come sooner and cost no read; a wait for a
/// CPU within this first stretch is charged (at most this much of the
/// limit, and only on a busy machine).
const FIRST_LOOK: Duration = Duration::from_millis(2);

/// The transport's framing for interface 2: the next non-whitespace byte.
fn move_framing() -> Framing {
    Arc::new(|buf: &[u8]| match frame_move(buf) {
        game_gun_duel::Frame::Move { consumed } => Frame::Message {
            start: consumed.saturating_sub(1),
            end: consumed,
            consumed,
        },
        game_gun_duel::Frame::Incomplete => Frame::Incomplete,
        game_gun_duel::Frame::TooMuchWhitespace { consumed } => Frame::Overflow {
            consumed,
            resync_at: None,
        },
    })
}

/// An interface-2 bot's process over the tournament.
pub(super) enum Process {
    /// Not started yet.
    Idle,
    Running {
        process: LineProcess,
        /// Whether it has been sent an `F` (the first gets the start-up grace).
        asked: bool,
        /// Its main thread's CPU and waits for a CPU, read during a move
        /// that is slow to come (see `cpu_wait` and [`FIRST_LOOK`]).
        clock: Option<cpu_wait::TaskClock>,
        /// The CPU time of the whole process, read after each duel.
        usage: Option<cpu_wait::ProcessCpu>,
        /// What `usage` read after the bot's last duel.
        usage_mark: Duration,
    },
    /// Could not be started: its first move is a crash, then it is dead.
    Unstartable,
    /// Refused by the sandbox (its program may not run where it is, or its
    /// folder held more than the policy allows after a duel): its next
    /// move is a `sandbox` fault, then it is dead.
    Denied,
    /// Timed out, exited or closed stdout: every later move is no action.
    Dead,
}

/// `referee play --trace`: what a bot was sent and what it answered, a
/// line each, taken out by whoever prints the transcript.
pub(super) type Trace = Arc<std::sync::Mutex<Vec<String>>>;

/// One bot as the duels see it.
pub(super) struct Bot {
    program: BotProgram,
    log: BotLog,
    interface: Interface,
    pub(super) process: Process,
    /// Bytes for the bot's next write: the last `P` of a duel travels with
    /// the next `I` and `F`.
    pub(super) pending: Vec<u8>,
    /// CPU time of the interface-1 runs of the current duel.
    cpu: Duration,
    /// Set by `referee play --trace` only.
    pub(super) trace: Option<Trace>,
}

impl Bot {
    pub(super) fn new(program: BotProgram, log: BotLog, interface: Interface) -> Bot {
        Bot {
            program,
            log,
            interface,
            process: Process::Idle,
            pending: Vec::new(),
            cpu: Duration::ZERO,
            trace: None,
        }
    }

    /// Adds a line to the trace, if there is one.
    fn traced(&self, line: impl FnOnce() -> String) {
        if let Some(trace) = &self.trace {
            if let Ok(mut lines) = trace.lock() {
                lines.push(line());
            }
        }
    }

    /// Starts an interface-2 bot's process (once). `Err` only when the
    /// referee itself could not start it (out of descriptors, memory or
    /// processes).
    pub(super) fn start(&mut self) -> Result<()> {
        if self.interface != Interface::Io || !matches!(self.process, Process::Idle) {
            return Ok(());
        }
        self.process =
            match LineProcess::spawn(&self.program, &[], move_framing(), self.log.clone()) {
                Ok(process) => Process::Running {
                    clock: cpu_wait::TaskClock::open(process.pid()),
                    usage: cpu_wait::ProcessCpu::open(process.pid()),
                    usage_mark: Duration::ZERO,
                    process,
                    asked: false,
                },
                Err(StartFailure::Bot { ending, note }) => {
                    self.log.section(
                        "referee",
                        format!("{note}; every move is no action\n").as_bytes(),
                    );
                    if ending == Ending::Sandbox {
                        Process::Denied
                    } else {
                        Process::Unstartable
                    }
                }
                Err(StartFailure::Machine(e)) => return Err(e),
            };
        Ok(())
    }

    /// `referee check`, after its duel: an interface-2 bot whose folder
    /// holds more than its policy allows is killed, and its next move is a
    /// `sandbox` fault. (In a tournament the folder watch does this while
    /// the process runs; interface-1 bots are measured after each call.)
    pub(super) async fn check_folder(&mut self) {
        let Some(quota) = self.program.quota else {
            return;
        };
        if !matches!(self.process, Process::Running { .. }) {
            return;
        }
        let Some(what) = folder_quota::measure(&self.program.folder, &quota).over(&quota) else {
            return;
        };
        self.deny(&what).await;
    }

    /// The bot's folder is over its quota (`what`): the process is killed,
    /// and the bot's next move is a `sandbox` fault.
    async fn deny(&mut self, what: &str) {
        let process = std::mem::replace(&mut self.process, Process::Denied);
        self.pending.clear();
        if let Process::Running { mut process, .. } = process {
            process.kill().await;
        }
        self.log.section(
            "referee",
            format!(
                "referee: {what}: killed; its next move is a sandbox fault and it is dead from then on (the referee deletes nothing)\n"
            )
            .as_bytes(),
        );
    }

    /// CPU seconds of the bot's last duel: its interface-1 runs, or what
    /// its interface-2 process used during the duel.
    pub(super) fn cpu_seconds(&self) -> f64 {
        self.cpu.as_secs_f64()
    }

    /// CPU the interface-2 process used, every thread, since the end of
    /// its last duel (since its start for the first), added to `cpu`. One
    /// read per duel: what it used between two duels (reading the last `P`)
    /// counts towards the next. Nothing for a process that is gone.
    fn add_process_cpu(&mut self) {
        if let Process::Running {
            usage: Some(usage),
            usage_mark,
            ..
        } = &mut self.process
        {
            if let Some(now) = usage.read() {
                self.cpu += now.saturating_sub(*usage_mark);
                *usage_mark = now;
            }
        }
    }

    /// Performs one request; `None` if the referee was cancelled meanwhile,
    /// `Err` if it could not start a process.
    async fn ask(
        &mut self,
        request: Request,
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Answer>> {
        Ok(match request {
            Request::Run { args } => {
                let out = self.run(&args, timeout, label, cancel).await?;
                read_exit_reply(&out)
            }
            Request::Ask { bytes } => self.ask_process(bytes, timeout, cancel).await?,
        })
    }

    /// Interface 1: one process with `args` appended; output only logged.
    async fn run(
        &mut self,
        args: &[String],
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) -> Result<game_core::Reply> {
        let limits = Limits {
            deadline: timeout,
            stdout_cap: STDOUT_LOG_CAP,
            stderr_cap: STDERR_LOG_CAP,
        };
        let out = run_once_with(&self.program, args, &limits, OnOverflow::Discard, cancel).await?;
        self.traced(|| {
            crate::play::call_trace(&self.program.name, &self.program, args, &out, &limits)
                .trim_end()
                .to_string()
        });
        self.cpu += out.cpu;
        if !out.reply.stdout.is_empty() {
            self.log.section(
                &format!("{label}: {} stdout", args.join(" ")),
                &out.reply.stdout,
            );
        }
        // Empty sections are not written.
        self.log.section(
            &format!("{label}: {}", args.join(" ")),
            &out.log_text(limits.deadline),
        );
        Ok(out.reply)
    }

    /// Interface 2: write the request, read one move.
    async fn ask_process(
        &mut self,
        bytes: Vec<u8>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Option<Answer>> {
        if matches!(self.process, Process::Denied) {
            // The denial was logged when it was seen; it costs this move.
            self.process = Process::Dead;
            self.pending.clear();
            return Ok(Some(Answer::no_action(Fault::Sandbox)));
        }
        let Some(reply) = self.ask_line(bytes, timeout, cancel).await? else {
            return Ok(None);
        };
        if matches!(self.process, Process::Denied) {
            // Its folder went over its quota during this ask.
            self.process = Process::Dead;
            return Ok(Some(Answer::no_action(Fault::Sandbox)));
        }
        Ok(Some(match reply {
            Some(reply) => read_line_reply(&reply),
            None => Answer::DEAD,
        }))
    }

    /// Interface 2: writes what is pending and `bytes`, reads one move
    /// within `timeout` (plus the start-up grace on the first `F`). A bot
    /// that times out or closes stdout is killed and dead from then on.
    /// `Some(None)` for a bot already dead (nothing is written); `None` if
    /// the referee was cancelled meanwhile; `Err` if it could not start the
    /// process.
    pub(super) async fn ask_line(
        &mut self,
        bytes: Vec<u8>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<Option<Option<LineReply>>> {
        if matches!(self.process, Process::Idle) {
            self.start()?;
        }
        let reply = match &mut self.process {
            Process::Dead => {
                // Its messages are dropped; its opponent is told `P?`.
                self.pending.clear();
                return Ok(Some(None));
            }
            Process::Idle | Process::Unstartable | Process::Denied => LineReply::Closed,
            Process::Running {
                process,
                asked,
                clock,
                ..
            } => {
                let mut write = std::mem::take(&mut self.pending);
                write.extend_from_slice(&bytes);
                if let Some(trace) = &self.trace {
                    if let Ok(mut lines) = trace.lock() {
                        lines.push(format!(
                            "> {}: {}",
                            self.program.name,
                            crate::play::lines_text(&write)
                        ));
                    }
                }
                let mut limit = timeout;
                if !*asked {
                    limit += Duration::from_millis(STARTUP_GRACE_MS);
                    *asked = true;
                }
                // The limit is charged time: waits for a CPU move the
                // deadline on (see `cpu_wait`). The clock is first read
                // once the move is `FIRST_LOOK` late, so that a quick move
                // costs no read.
                let sent = Instant::now();
                let mut before = None;
                let mut looked = false;
                let mut deadline = sent + FIRST_LOOK.min(limit);
                process.send(write);
                let incoming = loop {
                    let got = tokio::select! {
                        biased;
                        () = cancel.cancelled() => return Ok(None),
                        got = process.next_before(deadline) => got,
                    };
                    if got.is_some() {
                        break got;
                    }
                    if !looked {
                        looked = true;
                        before = clock.as_ref().and_then(cpu_wait::TaskClock::read);
                        deadline = sent + limit;
                        continue;
                    }
                    let wall = sent.elapsed();
                    let now = clock.as_ref().and_then(cpu_wait::TaskClock::read);
                    let accrued = match (before, now) {
                        (Some(b), Some(now)) => now.since(b),
                        _ => cpu_wait::Times::default(),
                    };
                    match cpu_wait::recheck_in(limit, wall, cpu_wait::charged(wall, accrued)) {
                        None => break None,
                        Some(more) => deadline = Instant::now() + more,
                    }
                };
                let reply = match incoming {
                    None => LineReply::TimedOut,
                    Some(Incoming::Message(m, _)) => LineReply::Message(m),
                    Some(Incoming::TooLong(_)) => LineReply::TooLong,
                    Some(Incoming::Closed) => LineReply::Closed,
                };
                // A move read from a bot that stopped reading its stdin (the
                // write still blocked at the deadline) does not count.
                let reply = if matches!(reply, LineReply::Message(_) | LineReply::TooLong)
                    && !process.flushed_before(deadline).await
                {
                    LineReply::TimedOut
                } else {
                    reply
                };
                let took = sent.elapsed();
                self.traced(|| {
                    let what = match &reply {
                        LineReply::Message(m) => format!("\"{}\"", m.escape_ascii()),
                        LineReply::TimedOut => "no move in time".to_string(),
                        LineReply::Closed => "stdout closed".to_string(),
                        LineReply::TooLong => "only whitespace".to_string(),
                    };
                    format!(
                        "< {}: {what}, {}",
                        self.program.name,
                        crate::play::millis(took)
                    )
                });
                reply
            }
        };
        let over = match &self.process {
            Process::Running { process, .. } => process.over_quota().map(str::to_string),
            _ => None,
        };
        if let Some(what) = over {
            // The folder watch killed it (see `LineProcess::over_quota`).
            self.deny(&what).await;
        } else if kills_bot(&reply) {
            self.die(&reply, timeout).await;
        }
        Ok(Some(Some(reply)))
    }

    /// The bot is dead for the rest of the tournament: its group is killed.
    async fn die(&mut self, why: &LineReply, timeout: Duration) {
        let process = std::mem::replace(&mut self.process, Process::Dead);
        self.pending.clear();
        let reason = match why {
            LineReply::TimedOut => format!(
                "no move within {} ms (or its stdin stayed full): killed, dead for the rest of the tournament",
                timeout.as_millis()
            ),
            _ => "stdout closed: dead for the rest of the tournament".to_string(),
        };
        let exit = match process {
            Process::Running { mut process, .. } => process
                .kill()
                .await
                .map(|r| format!(" (process ended: {:?})", r.exit))
                .unwrap_or_default(),
            _ => String::new(),
        };
        self.log
            .section("referee", format!("{reason}{exit}\n").as_bytes());
    }

    /// What the bot is owed once a duel is decided.
    pub(super) async fn epilogue(
        &mut self,
        epilogue: Epilogue,
        timeout: Duration,
        label: &str,
        cancel: &CancellationToken,
    ) -> Result<()> {
        match epilogue {
            Epilogue::Run { args } => {
                let reply = self.run(&args, timeout, label, cancel).await?;
                if reply.ending == Ending::TimedOut {
                    self.log.section(
                        label,
                        format!(
                            "final call ({}) still running after {} ms: killed (costs nothing)",
                            args.join(" "),
                            timeout.as_millis()
                        )
                        .as_bytes(),
                    );
                }
            }
            Epilogue::Tell { bytes } => {
                if matches!(self.process, Process::Running { .. }) {
                    self.pending.extend_from_slice(&bytes);
                }
            }
        }
        Ok(())
    }

    /// Sends what is pending now.
    pub(super) fn flush(&mut self) {
        if let Process::Running { process, .. } = &self.process {
            if !self.pending.is_empty() {
                let pending = std::mem::take(&mut self.pending);
                self.traced(|| {
                    format!(
                        "> {}: {}",
                        self.program.name,
                        crate::play::lines_text(&pending)
                    )
                });
                process.send(pending);
            }
        }
    }

    /// End of the tournament: pending bytes, EOF, the grace, then the kill.
    pub(super) async fn shutdown(mut self) {
        self.flush();
        if let Process::Running { process, .. } = self.process {
            process.shutdown(Duration::from_millis(END_GRACE_MS)).await;
        }
    }
}

/// The preflight's call: turn 0 of a duel against `opponent_id`, over the
/// bot's interface (interface 1: one run; interface 2: its process
/// started, `I` and `F` written, one move read within the limit and the
/// start-up grace, then its input closed as at the end of a tournament).
/// `None` if cancelled.
pub(super) async fn first_call(
    call: &crate::challenge::FirstCall<'_>,
    interface: Interface,
    opponent_id: u32,
    side: game_gun_duel::Side,
    turns: u32,
    timeout: Duration,
) -> Result<Option<Verdict>> {
    let duel = game_gun_duel::Duel::new(turns);
    let label = format!("preflight: turn 0 of a duel against id {opponent_id}");
    if interface == Interface::ExitCode {
        let limits = Limits {
            deadline: timeout,
            stdout_cap: STDOUT_LOG_CAP,
            stderr_cap: STDERR_LOG_CAP,
        };
        let args = game_gun_duel::turn_args(opponent_id, &duel, side);
        let out = run_once_with(
            call.program,
            &args,
            &limits,
            OnOverflow::Discard,
            call.cancel,
        )
        .await?;
        if out.reply.ending == Ending::Cancelled {
            return Ok(None);
        }
        call.log.section(&label, &out.log_text(limits.deadline));
        let fault = read_exit_reply(&out.reply).and_then(|a| a.fault);
        return Ok(Some(judge_call(
            call.program,
            &out.reply,
            fault,
            &out.stderr,
        )));
    }
    let mut lines = game_gun_duel::intro_line(opponent_id);
    lines.extend_from_slice(game_gun_duel::ASK_LINE);
    let ask = crate::first_call::Ask {
        lines,
        wait: Some(timeout + Duration::from_millis(STARTUP_GRACE_MS)),
    };
    let exchanged = exchange(
        call,
        call.program,
        move_framing(),
        &label,
        vec![ask],
        Duration::from_millis(END_GRACE_MS),
    )
    .await?;
    let reply = match exchanged {
        Exchange::Cancelled => return Ok(None),
        Exchange::Judged(verdict) => return Ok(Some(verdict)),
        Exchange::Replied(mut replies) => match replies.pop() {
            Some(reply) => reply,
            None => return Ok(None),
        },
    };
    Ok(Some(match read_line_reply(&reply).fault {
        None => Verdict::Answered,
        Some(Fault::Timeout) => Verdict::Faulted(format!(
            "no move within {} ms and the start-up grace (timeout): it would be dead for the rest of the tournament",
            timeout.as_millis()
        )),
        Some(fault) => Verdict::Faulted(format!("{} for its first move", fault.name())),
    }))
}

/// Plays one duel. `observe` sees every turn. `None` if cancelled, `Err`
/// if the referee could not start a bot's process: either way the duel
/// must not be recorded. The CPU time of the duel's interface-1 runs is
/// left in each bot's `cpu` (read with [`Bot::cpu_seconds`]), with what
/// its interface-2 process used. An interface-2 bot's folder is watched
/// while it runs (`LineProcess::over_quota`), not measured per duel.
pub(super) async fn play_duel(
    turns: u32,
    seats: [Seat; 2],
    bots: [&mut Bot; 2],
    timeout: Duration,
    labels: [&str; 2],
    cancel: &CancellationToken,
    mut observe: impl FnMut(&TurnReport),
) -> Result<Option<DuelResult>> {
    let mut driver = DuelDriver::new(turns, seats);
    let [a, b] = bots;
    a.cpu = Duration::ZERO;
    b.cpu = Duration::ZERO;
    while let Some([ra, rb]) = driver.requests() {
        if cancel.is_cancelled() {
            return Ok(None);
        }
        // Both at once: neither learns the other's move first.
        let (xa, xb) = tokio::join!(
            a.ask(ra, timeout, labels[0], cancel),
            b.ask(rb, timeout, labels[1], cancel)
        );
        let (Some(xa), Some(xb)) = (xa?, xb?) else {
            return Ok(None);
        };
        let Some(report) = driver.submit([xa, xb]) else {
            return Ok(None);
        };
        observe(&report);
    }
    let Some([ea, eb]) = driver.epilogue() else {
        return Ok(None);
    };
    let (da, db) = tokio::join!(
        a.epilogue(ea, timeout, labels[0], cancel),
        b.epilogue(eb, timeout, labels[1], cancel)
    );
    da?;
    db?;
    a.add_process_cpu();
    b.add_process_cpu();
    Ok(driver.result())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_framing_hands_over_one_move_byte_and_keeps_the_rest() {
        let frame = move_framing();
        assert_eq!(
            frame(b" \n1\n0"),
            Frame::Message {
                start: 2,
                end: 3,
                consumed: 3
            }
        );
        assert_eq!(frame(b"\r\n  "), Frame::Incomplete);
        let flood = vec![b' '; game_gun_duel::MAX_WHITESPACE + 10];
        assert_eq!(
            frame(&flood),
            Frame::Overflow {
                consumed: game_gun_duel::MAX_WHITESPACE + 1,
                resync_at: None
            }
        );
    }
}
