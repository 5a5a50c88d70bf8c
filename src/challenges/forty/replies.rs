//! The engine's incoming side: what one read of a process's stdout means
//! (its handshake, or replies paired with their asks, charged and played
//! on) and which deadlines passed (handshakes, timeouts, kills), each in
//! the charged time of [`HostClock`](super::clock::HostClock).

use super::engine::{untag, Engine, State, Traffic};
use crate::bot::cpu_wait;
use crate::bot::Batch;
use game_core::LineRef;
use game_forty::pipeline::KillReason;
use game_forty::stats::nanos;
use game_forty::{wire, Decision, Failure, Observer, PipelineEvent, TimeTally};
use std::time::{Duration, Instant};

impl<O: Observer> Engine<O> {
    /// One read of a process's stdout: its handshake reply, or a group of
    /// replies charged the time measured since their service started.
    pub(super) fn on_batch(&mut self, batch: Batch) {
        let (bot, incarnation) = untag(batch.tag);
        let Some(p) = self.procs.get_mut(bot) else {
            return;
        };
        if p.incarnation != incarnation || p.state == State::Gone {
            // A killed process's last words.
            return;
        }
        if let Some(trace) = self.trace.as_mut() {
            trace(bot, Traffic::Read(&batch));
        }
        let mut pieces = &batch.pieces[..];
        if let State::Starting(_) = p.state {
            let Some((&first, rest)) = pieces.split_first() else {
                return;
            };
            match wire::judge_handshake(&batch.reply(first).to_owned_reply()) {
                Ok(name) => {
                    p.state = State::Ready;
                    p.handshake_name = name;
                }
                Err(e) => {
                    self.crash(bot, &e.to_string(), Instant::now());
                    return;
                }
            }
            pieces = rest;
            if pieces.is_empty() {
                return;
            }
        }
        // First pair every line with its ask and share the read's measured
        // time among them, which is cheap; then, if that left the process
        // idle, hand its slot to the next process before playing the games
        // on (which takes longer): the bots are the slow side, and a slot
        // waiting for the referee is a core doing nothing.
        let measured = p
            .pipeline
            .service_start()
            .map_or(Duration::ZERO, |start| p.clock.measure(start, batch.at));
        let mut paired = std::mem::take(&mut self.paired);
        p.pipeline.on_group(
            pieces.iter().map(|&piece| batch.reply(piece)),
            batch.at,
            measured,
            &mut paired,
        );
        let killed = matches!(paired.last(), Some((_, PipelineEvent::Kill(_))));
        // Whether it keeps its lane for the asks its replies lead to (see
        // [`Engine::continue_or_release`]).
        let keep = !killed && self.procs[bot].pipeline.is_idle() && self.lanes.keeps(bot);
        if !killed && !keep {
            self.release_if_idle(bot);
            self.dispatch();
        }
        for (index, event) in paired.drain(..) {
            let reply = pieces
                .get(index)
                .map_or(LineRef::Closed, |&piece| batch.reply(piece));
            match event {
                PipelineEvent::Decided {
                    token,
                    game,
                    decision,
                    charged,
                    reported,
                    budget,
                } => self.decide(bot, token, game, decision, charged, reported, || {
                    match (decision, reply) {
                        (Decision::Failed(Failure::Malformed), LineRef::Message(line)) => {
                            quoted(line)
                        }
                        (Decision::Failed(Failure::Timeout), _) => format!(
                            "its share of its batch's time, {} ms, is over the {} ms left of the turn",
                            charged.as_millis(),
                            budget.as_millis()
                        ),
                        _ => "the bot reported an error (`G e`)".to_string(),
                    }
                }),
                PipelineEvent::LateReply {
                    charged,
                    reported,
                    ask_charged,
                } => {
                    let record = self.extras.bot_mut(bot);
                    record.add_time(&late_time(charged, reported, ask_charged));
                }
                PipelineEvent::Kill(reason) => {
                    let text = match (&reason, reply) {
                        (KillReason::OutOfStep(_), LineRef::Message(line)) => {
                            format!("{}: {}", reason.describe(), quoted(line))
                        }
                        _ => reason.describe().to_string(),
                    };
                    self.crash(bot, &text, Instant::now());
                }
            }
        }
        self.paired = paired;
        if keep {
            self.continue_or_release(bot);
        } else {
            self.release_if_idle(bot);
        }
    }

    /// Handshakes and deadlines that passed by `now`, in charged time.
    pub(super) fn on_timers(&mut self, now: Instant) {
        for bot in 0..self.procs.len() {
            match self.procs[bot].state {
                State::Starting(spawned) => {
                    let p = &mut self.procs[bot];
                    if now < p.clock.wake_at(spawned + self.limits.startup) {
                        continue;
                    }
                    // Its whole tree since its spawn: a command that starts
                    // the bot through a shell waits for its child.
                    let times = p
                        .process
                        .as_ref()
                        .map_or_else(cpu_wait::Times::default, |pr| cpu_wait::tree(pr.pid()));
                    if p.clock
                        .due(spawned, self.limits.startup, now, times)
                        .is_some()
                    {
                        self.crash(bot, "no handshake reply within startup-ms", now);
                    }
                }
                State::Ready => {
                    self.expire(bot, now);
                    self.release_if_idle(bot);
                }
                State::Gone => {}
            }
        }
    }

    /// The deadlines of `bot`'s pipeline that passed by `now`, in charged
    /// time: its front ask times out, or its process is killed.
    fn expire(&mut self, bot: usize, now: Instant) {
        loop {
            let p = &mut self.procs[bot];
            let Some(deadline) = p.pipeline.deadline() else {
                return;
            };
            if now < p.clock.wake_at(deadline.nominal()) {
                return;
            }
            let times = p.clock.since_mark();
            let Some(charged) = p.clock.due(deadline.start, deadline.limit, now, times) else {
                return;
            };
            match p.pipeline.on_timer(charged) {
                Some(PipelineEvent::Decided {
                    token,
                    game,
                    decision,
                    charged,
                    reported,
                    ..
                }) => self.decide(bot, token, game, decision, charged, reported, || {
                    "no reply within the turn's time budget".to_string()
                }),
                Some(PipelineEvent::Kill(reason)) => {
                    self.crash(bot, reason.describe(), now);
                    return;
                }
                Some(PipelineEvent::LateReply { .. }) | None => return,
            }
        }
    }

    /// The earliest handshake deadline or ask deadline (or the time to
    /// look at one again).
    pub(super) fn next_wake(&self) -> Option<Instant> {
        self.procs
            .iter()
            .filter_map(|p| match p.state {
                State::Starting(spawned) => Some(p.clock.wake_at(spawned + self.limits.startup)),
                State::Ready => p.pipeline.deadline().map(|d| p.clock.wake_at(d.nominal())),
                State::Gone => None,
            })
            .min()
    }
}

/// The time of a timed-out ask's late reply: `charged` more, and if it
/// reported a time, that report stands for all of `ask_charged`.
fn late_time(charged: Duration, reported: Option<Duration>, ask_charged: Duration) -> TimeTally {
    let mut time = TimeTally::default();
    time.add(charged, None);
    if let Some(reported) = reported {
        time.reported_ns = nanos(reported);
        time.reported_charged_ns = nanos(ask_charged);
    }
    time
}

/// The text of a reply for a failure event, shortened.
fn quoted(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
    format!("reply {text:?}")
}
