//! The asks outstanding at one bot process, and section 5's rules for
//! pairing replies with them, deadlines and charged time.
//!
//! A process answers its asks strictly in order, so the n-th line it writes
//! pairs with the n-th outstanding ask. The replies that arrive in one read
//! of its stdout form a *group*: they share one timestamp, so arrival times
//! cannot tell their service times apart (a host that answers a whole
//! batch in one write delivers it as one group).
//!
//! - **Service start.** A group's service started at the later of when its
//!   asks were written and when the previous group arrived.
//! - **Measured time.** The caller measures the time from the service start
//!   to the read and charges it as it sees fit (the referee leaves out the
//!   time the host waited for a CPU); this module never sees a clock.
//! - **Shares.** If every reply of the group reports its own time (`G D
//!   MICROS`), ask i gets `measured × r_i / Σr` (an even split when Σr is
//!   0); otherwise the group is split evenly. The reports only share the
//!   measured time out, so a bot that lies about them can move time between
//!   its own asks, never shorten the total.
//! - **Budgets.** An ask whose share is over what was left of its turn
//!   ([`crate::Game::budget_left`]) is a timeout, whatever its reply said.
//! - **Deadlines.** While n asks wait and no reply came, the wait ends when
//!   the time charged since the service start reaches the sum of their
//!   budgets ([`Pipeline::deadline`]): then the front ask times out (its
//!   turn is lost, so its game goes on). Its late reply is still read in
//!   order; if none comes before the charged time reaches that sum plus
//!   `kill-ms` per ask waiting, the process is killed. Scaled by the asks
//!   waiting, that is the first moment at which, however the time is
//!   shared, some ask must be more than `kill-ms` past its own budget: a
//!   process that answers a batch in one write is killed exactly when one
//!   answering ask by ask would be.
//!
//! The caller's loop for one process:
//! - after writing a batch, [`Pipeline::push`] each ask in it, with the
//!   time of the write and what is left of its turn's budget;
//! - for each read of the pipe, [`Pipeline::on_group`] with its lines, the
//!   read's timestamp and the time measured since [`Pipeline::service_start`];
//! - arm a timer for [`Pipeline::deadline`] and call [`Pipeline::on_timer`]
//!   with the time charged by then;
//! - when the process must be killed, or has died, [`Pipeline::fail`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use game_core::LineRef;

use crate::decision::{Decision, Failure};
use crate::wire::{self, Answer, OutOfStep};

/// Why a process must be killed or is gone (each is one crash).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillReason {
    OutOfStep(OutOfStep),
    /// A timed-out ask's reply was still missing `kill-ms` (per ask
    /// waiting) after the deadline.
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
    /// `charged` to the bot and to the game's turn. A timeout is either a
    /// deadline that passed or a share over `budget`.
    Decided {
        token: T,
        game: u64,
        decision: Decision,
        charged: Duration,
        /// The time the bot reported for this ask, if it did.
        reported: Option<Duration>,
        /// What was left of the turn when the ask was written.
        budget: Duration,
    },
    /// The discarded late reply of a timed-out ask; charge `charged` more
    /// to the bot. `ask_charged` is everything charged to that ask, the
    /// timeout included (what `reported`, if any, stands against).
    LateReply {
        charged: Duration,
        reported: Option<Duration>,
        ask_charged: Duration,
    },
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

/// When the wait for the front group ends: once the time charged since
/// `start` reaches `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub start: Instant,
    pub limit: Duration,
}

impl Deadline {
    /// The deadline on a machine where nothing waits for a CPU.
    pub fn nominal(&self) -> Instant {
        self.start + self.limit
    }
}

#[derive(Debug, Clone)]
struct Pending<T> {
    token: T,
    game: u64,
    written: Instant,
    budget: Duration,
    /// What was charged when it timed out; `None` while it has not.
    timed_out: Option<Duration>,
    /// Its reply, while a group is being paired.
    answer: Option<Answer>,
    /// The index of that reply's line in its group.
    line: usize,
}

/// The asks outstanding at one process.
#[derive(Debug, Clone)]
pub struct Pipeline<T> {
    queue: VecDeque<Pending<T>>,
    /// When the previous group arrived; the next ask's service cannot start
    /// earlier.
    last_reply: Option<Instant>,
    /// The sum of the queued asks' budgets (kept, not summed per look: the
    /// engine looks at every process's deadline on every wake).
    budgets: Duration,
    kill_after: Duration,
}

/// `d` in nanoseconds, wide enough for any product with another.
/// `d` in nanoseconds, saturating (a u64 holds 584 years).
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// `d` in whole microseconds, saturating.
fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// `total × part / whole` (`part` ≤ `whole`, `whole` > 0), without
/// overflow.
fn scaled(total: u64, part: u64, whole: u64) -> u64 {
    match total.checked_mul(part) {
        Some(product) => product / whole,
        None => {
            let exact = u128::from(total) * u128::from(part) / u128::from(whole);
            u64::try_from(exact).unwrap_or(total)
        }
    }
}

impl<T> Pipeline<T> {
    /// `kill_after` is `kill-ms`: how late past its deadline a reply may be
    /// (per ask waiting) before the process is killed.
    pub fn new(kill_after: Duration) -> Self {
        Pipeline {
            queue: VecDeque::new(),
            last_reply: None,
            budgets: Duration::ZERO,
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
        self.budgets = self.budgets.saturating_add(budget);
        self.queue.push_back(Pending {
            token,
            game,
            written,
            budget,
            timed_out: None,
            answer: None,
            line: 0,
        });
    }

    /// When the service of the front ask started: the later of its write
    /// and the previous group's arrival. `None` when nothing is outstanding.
    pub fn service_start(&self) -> Option<Instant> {
        let front = self.queue.front()?;
        Some(match self.last_reply {
            Some(previous) if previous > front.written => previous,
            _ => front.written,
        })
    }

    /// When [`Pipeline::on_timer`] must run next: the sum of the waiting
    /// asks' budgets, and once the front timed out, `kill-ms` per ask
    /// waiting more.
    pub fn deadline(&self) -> Option<Deadline> {
        let start = self.service_start()?;
        let front = self.queue.front()?;
        let limit = if front.timed_out.is_some() {
            let waiting = u32::try_from(self.queue.len()).unwrap_or(u32::MAX);
            self.budgets
                .saturating_add(self.kill_after.saturating_mul(waiting))
        } else {
            self.budgets
        };
        Some(Deadline { start, limit })
    }

    /// The nominal instant of [`Pipeline::deadline`].
    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadline().map(|d| d.nominal())
    }

    /// The time charged since the service start has reached `charged`: the
    /// front ask times out (charged its budget), or, if it already had,
    /// the process must be killed. `None` while `charged` is below the
    /// deadline's limit.
    pub fn on_timer(&mut self, charged: Duration) -> Option<PipelineEvent<T>>
    where
        T: Clone,
    {
        let deadline = self.deadline()?;
        if charged < deadline.limit {
            return None;
        }
        let front = self.queue.front_mut()?;
        if front.timed_out.is_some() {
            return Some(PipelineEvent::Kill(KillReason::Hung));
        }
        front.timed_out = Some(front.budget);
        Some(PipelineEvent::Decided {
            token: front.token.clone(),
            game: front.game,
            decision: Decision::Failed(Failure::Timeout),
            charged: front.budget,
            reported: None,
            budget: front.budget,
        })
    }

    /// The lines of one read of the process, which arrived at `at`;
    /// `measured` is the time charged from [`Pipeline::service_start`] to
    /// `at`. Each line's meaning is appended to `out` with the line's index
    /// in the group: a decision or late reply per reply, in order, and at
    /// most one `Kill`, last (the lines after it are not looked at).
    /// `Closed` reports a dead process; `TimedOut` is not a line and is
    /// skipped.
    pub fn on_group<'a>(
        &mut self,
        lines: impl IntoIterator<Item = LineRef<'a>>,
        at: Instant,
        measured: Duration,
        out: &mut Vec<(usize, PipelineEvent<T>)>,
    ) {
        let mut paired = 0;
        let mut kill = None;
        for (index, line) in lines.into_iter().enumerate() {
            let line = match line {
                LineRef::Message(line) => line,
                LineRef::TooLong => {
                    kill = Some((index, KillReason::OutOfStep(OutOfStep::LineTooLong)));
                    break;
                }
                LineRef::Closed => {
                    kill = Some((index, KillReason::Closed));
                    break;
                }
                LineRef::TimedOut => continue,
            };
            let Some(ask) = self.queue.get_mut(paired) else {
                kill = Some((index, KillReason::OutOfStep(OutOfStep::NoAskOutstanding)));
                break;
            };
            match wire::parse_answer(line, ask.game) {
                Ok(answer) => {
                    ask.answer = Some(answer);
                    ask.line = index;
                    paired += 1;
                }
                Err(out_of_step) => {
                    kill = Some((index, KillReason::OutOfStep(out_of_step)));
                    break;
                }
            }
        }
        if paired > 0 {
            self.settle(paired, at, measured, out);
        }
        if let Some((index, reason)) = kill {
            out.push((index, PipelineEvent::Kill(reason)));
        }
    }

    /// Shares `measured` among the first `paired` asks (answered) and
    /// turns each into its event.
    fn settle(
        &mut self,
        paired: usize,
        at: Instant,
        measured: Duration,
        out: &mut Vec<(usize, PipelineEvent<T>)>,
    ) {
        // The sum of the reports (µs), if every reply has one; a sum too big
        // for a u64 is no use either.
        let reports: Option<u64> = self.queue.range(..paired).try_fold(0u64, |sum, ask| {
            let reported = ask.answer.and_then(|a| a.reported)?;
            sum.checked_add(micros(reported))
        });
        let total = nanos(measured);
        let even = total / paired as u64;
        let mut given = 0u64;
        for i in 0..paired {
            let Some(ask) = self.queue.pop_front() else {
                break;
            };
            self.budgets = self.budgets.saturating_sub(ask.budget);
            let Some(answer) = ask.answer else {
                continue;
            };
            let share = if i + 1 == paired {
                // The last gets what rounding left: the group is charged
                // its measured time exactly.
                total.saturating_sub(given)
            } else {
                match (reports, answer.reported) {
                    (Some(sum), Some(r)) if sum > 0 => scaled(total, micros(r), sum),
                    _ => even,
                }
            };
            given = given.saturating_add(share);
            let share = Duration::from_nanos(share);
            let event = match ask.timed_out {
                Some(before) => PipelineEvent::LateReply {
                    charged: share.saturating_sub(before),
                    reported: answer.reported,
                    ask_charged: share.max(before),
                },
                None => PipelineEvent::Decided {
                    token: ask.token,
                    game: ask.game,
                    decision: if share > ask.budget {
                        Decision::Failed(Failure::Timeout)
                    } else {
                        answer.decision
                    },
                    charged: share,
                    reported: answer.reported,
                    budget: ask.budget,
                },
            };
            out.push((ask.line, event));
        }
        self.last_reply = Some(at);
    }

    /// The process was killed or died, `charged` after the service start
    /// (as the caller reckons it): everything outstanding is returned and
    /// the pipeline is empty again (for a restarted process).
    pub fn fail(&mut self, charged: Duration) -> Failed<T> {
        let charged = match self.queue.front() {
            Some(Pending {
                timed_out: Some(before),
                ..
            }) => charged.saturating_sub(*before),
            _ => Duration::ZERO,
        };
        let crashed = self
            .queue
            .drain(..)
            .filter(|ask| ask.timed_out.is_none())
            .map(|ask| (ask.token, ask.game))
            .collect();
        self.budgets = Duration::ZERO;
        self.last_reply = None;
        Failed { crashed, charged }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const US: Duration = Duration::from_micros(1);

    fn msg(s: &str) -> LineRef<'_> {
        LineRef::Message(s.as_bytes())
    }

    /// One group of reply lines, its events.
    fn group<T: Clone>(
        p: &mut Pipeline<T>,
        lines: &[&str],
        at: Instant,
        measured: Duration,
    ) -> Vec<(usize, PipelineEvent<T>)> {
        let mut out = Vec::new();
        p.on_group(lines.iter().map(|l| msg(l)), at, measured, &mut out);
        out
    }

    fn decided<T>(token: T, game: u64, decision: Decision, charged: Duration) -> PipelineEvent<T> {
        PipelineEvent::Decided {
            token,
            game,
            decision,
            charged,
            reported: None,
            budget: 100 * MS,
        }
    }

    /// (charged, decision) of each `Decided` event.
    fn charges<T>(events: &[(usize, PipelineEvent<T>)]) -> Vec<(Duration, Decision)> {
        events
            .iter()
            .filter_map(|(_, e)| match e {
                PipelineEvent::Decided {
                    charged, decision, ..
                } => Some((*charged, *decision)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn replies_pair_in_order_and_service_starts_after_the_previous_group() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 3, t0, 100 * MS);
        p.push('b', 5, t0, 100 * MS);
        assert_eq!(p.service_start(), Some(t0));
        assert_eq!(
            group(&mut p, &["3 1"], t0 + 10 * MS, 10 * MS),
            vec![(0, decided('a', 3, Decision::Throw, 10 * MS))]
        );
        // Game 5's service began when game 3's reply arrived.
        assert_eq!(p.service_start(), Some(t0 + 10 * MS));
        assert_eq!(
            group(&mut p, &["5 e"], t0 + 14 * MS, 4 * MS),
            vec![(0, decided('b', 5, Decision::Failed(Failure::Error), 4 * MS))]
        );
        assert!(p.is_idle());
        assert_eq!(p.deadline(), None);
        // An ask written after an idle spell starts when written.
        p.push('c', 3, t0 + 50 * MS, 90 * MS);
        assert_eq!(p.next_deadline(), Some(t0 + 140 * MS));
    }

    #[test]
    fn a_group_is_shared_by_the_reported_times() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        for (token, game) in [('a', 1), ('b', 2), ('c', 3)] {
            p.push(token, game, t0, 100 * MS);
        }
        // 30 ms measured for the whole group, reported 1:2:3.
        let events = group(
            &mut p,
            &["1 1 1000", "2 0 2000", "3 1 3000"],
            t0 + 40 * MS,
            30 * MS,
        );
        assert_eq!(
            charges(&events),
            vec![
                (5 * MS, Decision::Throw),
                (10 * MS, Decision::Stop),
                (15 * MS, Decision::Throw)
            ]
        );
        let reported: Vec<Option<Duration>> = events
            .iter()
            .map(|(_, e)| match e {
                PipelineEvent::Decided { reported, .. } => *reported,
                _ => None,
            })
            .collect();
        assert_eq!(
            reported,
            vec![Some(1000 * US), Some(2000 * US), Some(3000 * US)]
        );
        assert_eq!(
            events.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
    }

    #[test]
    fn a_group_without_every_report_is_split_evenly() {
        let t0 = Instant::now();
        for lines in [
            // One reply without the field.
            ["1 1 1000", "2 0", "3 1 9000"],
            // All reported, but nothing: Σr = 0.
            ["1 1 0", "2 0 0", "3 1 0"],
            // A malformed reply reports nothing.
            ["1 1 1000", "2 maybe", "3 1 9000"],
        ] {
            let mut p = Pipeline::new(1000 * MS);
            for game in 1..=3 {
                p.push(game, game, t0, 100 * MS);
            }
            let events = group(&mut p, &lines, t0 + 31 * MS, 30 * MS);
            let charged: Vec<Duration> = charges(&events).into_iter().map(|c| c.0).collect();
            assert_eq!(charged, vec![10 * MS; 3], "{lines:?}");
        }
    }

    #[test]
    fn a_group_is_charged_exactly_its_measured_time() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        for game in 0..3 {
            p.push(game, game, t0, 100 * MS);
        }
        let measured = Duration::from_nanos(10_000_001);
        let events = group(&mut p, &["0 1 1", "1 1 1", "2 1 1"], t0, measured);
        let total: Duration = charges(&events).into_iter().map(|c| c.0).sum();
        assert_eq!(total, measured);
    }

    #[test]
    fn absurd_reports_neither_overflow_nor_shorten_the_total() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        for game in 0..3 {
            p.push(game, game, t0, 100 * MS);
        }
        // Reports whose sum overflows: split evenly.
        let max = u64::MAX.to_string();
        let lines = [
            format!("0 1 {max}"),
            format!("1 1 {max}"),
            "2 1 5".to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let events = group(&mut p, &lines, t0, 30 * MS);
        let charged: Vec<Duration> = charges(&events).into_iter().map(|c| c.0).collect();
        assert_eq!(charged, vec![10 * MS; 3]);
        // One huge report among small ones takes (nearly) everything, the
        // product wider than 64 bits.
        for game in 0..2 {
            p.push(game, game, t0, 100 * MS);
        }
        let events = group(&mut p, &["0 1 1000000000000000000", "1 1 1"], t0, 300 * MS);
        let charged: Vec<Duration> = charges(&events).into_iter().map(|c| c.0).collect();
        assert_eq!(charged.iter().sum::<Duration>(), 300 * MS);
        assert!(charged[1] < MS, "{charged:?}");
    }

    #[test]
    fn a_share_over_the_budget_is_a_timeout_whatever_the_reply() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 1, t0, 100 * MS);
        p.push('b', 2, t0, 40 * MS);
        p.push('c', 3, t0, 100 * MS);
        // 160 ms in one write: 5 ms, 150 ms and 5 ms by the reports.
        let events = group(
            &mut p,
            &["1 1 5000", "2 1 150000", "3 0 5000"],
            t0 + 160 * MS,
            160 * MS,
        );
        assert_eq!(
            charges(&events),
            vec![
                (5 * MS, Decision::Throw),
                (150 * MS, Decision::Failed(Failure::Timeout)),
                (5 * MS, Decision::Stop)
            ]
        );
        // A turn with 40 ms left times out on a 41 ms share, not on 40.
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 1, t0, 40 * MS);
        p.push('b', 2, t0, 40 * MS);
        let events = group(&mut p, &["1 1 40000", "2 1 41000"], t0, 81 * MS);
        assert_eq!(
            charges(&events),
            vec![
                (40 * MS, Decision::Throw),
                (41 * MS, Decision::Failed(Failure::Timeout))
            ]
        );
    }

    #[test]
    fn a_lying_bot_only_moves_time_between_its_own_asks() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 1, t0, 100 * MS);
        p.push('b', 2, t0, 100 * MS);
        // It reports nothing spent, but 150 ms passed: split evenly, and
        // the total is charged.
        let events = group(&mut p, &["1 1 0", "2 1 0"], t0 + 150 * MS, 150 * MS);
        assert_eq!(
            charges(&events),
            vec![(75 * MS, Decision::Throw), (75 * MS, Decision::Throw)]
        );
        // Claiming all of 250 ms for one ask costs that ask its turn.
        p.push('a', 1, t0, 100 * MS);
        p.push('b', 2, t0, 100 * MS);
        let events = group(&mut p, &["1 1 1", "2 1 0"], t0 + 400 * MS, 250 * MS);
        assert_eq!(
            charges(&events),
            vec![
                (250 * MS, Decision::Failed(Failure::Timeout)),
                (Duration::ZERO, Decision::Throw)
            ]
        );
    }

    #[test]
    fn the_deadline_is_the_sum_of_the_waiting_budgets_in_charged_time() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 1, t0, 100 * MS);
        p.push('b', 2, t0, 60 * MS);
        p.push('c', 3, t0, 100 * MS);
        assert_eq!(
            p.deadline(),
            Some(Deadline {
                start: t0,
                limit: 260 * MS
            })
        );
        // 400 ms of wall time, but 250 ms of it was charged (the host
        // waited for a CPU): not yet.
        assert_eq!(p.on_timer(250 * MS), None);
        assert_eq!(
            p.on_timer(260 * MS),
            Some(decided(
                'a',
                1,
                Decision::Failed(Failure::Timeout),
                100 * MS
            ))
        );
        // Now the kill is armed: kill-ms per ask still waiting.
        assert_eq!(p.deadline().map(|d| d.limit), Some(3260 * MS));
        assert_eq!(p.on_timer(3259 * MS), None);
        assert_eq!(
            p.on_timer(3260 * MS),
            Some(PipelineEvent::Kill(KillReason::Hung))
        );
        let failed = p.fail(3300 * MS);
        // The timed-out ask is charged up to the kill; the others crash.
        assert_eq!(failed.crashed, vec![('b', 2), ('c', 3)]);
        assert_eq!(failed.charged, 3200 * MS);
        assert!(p.is_idle());
    }

    #[test]
    fn a_late_group_settles_the_timed_out_front_and_judges_the_rest() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push('a', 1, t0, 100 * MS);
        p.push('b', 2, t0, 100 * MS);
        assert!(p.on_timer(200 * MS).is_some());
        // 300 ms for both: 280 on the front (already lost), 20 on the next.
        let events = group(
            &mut p,
            &["1 1 280000", "2 0 20000"],
            t0 + 300 * MS,
            300 * MS,
        );
        assert_eq!(
            events,
            vec![
                (
                    0,
                    PipelineEvent::LateReply {
                        charged: 180 * MS,
                        reported: Some(280 * MS),
                        ask_charged: 280 * MS
                    }
                ),
                (
                    1,
                    PipelineEvent::Decided {
                        token: 'b',
                        game: 2,
                        decision: Decision::Stop,
                        charged: 20 * MS,
                        reported: Some(20 * MS),
                        budget: 100 * MS
                    }
                )
            ]
        );
        assert!(p.is_idle());
    }

    #[test]
    fn a_late_reply_alone_restarts_the_service_of_the_rest() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push(1u32, 0, t0, 100 * MS);
        p.push(2u32, 5, t0, 100 * MS);
        assert_eq!(p.on_timer(199 * MS), None);
        assert!(p.on_timer(200 * MS).is_some());
        assert_eq!(
            group(&mut p, &["0 0"], t0 + 300 * MS, 300 * MS),
            vec![(
                0,
                PipelineEvent::LateReply {
                    charged: 200 * MS,
                    reported: None,
                    ask_charged: 300 * MS
                }
            )]
        );
        // The next ask's service started with the late reply.
        assert_eq!(p.next_deadline(), Some(t0 + 400 * MS));
    }

    #[test]
    fn an_unexpected_id_or_unasked_line_kills_after_the_replies_before_it() {
        let t0 = Instant::now();
        let mut p: Pipeline<()> = Pipeline::new(1000 * MS);
        assert_eq!(
            group(&mut p, &["0 1"], t0, MS),
            vec![(
                0,
                PipelineEvent::Kill(KillReason::OutOfStep(OutOfStep::NoAskOutstanding))
            )]
        );
        p.push((), 3, t0, 100 * MS);
        p.push((), 4, t0, 100 * MS);
        let events = group(&mut p, &["3 1", "5 1", "4 1"], t0, 2 * MS);
        assert_eq!(
            events,
            vec![
                (0, decided((), 3, Decision::Throw, 2 * MS)),
                (
                    1,
                    PipelineEvent::Kill(KillReason::OutOfStep(OutOfStep::UnexpectedId))
                )
            ]
        );
        let mut out = Vec::new();
        p.on_group([LineRef::TooLong], t0, MS, &mut out);
        assert_eq!(
            out,
            vec![(
                0,
                PipelineEvent::Kill(KillReason::OutOfStep(OutOfStep::LineTooLong))
            )]
        );
        out.clear();
        p.on_group([msg("4 0"), LineRef::Closed], t0, MS, &mut out);
        assert_eq!(
            out,
            vec![
                (0, decided((), 4, Decision::Stop, MS)),
                (1, PipelineEvent::Kill(KillReason::Closed))
            ]
        );
        // Malformed content keeps the pairing.
        p.push((), 3, t0, 100 * MS);
        assert!(matches!(
            group(&mut p, &["3 maybe"], t0, MS).as_slice(),
            [(
                0,
                PipelineEvent::Decided {
                    decision: Decision::Failed(Failure::Malformed),
                    ..
                }
            )]
        ));
        assert!(p.is_idle());
    }

    #[test]
    fn a_crash_without_a_timeout_charges_nothing_more() {
        let t0 = Instant::now();
        let mut p = Pipeline::new(1000 * MS);
        p.push("g0", 0, t0, 100 * MS);
        p.push("g5", 5, t0, 100 * MS);
        let failed = p.fail(50 * MS);
        assert_eq!(failed.crashed, vec![("g0", 0), ("g5", 5)]);
        assert_eq!(failed.charged, Duration::ZERO);
        assert_eq!(p.service_start(), None);
    }
}
