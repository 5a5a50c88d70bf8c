//! The asks outstanding at one bot process, and section 5's rules for
//! pairing replies with them, deadlines and charged time.
//!
//! A process answers its asks strictly in order, so the n-th line it writes
//! pairs with the n-th outstanding ask. An ask's service starts at the later
//! of when it was written and when the previous reply arrived; only the
//! front ask is being served, so only it has a deadline. All timestamps are
//! passed in by the caller (one per read of the pipe); nothing here reads a
//! clock.
//!
//! The caller's loop for one process:
//! - after writing a batch, [`Pipeline::push`] each ask in it, with the
//!   time of the write and what is left of its turn's budget
//!   ([`crate::Game::budget_left`]);
//! - for each line read, [`Pipeline::on_line`];
//! - arm a timer for [`Pipeline::next_deadline`] and call
//!   [`Pipeline::on_timer`] when it fires;
//! - when the process must be killed, or has died, [`Pipeline::fail`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use game_core::LineRef;

use crate::decision::{Decision, Failure};
use crate::wire::{self, OutOfStep};

/// Why a process must be killed or is gone (each is one crash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillReason {
    OutOfStep(OutOfStep),
    /// A timed-out ask's reply was still missing `kill-ms` after its
    /// deadline.
    Hung,
    /// The process closed stdout or exited.
    Closed,
}

impl KillReason {
    pub fn describe(self) -> &'static str {
        match self {
            KillReason::OutOfStep(o) => o.describe(),
            KillReason::Hung => "no reply within kill-ms after the deadline",
            KillReason::Closed => "the process exited or closed stdout",
        }
    }
}

/// What a line or a timer meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineEvent<T> {
    /// The ask of `game` (the caller's `token`) has its decision; charge
    /// `charged` to the bot and to the game's turn.
    Decided {
        token: T,
        game: u64,
        decision: Decision,
        charged: Duration,
    },
    /// The discarded late reply of a timed-out ask; charge `charged` more
    /// to the bot.
    LateReply { charged: Duration },
    /// The process must be killed; then call [`Pipeline::fail`].
    Kill(KillReason),
}

/// Everything outstanding when a process failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed<T> {
    /// Asks still waiting for a decision: answer each
    /// `Decision::Failed(Failure::Crash)`.
    pub crashed: Vec<(T, u64)>,
    /// Time still charged to a timed-out ask at the front, up to the failure.
    pub charged: Duration,
}

#[derive(Debug, Clone)]
struct Pending<T> {
    token: T,
    game: u64,
    written: Instant,
    budget: Duration,
    timed_out: bool,
}

/// The asks outstanding at one process.
#[derive(Debug, Clone)]
pub struct Pipeline<T> {
    queue: VecDeque<Pending<T>>,
    /// When the previous reply arrived; the next ask's service cannot start
    /// earlier.
    last_reply: Option<Instant>,
    kill_after: Duration,
}

impl<T> Pipeline<T> {
    /// `kill_after` is `kill-ms`: how late past its deadline a reply may be
    /// before the process is killed.
    pub fn new(kill_after: Duration) -> Self {
        Pipeline {
            queue: VecDeque::new(),
            last_reply: None,
            kill_after,
        }
    }

    /// Asks written and not yet answered (timed-out ones included).
    pub fn outstanding(&self) -> usize {
        self.queue.len()
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
    }

    /// Registers an ask written at `written` with `budget` left of its
    /// turn.
    pub fn push(&mut self, token: T, game: u64, written: Instant, budget: Duration) {
        self.queue.push_back(Pending {
            token,
            game,
            written,
            budget,
            timed_out: false,
        });
    }

    fn service_start(&self, ask: &Pending<T>) -> Instant {
        match self.last_reply {
            Some(previous) if previous > ask.written => previous,
            _ => ask.written,
        }
    }

    fn deadline_of(&self, ask: &Pending<T>) -> Instant {
        self.service_start(ask) + ask.budget
    }

    /// When [`Pipeline::on_timer`] must run next: the front ask's deadline,
    /// or its kill time once it has timed out.
    pub fn next_deadline(&self) -> Option<Instant> {
        let front = self.queue.front()?;
        let deadline = self.deadline_of(front);
        Some(if front.timed_out {
            deadline + self.kill_after
        } else {
            deadline
        })
    }

    /// The front ask's deadline or kill time passed by `now`.
    pub fn on_timer(&mut self, now: Instant) -> Option<PipelineEvent<T>>
    where
        T: Clone,
    {
        let front = self.queue.front()?;
        let deadline = self.deadline_of(front);
        if front.timed_out {
            if now >= deadline + self.kill_after {
                return Some(PipelineEvent::Kill(KillReason::Hung));
            }
            return None;
        }
        if now < deadline {
            return None;
        }
        let charged = deadline.saturating_duration_since(self.service_start(front));
        let front = self.queue.front_mut()?;
        front.timed_out = true;
        Some(PipelineEvent::Decided {
            token: front.token.clone(),
            game: front.game,
            decision: Decision::Failed(Failure::Timeout),
            charged,
        })
    }

    /// One line read from the process at `now` (a message, or a line over
    /// the cap), owned or borrowed. `Closed` reports a dead process, and
    /// `TimedOut` is treated as a timer.
    pub fn on_line<'a>(
        &mut self,
        reply: impl Into<LineRef<'a>>,
        now: Instant,
    ) -> Option<PipelineEvent<T>>
    where
        T: Clone,
    {
        let line = match reply.into() {
            LineRef::Message(line) => line,
            LineRef::TooLong => {
                return Some(PipelineEvent::Kill(KillReason::OutOfStep(
                    OutOfStep::LineTooLong,
                )))
            }
            LineRef::Closed => return Some(PipelineEvent::Kill(KillReason::Closed)),
            LineRef::TimedOut => return self.on_timer(now),
        };
        let Some(front) = self.queue.front() else {
            return Some(PipelineEvent::Kill(KillReason::OutOfStep(
                OutOfStep::NoAskOutstanding,
            )));
        };
        let start = self.service_start(front);
        let decision = match wire::parse_reply(line, front.game) {
            Ok(decision) => decision,
            Err(out_of_step) => {
                return Some(PipelineEvent::Kill(KillReason::OutOfStep(out_of_step)))
            }
        };
        let front = self.queue.pop_front()?;
        self.last_reply = Some(now);
        if front.timed_out {
            let deadline = start + front.budget;
            return Some(PipelineEvent::LateReply {
                charged: now.saturating_duration_since(deadline),
            });
        }
        Some(PipelineEvent::Decided {
            token: front.token,
            game: front.game,
            decision,
            charged: now.saturating_duration_since(start),
        })
    }

    /// The process was killed or died at `now`: everything outstanding is
    /// returned and the pipeline is empty again (for a restarted process).
    pub fn fail(&mut self, now: Instant) -> Failed<T> {
        let mut charged = Duration::ZERO;
        if let Some(front) = self.queue.front() {
            if front.timed_out {
                let deadline = self.deadline_of(front);
                charged = now.saturating_duration_since(deadline);
            }
        }
        let crashed = self
            .queue
            .drain(..)
            .filter(|ask| !ask.timed_out)
            .map(|ask| (ask.token, ask.game))
            .collect();
        self.last_reply = None;
        Failed { crashed, charged }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game_core::LineReply;

    const MS: Duration = Duration::from_millis(1);

    fn msg(s: &str) -> LineReply {
        LineReply::Message(s.as_bytes().to_vec())
    }

    #[test]
    fn replies_pair_in_order_and_service_starts_after_the_previous_reply() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 3, t0, 100 * MS);
        p.push('b', 5, t0, 100 * MS);
        assert_eq!(p.next_deadline(), Some(t0 + 100 * MS));
        assert_eq!(
            p.on_line(&msg("3 1"), t0 + 10 * MS),
            Some(PipelineEvent::Decided {
                token: 'a',
                game: 3,
                decision: Decision::Throw,
                charged: 10 * MS
            })
        );
        // Game 5's service began when game 3's reply arrived.
        assert_eq!(p.next_deadline(), Some(t0 + 110 * MS));
        assert_eq!(
            p.on_line(&msg("5 e"), t0 + 14 * MS),
            Some(PipelineEvent::Decided {
                token: 'b',
                game: 5,
                decision: Decision::Failed(Failure::Error),
                charged: 4 * MS
            })
        );
        assert!(p.is_idle());
        assert_eq!(p.next_deadline(), None);
        // An ask written after an idle spell starts when written.
        p.push('c', 3, t0 + 50 * MS, 90 * MS);
        assert_eq!(p.next_deadline(), Some(t0 + 140 * MS));
    }

    #[test]
    fn an_unexpected_id_or_unasked_line_kills() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        assert_eq!(
            p.on_line(&msg("0 1"), t0),
            Some(PipelineEvent::Kill(KillReason::OutOfStep(
                OutOfStep::NoAskOutstanding
            )))
        );
        p.push((), 3, t0, 100 * MS);
        assert_eq!(
            p.on_line(&msg("4 1"), t0),
            Some(PipelineEvent::Kill(KillReason::OutOfStep(
                OutOfStep::UnexpectedId
            )))
        );
        assert_eq!(
            p.on_line(&LineReply::TooLong, t0),
            Some(PipelineEvent::Kill(KillReason::OutOfStep(
                OutOfStep::LineTooLong
            )))
        );
        // Malformed content keeps the pairing.
        assert!(matches!(
            p.on_line(&msg("3 maybe"), t0),
            Some(PipelineEvent::Decided {
                decision: Decision::Failed(Failure::Malformed),
                ..
            })
        ));
        assert!(p.is_idle());
    }

    #[test]
    fn a_timeout_stays_paired_and_its_late_reply_is_charged() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push(1u32, 0, t0, 100 * MS);
        p.push(2u32, 5, t0, 100 * MS);
        assert_eq!(p.on_timer(t0 + 99 * MS), None);
        assert_eq!(
            p.on_timer(t0 + 100 * MS),
            Some(PipelineEvent::Decided {
                token: 1,
                game: 0,
                decision: Decision::Failed(Failure::Timeout),
                charged: 100 * MS
            })
        );
        // Now the kill time is armed.
        assert_eq!(p.next_deadline(), Some(t0 + 1100 * MS));
        assert_eq!(p.on_timer(t0 + 500 * MS), None);
        assert_eq!(
            p.on_line(&msg("0 0"), t0 + 300 * MS),
            Some(PipelineEvent::LateReply { charged: 200 * MS })
        );
        // The next ask's service started with the late reply.
        assert_eq!(p.next_deadline(), Some(t0 + 400 * MS));
    }

    #[test]
    fn a_hung_process_is_killed_and_its_asks_crash() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push("g0", 0, t0, 100 * MS);
        p.push("g5", 5, t0, 100 * MS);
        assert!(p.on_timer(t0 + 100 * MS).is_some());
        assert_eq!(
            p.on_timer(t0 + 1100 * MS),
            Some(PipelineEvent::Kill(KillReason::Hung))
        );
        let failed = p.fail(t0 + 1100 * MS);
        // Game 0's turn already timed out; only game 5 crashes.
        assert_eq!(failed.crashed, vec![("g5", 5)]);
        assert_eq!(failed.charged, 1000 * MS);
        assert!(p.is_idle());
    }
}
